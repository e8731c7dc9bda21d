//! Review s28, helper K: a seventh adversarial round against the Rust core. Each test states a
//! leak (or a broken promise) that must stay closed; each generated family prints its count
//! and seed.

mod common;

use common::*;
use serde_json::{json, Value};

const SEED: u64 = 0x5eed_0028_c0de_000b;

fn marks(schema: Value) -> Value {
    json!({ "name": "t", "outputSchema": schema })
}

/// Where a result that claims sensitivity for itself can stand inside another value.
fn claimed(canary: &str, rng: &mut Rng) -> Value {
    let claim = match rng.below(6) {
        0 => json!({ "sensitiveHint": true }),
        1 => json!({ "annotations": { "sensitiveHint": "high" } }),
        2 => json!({ "io.modelcontextprotocol/trust-annotations": { "sensitive": true } }),
        3 => json!({ "mcp.dev/resultSensitivity": "restricted" }),
        4 => json!({ "returnMetadata": { "Sensitivity": "Credentials" } }),
        _ => json!({ "sensitive_hint": 1 }),
    };
    let text = json!({ "type": "text", "text": canary });
    match rng.below(4) {
        0 => json!({ "content": [text], "_meta": claim }),
        1 => json!({ "content": [{ "type": "text", "text": canary, "_meta": claim }] }),
        // `annotations` is itself a place: what `_meta.annotations` holds goes there directly.
        2 => json!({ "content": [text], "annotations": claim.get("annotations").unwrap_or(&claim) }),
        _ => json!({ "structuredContent": { "v": canary }, "_meta": claim }),
    }
}

/// Wraps `inner` once, as a bridge or a relaying tool might.
fn wrap(inner: Value, rng: &mut Rng) -> Value {
    let text = inner.to_string();
    match rng.below(9) {
        0 => json!({ "jsonrpc": "2.0", "id": 7, "result": inner }),
        1 => json!([inner]),
        2 => json!({ "results": [{ "ok": true }, inner] }),
        3 => json!({ "data": { "response": inner } }),
        4 => text_result(&text),
        5 => text_result(&json!([inner]).to_string()),
        6 => text_result(&format!("Relayed: {} (done)", json!({ "result": inner }))),
        7 => {
            json!({ "content": [{ "type": "resource", "resource": { "uri": "x:r", "text": json!([inner]).to_string() } }] })
        }
        _ => text_result(&serde_json::to_string(&json!({ "result": inner }).to_string()).unwrap()),
    }
}

/// Claims of a result nested as a value (a JSON-RPC response handed to `redactJson`, an array
/// of results), and of one written as text inside those, are the whole result's: it is
/// withheld, never passed raw (open since stop 27: both leaked in both formats and engines).
/// Fails without the fix in `claims.rs` (`below`, arrays read in texts) and `stream.rs`.
#[test]
fn k1_claims_of_a_nested_result_are_read() {
    claimed_results_are_withheld("k1: nested claimed results", SEED, 1_500, |mut raw, rng| {
        for _ in 0..1 + rng.below(3) {
            raw = wrap(raw, rng);
        }
        raw
    });
}

/// Runs `cases` results that claim sensitivity, each placed by `place` (its canary drawn
/// first, its tool after), through both engines and both formats: none may show its canary,
/// and the engines must agree (`both_engines`).
fn claimed_results_are_withheld(what: &str, seed: u64, cases: usize, mut place: impl FnMut(Value, &mut Rng) -> Value) {
    withheld_family(what, seed, cases, |canary, rng| {
        let claimed = claimed(canary, rng);
        place(claimed, rng)
    });
}

/// Writes `inner` as text into a member of a value, as agent frameworks and bridges that pass
/// tool output on as a string do.
fn in_member(inner: Value, rng: &mut Rng) -> Value {
    let text = inner.to_string();
    match rng.below(5) {
        0 => json!({ "output": text }),
        1 => json!({ "type": "tool_result", "data": { "response": text } }),
        2 => json!([{ "ok": true }, text]),
        3 => json!({ "log": format!("Relayed: {text} (done)") }),
        _ => json!({ "output": serde_json::to_string(&text).unwrap() }),
    }
}

/// Claims of a result written as text into a member of a value (`{"output": "{…}"}`, also
/// stringified twice, in prose, in an array, then wrapped as k1 wraps) are the whole result's
/// (found by the review of stop 28's k1: its text reached the agent in both formats and both
/// engines). Fails without `Value::String` in `claims.rs`'s `below` and the streaming engine's
/// decline of such strings.
#[test]
fn k1c_claims_of_a_result_written_into_a_member_are_read() {
    claimed_results_are_withheld("k1c: claimed results written into members", SEED ^ 0xc1c1, 1_000, |raw, rng| {
        let raw = in_member(raw, rng);
        if rng.below(2) == 0 {
            wrap(raw, rng)
        } else {
            raw
        }
    });
}

/// Strings of a value that hold JSON making no claim stay data, in both engines.
#[test]
fn k1d_json_in_a_member_that_claims_nothing_is_data() {
    let quiet = [
        json!({ "note": "{\"a\":[1,2],\"b\":\"Visible-777\"}" }),
        json!({ "note": "{\"_meta\":{\"sensitiveHint\":false},\"v\":\"Visible-777\"}" }),
        json!({ "list": ["[1,2]", "Visible-777 {not json}"] }),
    ];
    for raw in quiet {
        for format in FORMATS {
            let o = run_with(json!({ "name": "p" }), &raw.to_string(), format, &[]);
            assert!(!o.withheld && o.agent_json.contains("Visible-777"), "{raw} -> {}", o.agent_json);
        }
        assert!(both_engines(&json!({ "name": "p" }), &raw.to_string(), "no-such-canary").is_empty(), "{raw}");
    }
}

/// What the nested reading does not claim: a list of tool definitions, each with its own
/// `annotations`, is data about tools (no result stands there), and a `false` claims nothing.
#[test]
fn k1b_data_about_tools_is_not_a_claim() {
    let listing =
        json!({ "tools": [{ "name": "vault", "annotations": { "sensitiveHint": true }, "note": "Visible-777" }] });
    let quiet = json!({ "result": { "content": [{ "type": "text", "text": "Visible-777" }], "_meta": { "sensitiveHint": false } } });
    for raw in [listing, quiet] {
        for format in FORMATS {
            let o = run_with(json!({ "name": "p" }), &raw.to_string(), format, &[]);
            assert!(!o.withheld && o.agent_json.contains("Visible-777"), "{raw} -> {}", o.agent_json);
        }
    }
}

fn pct(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b == b'-' { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

fn b64(bytes: &[u8], url: bool) -> String {
    let a: &[u8; 64] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..=c.len() {
            out.push(a[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// A marked value written as the value's JSON where rule 5 does not rewrite: a `_meta` string
/// (of the result, a block, a resource, at any depth), a `resource_link`'s `name`, `title` or
/// `description`, a resource's `data:` URI (percent-encoded or base64 of either alphabet). It
/// reached the agent in both formats (open since stop 27); now it is walked aside and value
/// matching cuts it. Fails without `redact/aside.rs`.
#[test]
fn k2_json_of_the_value_in_other_strings_is_walked() {
    let def = marks(
        json!({ "type": "object", "properties": { "apiKey": { "x-sensitive": true }, "n": { "type": "integer" } } }),
    );
    let mut rng = Rng(SEED ^ 2);
    let (mut bad, mut n, mut failed) = (Vec::new(), 0, 0);
    for _ in 0..1_500 {
        let canary = rng.canary();
        let value = json!({ "n": 1, "apiKey": canary });
        let j = match rng.below(5) {
            0 => value.to_string(),
            1 => format!("see {value} here"),
            2 => serde_json::to_string(&value.to_string()).unwrap(),
            3 => json!([value]).to_string(),
            _ => format!("```json\n{:#}\n```", value),
        };
        let uri = |rng: &mut Rng| match rng.below(3) {
            0 => format!("data:application/json,{}", pct(&j)),
            1 => format!("data:application/json;base64,{}==", b64(j.as_bytes(), false)),
            _ => format!("data:;base64,{}", b64(j.as_bytes(), true)),
        };
        let deep = |j: &str| json!({ "x": [{ "y": j }] });
        let raw = match rng.below(8) {
            0 => json!({ "content": [{ "type": "text", "text": "hi" }], "_meta": { "note": j } }),
            1 => json!({ "content": [{ "type": "text", "text": "hi" }], "_meta": deep(&j) }),
            2 => json!({ "content": [{ "type": "text", "text": "hi", "_meta": { "n": j } }] }),
            3 => json!({ "content": [{ "type": "resource_link", "uri": "x:y", "name": j }] }),
            4 => {
                json!({ "content": [{ "type": "resource_link", "uri": "x:y", "name": "n", "title": j, "description": j }] })
            }
            5 => json!({ "content": [{ "type": "resource", "resource": { "uri": uri(&mut rng), "text": "t" } }] }),
            6 => json!({ "content": [{ "type": "resource_link", "uri": uri(&mut rng), "name": "n" }] }),
            _ => {
                json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": "t", "_meta": deep(&j) } }] })
            }
        };
        let found = both_engines(&def, &raw.to_string(), &canary);
        failed += usize::from(!found.is_empty());
        bad.extend(found);
        n += 1;
    }
    println!("k2: {n} results with the value's JSON in other strings, seed {:#x}", SEED ^ 2);
    assert!(bad.is_empty(), "{failed} of {n}:\n{}", bad[..bad.len().min(8)].join("\n"));
}

/// `&#128;` to `&#159;` (and their hex forms, with or without `;`) are read as a browser reads
/// them, through Windows-1252: a taken `€`-holding value echoed so reached the agent and passed
/// `check()` (open since stop 27). Fails without the table in `scrub/unescape.rs`.
#[test]
fn k3_windows_1252_references_are_read_as_browsers_read_them() {
    let specials = [
        '€', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 'Ž', '‘', '’', '“', '”', '•', '–', '—', '˜', '™',
        'š', '›', 'œ', 'ž', 'Ÿ',
    ];
    let code = |c: char| -> u32 {
        (128..160)
            .find(|&n| {
                let s = format!("&#{n};");
                html_unescape_1252(&s) == c.to_string()
            })
            .unwrap()
    };
    let mut rng = Rng(SEED ^ 3);
    let (mut bad, mut n, mut failed) = (Vec::new(), 0, 0);
    let post = r#"{"name":"post","annotations":{"openWorldHint":true,"readOnlyHint":false}}"#;
    for _ in 0..300 {
        let c = specials[rng.below(specials.len())];
        let secret = format!("pw{c}{}", rng.canary());
        let echo: String = secret
            .chars()
            .map(|ch| {
                if ch != c {
                    return ch.to_string();
                }
                let k = code(ch);
                match rng.below(4) {
                    0 => format!("&#{k};"),
                    1 => format!("&#x{k:x};"),
                    2 => format!("&#{k}"),
                    _ => format!("&#X{k:X};"),
                }
            })
            .collect();
        let before = bad.len();
        for view in later_views(json!(secret), &text_result(&format!("<p>{echo}</p>"))) {
            if view.contains(&echo) {
                bad.push(format!("{secret} as {echo}: {view}"));
            }
        }
        let mut r = redactor(webmcp_redact::Format::Webmcp);
        r.redact(MARKED, &json!({ "s": secret }).to_string(), None);
        let chk = r.check(post, &json!({ "body": echo }).to_string(), None).unwrap();
        if !chk.reasons.iter().any(|x| x.rule.code() == "secret_egress") {
            bad.push(format!("check lets {secret} out as {echo}"));
        }
        failed += usize::from(bad.len() > before);
        n += 1;
    }
    println!("k3: {n} values with Windows-1252 references, seed {:#x}", SEED ^ 3);
    assert!(bad.is_empty(), "{failed} of {n}:\n{}", bad[..bad.len().min(8)].join("\n"));
}

/// The HTML spec's table for one reference `&#NNN;` in 128..160, written out independently.
fn html_unescape_1252(s: &str) -> String {
    const T: &str = "€\u{81}‚ƒ„…†‡ˆ‰Š‹Œ\u{8d}Ž\u{8f}\u{90}‘’“”•–—˜™š›œ\u{9d}žŸ";
    let n: usize = s.trim_start_matches("&#").trim_end_matches(';').parse().unwrap();
    T.chars().nth(n - 128).unwrap().to_string()
}

/// Angles that found nothing, kept as guards in both engines and both formats: keys written as
/// escapes of marked names, `~1`- and percent-escaped `$ref` pointers, a mark on an `anyOf`
/// branch that matches only by `pattern` or `format`, marks under `prefixItems` beside
/// `items: false`, under `contains`, numbers written oddly.
#[test]
fn k4_schema_and_number_angles_hold() {
    let m = json!({ "x-sensitive": true });
    let s = |v: Value| json!({ "s": v }).to_string();
    let cases: Vec<(Value, String)> = vec![
        (json!({ "properties": { "apiKey": m } }), r#"{"\u0061piKey":"CANARY"}"#.into()),
        (json!({ "properties": { "apiKey": m } }), r#"{"\u0061\u0070\u0069\u004b\u0065\u0079":"CANARY","x":1}"#.into()),
        (json!({ "patternProperties": { "^api": m } }), r#"{"\u0061piKey":"CANARY"}"#.into()),
        (json!({ "$defs": { "a/b": m }, "properties": { "s": { "$ref": "#/$defs/a~1b" } } }), s(json!("CANARY"))),
        (json!({ "$defs": { "a~b": m }, "properties": { "s": { "$ref": "#/$defs/a~0b" } } }), s(json!("CANARY"))),
        (json!({ "$defs": { "a b": m }, "properties": { "s": { "$ref": "#/$defs/a%20b" } } }), s(json!("CANARY"))),
        (json!({ "$defs": { "a/b": m }, "properties": { "s": { "$ref": "#/%24defs/a~1b" } } }), s(json!("CANARY"))),
        (
            json!({ "properties": { "s": { "anyOf": [{ "type": "string", "pattern": "^sk_", "x-sensitive": true }, { "type": "string" }] } } }),
            s(json!("sk_CANARY")),
        ),
        (
            json!({ "properties": { "s": { "anyOf": [{ "type": "string", "format": "email", "x-sensitive": true }, { "type": "string" }] } } }),
            s(json!("CANARY@x.test")),
        ),
        (
            json!({ "properties": { "s": { "oneOf": [{ "type": "integer" }, { "type": "string", "x-sensitive": true }] } } }),
            s(json!("CANARY")),
        ),
        (json!({ "prefixItems": [{}, m], "items": false }), json!(["a", "CANARY"]).to_string()),
        (
            json!({ "type": "array", "prefixItems": [{ "type": "string" }], "items": m }),
            json!(["a", "CANARY", "CANARY"]).to_string(),
        ),
        (
            json!({ "contains": { "type": "object", "properties": { "k": m } } }),
            json!([1, { "k": "CANARY" }]).to_string(),
        ),
        (json!({ "properties": { "s": { "type": "number", "x-sensitive": true } } }), r#"{"s":41111111e-2}"#.into()),
        (
            json!({ "properties": { "s": { "type": "number", "x-sensitive": true } } }),
            r#"{"s":-0.00041111111E+4}"#.into(),
        ),
    ];
    let mut bad = Vec::new();
    for (schema, raw) in &cases {
        let canary = if raw.contains("e-2") {
            "411111.11"
        } else if raw.contains("E+4") {
            "4.1111111"
        } else {
            "CANARY"
        };
        bad.extend(both_engines(&marks(schema.clone()), raw, canary).into_iter().map(|b| format!("{schema}: {b}")));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
