//! Review s30 (helper M): bounded cost. Work is counted, never timed: units of the work limit,
//! bytes of text the claims reader parses, bytes allocated (a counting allocator, per thread).

// Native only: the module has its own counting allocator on wasm32.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::Cell;

mod common;
mod counting;

use counting::allocated;

use serde_json::{json, Value};
use webmcp_redact::model::Level;
use webmcp_redact::policy::claims::of_result;
use webmcp_redact::Config;

/// A tool whose `allOf` holds `n` members that do nothing but through others (`{"allOf":
/// [{}]}`, a `$ref` to `{}`, a chain of them) beside `real`, under `extra` keywords of the root.
fn wrapped_idle_members(n: usize, real: Value, extra: &Value, sensitive: bool) -> String {
    let idle = [
        json!({ "allOf": [{}] }),
        json!({ "$ref": "#/$defs/empty" }),
        json!({ "allOf": [{ "$ref": "#/$defs/chain" }, true], "description": "d" }),
        json!({ "$ref": "#/$defs/chain", "allOf": [{ "allOf": [{ "$comment": "c" }] }] }),
    ];
    let mut all: Vec<Value> = (0..n).map(|i| idle[i % idle.len()].clone()).collect();
    all.insert(n / 2, real);
    let defs = json!({ "empty": {}, "chain": { "$ref": "#/$defs/empty", "allOf": [true] } });
    let mut schema = json!({ "type": "object", "allOf": all, "$defs": defs });
    schema.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
    json!({ "name": "idle", "annotations": { "sensitiveHint": sensitive }, "outputSchema": schema }).to_string()
}

/// Review s29 stopped visiting `allOf` members that do nothing per call (`{}`, `true`), but a
/// member that only applies such members (`{"allOf": [{}]}`), or a `$ref` to one, was still
/// visited per call, with every member under it: a cached schema of 20,000 of them ended a
/// small result with `work_limit` under a `maxWork` of 10,000 that a walk of what the schema
/// says decides cheaply. Doing nothing now carries through `allOf` and `$ref` (compiled once),
/// and 20,000 of them redact within the work of 1,000, to the same output. Fails without the
/// fix: `work_limit` at 20,000.
#[test]
fn members_that_only_apply_members_that_do_nothing_cost_nothing_per_call() {
    common::idle_parts_cost_nothing(wrapped_idle_members);
}

/// Bytes allocated per byte of `text` by `f`.
fn per_byte<T>(text: &str, f: impl FnOnce() -> T) -> f64 {
    allocated(f).0 as f64 / text.len() as f64
}

/// Texts of about `n` units each that a hand-written parser could read in more than linear
/// time or memory: deep nesting of arrays and of objects (a key set per object for duplicate
/// keys), strings of escapes, many keys (plain and escaped), a repeated key at the very end,
/// many empty objects, long numbers.
fn parser_texts(n: usize) -> Vec<(&'static str, String)> {
    const DEEP: usize = 120;
    let keys = |f: &dyn Fn(usize) -> String| (0..n).map(|i| format!("\"{}\":{i}", f(i))).collect::<Vec<_>>().join(",");
    vec![
        // Nesting as deep as the parser is let go (`parse_json` stops at the default depth
        // limit, review s31), `n` brackets in all.
        ("arrays", format!("[{}]", vec![format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP)); n / DEEP].join(","))),
        (
            "objects",
            format!("[{}]", vec![format!("{}1{}", "{\"a\":".repeat(DEEP), "}".repeat(DEEP)); n / DEEP].join(",")),
        ),
        ("escapes", format!("[\"{}\"]", "\\u00e9\\n\\\"\\\\\\ud83d\\ude00".repeat(n))),
        ("keys", format!("{{{}}}", keys(&|i| format!("k{i}")))),
        ("escaped keys", format!("{{{}}}", keys(&|i| format!("\\u006b{i}\\n")))),
        ("repeated key at the end", format!("{{{},\"k0\":1}}", keys(&|i| format!("k{i}")))),
        ("empty objects", format!("[{}{{}}]", "{},".repeat(n))),
        ("long number", format!("[1{}e-999999999999999999999]", "0".repeat(n))),
    ]
}

/// The hand-written parser (review s29) and the duplicate-key scan before it, at `n` and `4n`:
/// the bytes allocated per input byte stay flat (quadratic work or memory shows as 4x), and
/// bounded. Found linear; a guard.
#[test]
fn the_parser_allocates_in_proportion_to_its_text() {
    let n = 20_000;
    for ((name, small), (_, large)) in parser_texts(n).into_iter().zip(parser_texts(4 * n)) {
        let expect_ok = !name.starts_with("repeated");
        let [a, b] = [&small, &large].map(|t| {
            per_byte(t, || {
                let limits = webmcp_redact::Limits { max_input_bytes: usize::MAX, ..Default::default() };
                let read = webmcp_redact::parse_json_with(t, &limits);
                assert_eq!(read.is_ok(), expect_ok, "{name}");
                std::mem::forget(read); // dropping deep nesting recurses (serde_json's `Drop`)
            })
        });
        println!("parser {name}: {a:.1} B/B at n, {b:.1} B/B at 4n");
        assert!(b <= 1.5 * a + 4.0, "{name}: {a:.1} B allocated per byte at n, {b:.1} at 4n");
        // Nesting is the most: a bracket of one byte opens a container of its own (406 B).
        assert!(b <= 512.0, "{name}: {b:.1} B allocated per byte");
    }
}

/// A result whose blocks hold `texts`.
fn blocks(texts: impl IntoIterator<Item = String>) -> Value {
    let content: Vec<Value> = texts.into_iter().map(|t| json!({ "type": "text", "text": t })).collect();
    json!({ "content": content })
}

/// A result at the bottom of the shapes below: it claims, so each reading must reach it.
fn claiming(i: usize) -> Value {
    json!({ "content": [{ "type": "text", "text": format!("v{i}") }], "_meta": { "sensitiveHint": true } })
}

/// Results of about `n` units that could make the claims reader (and its decoded views, review
/// s29) read the same bytes more than a constant number of times.
fn claims_shapes(n: usize) -> Vec<(&'static str, Value)> {
    let inner = claiming(0).to_string();
    let html = inner.replace('"', "&quot;");
    let percent = inner.replace('{', "%7B").replace('"', "%22").replace('}', "%7D");
    // Prose that names a place and holds a result written as JSON, HTML and percent-encoded.
    let prose = |i: usize| format!("n{i} _meta: {inner} and {html} and {percent} \\\" &amp; %25");
    // Level k: prose around a result of four blocks, each level k-1 (the same text four times).
    let mut nested = prose(0);
    while nested.len() < 40 * n {
        nested = format!("x _meta {} y", blocks(vec![nested; 4]));
    }
    let distinct_nested = |n: usize| {
        let mut t = prose(n);
        for level in 0..6 {
            t = format!("L{level} _meta {} &quot;", blocks([t, prose(level)]));
        }
        t
    };
    let mut keys = serde_json::Map::new();
    for i in 0..n / 4 {
        keys.insert(format!("{{\"_meta\":{{\"k{i}\":1}}}} {}", claiming(i)), json!(prose(i)));
    }
    vec![
        (
            "identical texts naming no place",
            blocks(vec![blocks([format!("[{}]", "1,".repeat(20) + "1")]).to_string(); n]),
        ),
        ("identical texts naming a place", blocks(vec![prose(0); n / 4])),
        ("distinct texts naming a place", blocks((0..n / 4).map(prose))),
        ("texts nested four times over", blocks([nested])),
        ("distinct texts nested six deep", blocks((0..n / 64).map(distinct_nested))),
        ("one prose of many results", blocks([(0..n / 4).map(prose).collect::<Vec<_>>().join(" | ")])),
        ("keys and members that may claim", json!({ "content": [], "structuredContent": keys })),
    ]
}

/// The claims reader at `n` and `4n`, for each shape of [`claims_shapes`]: the bytes it parses
/// per input byte stay flat and bounded (the views read a text at most five more times, each
/// level's text once). Found linear; a guard.
#[test]
fn the_claims_reader_reads_each_text_a_bounded_number_of_times() {
    let n = 4_000;
    for ((name, small), (_, large)) in claims_shapes(n).into_iter().zip(claims_shapes(4 * n)) {
        let [a, b] = [&small, &large].map(|raw| {
            let read = Cell::new(0usize);
            let claims = of_result(raw, &mut |t: &str| {
                read.set(read.get() + t.len());
                Ok(webmcp_redact::parse_json(t).ok())
            })
            .expect("reads");
            assert!(
                name.starts_with("identical texts naming no") || claims.labels.sensitivity == Level::High,
                "{name}"
            );
            read.get() as f64 / raw.to_string().len() as f64
        });
        println!("claims {name}: {a:.2} B read per byte at n, {b:.2} at 4n");
        assert!(b <= 1.25 * a + 1.0, "{name}: {a:.2} B read per byte at n, {b:.2} at 4n");
        assert!(b <= 48.0, "{name}: {b:.2} B read per byte");
    }
}

/// Whole redactions at `n` and `4n`: the claims shapes as results, and numbers of `n` digits
/// under a wide `anyOf` of `integer` and `number` branches (JSON Schema's integer, read from
/// the digits since review s29: each number's kind is read once, not once per branch). The
/// bytes allocated per input byte stay flat and bounded. Found linear; a guard.
#[test]
fn whole_redactions_allocate_in_proportion_to_their_input() {
    let branches: Vec<Value> = (0..200)
        .map(|i| match i % 2 {
            0 => json!({ "type": "integer", "x-sensitive": true, "title": format!("i{i}") }),
            _ => json!({ "type": "number", "title": format!("n{i}") }),
        })
        .collect();
    let numbers = |n: usize| -> Vec<(&'static str, Value)> {
        let digits = |exp: &str| serde_json::from_str::<Value>(&format!("1{}{exp}", "0".repeat(n))).expect("number");
        let items = |v: Value| json!({ "content": [], "structuredContent": { "items": vec![v; 8] } });
        vec![
            ("long integers", items(digits("e999999999999"))),
            ("long fractions", items(digits(".5e-999999999999"))),
            ("long integer fractions", items(digits(".0000000000e5"))),
        ]
    };
    let tool = json!({ "name": "wide", "outputSchema": { "type": "object",
        "properties": { "items": { "type": "array", "items": { "anyOf": branches } } } } })
    .to_string();
    let plain = r#"{"name":"plain"}"#;
    let n = 4_000;
    let pairs = claims_shapes(n).into_iter().zip(claims_shapes(4 * n)).map(|(s, l)| (plain, s, l));
    let wide = numbers(5 * n).into_iter().zip(numbers(20 * n)).map(|(s, l)| (tool.as_str(), s, l));
    for (tool, (name, small), (_, large)) in pairs.chain(wide) {
        let [a, b] = [&small, &large].map(|raw| {
            let raw = raw.to_string();
            let mut r = common::redactor(Config::default().format);
            r.compile(tool).expect("compiles");
            per_byte(&raw, || {
                let out = r.redact(tool, &raw, None);
                assert!(out.agent_json.len() > 20, "{name}");
            })
        });
        println!("redaction {name}: {a:.1} B/B at n, {b:.1} B/B at 4n");
        assert!(b <= 1.5 * a + 4.0, "{name}: {a:.1} B allocated per byte at n, {b:.1} at 4n");
        assert!(b <= 400.0, "{name}: {b:.1} B allocated per byte");
    }
}
