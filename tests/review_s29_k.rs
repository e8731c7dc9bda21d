//! Review s29, helper K: an eighth adversarial round against the Rust core. Each test states a
//! leak (or a broken promise) that must stay closed; each generated family prints its count
//! and seed.

mod common;

use common::*;
use serde_json::{json, Value};

const SEED: u64 = 0x5eed_0029_c0de_000b;

fn marks(schema: Value) -> Value {
    json!({ "name": "t", "outputSchema": schema })
}

/// A claim of high sensitivity, as one of the vocabularies writes it in a place.
fn claim(rng: &mut Rng) -> Value {
    match rng.below(5) {
        0 => json!({ "sensitiveHint": true }),
        1 => json!({ "io.modelcontextprotocol/trust-annotations": { "sensitive": true } }),
        2 => json!({ "mcp.dev/resultSensitivity": "restricted" }),
        3 => json!({ "returnMetadata": { "Sensitivity": "Credentials" } }),
        _ => json!({ "sensitive_hint": "high" }),
    }
}

/// `v` written as JSON text once, twice or three times.
fn stringified(v: &Value, rng: &mut Rng) -> Value {
    let mut s = Value::String(v.to_string());
    for _ in 0..rng.below(3) {
        s = Value::String(s.to_string());
    }
    s
}

/// A place (`_meta`, `annotations`, `_meta.annotations`; of the result, a block, a resource, or
/// an object nested in a value) written as a JSON string, as bridges that stringify nested
/// objects write it: its claims are read. Found by probing a571ce6: the result reached the
/// agent raw in both formats and both engines. Fails without `place_in` in `claims.rs` and the
/// streaming engine's decline of `_meta`/`annotations` strings.
#[test]
fn k1_a_place_written_as_json_text_claims() {
    withheld_family("k1: places written as JSON text", SEED ^ 1, 1_500, |canary, rng| {
        let place = stringified(&claim(rng), rng);
        let text = json!({ "type": "text", "text": canary });
        let raw = match rng.below(8) {
            0 => json!({ "content": [text], "_meta": place }),
            1 => json!({ "content": [text], "annotations": place }),
            2 => json!({ "content": [text], "_meta": { "annotations": place } }),
            3 => json!({ "content": [{ "type": "text", "text": canary, "_meta": place }] }),
            4 => json!({ "content": [{ "type": "text", "text": canary, "annotations": place }] }),
            5 => {
                json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": canary, "_meta": place } }] })
            }
            6 => json!({ "data": { "_meta": place, "v": canary } }),
            _ => json!({ "structuredContent": { "v": canary }, "_meta": { "Annotations": place } }),
        };
        match rng.below(3) {
            0 => raw,
            1 => json!({ "jsonrpc": "2.0", "id": 1, "result": raw }),
            _ => text_result(&raw.to_string()),
        }
    });
}

/// A result written as text into a key of a value (a cache keyed by responses, a log object
/// keyed by the output) makes its claims like one in a value. Found by probing a571ce6: the
/// key reached the agent in both formats and both engines. Fails without the keys in
/// `claims.rs`'s `below` and the streaming engine's decline of such keys.
#[test]
fn k2_a_result_written_into_a_key_claims() {
    withheld_family("k2: results written into keys", SEED ^ 2, 1_500, |canary, rng| {
        let inner = json!({ "content": [{ "type": "text", "text": canary }], "_meta": claim(rng) });
        let key = match rng.below(3) {
            0 => inner.to_string(),
            1 => format!("Relayed: {inner}"),
            _ => serde_json::to_string(&inner.to_string()).unwrap(),
        };
        let keyed = |v: Value| {
            let mut o = serde_json::Map::new();
            o.insert(key.clone(), v);
            Value::Object(o)
        };
        match rng.below(6) {
            0 => keyed(json!(1)),
            1 => json!({ "cache": keyed(json!({ "hits": 2 })) }),
            2 => json!([{ "ok": true }, keyed(json!(true))]),
            3 => json!({ "content": [{ "type": "text", "text": "see" }], "structuredContent": keyed(json!(1)) }),
            4 => text_result(&keyed(json!(1)).to_string()),
            _ => json!({ "output": keyed(json!(null)).to_string() }),
        }
    });
}

/// What k1 and k2 read and find no claim in stays data in both engines: a `_meta` string that
/// is not JSON or claims nothing, a key holding JSON that claims nothing.
#[test]
fn k1k2_quiet_places_and_keys_are_data() {
    let quiet = [
        json!({ "data": { "_meta": "{\"v\":1}", "x": "Visible-777" } }),
        json!({ "data": { "_meta": "not {json", "annotations": "{\"sensitiveHint\":false}", "x": "Visible-777" } }),
        json!({ "index": { "{\"a\":[1,2]}": "Visible-777" } }),
        json!({ "content": [{ "type": "text", "text": "Visible-777" }], "_meta": "{\"sensitiveHint\":false}" }),
    ];
    for raw in quiet {
        for format in FORMATS {
            let o = run_with(json!({ "name": "p" }), &raw.to_string(), format, &[]);
            assert!(!o.withheld && o.agent_json.contains("Visible-777"), "{raw} -> {}", o.agent_json);
        }
        assert!(both_engines(&json!({ "name": "p" }), &raw.to_string(), "no-such-canary").is_empty(), "{raw}");
    }
}

/// `s` percent-encoded as `encodeURIComponent` writes it, or with `+` for spaces.
fn pct(s: &str, form: bool) -> String {
    s.bytes()
        .map(|b| match b {
            b' ' if form => "+".to_string(),
            b if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// A claiming result written as text and then escaped once more: JSON-escaped without its
/// quotes (`out={\"content\":…}`), HTML-escaped (`&quot;` or `&#34;`), percent- or
/// form-encoded, in a text block, an error, a resource's text or a member of a value: its
/// claims are read (found by probing a571ce6: each reached the agent raw in both formats and
/// both engines). Fails without the views in `claims.rs`'s `embedded` (and, for a member, the
/// percent-encoded bracket in `may_claim`).
#[test]
fn k3_a_result_written_as_escaped_text_claims() {
    withheld_family("k3: results written as escaped text", SEED ^ 3, 1_500, |canary, rng| {
        let inner = json!({ "content": [{ "type": "text", "text": format!("key {canary}") }], "_meta": claim(rng) });
        let t = inner.to_string();
        let escaped = match rng.below(5) {
            0 => {
                let q = serde_json::to_string(&t).unwrap();
                q[1..q.len() - 1].to_string()
            }
            1 => t.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;"),
            2 => t.replace('"', "&#34;"),
            3 => pct(&t, false),
            _ => pct(&t, true),
        };
        let said = match rng.below(3) {
            0 => escaped,
            1 => format!("upstream: {escaped} (relayed)"),
            _ => format!("<pre data-x=\"{escaped}\">https://x.test/?r={escaped}</pre>"),
        };
        match rng.below(4) {
            0 => text_result(&said),
            1 => json!({ "isError": true, "content": [{ "type": "text", "text": said }] }),
            2 => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": said } }] }),
            _ => json!({ "run": { "output": said } }),
        }
    });
}

/// Angles that found nothing, kept as guards in both engines and both formats: a `$ref` whose
/// pointer is `~`- or percent-escaped, beside an unmarked twin that a wrong decoding (or a
/// wrong order of decodings) would reach; absolute and relative `$ref`s to the root's `$id`;
/// `if`/`then`/`else` and `anyOf` branches told apart only by what the union rule ignores.
#[test]
fn k4_escaped_pointers_never_reach_an_unmarked_twin() {
    let m = json!({ "x-sensitive": true });
    let u = json!({ "type": "string" });
    let at = |r: &str| json!({ "properties": { "s": { "$ref": r } } });
    let with = |mut schema: Value, defs: Value| {
        schema["$defs"] = defs;
        schema
    };
    let cases = [
        with(at("#/$defs/a~1b"), json!({ "a/b": m, "a": { "b": u } })),
        with(at("#/$defs/a%20b"), json!({ "a b": m, "a%20b": u })),
        with(at("#/$defs/a%25b"), json!({ "a%b": m, "a%25b": u })),
        with(at("#/$defs/a~01"), json!({ "a~1": m, "a/": u })),
        with(at("#/$defs/a%7E1b"), json!({ "a/b": m, "a~1b": u })),
        with(at("#/$defs/%C3%A9"), json!({ "é": m, "%C3%A9": u })),
        with(at("#/$defs/a%23b"), json!({ "a#b": m, "a": u })),
        with(at("#/$defs/"), json!({ "": m, "x": u })),
        with(at("r#/$defs/a"), json!({ "a": m, "b": { "$id": "sub", "$defs": { "a": u } } })),
        with(at("https://x.test/dir/r#/$defs/a"), json!({ "a": m })),
        with(at("https://x.test/dir/../dir/./r#/$defs/a"), json!({ "a": m })),
        json!({ "properties": { "s": { "if": { "const": "x" }, "then": m, "else": u } } }),
        json!({ "properties": { "s": { "if": { "type": "string" }, "then": u, "else": m } } }),
        json!({ "properties": { "s": { "oneOf": [{ "const": "y", "x-sensitive": true }, { "type": "string" }] } } }),
    ];
    let mut bad = Vec::new();
    for (i, mut schema) in cases.into_iter().enumerate() {
        if i == 9 || i == 10 || i == 8 {
            schema["$id"] = json!("https://x.test/dir/r");
        }
        let def = marks(schema.clone());
        assert!(webmcp_redact::CompiledTool::from_value(&def, &webmcp_redact::Limits::default()).is_ok(), "{schema}");
        bad.extend(
            both_engines(&marks(schema.clone()), r#"{"s":"CANARY"}"#, "CANARY")
                .into_iter()
                .map(|b| format!("{schema}: {b}")),
        );
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A number whose value is an integer however it is written meets a marked `integer` branch:
/// read through an f64, `1e400` (infinite there) was no integer and reached the agent, and
/// `1e-400` (zero there) was one (found by review s29 K, confirmed by the engineer). Fails on
/// the f64 reading: every big integer leaked, in both engines and formats.
#[test]
fn k5_integers_past_f64_meet_the_marked_integer_branch() {
    let integers =
        ["1e400", "1.5e400", "-2.5E999", "100000000000000000000000000000000000000000e-10", "7e99999999999999999999"];
    let schemas = [
        json!({ "anyOf": [{ "type": "integer", "x-sensitive": true }, { "type": "number" }] }),
        json!({ "oneOf": [{ "type": "integer", "x-sensitive": true }, { "type": "string" }] }),
        json!({ "if": { "type": "integer" }, "then": { "x-sensitive": true } }),
    ];
    let mut bad = Vec::new();
    for schema in &schemas {
        let def = json!({ "name": "t", "outputSchema": { "type": "object", "properties": { "n": schema } } });
        for n in integers {
            bad.extend(common::both_engines(&def, &format!(r#"{{"n":{n},"note":"ok"}}"#), n));
        }
    }
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad.join("\n"));
}
