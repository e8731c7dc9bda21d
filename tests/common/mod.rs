//! Shared helpers for the native tests.
#![allow(dead_code)]

use serde_json::{json, Value};
use webmcp_redact::{
    redact_with, CompiledTool, Config, Engine, Format, HandleSource, KnownSecret, KnownSecrets, Limits, Options,
    Outcome, Redactor,
};

/// Handles from a counter: tests compare outputs, so they must be predictable.
pub struct Counter(pub u64);

impl HandleSource for Counter {
    fn fill(&mut self, bytes: &mut [u8; 16]) {
        self.0 += 1;
        bytes[..8].copy_from_slice(&self.0.to_be_bytes());
        bytes[8..].copy_from_slice(&[0xab; 8]);
    }
}

pub fn tool(def: Value) -> CompiledTool {
    CompiledTool::from_value(&def, &Limits::default()).expect("tool compiles")
}

thread_local! {
    /// The memory of the last `run_with` on this thread, as the redactor that ran it would keep
    /// it: `assert_idempotent` redacts the view again with it, like that redactor would.
    static LAST: std::cell::RefCell<KnownSecrets> = std::cell::RefCell::new(KnownSecrets::default());
}

pub fn run_with(def: Value, raw: &str, format: Format, known: &[KnownSecret]) -> Outcome {
    let t = tool(def);
    let mut memory = KnownSecrets::default();
    for k in known {
        memory.note(&k.value, &k.label);
    }
    let out = redact_with(&t, raw, &Options { format, ..Options::default() }, &mut Counter(0), &mut memory);
    LAST.with(|l| *l.borrow_mut() = memory);
    out
}

pub fn run(def: Value, raw: Value) -> Outcome {
    run_with(def, &raw.to_string(), Format::Webmcp, &[])
}

pub fn agent(o: &Outcome) -> Value {
    serde_json::from_str(&o.agent_json).expect("agent view is JSON")
}

/// Fails if `canary` is anywhere in the agent view, raw or in any encoding we scrub.
pub fn assert_no_canary(o: &Outcome, canary: &str) {
    assert!(!o.agent_json.contains(canary), "canary {canary} leaked: {}", o.agent_json);
}

/// Redacting the agent view again with the same tool changes nothing, byte for byte.
pub fn assert_idempotent(def: &Value, o: &Outcome, format: Format) {
    let t = tool(def.clone());
    let options = Options { format, ..Options::default() };
    let again = LAST.with(|l| redact_with(&t, &o.agent_json, &options, &mut Counter(0), &mut l.borrow_mut()));
    assert_eq!(again.agent_json, o.agent_json, "second pass changed the result");
    assert!(again.redactions.is_empty());
}

/// Both output formats, for tests that hold a promise in each.
pub const FORMATS: [Format; 2] = [Format::Webmcp, Format::Mcp];

/// Runs `raw` through `def` in both formats: the canary must not reach the agent, and a second
/// pass over a view that is not withheld must change nothing.
pub fn closed(def: &Value, raw: &Value, canary: &str) {
    for format in FORMATS {
        let o = run_with(def.clone(), &raw.to_string(), format, &[]);
        assert!(!o.agent_json.contains(canary), "{format:?}: {canary} leaked from {raw}: {}", o.agent_json);
        if !o.withheld {
            assert_idempotent(def, &o, format);
        }
    }
}

/// Every string leaf of a value (keys not included).
pub fn string_leaves(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| string_leaves(x, out)),
        Value::Object(m) => m.values().for_each(|x| string_leaves(x, out)),
        _ => {}
    }
}

// The attack reviews' harness (tests/attack.rs, tests/attack2.rs): a long-lived redactor learns
// a value through a marked tool, then redacts a later result of an unmarked one.

pub fn redactor(format: Format) -> Redactor {
    Redactor::new(Config { format, ..Config::default() }, Box::new(Counter(0)))
}

/// A tool that marks its one property `s`.
pub const MARKED: &str = r#"{"name":"creds","outputSchema":{"properties":{"s":{"x-sensitive":true}}}}"#;
/// A tool that marks nothing.
pub const PLAIN: &str = r#"{"name":"echo"}"#;

/// Learns `secret` through `MARKED`, then returns what the agent sees of `later` (a result of
/// `PLAIN`), in both formats.
pub fn later_views(secret: Value, later: &Value) -> Vec<String> {
    [Format::Webmcp, Format::Mcp]
        .into_iter()
        .map(|format| {
            let mut r = redactor(format);
            r.redact(MARKED, &json!({ "s": secret }).to_string(), None);
            r.redact(PLAIN, &later.to_string(), None).agent_json
        })
        .collect()
}

/// Learns `value` through `MARKED`, then writes it as `encoded` into a later result (a text
/// block, a resource's text or a value's string, chosen by `rng`) and into a post's arguments:
/// what reaches the agent or passes `check()` is pushed onto `bad`.
pub fn echo_is_caught(rng: &mut Rng, value: &str, encoded: &str, bad: &mut Vec<String>) {
    let post = r#"{"name":"post","annotations":{"openWorldHint":true,"readOnlyHint":false}}"#;
    let text = format!("{}{encoded}{}", ["", "Key: ", "<td>"][rng.below(3)], ["", ".", "</td>"][rng.below(3)]);
    let later = match rng.below(3) {
        0 => text_result(&text),
        1 => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": text } }] }),
        _ => json!({ "page": { "html": text } }),
    };
    for view in later_views(json!(value), &later) {
        if view.contains(encoded) {
            bad.push(format!("{value:?} as {encoded:?}: {view}"));
        }
    }
    let mut r = redactor(Format::Webmcp);
    r.redact(MARKED, &json!({ "s": value }).to_string(), None);
    let c = r.check(post, &json!({ "body": text }).to_string(), None).unwrap();
    if !c.reasons.iter().any(|x| x.rule.code() == "secret_egress") {
        bad.push(format!("check() let {encoded:?} out"));
    }
}

/// A claim of high sensitivity, as one of the vocabularies writes it in a place.
pub fn claim(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => json!({ "sensitiveHint": true }),
        1 => json!({ "io.modelcontextprotocol/trust-annotations": { "sensitive": true } }),
        2 => json!({ "mcp.dev/resultSensitivity": "restricted" }),
        _ => json!({ "sensitive_hint": "high" }),
    }
}

/// A CallToolResult of one text block.
pub fn text_result(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

/// `depth` nested objects, each under one property named `password` plus `width` letters, each
/// with a near-miss mark: two findings per level, each pointer holding every key above it.
pub fn deep_secret_names(depth: usize, width: usize) -> Value {
    let key = format!("password{}", "x".repeat(width));
    let mut schema = json!({ "type": "string" });
    for _ in 0..depth {
        schema = json!({ "type": "object", "properties": { key.clone(): schema }, "x-sensitiv": true });
    }
    json!({ "name": "t", "outputSchema": schema })
}

/// Does the agent view (JSON text) show `needle`, as written or JSON-escaped once (a string of
/// the view) or twice (the text block that writes a structured value as JSON)?
pub fn shows(view: &str, needle: &str) -> bool {
    let once = serde_json::to_string(needle).unwrap();
    let once = &once[1..once.len() - 1];
    let twice = serde_json::to_string(once).unwrap();
    view.contains(needle) || view.contains(once) || view.contains(&twice[1..twice.len() - 1])
}

/// Both engines, both formats: the canary never reaches the agent, a second pass changes
/// nothing, and the engines agree byte for byte. Returns what went wrong.
pub fn both_engines(def: &Value, raw: &str, canary: &str) -> Vec<String> {
    use webmcp_redact::Engine;
    let Ok(t) = CompiledTool::from_value(def, &Limits::default()) else {
        return Vec::new(); // a schema that does not compile fails every call closed
    };
    let mut bad = Vec::new();
    for format in FORMATS {
        let mut views = Vec::new();
        for engine in [Engine::Streaming, Engine::Dom] {
            let options = Options { format, engine, ..Options::default() };
            let mut known = KnownSecrets::default();
            let o = redact_with(&t, raw, &options, &mut Counter(0), &mut known);
            if shows(&o.agent_json, canary) {
                bad.push(format!("{format:?} {engine:?} leaked: {raw} -> {}", o.agent_json));
            }
            if !o.withheld {
                let again = redact_with(&t, &o.agent_json, &options, &mut Counter(0), &mut known);
                if again.agent_json != o.agent_json {
                    bad.push(format!(
                        "{format:?} {engine:?} rule 10: {raw} -> {} -> {}",
                        o.agent_json, again.agent_json
                    ));
                }
            }
            views.push(o.agent_json);
        }
        if views[0] != views[1] {
            bad.push(format!("{format:?}: the engines differ on {raw}: {} / {}", views[0], views[1]));
        }
    }
    bad
}

/// A fixed-seed xorshift for the reviews' seeded families: its high bits, so that small ranges
/// are not periodic.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next() >> 32) as usize) % n
    }
    pub fn canary(&mut self) -> String {
        format!("Cz{:08x}Qx", self.next() >> 32)
    }
}

/// Runs `cases` results, each built by `build` around a fresh canary (drawn first, the tool
/// after), through both engines and both formats (`both_engines`), with a tool that marks
/// nothing or one with an object schema: none may show its canary, the engines must agree.
pub fn withheld_family(what: &str, seed: u64, cases: usize, mut build: impl FnMut(&str, &mut Rng) -> Value) {
    let mut rng = Rng(seed);
    let (mut bad, mut failed) = (Vec::new(), 0);
    for _ in 0..cases {
        let canary = rng.canary();
        let raw = build(&canary, &mut rng);
        let def = if rng.below(2) == 0 {
            json!({ "name": "p" })
        } else {
            json!({ "name": "t", "outputSchema": { "type": "object" } })
        };
        let found = both_engines(&def, &raw.to_string(), &canary);
        failed += usize::from(!found.is_empty());
        bad.extend(found);
    }
    println!("{what}: {cases}, seed {seed:#x}");
    assert!(bad.is_empty(), "{failed} of {cases}:\n{}", bad[..bad.len().min(8)].join("\n"));
}

/// For the tests that idle parts of a schema cost nothing per call: `tool(n, real, extra,
/// sensitive)` is a tool with `n` idle parts beside the subschema `real`, under `extra`
/// keywords of its root. At 1,000 and 20,000 idle parts, under `maxWork` 10,000, three calls of
/// a cached tool redact alike (marks, allowlist mode, `unevaluatedProperties`, a title).
pub fn idle_parts_cost_nothing(tool: impl Fn(usize, Value, &Value, bool) -> String) {
    let limits = Limits { max_work: 10_000, ..Default::default() };
    let raw = r#"{"content":[],"structuredContent":{"s":"hunter2-idle","a":"shown-a","b":"other-b"}}"#;
    let marked = json!({ "properties": { "s": { "x-sensitive": true }, "a": {} } });
    let extras = [json!({}), json!({ "unevaluatedProperties": { "x-sensitive": true } }), json!({ "title": "t" })];
    for (sensitive, extra) in [false, true].into_iter().flat_map(|s| extras.iter().map(move |e| (s, e))) {
        let views: Vec<String> = [1000, 20_000]
            .into_iter()
            .map(|n| {
                let tool = tool(n, marked.clone(), extra, sensitive);
                let mut r = Redactor::new(Config { limits, ..Config::default() }, Box::new(Counter(0)));
                let out = (0..3).map(|_| r.redact(&tool, raw, None).agent_json).last().expect("three");
                assert!(out.contains("secret_reference"), "not withheld whole: {n}: {out}");
                assert!(!out.contains("hunter2-idle"), "{n}: {out}");
                out
            })
            .collect();
        assert_eq!(views[0], views[1], "{extra} (sensitive {sensitive})");
    }
}

/// `s` written by encoder `how` of the ones a tool, a bridge or a template applies to text
/// (`htmlspecialchars`, numeric references in every case and padding, `encodeURIComponent`,
/// percent-escapes, form encoding, a JSON string's content or the string itself, `\u` escapes,
/// HTML5's legacy names in capitals or without `;`).
pub fn encode(s: &str, how: usize) -> String {
    let each = |f: &dyn Fn(char) -> Option<String>| -> String {
        s.chars().map(|c| f(c).unwrap_or_else(|| c.to_string())).collect()
    };
    let punct = |c: char| c.is_ascii_punctuation();
    match how {
        0 => each(&|c| match c {
            '&' => Some("&amp;".into()),
            '"' => Some("&quot;".into()),
            '<' => Some("&lt;".into()),
            '>' => Some("&gt;".into()),
            _ => None,
        }),
        1 => each(&|c| punct(c).then(|| format!("&#{};", c as u32))),
        2 => each(&|c| punct(c).then(|| format!("&#x{:x};", c as u32))),
        3 => each(&|c| punct(c).then(|| format!("&#X{:X};", c as u32))),
        4 => each(&|c| punct(c).then(|| format!("&#{:07};", c as u32))),
        5 => each(&|c| (!c.is_ascii_alphanumeric() && !"-_.!~*'()".contains(c)).then(|| format!("%{:02X}", c as u32))),
        6 => each(&|c| (!c.is_ascii_alphanumeric()).then(|| format!("%{:02x}", c as u32))),
        7 => each(&|c| match c {
            ' ' => Some("+".into()),
            c if !c.is_ascii_alphanumeric() => Some(format!("%{:02X}", c as u32)),
            _ => None,
        }),
        8 => {
            let q = serde_json::to_string(s).unwrap();
            q[1..q.len() - 1].to_string()
        }
        9 => serde_json::to_string(s).unwrap(),
        10 => each(&|c| punct(c).then(|| format!("\\u{:04X}", c as u32))),
        11 => each(&|c| punct(c).then(|| format!("\\u{:04x}", c as u32))),
        12 => each(&|c| match c {
            '&' => Some("&AMP;".into()),
            '"' => Some("&QUOT;".into()),
            '<' => Some("&LT;".into()),
            '>' => Some("&GT;".into()),
            _ => None,
        }),
        13 => each(&|c| match c {
            '&' => Some("&amp".into()),
            '"' => Some("&quot".into()),
            '<' => Some("&lt".into()),
            '>' => Some("&gt".into()),
            _ => None,
        }),
        _ => {
            // `;` left out where the next character cannot continue the reference.
            let cs: Vec<char> = s.chars().collect();
            let mut out = String::new();
            for (i, &c) in cs.iter().enumerate() {
                if punct(c) {
                    let more = cs.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric());
                    out.push_str(&format!("&#x{:x}{}", c as u32, if more { ";" } else { "" }));
                } else {
                    out.push(c);
                }
            }
            out
        }
    }
}

/// The encoders of [`encode`].
pub const ENCODERS: usize = 15;

// The leak rounds' harness (tests/review_s34_k.rs, tests/review_s36_c.rs).

/// A tool that sends what it is given, for `check()`.
pub const POST: &str = r#"{"name":"post","annotations":{"openWorldHint":true,"readOnlyHint":false}}"#;

/// Learns `value` (a JSON text) through `MARKED`, then redacts `later` (a result of `PLAIN`) in
/// both engines and both formats and checks a post of `text`: a view that `shows` accepts, or a
/// post `check()` lets out, is pushed onto `bad`.
pub fn caught_everywhere(
    value: &str,
    later: &serde_json::Value,
    text: &str,
    shows: &dyn Fn(&str) -> bool,
    bad: &mut Vec<String>,
) {
    let (marked, plain) = (tool(serde_json::from_str(MARKED).unwrap()), tool(serde_json::from_str(PLAIN).unwrap()));
    for format in FORMATS {
        for engine in [Engine::Streaming, Engine::Dom] {
            let options = Options { format, engine, ..Options::default() };
            let mut known = KnownSecrets::default();
            redact_with(&marked, &format!(r#"{{"s": {value}}}"#), &options, &mut Counter(0), &mut known);
            let out = redact_with(&plain, &later.to_string(), &options, &mut Counter(0), &mut known).agent_json;
            if shows(&out) {
                bad.push(format!("{format:?} {engine:?}: {value} as {text:?}: {out}"));
            }
        }
    }
    let mut r = redactor(Format::Webmcp);
    r.redact(MARKED, &format!(r#"{{"s": {value}}}"#), None);
    let c = r.check(POST, &json!({ "body": text }).to_string(), None).unwrap();
    if !c.reasons.iter().any(|x| x.rule.code() == "secret_egress") {
        bad.push(format!("check() let {value} as {text:?} out"));
    }
}

/// Unpadded base64url.
pub fn base64url(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for k in 0..=chunk.len() {
            out.push(char::from(A[(n >> (18 - 6 * k) & 63) as usize]));
        }
    }
    out
}
