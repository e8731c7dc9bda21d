//! The streaming engine against the oracle (issue 9): on every generated case, redacting with
//! `Engine::Streaming` and with `Engine::Dom` gives the same outcome, field for field and the
//! agent view byte for byte, and the same known-secret set afterwards. The cases are the
//! property suite's (`tests/props/`), half of them moved to a plain structured value (what the
//! streaming engine reads), and the same results written out with odd but valid JSON
//! (whitespace, escapes, exponents) that only the streaming engine sees as text. Each property
//! also counts the cases the streaming engine did read, so that it cannot pass by declining.
//!
//! `WEBMCP_PROPTEST_CASES` / `WEBMCP_PROPTEST_SEED` as for `tests/properties.rs`.

#![cfg(not(target_arch = "wasm32"))]

mod props;

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value};
use webmcp_redact::{redact_with, CompiledTool, Engine, Format, KnownSecrets, Limits, Options, Outcome};

use props::echo::{Envelope, CLAIMED_FORMS, CLAIMED_SITES};
use props::shape::Canaries;
use props::{case, Case, Counter};

/// One result through both engines, each with its own known set (`prior` results first): the
/// outcomes and the sets must agree. Returns whether the streaming engine read it.
fn agree(tool: &str, prior: &[&str], raw: &str, format: Format, limits: Limits) -> Result<bool, TestCaseError> {
    let compiled = match CompiledTool::compile(tool, &limits) {
        Ok(t) => t,
        Err(_) => return Ok(false),
    };
    let run = |engine: Engine| {
        let options = Options { format, limits, engine };
        let mut known = KnownSecrets::default();
        let mut handles = Counter(0);
        for p in prior {
            redact_with(&compiled, p, &options, &mut handles, &mut known);
        }
        let outcome = redact_with(&compiled, raw, &options, &mut handles, &mut known);
        (outcome, known.drain())
    };
    let (stream, stream_known) = run(Engine::Streaming);
    let (dom, dom_known) = run(Engine::Dom);
    let context = || format!("\ntool: {tool}\nraw: {raw}\nformat: {format:?}");
    prop_assert_eq!(&stream.agent_json, &dom.agent_json, "agent views differ{}", context());
    prop_assert_eq!(same(&stream), same(&dom), "outcomes differ{}", context());
    prop_assert_eq!(stream_known, dom_known, "known sets differ{}", context());
    prop_assert_eq!(dom.engine, Engine::Dom);
    Ok(stream.engine == Engine::Streaming)
}

/// An outcome's fields but the engine.
fn same(o: &Outcome) -> String {
    format!(
        "{:?} {:?} {} {:?} {:?} {}",
        o.redactions,
        o.secrets,
        o.withheld,
        o.error.as_ref().map(|e| (e.code, &e.pointer)),
        o.labels,
        o.unchanged
    )
}

fn built(c: &Case, plain: bool) -> props::Built {
    let mut c = c.clone();
    if plain {
        c.plan.envelope = Envelope::Plain;
    }
    c.build(&mut Canaries::default())
}

/// Counts of (cases, cases the streaming engine read) per property, or per shape of one.
struct Tally(&'static str, AtomicUsize, AtomicUsize, usize);

impl Tally {
    const fn new(name: &'static str) -> Tally {
        Tally::at_least(name, 4)
    }

    /// Past a hundred cases or so, at least one in `n` must have been read by the streaming engine.
    const fn at_least(name: &'static str, n: usize) -> Tally {
        Tally(name, AtomicUsize::new(0), AtomicUsize::new(0), n)
    }

    fn count(&self, streamed: bool) {
        let all = self.1.fetch_add(1, Relaxed) + 1;
        let read = self.2.load(Relaxed) + usize::from(streamed);
        self.2.store(read, Relaxed);
        // Past a hundred cases or so (fewer leave a quarter to chance: seeds failed at 64), at
        // least one in n (a quarter unless said) must have been read by the streaming engine.
        assert!(all < 128 || read * self.3 >= all, "the streaming engine read only {read} of {all} {}", self.0);
    }
}

static PLAIN: Tally = Tally::new("plain values");
static ODD: Tally = Tally::new("values written oddly");

property! {
    /// The property suite's cases, half of them as plain structured values, a quarter of them
    /// with so little work allowed that the walk stops somewhere.
    fn the_engines_agree_on_generated_results(t in (case(CLAIMED_SITES, CLAIMED_FORMS, 6), any::<bool>(), 0..4usize)) {
        let (c, plain, tight) = t;
        let b = built(&c, plain);
        // A quarter of the cases run out of work somewhere in the walk.
        let max_work = if tight == 0 { (b.raw.len() % 97) * 4 } else { Limits::DEFAULT_MAX_WORK };
        let limits = Limits { max_work, ..Limits::default() };
        let streamed = agree(&b.tool, &[], &b.raw, c.format, limits)?;
        PLAIN.count(streamed || !plain);
        Ok(())
    }
}

property! {
    /// The same values written with odd but valid JSON: whitespace anywhere, strings with
    /// escapes (`\uXXXX` of any character, `\/`, a surrogate pair, a lone surrogate), numbers
    /// with exponents, and keys written two ways.
    fn the_engines_agree_on_odd_json(t in (case(CLAIMED_SITES, CLAIMED_FORMS, 4), vec(any::<u8>(), 64..256))) {
        let (c, choices) = t;
        let b = built(&c, true);
        let value: Value = serde_json::from_str(&b.raw).expect("generated JSON");
        let mut odd = Odd { choices: &choices, at: 0, out: String::new() };
        odd.write(&value);
        let streamed = agree(&b.tool, &[], &odd.out, c.format, Limits::default())?;
        ODD.count(streamed);
        Ok(())
    }
}

property! {
    /// A result after another whose values the redactor learned: value matching in the
    /// streaming engine's output.
    fn the_engines_agree_after_earlier_results(t in (case(CLAIMED_SITES, CLAIMED_FORMS, 4), case(CLAIMED_SITES, CLAIMED_FORMS, 4))) {
        let (first, c) = t;
        let mut counter = Canaries::default();
        let mut earlier = first.clone();
        earlier.plan.envelope = Envelope::Plain;
        let a = earlier.build(&mut counter);
        let mut later = c.clone();
        later.root = first.root.clone();
        later.plan.envelope = Envelope::Plain;
        let b = later.build(&mut counter);
        // The second result echoes the first one's canaries in its plain strings.
        let mut raw: Value = serde_json::from_str(&b.raw).expect("generated JSON");
        if let Value::Object(map) = &mut raw {
            map.insert("echo".into(), json!(a.canaries.join(" ")));
        }
        agree(&a.tool, &[&a.raw], &raw.to_string(), c.format, Limits::default())?;
        Ok(())
    }
}

static CALLS: Tally = Tally::new("CallToolResults with structuredContent");
static BARE: Tally = Tally::new("content-only CallToolResults");
// Most of these hold a credential, a claim or a text the streaming engine declines beside it.
static BARE_JSON: Tally =
    Tally::at_least("content-only CallToolResults of JSON texts, from a tool that marks nothing", 8);

property! {
    /// CallToolResults around the case's value, as WebMCP tools return them (issue 9): its
    /// `structuredContent`, with text blocks beside it, each the value's JSON (as
    /// `JSON.stringify` writes it, or pretty), prose (echoing its canaries in value matching's
    /// forms, or not), JSON in prose, a JSON scalar, JSON that repeats a key, or a block with
    /// a field more; or only such blocks, with no `structuredContent` (content-only), now and
    /// then from a tool whose schema marks `content` (its data then, not a CallToolResult) or
    /// that marks nothing (its JSON texts, a result with claims among them, are not walked);
    /// `isError` or not (or not a boolean); a `_meta` now and then (at the top, or in the value);
    /// members and block fields in any order; sometimes after a result whose values the
    /// redactor learned.
    fn the_engines_agree_on_call_results(t in (case(CLAIMED_SITES, CLAIMED_FORMS, 0), vec(any::<u8>(), 16..48), 0..3u8)) {
        let (c, choices, prior) = t;
        let b = built(&c, true);
        let value: Value = serde_json::from_str(&b.raw).expect("generated JSON");
        let mut pick = Picks { choices: &choices, at: 0 };
        let bare = pick.next(3) == 0;
        let marks = pick.next(6);
        let tool = match (bare, marks) {
            (true, 0) => marking_content(&b.tool),
            // A tool that marks nothing: JSON in its texts is not walked, only read for claims.
            (true, 1 | 2) => unmarked(&b.tool),
            _ => b.tool.clone(),
        };
        let raw = call_result(&value, &b.canaries, &mut pick, bare);
        let unmarked_json = bare && matches!(marks, 1 | 2) && json_texts(&raw);
        // The value itself before it (its values known), or a call result of it before.
        let earlier = match prior {
            0 => vec![],
            1 => vec![b.raw.clone()],
            _ => vec![call_result(&value, &b.canaries, &mut pick, false)],
        };
        let earlier: Vec<&str> = earlier.iter().map(String::as_str).collect();
        let streamed = agree(&tool, &earlier, &raw, c.format, Limits::default())?;
        // A sensitive tool's results, and a value that is no object, are the DOM engine's.
        // The near-misses put in to be declined (a `_meta`, a text making claims) count in no
        // tally: it holds the shapes that are to be read.
        let near_miss = raw.contains(r#""_meta""#) || raw.contains("sensitiveHint");
        match bare {
            _ if c.sensitive || near_miss => {}
            true if unmarked_json => BARE_JSON.count(streamed),
            true => BARE.count(streamed),
            false if value.is_object() => CALLS.count(streamed),
            false => {}
        }
        Ok(())
    }
}

/// `tool` with its schema marking a `content` member: a result of `content` alone is its data.
fn marking_content(tool: &str) -> String {
    let mut tool: Value = serde_json::from_str(tool).expect("generated tool");
    if let Some(Value::Object(schema)) = tool.get_mut("outputSchema") {
        let properties = schema.entry("properties").or_insert_with(|| json!({}));
        if let Value::Object(properties) = properties {
            properties.insert("content".into(), json!({ "x-sensitive": true }));
        }
    }
    tool.to_string()
}

/// Does the result have a text block that is a JSON object or array as a whole?
fn json_texts(raw: &str) -> bool {
    let raw: Value = serde_json::from_str(raw).expect("generated JSON");
    let texts = raw["content"].as_array().into_iter().flatten().filter_map(|b| b["text"].as_str());
    texts.into_iter().any(|t| t.trim_start().starts_with(['{', '[']) && serde_json::from_str::<Value>(t).is_ok())
}

/// `tool` without its `outputSchema`: it marks nothing.
fn unmarked(tool: &str) -> String {
    let mut tool: Value = serde_json::from_str(tool).expect("generated tool");
    if let Value::Object(t) = &mut tool {
        t.shift_remove("outputSchema");
    }
    tool.to_string()
}

/// Choices, one by one.
struct Picks<'c> {
    choices: &'c [u8],
    at: usize,
}

impl Picks<'_> {
    fn next(&mut self, n: u8) -> u8 {
        let c = self.choices[self.at % self.choices.len()];
        self.at += 1;
        c % n
    }
}

/// A CallToolResult around `value` (see `the_engines_agree_on_call_results`); `bare`: with no
/// `structuredContent`.
fn call_result(value: &Value, canaries: &[String], pick: &mut Picks, bare: bool) -> String {
    // Now and then a value of its own that only echoes a canary (known from a result before).
    let own = json!({ "summary": format!("about {}", canaries.first().map_or("nothing", String::as_str)) });
    let value = if pick.next(5) == 0 { &own } else { value };
    let compact = value.to_string();
    let mut blocks = Vec::new();
    for i in 0..pick.next(4) {
        let canary = canaries.get(usize::from(pick.next(8))).map_or("nothing", String::as_str);
        let form = CLAIMED_FORMS[usize::from(pick.next(CLAIMED_FORMS.len() as u8))];
        let scalars = ["42", " \"pending\" ", "true", "null", "-0.5e3", "\"a \\\"quoted\\\" word\""];
        // Content-only, mostly prose (the shape the streaming engine reads), now and then JSON.
        let kind = match pick.next(17) {
            1..=4 if bare => [8, 14][usize::from(pick.next(2))],
            kind => kind,
        };
        let text = match kind {
            0..=4 => compact.clone(),
            5 => serde_json::to_string_pretty(value).expect("JSON"),
            6 | 7 => format!("note {i}: {}.", props::echo::encode(form, canary)),
            8 => format!("Done: {i} item(s) updated."),
            9 => format!("Result: {compact}"),
            10 => format!(" {compact}"),
            11 => format!("see {canary}"),
            12 => scalars[usize::from(pick.next(scalars.len() as u8))].to_string(),
            13 => format!(r#"{{"n":{i},"n":"{canary}"}}"#), // repeats a key: an error where parsed
            14 => format!("{i} item(s), \"{canary}\" among them"),
            // JSON holding a result that makes claims (`claims::of_result` reads it).
            15 => format!(r#"[{{"structuredContent":{{}},"annotations":{{"sensitiveHint":true}}}},"{canary}"]"#),
            _ => canary.to_string(),
        };
        let mut block = vec![("type", json!("text")), ("text", json!(text))];
        if pick.next(3) == 0 {
            block.reverse();
        }
        match pick.next(12) {
            0 => block.push(("annotations", json!({ "priority": 0.5 }))),
            1 => block.push(("note", json!(canary))),
            2 => block[0].1 = json!(["not", "a", "string"]),
            _ => {}
        }
        blocks.push(Value::Object(block.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
    }
    let mut top = vec![("content", Value::Array(blocks))];
    if !bare {
        top.push(("structuredContent", value.clone()));
    }
    match pick.next(8) {
        0 | 1 => top.push(("isError", json!(true))),
        2 => top.insert(0, ("isError", json!(false))),
        3 => top.push(("isError", json!("yes"))),
        _ => {}
    }
    // A `_meta` (the DOM engine's wherever it stands): at the top, empty or not, or in the value.
    match pick.next(24) {
        0 => top.push(("_meta", json!({}))),
        1 => top.insert(0, ("_meta", json!({ "progressToken": 1 }))),
        2 => {
            if let Some((_, Value::Object(v))) = top.iter_mut().find(|(k, _)| *k == "structuredContent") {
                v.insert("_meta".into(), json!(1));
            }
        }
        _ => {}
    }
    if pick.next(3) == 0 {
        top.reverse();
    }
    Value::Object(top.into_iter().map(|(k, v)| (k.to_string(), v)).collect()).to_string()
}

/// Writes a value as valid JSON in an odd way, choice by choice.
struct Odd<'c> {
    choices: &'c [u8],
    at: usize,
    out: String,
}

impl Odd<'_> {
    fn next(&mut self) -> u8 {
        let c = self.choices[self.at % self.choices.len()];
        self.at += 1;
        c
    }

    fn ws(&mut self) {
        let spaces = [" ", "\n", "\t ", "\r\n  ", ""];
        let c = self.next() as usize;
        if c % 3 == 0 {
            self.out.push_str(spaces[c / 3 % spaces.len()]);
        }
    }

    fn write(&mut self, v: &Value) {
        self.ws();
        match v {
            Value::Object(map) => {
                self.out.push('{');
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.ws();
                    self.string(k);
                    self.ws();
                    self.out.push(':');
                    self.write(v);
                }
                self.ws();
                self.out.push('}');
            }
            Value::Array(items) => {
                self.out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.write(v);
                }
                self.ws();
                self.out.push(']');
            }
            Value::String(s) => self.string(s),
            Value::Number(n) => {
                let text = n.to_string();
                match self.next() % 4 {
                    0 if !text.contains(['e', 'E', '.']) => self.out.push_str(&format!("{text}E0")),
                    1 if !text.contains(['e', 'E']) => self.out.push_str(&format!("{text}e+00")),
                    _ => self.out.push_str(&text),
                }
            }
            other => self.out.push_str(&other.to_string()),
        }
        self.ws();
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for ch in s.chars() {
            let c = self.next();
            match ch {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '/' if c % 2 == 0 => self.out.push_str("\\/"),
                ch if (ch as u32) < 0x20 || c % 5 == 0 => {
                    let mut units = [0u16; 2];
                    for u in ch.encode_utf16(&mut units) {
                        self.out.push_str(&if c % 10 == 0 { format!("\\u{u:04X}") } else { format!("\\u{u:04x}") });
                    }
                }
                ch => self.out.push(ch),
            }
        }
        if self.next() % 17 == 0 {
            self.out.push_str("\\ud83d"); // a lone surrogate, as JSON.stringify writes a cut emoji
        }
        self.out.push('"');
    }
}

/// The bench's key records with a count: `{ keys: [{ id, secret (marked) }], n }`.
fn keys_tool() -> String {
    json!({ "name": "k", "outputSchema": { "type": "object", "properties": {
        "keys": { "type": "array", "items": { "type": "object", "properties": {
            "id": { "type": "string" }, "secret": { "type": "string", "x-sensitive": true } } } },
        "n": { "type": "integer" } } } })
    .to_string()
}

/// The tools the bench measures, with hand-written results that reach each decline and each
/// writing rule once: the engines agree, and the streaming engine reads what it should.
#[test]
fn the_engines_agree_on_each_rule() {
    let keys = keys_tool();
    let cases: &[(&str, bool)] = &[
        (r#"{"keys":[{"id":"a","secret":"S1"},{"secret":"S2","id":"b"},{"secret":"S3"}],"n":1}"#, true),
        (" {\n \"keys\" : [ { \"secret\" : \"S1\" , \"id\" : \"a\" } ] , \"n\" : 1E2 } \n", true),
        (r#"{"keys":[{"id":"\u0041\/\ud83d\ude00\ud83d","secret":"S\u0031"}]}"#, true),
        (r#"{"k\u0065ys":[{"id":"a","s\u0065cret":"S1"}]}"#, true),
        (r#"{"keys":[{"secret":{"nested":["S1",2,null]},"id":"a"}],"n":"not an integer"}"#, true),
        (r#"{"keys":[1,"x",null,[{"secret":"S1"}]],"n":-0.5e-3}"#, true),
        (r#"{"keys":[],"n":1}"#, true),
        (r#"{"keys":[{"secret":"S1","secret":"S2"}]}"#, false),
        (r#"{"keys":[{"secret":"S1"}],"_meta":{"x":1}}"#, false),
        (r#"{"content":[{"type":"text","text":"hi"}],"keys":[]}"#, false),
        (r#"{"keys":[{"secret":"S1"}],"note":"AKIAFAKE2EXAMPLE7KEY"}"#, false),
        (r#"{"keys":[{"secret":"S1"}],"note":"webmcp-redact/x"}"#, false),
        (r#"{"keys":[{"secret":"S1"}]"#, false),
        (r#"{"keys":[{"secret":"S1"}]} x"#, false),
        (r#"[{"secret":"S1"}]"#, false), // the root's type is contradicted: taken whole
        (r#"{"keys":[{"secret":"S1"}],"more":{"a":[1,2,{"b":"c"}]}}"#, true),
        ("\"just a string\"", false),
    ];
    for format in Format::ALL {
        for &(raw, streams) in cases {
            let streamed = agree(&keys, &[], raw, format, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(streamed, streams, "{raw} ({format:?})");
        }
    }
}

/// CallToolResults with the `keys` tool: what the streaming engine reads (a structuredContent
/// object, text blocks that are its JSON as written or prose, `isError`) and what it leaves to
/// the DOM engine, each agreeing with it.
#[test]
fn the_engines_agree_on_each_call_result_rule() {
    let keys = keys_tool();
    let value = r#"{"keys":[{"id":"a","secret":"S1"},{"id":"b","secret":"AKIA2OGYBAH6STMMNXNN"}],"n":1}"#;
    let text = |t: &str| json!({ "type": "text", "text": t });
    let result = |blocks: Vec<Value>, rest: &str| {
        format!(r#"{{"content":{},"structuredContent":{value}{rest}}}"#, Value::Array(blocks))
    };
    let dup = || text(value);
    let pretty = serde_json::to_string_pretty(&serde_json::from_str::<Value>(value).unwrap()).unwrap();
    let cases: Vec<(String, bool)> = vec![
        (result(vec![dup()], ""), true),
        (result(vec![dup(), text("Created 2 keys."), dup()], r#","isError":false"#), true),
        (result(vec![], r#","isError":true"#), true),
        (result(vec![json!({ "text": value, "type": "text" })], ""), true),
        (result(vec![text("the key S1 and AKIA2OGYBAH6STMMNXNN")], ""), true),
        (format!(r#" {{ "isError" : false , "structuredContent" : {value} , "content" : [ ] }} "#), true),
        // The duplicate as written, escapes and all.
        (
            r#"{"structuredContent":{"keys":[{"id":"a\u0041","secret":"S\u0031"}]},"content":[{"type":"text","text":"{\"keys\":[{\"id\":\"a\\u0041\",\"secret\":\"S\\u0031\"}]}"}]}"#
                .to_string(),
            true,
        ),
        (result(vec![text(&pretty)], ""), false),
        (result(vec![text(&format!("Result: {value}"))], ""), false),
        (result(vec![text("a token 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")], ""), false),
        (result(vec![json!({ "type": "text", "text": "x", "annotations": { "priority": 1 } })], ""), false),
        (result(vec![json!({ "type": "text", "text": "x", "note": "y" })], ""), false),
        (result(vec![json!({ "type": "image", "data": "AAAA", "mimeType": "image/png" })], ""), false),
        (result(vec![dup()], r#","isError":"yes""#), false),
        (result(vec![dup()], r#","_meta":{"x":1}"#), false),
        (result(vec![dup()], r#","extra":1"#), false),
        (result(vec![dup()], r#","content":[]"#), false),
        (r#"{"content":[],"structuredContent":[1]}"#.to_string(), false),
        (r#"{"content":[],"structuredContent":{"keys":[]},"#.to_string(), false),
        // Content only: prose blocks and `isError` are read; JSON (a scalar as a whole too,
        // which the schema walks as the value), claims, credentials and other blocks are not.
        (r#"{"content":[{"type":"text","text":"Created 2 keys."}]}"#.to_string(), true),
        (r#"{"isError":true,"content":[{"text":"2 keys, \"S1\" among them","type":"text"}]}"#.to_string(), true),
        (r#"{"content":[]}"#.to_string(), true),
        (r#"{"content":[{"type":"text","text":"the key S1, kept"}]}"#.to_string(), true),
        (r#"{"content":[{"type":"text","text":"42"}]}"#.to_string(), false),
        (r#"{"content":[{"type":"text","text":" \"pending\" "}]}"#.to_string(), false),
        (format!(r#"{{"content":[{}]}}"#, dup()), false),
        (r#"{"content":[{"type":"text","text":"{\"n\":1,\"n\":2}"}]}"#.to_string(), false),
        (r#"{"content":[{"type":"text","text":"a token 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"}]}"#.to_string(), false),
        (r#"{"content":[{"type":"text","text":"see %7B%22_meta%22:%7B%22sensitiveHint%22:true%7D%7D"}]}"#.to_string(), false),
        (r#"{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}"#.to_string(), false),
        (r#"{"content":[{"type":"text","text":"hi"}],"_meta":{"x":1}}"#.to_string(), false),
        (r#"{"content":[{"type":"text","text":"hi"}],"isError":"yes"}"#.to_string(), false),
    ];
    // Claims inside the value, in it and in its duplicate: read by the claims reader either way.
    let claiming = [
        r#"{"keys":[{"id":"a","secret":"S1"}],"annotations":{"sensitiveHint":true}}"#,
        r#"{"keys":[{"id":"a","secret":"S1"}],"_meta":{"annotations":{"untrustedContentHint":true}}}"#,
        r#"{"keys":[{"id":"a","secret":"S1","annotations":{"sensitiveHint":"high"}}]}"#,
    ];
    for format in Format::ALL {
        for v in claiming {
            let raw = format!(r#"{{"content":[{}],"structuredContent":{v}}}"#, text(v));
            agree(&keys, &[], &raw, format, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    // A schema that marks `content`: a result of `content` alone is its data, walked as such.
    let marks_content = json!({ "name": "d", "outputSchema": { "type": "object", "properties": {
        "content": { "type": "array", "x-sensitive": true } } } })
    .to_string();
    for format in Format::ALL {
        let raw = r#"{"content":[{"type":"text","text":"Created 2 keys."}]}"#;
        assert!(!agree(&marks_content, &[], raw, format, Limits::default()).unwrap_or_else(|e| panic!("{e}")));
        for (raw, streams) in &cases {
            let streamed = agree(&keys, &[], raw, format, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(streamed, *streams, "{raw} ({format:?})");
            let streamed = agree(&keys, &[value], raw, format, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(streamed, *streams, "after the value: {raw} ({format:?})");
        }
    }
}

/// Content-only results of a tool whose schema marks nothing (or that has none): a text that is
/// one JSON object or array making no claims is read (the DOM engine passes it as prose); JSON
/// the claims reader reads something in, or fails on, and JSON in prose are not.
#[test]
fn the_engines_agree_on_content_only_json_without_marks() {
    let tools = [
        r#"{"name":"n"}"#.to_string(),
        json!({ "name": "o", "outputSchema": { "type": "object", "properties": { "a": { "type": "string" } } } })
            .to_string(),
    ];
    let only = |t: &str| json!({ "content": [{ "type": "text", "text": t }] }).to_string();
    let cases = [
        (only(r#"{"a":"x\u00e9","n":[1,2.5e3,"é"]}"#), true),
        (only("[\n  {\n    \"a\": \"AKIA2OGYBAH6STMMNXNN\"\n  }\n]"), false), // a credential: the DOM engine's
        (only("  {\n  \"a\": \"b\",\n  \"nested\": {\"c\": null}\n}"), true),
        (only(r#"[{"a":1},{"b":[true,false]}]"#), true),
        (only(r#"{"a":1,"a":2}"#), false),
        (only(r#"{"_meta":{"sensitiveHint":true},"a":1}"#), false),
        (only(r#"{"x":{"annotations":{"sensitiveHint":true}}}"#), false),
        (only(r#"[{"content":[{"type":"text","text":"hi"}]}]"#), false),
        (only(r#"{"out":"{\"_meta\":{\"sensitiveHint\":true}}"}"#), false),
        (only(r#"{"a":1} and more"#), false),
        (only(r#"Result: {"a":1}"#), false),
        (only(&format!("{}1{}", "[".repeat(200), "]".repeat(200))), false),
    ];
    let marked = keys_tool();
    for format in Format::ALL {
        for tool in &tools {
            for (raw, streams) in &cases {
                let streamed = agree(tool, &[], raw, format, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(streamed, *streams, "{raw} ({format:?}, {tool})");
            }
        }
        // Where the schema marks something, the JSON is walked as the value: the DOM engine's.
        let raw = only(r#"{"keys":[{"id":"a","secret":"S1"}]}"#);
        assert!(!agree(&marked, &[], &raw, format, Limits::default()).unwrap_or_else(|e| panic!("{e}")));
    }
}

/// Past the depth limit or the size limit the streaming engine declines, and the DOM engine
/// withholds the result as before; past the work limit the streaming engine withholds it
/// itself, exactly as the DOM engine does (without running the walk a second time).
#[test]
fn limits_are_the_dom_engines() {
    let tree = json!({ "name": "t", "outputSchema": { "$defs": { "n": { "type": "object", "properties": {
        "token": { "type": "string", "x-sensitive": true }, "c": { "$ref": "#/$defs/n" } } } }, "$ref": "#/$defs/n" } })
    .to_string();
    let deep = |n: usize| format!("{}null{}", r#"{"token":"T","c":"#.repeat(n), "}".repeat(n));
    let small = Limits { max_depth: 8, ..Limits::default() };
    assert!(agree(&tree, &[], &deep(8), Format::Webmcp, small).unwrap());
    assert!(!agree(&tree, &[], &deep(9), Format::Webmcp, small).unwrap());
    // Inside a CallToolResult the value is a level deeper, and so is its duplicate text.
    let call = |n: usize| {
        let value = deep(n);
        let text = Value::String(value.clone());
        format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{value}}}"#)
    };
    assert!(agree(&tree, &[], &call(8), Format::Webmcp, small).unwrap());
    assert!(!agree(&tree, &[], &call(9), Format::Webmcp, small).unwrap());
    let tiny = Limits { max_input_bytes: 40, ..Limits::default() };
    assert!(!agree(&tree, &[], &deep(3), Format::Webmcp, tiny).unwrap());
    for max_work in [0, 1, 5, 20, 50, 100, 200, 400] {
        let little_work = Limits { max_work, ..Limits::default() };
        for format in Format::ALL {
            assert!(agree(&tree, &[], &deep(60), format, little_work).unwrap(), "max_work {max_work}");
            let keys = r#"{"token":"T","c":{"token":"U","c":null,"x":"AKIAFAKE2EXAMPLE7KEY"}}"#;
            agree(&tree, &[], keys, format, little_work).unwrap();
            assert!(agree(&tree, &[], &call(30), format, little_work).unwrap(), "max_work {max_work}");
        }
    }
    let compiled = CompiledTool::compile(&tree, &Limits::default()).unwrap();
    let options = Options { limits: Limits { max_work: 200, ..Limits::default() }, ..Options::default() };
    let o = redact_with(&compiled, &deep(60), &options, &mut Counter(0), &mut KnownSecrets::default());
    assert_eq!(o.error.map(|e| e.code), Some(webmcp_redact::ErrorCode::WorkLimit));
}

/// The work a result costs is its own: a compiled tool keeps nothing a result worked out (its
/// regexes' DFA states included) for the next, so the smallest `max_work` a result passes with is
/// the same on a fresh tool and on one that redacted it before.
#[test]
fn work_does_not_depend_on_earlier_results() {
    let patterns: serde_json::Map<String, Value> =
        (0..40).map(|i| (format!("^[kK]{i}[a-z]*(?:_x|y)+$"), json!({ "x-sensitive": true }))).collect();
    let tool = json!({ "name": "t", "outputSchema": { "type": "object", "patternProperties": patterns } }).to_string();
    let raw = Value::Object((0..40).map(|i| (format!("k{i}abcdef_xy_x"), json!(i))).collect()).to_string();
    let passes = |compiled: &CompiledTool, max_work: usize| {
        let options = Options { limits: Limits { max_work, ..Limits::default() }, ..Options::default() };
        let o = redact_with(compiled, &raw, &options, &mut Counter(0), &mut KnownSecrets::default());
        o.error.is_none()
    };
    let fresh = || CompiledTool::compile(&tool, &Limits::default()).unwrap();
    let (mut lo, mut hi) = (0, 1 << 20);
    assert!(passes(&fresh(), hi) && !passes(&fresh(), lo));
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if passes(&fresh(), mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let warm = fresh();
    for _ in 0..3 {
        assert!(passes(&warm, hi));
    }
    assert!(!passes(&warm, hi - 1), "a tool that redacted the result before needs as much work for it ({hi})");
}

/// Known values echoed in a later result's plain strings, keys and numbers, in the forms value
/// matching reads (a short value as a token, base64, percent and HTML escapes, a number): the
/// streaming engine reads the text block whole first and the strings one by one only where it
/// must, and still agrees with the DOM engine on every one.
#[test]
fn the_engines_agree_on_known_values_in_every_form() {
    let tool = json!({ "name": "k", "outputSchema": { "type": "object", "properties": {
        "keys": { "type": "array", "items": { "type": "object", "properties": {
            "secret": { "x-sensitive": true } } } } } } })
    .to_string();
    let prior =
        r#"{"keys":[{"secret":"737"},{"secret":"sk_live_abcdef"},{"secret":1700000123},{"secret":"a+b/c=d&e"}]}"#;
    let echoes = [
        r#"{"note":"CVV 737 ok"}"#,
        r#"{"note":"17370"}"#,
        r#"{"n":1700000123}"#,
        r#"{"n":1.700000123e9}"#,
        r#"{"sk_live_abcdef":1}"#,
        r#"{"note":"c2tfbGl2ZV9hYmNkZWY="}"#,
        r#"{"note":"x c2tfbGl2ZV9hYmNkZWY y"}"#,
        r#"{"note":"a%2Bb%2Fc%3Dd%26e"}"#,
        r#"{"note":"a+b/c=d&amp;e"}"#,
        r#"{"note":"sk_live_abc","more":"def"}"#,
        r#"{"note":"sk_live_\u0061bcdef"}"#,
        r#"{"note":"737"}"#,
        r#"{"a":"7","b":"37"}"#,
    ];
    for format in Format::ALL {
        for raw in echoes {
            let streamed = agree(&tool, &[prior], raw, format, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
            assert!(streamed, "{raw}");
        }
    }
}
