//! Review s27, helper K: a sixth adversarial round against the Rust core. Each test states a
//! leak (or a broken promise) that must stay closed.

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::Format;

fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn marks(schema: Value) -> Value {
    json!({ "name": "t", "outputSchema": schema })
}

/// Schema angles that found nothing, kept as guards in both engines and both formats.
#[test]
fn k9_schema_angles_hold_in_both_engines() {
    let m = json!({ "x-sensitive": true });
    let s = |v: &str| json!({ "s": v }).to_string();
    let cases: Vec<(Value, String)> = vec![
        (
            json!({ "$defs": { "r": { "$id": "https://x.test/r", "$defs": { "s": m } } }, "properties": { "s": { "$ref": "https://x.test/r#/$defs/s" } } }),
            s("CANARY"),
        ),
        (
            json!({ "$id": "https://x.test/root", "$defs": { "r": { "$id": "r2", "$defs": { "q": { "$anchor": "sec", "x-sensitive": true } } } }, "properties": { "s": { "$ref": "r2#sec" } } }),
            s("CANARY"),
        ),
        (
            json!({ "$id": "https://x.test/root", "$defs": { "r": { "$id": "r2", "$defs": { "q": { "$anchor": "sec", "x-sensitive": true } } } }, "properties": { "s": { "$ref": "https://x.test/r2#sec" } } }),
            s("CANARY"),
        ),
        (
            json!({ "definitions": { "s": m }, "properties": { "s": { "$ref": "#/definitions/s", "type": "string" } } }),
            s("CANARY"),
        ),
        (
            json!({ "definitions": { "p": { "type": "string" } }, "properties": { "s": { "$ref": "#/definitions/p", "x-sensitive": true } } }),
            s("CANARY"),
        ),
        (
            json!({ "$schema": "http://json-schema.org/draft-07/schema#", "definitions": { "p": { "type": "string" } }, "properties": { "s": { "$ref": "#/definitions/p", "x-sensitive": true } } }),
            s("CANARY"),
        ),
        (
            json!({ "$schema": "http://json-schema.org/draft-07/schema#", "definitions": { "p": m }, "properties": { "s": { "$ref": "#/definitions/p" } } }),
            s("CANARY"),
        ),
        (
            json!({ "type": "array", "contains": { "type": "string", "x-sensitive": true } }),
            json!(["CANARY"]).to_string(),
        ),
        (
            json!({ "type": "array", "contains": { "x-sensitive": true }, "minContains": 1 }),
            json!([1, "CANARY"]).to_string(),
        ),
        (json!({ "properties": { "s": { "x-sensitive": "true" } } }), s("CANARY")),
        (json!({ "properties": { "s": { "x-sensitive": 1 } } }), s("CANARY")),
        (json!({ "properties": { "s": { "x-sensitive": "yes" } } }), s("CANARY")),
        (json!({ "properties": { "s": { "x-sensitive": ["credentials"] } } }), s("CANARY")),
        (json!({ "properties": { "s": { "x-sensitive": { "class": "credentials" } } } }), s("CANARY")),
        (json!({ "properties": { "s": { "$ref": "#/properties/t" }, "t": m } }), s("CANARY")),
        (json!({ "items": [{}, m] }), json!(["a", "CANARY"]).to_string()),
        (json!({ "prefixItems": [{}, { "$ref": "#/prefixItems/2" }, m] }), json!(["a", "CANARY"]).to_string()),
        (
            json!({ "$id": "urn:x:root", "$defs": { "s": m }, "properties": { "s": { "$ref": "urn:x:root#/$defs/s" } } }),
            s("CANARY"),
        ),
        (
            json!({ "$id": "https://x.test/a.json", "$defs": { "s": m }, "properties": { "s": { "$ref": "a.json#/$defs/s" } } }),
            s("CANARY"),
        ),
        (
            json!({ "$id": "https://x.test/a.json", "$defs": { "s": m }, "properties": { "s": { "$ref": "/a.json#/$defs/s" } } }),
            s("CANARY"),
        ),
        (
            json!({ "$id": "https://x.test/a.json", "$defs": { "s": m }, "properties": { "s": { "$ref": "#/%24defs/s" } } }),
            s("CANARY"),
        ),
        (
            json!({ "$id": "https://x.test/dir/a.json", "$defs": { "s": { "$id": "../b.json", "x-sensitive": true } }, "properties": { "s": { "$ref": "https://x.test/b.json" } } }),
            s("CANARY"),
        ),
        (
            json!({ "$defs": { "s": { "$id": "#frag", "x-sensitive": true } }, "properties": { "s": { "$ref": "#frag" } } }),
            s("CANARY"),
        ),
        (
            json!({ "dependentRequired": { "a": ["s"] }, "properties": { "s": m } }),
            json!({ "a": 1, "s": "CANARY" }).to_string(),
        ),
        (
            json!({ "properties": { "s": { "type": "string", "contentEncoding": "base64", "contentSchema": { "x-sensitive": true } } } }),
            s("CANARY"),
        ),
        (
            json!({ "properties": { "s": { "contentMediaType": "application/json", "contentSchema": { "items": m } } } }),
            s(r#"["CANARY"]"#),
        ),
        (
            json!({ "properties": { "s": { "contentMediaType": "application/vnd.api+json", "contentSchema": { "properties": { "a": m } } } } }),
            s(r#"{"a":"CANARY"}"#),
        ),
        (json!({ "properties": { "s": { "contentMediaType": "text/plain", "contentSchema": m } } }), s("CANARY")),
        (json!({ "properties": { "s": { "type": ["string", "null"], "x-sensitive": true } } }), s("CANARY")),
        (
            json!({ "additionalProperties": { "anyOf": [{ "type": "number" }, { "type": "string", "x-sensitive": true }] } }),
            s("CANARY"),
        ),
        (
            json!({ "unevaluatedProperties": m, "$ref": "#/$defs/b", "$defs": { "b": { "properties": { "a": {} } } } }),
            json!({ "a": 1, "s": "CANARY" }).to_string(),
        ),
        (
            json!({ "unevaluatedProperties": m, "dependentSchemas": { "a": { "properties": { "s": {} } } } }),
            json!({ "s": "CANARY" }).to_string(),
        ),
        (json!({ "unevaluatedItems": m, "contains": { "type": "number" } }), json!([1, "CANARY"]).to_string()),
        (
            json!({ "unevaluatedItems": m, "anyOf": [{ "prefixItems": [{}, {}] }, { "prefixItems": [{}] }] }),
            json!([1, 2, "CANARY"]).to_string(),
        ),
        (
            json!({ "properties": { "s": { "$ref": "#/$defs/a" } }, "$defs": { "a": { "$ref": "#/$defs/b" }, "b": { "$ref": "#/$defs/c" }, "c": m } }),
            s("CANARY"),
        ),
        (json!({ "patternProperties": { "^S": m } }), json!({ "S\u{0}": "CANARY" }).to_string()),
        (json!({ "patternProperties": { "\\p{Lu}": m } }), json!({ "Ä": "CANARY" }).to_string()),
        (json!({ "patternProperties": { "(?i)^s$": m } }), json!({ "S": "CANARY" }).to_string()),
        (json!({ "patternProperties": { "^.$": m } }), json!({ "😀": "CANARY" }).to_string()),
        (json!({ "patternProperties": { "^\\s$": m } }), json!({ "\u{a0}": "CANARY" }).to_string()),
        (json!({ "patternProperties": { "\\bs\\b": m } }), json!({ "é s": "CANARY" }).to_string()),
        (json!({ "if": m, "then": {} }), s("CANARY")),
        (json!({ "properties": { "s": { "allOf": [{ "if": { "type": "string" }, "then": m }] } } }), s("CANARY")),
        (
            json!({ "properties": { "s": { "oneOf": [{ "type": "string" }, { "type": "string", "x-sensitive": true }] } } }),
            s("CANARY"),
        ),
        (
            json!({ "properties": { "s": { "$dynamicRef": "#m" } }, "$defs": { "x": { "$dynamicAnchor": "m", "x-sensitive": true } } }),
            s("CANARY"),
        ),
        (
            json!({ "properties": { "s": { "$recursiveRef": "#" } }, "x-sensitive": false, "$recursiveAnchor": true, "additionalProperties": m }),
            json!({ "s": { "q": "CANARY" } }).to_string(),
        ),
    ];
    let mut bad = Vec::new();
    for (schema, raw) in cases {
        bad.extend(both_engines(&marks(schema.clone()), &raw, "CANARY").into_iter().map(|b| format!("{schema}: {b}")));
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

fn pct(s: &str, keep: &str, lower: bool, plus: bool) -> String {
    let mut o = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || keep.as_bytes().contains(&b) {
            o.push(b as char);
        } else if plus && b == b' ' {
            o.push('+');
        } else if lower {
            o.push_str(&format!("%{b:02x}"));
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

/// `s` with every UTF-16 unit but an ASCII letter or digit written as `\uXXXX`, in lower- or
/// upper-case hex.
fn u_escaped(s: &str, upper: bool) -> String {
    s.encode_utf16()
        .map(|u| match u {
            _ if u < 128 && (u as u8).is_ascii_alphanumeric() => (u as u8 as char).to_string(),
            _ if upper => format!("\\u{u:04X}"),
            _ => format!("\\u{u:04x}"),
        })
        .collect()
}

fn html_num(s: &str, form: usize) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_string()
            } else {
                match form {
                    0 => format!("&#00{};", c as u32),
                    1 => format!("&#x00{:x};", c as u32),
                    2 => format!("&#{}", c as u32),
                    3 => format!("&#X{:X}", c as u32),
                    _ => format!("&#0000000{};", c as u32),
                }
            }
        })
        .collect()
}

/// A value learned from a marked tool, echoed by a later result in every encoding README rule 5
/// names, combined and varied: lowercase escapes, `+` for a space, `\/`, JSON in a text, numeric
/// references with leading zeros, base64 wrapped or of escaped text, `data:` URLs with
/// parameters; in a text, a key, `_meta`, a plain value and a link's `uri` (where the base64 is
/// glued to `x.test/`: before the fix, base64 of escaped text there passed, see `k2_…`).
#[test]
fn k1_encodings_of_a_known_value_in_later_results() {
    let secrets = ["sk/Ab+Cd Ef=Gh_Canary1", "pässwörd-Canary-42é", "a\"b<c>&d'Canary99/x", "Tok\\en\u{1F600}Canary7"];
    let mut bad = Vec::new();
    for secret in secrets {
        let json_esc = serde_json::to_string(secret).unwrap();
        let json_inner = &json_esc[1..json_esc.len() - 1];
        let html = secret
            .replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('\'', "&#39;");
        let b = b64(secret.as_bytes());
        let mut forms = vec![
            pct(secret, "-_.~", true, false),
            pct(secret, "-_.~", false, true),
            pct(secret, "-_.~", true, true),
            pct(secret, "-_.!~*'()", true, false),
            pct(&pct(secret, "", true, false), "", true, false),
            json_inner.replace('/', "\\/"),
            json_inner.to_string(),
            json!({ "note": json!({ "k": secret }).to_string() }).to_string(),
            format!("see {}", json!({ "note": format!("said {json_esc}") })),
            html_num(secret, 0),
            html_num(secret, 1),
            html_num(secret, 4),
            html.clone(),
            b.clone(),
            b.trim_end_matches('=').replace('+', "-").replace('/', "_"),
            b.as_bytes().chunks(4).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join("\r\n"),
            b.as_bytes().chunks(8).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join("\n"),
            b.as_bytes().chunks(5).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join("\n"),
            b64(json_inner.as_bytes()),
            b64(html.as_bytes()),
            b64(pct(secret, "", true, false).as_bytes()),
            b64(json!({ "sub": secret }).to_string().as_bytes()),
            format!("data:text/plain;charset=utf-8;base64,{b}"),
            format!("data:text/plain;charset=UTF-8;name=x.txt;base64,{b}"),
            format!("data:;base64,{b}"),
            format!("data:text/plain,{}", pct(secret, "", true, false)),
            format!("x={}", pct(&html, "", false, true)),
            format!("{}", pct(json_inner, "", true, false)),
            u_escaped(secret, false),
            u_escaped(secret, true),
            secret.encode_utf16().map(|u| format!("\\u{u:04x}")).collect(),
        ];
        forms.push(format!("https://x.test/?q={}&r=1", forms[1]));
        for (i, f) in forms.iter().enumerate() {
            for (where_, later) in [
                ("text", text_result(f)),
                ("key", json!({ "content": [], "structuredContent": { f.as_str(): 1 } })),
                ("meta", json!({ "content": [{ "type": "text", "text": "ok" }], "_meta": { "x": f } })),
                ("plain", json!({ "a": f })),
                (
                    "link",
                    json!({ "content": [{ "type": "resource_link", "uri": format!("https://x.test/{f}"), "name": "n" }] }),
                ),
            ] {
                for view in later_views(json!(secret), &later) {
                    if shows(&view, f) || shows(&view, secret) {
                        bad.push(format!("{secret} form {i} in {where_}: {f} -> {view}"));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} {bad:#?}", bad.len());
}

/// Learns through `first_tool` with `first`, then: does each canary reach the agent when a
/// later result of `PLAIN` echoes it, and does `check` deny a public call carrying it?
fn later_known(first_tool: &str, first: &Value, canaries: &[&str]) -> Vec<String> {
    let post = r#"{"name":"post","annotations":{"openWorldHint":true,"readOnlyHint":false}}"#;
    let mut bad = Vec::new();
    for format in FORMATS {
        let mut r = redactor(format);
        let o = r.redact(first_tool, &first.to_string(), None);
        for c in canaries {
            if o.agent_json.contains(c) {
                bad.push(format!("{format:?}: {c} in the first view {}", o.agent_json));
            }
            for later in
                [text_result(&format!("echo {c} ok")), json!({ "a": c }), text_result(&json!({ "q": c }).to_string())]
            {
                let v = r.redact(PLAIN, &later.to_string(), None).agent_json;
                if v.contains(c) {
                    bad.push(format!("{format:?}: {c} echoed later: {v} (first {})", o.agent_json));
                }
            }
            let chk = r.check(post, &json!({ "body": c }).to_string(), None).unwrap();
            if !chk.reasons.iter().any(|x| x.rule.code() == "secret_egress") {
                bad.push(format!("{format:?}: check lets {c} out"));
            }
        }
    }
    bad
}

/// What a withheld or allowlisted result held is known for later results and for `check`:
/// texts, JSON texts, JSON in prose (fixed: `k3_…`), resources, links, `_meta`, numbers.
#[test]
fn k3_what_a_withheld_result_held_is_known_later() {
    let mut bad = Vec::new();
    let hint = r#"{"name":"w","annotations":{"sensitiveHint":true}}"#;
    let hint_marks = r#"{"name":"w","annotations":{"sensitiveHint":true},"outputSchema":{"type":"object","properties":{"id":{"type":"string"},"s":{"x-sensitive":true}}}}"#;
    let blocks = json!([
        { "type": "text", "text": "WH_CANARY_1a" },
        { "type": "text", "text": json!({ "k": "WH_CANARY_2b" }).to_string() },
        { "type": "text", "text": format!("token: {}", json!({ "k": "WH_CANARY_3c" })) },
        { "type": "resource", "resource": { "uri": "x:a", "text": "WH_CANARY_4d" } },
        { "type": "resource", "resource": { "uri": "x:b", "text": json!({ "k": "WH_CANARY_5e" }).to_string() } },
        { "type": "resource_link", "uri": "https://x.test/WH_CANARY_6f", "name": "WH_CANARY_7g" },
    ]);
    let first = json!({ "content": blocks, "structuredContent": { "k": "WH_CANARY_8h", "n": 4111111111111111u64 }, "_meta": { "x": "WH_CANARY_9i" } });
    let all = [
        "WH_CANARY_1a",
        "WH_CANARY_2b",
        "WH_CANARY_3c",
        "WH_CANARY_4d",
        "WH_CANARY_5e",
        "https://x.test/WH_CANARY_6f",
        "WH_CANARY_7g",
        "WH_CANARY_8h",
        "WH_CANARY_9i",
        "4111111111111111",
    ];
    bad.extend(later_known(hint, &first, &all).into_iter().map(|b| format!("hint: {b}")));
    // allowlist mode
    let first = json!({ "content": blocks, "structuredContent": { "id": "a", "s": "x", "k": "WH_CANARY_8h", "n": 4111111111111111u64 }, "_meta": { "x": "WH_CANARY_9i" } });
    bad.extend(later_known(hint_marks, &first, &all).into_iter().map(|b| format!("allowlist: {b}")));
    // a result's own claim
    let first = json!({ "content": blocks, "structuredContent": { "k": "WH_CANARY_8h", "n": 4111111111111111u64 }, "_meta": { "x": "WH_CANARY_9i", "sensitiveHint": true } });
    bad.extend(later_known(PLAIN, &first, &all).into_iter().map(|b| format!("claim: {b}")));
    // error results and resources of a marked tool
    let first = json!({ "isError": true, "content": [{ "type": "text", "text": json!({ "s": "ER_CANARY_1a" }).to_string() },
        { "type": "resource", "resource": { "uri": "x:a", "text": json!({ "s": "ER_CANARY_2b" }).to_string() } },
        { "type": "text", "text": format!("failed: {}", json!({ "s": "ER_CANARY_3c" })) }] });
    bad.extend(
        later_known(MARKED, &first, &["ER_CANARY_1a", "ER_CANARY_2b", "ER_CANARY_3c"])
            .into_iter()
            .map(|b| format!("error: {b}")),
    );
    // numbers
    let first = json!({ "s": 4111111111111111u64 });
    let mut r = redactor(Format::Webmcp);
    r.redact(MARKED, &first.to_string(), None);
    for later in [
        r#"{"a":4111111111111111.0}"#,
        r#"{"a":4.111111111111111e15}"#,
        r#"{"a":41111111111111110e-1}"#,
        r#"{"a":0.4111111111111111e16}"#,
        r#"{"a":4111111111111111.000}"#,
        r#"{"a":"4111111111111111.0"}"#,
        r#"{"a":"n 4.111111111111111E+15"}"#,
        r#"{"a":"4111 1111 1111 1111"}"#,
        r#"{"a":"4111-1111-1111-1111"}"#,
    ] {
        let v = r.redact(PLAIN, later, None).agent_json;
        if v.contains("4111111111111111")
            || v.contains("111111111111111e")
            || v.contains("41111111111111110")
            || v.contains("4111111111111111.0")
        {
            bad.push(format!("number: {later} -> {v}"));
        }
    }
    assert!(bad.is_empty(), "{} {bad:#?}", bad.len());
}

/// A marked value and, in another member of the same value, its echo: the streaming engine and
/// the DOM engine must both take `canary` out of it, alike, in both formats, stable on a second
/// pass.
fn echo_in_the_same_value(secret: &str, echo: &str, canary: &str) -> Vec<String> {
    let def = marks(
        json!({ "type": "object", "properties": { "s": { "x-sensitive": true }, "note": { "type": "string" } } }),
    );
    let raw = json!({ "s": secret, "note": echo }).to_string();
    both_engines(&def, &raw, canary)
}

/// Base64 of text that escapes the value (a JWT's JSON payload, a query, HTML), glued after
/// base64 characters (a URL path `…/api/<payload>`): the run is also decoded from those
/// characters, whose bytes are rarely UTF-8, and that hid the escapes after them. Before the
/// fix these reached the agent; in a later result too.
#[test]
fn k2_base64_of_escaped_text_glued_to_base64_characters() {
    let secret = "a\"b<c>&d'Canary99/x";
    let payloads = [
        json!({ "sub": secret }).to_string(),
        r#"a\"b<c>&d'Canary99\/x"#.to_string(),
        "a%22b%3Cc%3E%26d%27Canary99%2Fx".to_string(),
        "a&quot;b&lt;c&gt;&amp;d&#39;Canary99/x".to_string(),
    ];
    let mut bad = Vec::new();
    for p in &payloads {
        let encoded = b64(p.as_bytes());
        for glue in ["https://x.test/", "https://x.test/api/v1/", "id:ab", "Zm9v"] {
            let echo = format!("{glue}{encoded}");
            bad.extend(echo_in_the_same_value(secret, &echo, &encoded));
            for view in later_views(json!(secret), &text_result(&format!("see {echo} ok"))) {
                if shows(&view, &encoded) {
                    bad.push(format!("later: {echo} -> {view}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// A numeric character reference reads as a browser reads it however many leading zeros it
/// has: before the fix, ten digits or more hid the character (`&#0000000064;` is `@`).
#[test]
fn k2b_numeric_references_with_leading_zeros() {
    let secret = "p@ss-Canary-é77";
    let echoes = [
        "p&#0000000064;ss&#00000000045;Canary&#0000000045;&#0000000233;77",
        "p&#x0000000040;ss-Canary-&#x00000000E9;77",
        "p&#000000000000000000064ss-Canary-é77",
    ];
    let mut bad = Vec::new();
    for echo in echoes {
        bad.extend(echo_in_the_same_value(secret, echo, echo));
        for view in later_views(json!(secret), &text_result(echo)) {
            if view.contains("Canary") {
                bad.push(format!("later: {echo} -> {view}"));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// A taken text holding JSON in its prose is known with that JSON's values: withheld whole by
/// `sensitiveHint`, by a result's own claim, in allowlist mode, or marked. Before the fix a
/// later result (or, for a marked text, another member of the same one) echoing the JSON's
/// value reached the agent, and `check` let it out.
#[test]
fn k3b_json_in_the_prose_of_a_taken_text_is_known() {
    let hint = r#"{"name":"w","annotations":{"sensitiveHint":true}}"#;
    let mut bad = Vec::new();
    for text in [
        r#"Your key: {"apiKey":"sk_live_K3b_one"} keep it safe"#,
        r#"[see {"apiKey":"sk_live_K3b_one"}]"#,
        r#"Result: "{\"apiKey\":\"sk_live_K3b_one\"}""#,
        r#"{not json {"apiKey":"sk_live_K3b_one"}"#,
    ] {
        bad.extend(later_known(hint, &text_result(text), &["sk_live_K3b_one"]));
        let claim = json!({ "content": [{ "type": "text", "text": text }], "_meta": { "sensitiveHint": true } });
        bad.extend(later_known(PLAIN, &claim, &["sk_live_K3b_one"]));
        bad.extend(echo_in_the_same_value(text, "sk_live_K3b_one", "sk_live_K3b_one"));
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Prose that starts like JSON but cannot be JSON, however many brackets it leaves open, is
/// prose: before, a text starting with `[` or `{` with more than 128 brackets open was withheld
/// (`depth_limit`), though no JSON parser could read it. JSON nested past the limit, as a
/// whole text or inside prose, still fails the result.
#[test]
fn k4_deep_brackets_that_are_no_json_are_prose() {
    let def = marks(json!({ "type": "object", "properties": { "s": { "x-sensitive": true } } }));
    let deep = |open: &str, n: usize| open.repeat(n);
    let valid_deep = format!("{}1{}", deep("[", 200), deep("]", 200));
    for text in [
        format!("{} note {{\"s\":\"CANARY_K4\"}} and more", deep("[", 200)),
        format!("{}{{\"s\":\"CANARY_K4\"}}", deep("{", 300)),
        format!("{} ok", deep("[{", 150)),
        format!("[see: {} {{\"s\":\"CANARY_K4\"}}", deep("(", 10)) + &deep("[", 140),
        format!("{}\"{{\"s\":\"CANARY_K4\"}}\"", deep("[x ", 200)),
    ] {
        for format in FORMATS {
            let o = run_with(def.clone(), &text_result(&text).to_string(), format, &[]);
            assert!(!o.withheld, "{format:?}: {text}: {}", o.agent_json);
            assert!(!o.agent_json.contains("CANARY_K4"), "{format:?}: {}", o.agent_json);
            assert_idempotent(&def, &o, format);
        }
        let raw = json!({ "content": [{ "type": "text", "text": text }], "structuredContent": { "s": "x" } });
        closed(&def, &raw, "CANARY_K4");
    }
    // JSON past the limit still fails closed: whole, in prose, after deep prose, in a string.
    for text in [
        valid_deep.clone(),
        format!("see {valid_deep} ok"),
        format!("{} {valid_deep}", deep("[", 150)),
        format!("{}{valid_deep}", deep("{", 150)),
        serde_json::to_string(&valid_deep).unwrap(),
    ] {
        for format in FORMATS {
            let o = run_with(def.clone(), &text_result(&text).to_string(), format, &[]);
            assert!(o.withheld, "{format:?}: {text}: {}", o.agent_json);
        }
    }
}

/// One encoder a value meets on its way into a text.
fn encode(step: usize, s: &str) -> String {
    match step {
        0 => pct(s, "-_.~", true, false),
        1 => pct(s, "-_.~", false, true),
        2 => {
            let quoted = serde_json::to_string(s).unwrap();
            quoted[1..quoted.len() - 1].replace('/', "\\/")
        }
        3 => s
            .chars()
            .map(|c| match c {
                c if c.is_ascii_alphanumeric() => c.to_string(),
                c => c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect(),
            })
            .collect(),
        4 => html_num(s, 0),
        5 => html_num(s, 4),
        6 => s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;"),
        7 => s
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_string() } else { format!("&#x{:X};", c as u32) })
            .collect(),
        _ => unreachable!(),
    }
}

/// A fixed-seed random search over the angle that found most (class 11, encodings): a random
/// value with characters every encoder changes, through a random chain of the encodings README
/// rule 5 promises (one or two escapes; or base64, standard or URL-safe, padded or not, of the
/// value escaped at most once, then escaped once more as JSON or a URL does), glued to random
/// text or base64 characters, echoed beside the marked value (both engines, both formats,
/// stable on a second pass) and in a later result. Nothing of it may reach the agent.
#[test]
fn k5_random_encoding_chains() {
    let chars = [
        'a', 'Z', '7', '/', '+', ' ', '=', '&', '"', '<', '\'', '%', '\\', 'é', 'ß', '€', '😀', '-', '_', '.', '~', '?',
    ];
    let glues =
        ["", " ", "x=", "https://x.test/", "https://x.test/api/v1/", "ab/", "Zm9v", "token:", "\"", "data:;base64,"];
    let mut seed: u64 = 0x2700_cafe;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let mut bad = Vec::new();
    for case in 0..1500 {
        let secret: String =
            format!("K5{case}Q") + &(0..6 + next(8)).map(|_| chars[next(chars.len())]).collect::<String>();
        let mut t = secret.clone();
        let mut chain = Vec::new();
        if next(2) == 0 {
            for _ in 0..1 + next(2) {
                let step = next(8);
                chain.push(step);
                t = encode(step, &t);
            }
        } else {
            if next(2) == 0 {
                let step = next(8);
                chain.push(step);
                t = encode(step, &t);
            }
            let encoded = b64(t.as_bytes());
            t = match next(3) {
                0 => encoded,
                1 => encoded.trim_end_matches('=').to_string(),
                _ => encoded.trim_end_matches('=').replace('+', "-").replace('/', "_"),
            };
            chain.push(99);
            match next(3) {
                0 => (t, chain) = (t.replace('/', "\\/"), [chain, vec![2]].concat()),
                1 => (t, chain) = (pct(&t, "", false, false), [chain, vec![0]].concat()),
                _ => {}
            }
        }
        let echo = format!("{}{t}{}", glues[next(glues.len())], [" ok", "", "&y=1", "\""][next(4)]);
        let found = |view: &str| shows(view, &t) || shows(view, &secret);
        for b in echo_in_the_same_value(&secret, &echo, &t) {
            bad.push(format!("{secret:?} {chain:?}: {b}"));
        }
        for view in later_views(json!(secret), &text_result(&echo)) {
            if found(&view) {
                bad.push(format!("{secret:?} {chain:?} later: {echo} -> {view}"));
            }
        }
    }
    assert!(bad.is_empty(), "{} {bad:#?}", bad.len());
}

/// Near-miss shapes of a result that claims to be sensitive (a block with a non-string `type`,
/// an item that is no block, a non-object `structuredContent`, a `content` that is no array,
/// claim words in other spellings): each is still withheld on its claim, in both formats.
/// Found nothing; kept as a guard. (A result nested as an object inside a plain value,
/// `{"result":{…}}`, is not read for claims: see `tests/repro_s27_k/README.md`.)
#[test]
fn k6_near_miss_shapes_keep_their_claims() {
    let text = json!({ "type": "text", "text": "CANARY_K6" });
    let claim = json!({ "sensitiveHint": true });
    let mut bad = Vec::new();
    for raw in [
        json!({ "content": [text, { "type": null }], "_meta": claim }),
        json!({ "content": [text, "x"], "_meta": claim }),
        json!({ "content": [text], "_meta": claim, "structuredContent": "x" }),
        json!({ "content": text, "_meta": claim }),
        json!({ "content": [{ "type": "text", "text": "CANARY_K6", "annotations": claim }, { "type": 5 }] }),
        json!({ "content": [text], "_meta": { "SensitiveHint": "HIGH" } }),
        json!({ "content": [text], "_meta": { "sensitiveHint": "High " } }),
        json!({ "content": [text], "_meta": { "sensitiveHint": ["high"] } }),
        json!({ "content": [text], "_meta": { "sensitiveHint": 1 } }),
        json!({ "content": [text], "_meta": { "sensitiveHint": "true" } }),
        json!({ "content": [text], "_meta": { "annotations": claim } }),
        json!({ "content": [text], "annotations": claim }),
    ] {
        for format in FORMATS {
            let o = run_with(json!({ "name": "p" }), &raw.to_string(), format, &[]);
            if shows(&o.agent_json, "CANARY_K6") {
                bad.push(format!("{format:?}: {raw} -> {}", o.agent_json));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
