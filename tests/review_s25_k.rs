//! Review s25, helper K: an adversarial tool against the Rust core, looking for leaks in
//! combinations of features. Each test states a leak that must stay closed.

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::{Format, KnownSecret};

fn redactor(format: Format) -> webmcp_redact::Redactor {
    common::redactor(format)
}

fn marks_s() -> Value {
    json!({ "name": "t", "outputSchema": { "type": "object", "properties": { "s": { "type": "string", "x-sensitive": true } } } })
}

fn text(t: &str) -> Value {
    json!({ "type": "text", "text": t })
}

#[test]
fn a1_json_text_block_inside_a_result_written_as_text() {
    let inner = json!({ "content": [text(&json!({ "s": "CANARY_A1_xyz" }).to_string())] });
    closed(&marks_s(), &json!({ "content": [text(&inner.to_string())] }), "CANARY_A1_xyz");
}

#[test]
fn a2_result_as_text_inside_result_as_text() {
    let inner = json!({ "content": [], "structuredContent": { "s": "CANARY_A2_xyz" } });
    let middle = json!({ "content": [text(&inner.to_string())] });
    closed(&marks_s(), &json!({ "content": [text(&middle.to_string())] }), "CANARY_A2_xyz");
}

#[test]
fn a3_result_as_text_in_prose() {
    let inner = json!({ "content": [], "structuredContent": { "s": "CANARY_A3_xyz" } });
    closed(&marks_s(), &json!({ "content": [text(&format!("Result: {inner}"))] }), "CANARY_A3_xyz");
}

#[test]
fn a5_array_structured_content_in_result_as_text() {
    let def =
        json!({ "name": "t", "outputSchema": { "type": "array", "items": { "type": "string", "x-sensitive": true } } });
    let inner = json!({ "content": [], "structuredContent": ["CANARY_A5_xyz"] });
    closed(&def, &json!({ "content": [text(&inner.to_string())] }), "CANARY_A5_xyz");
}

#[test]
fn a6_content_schema_in_prose_in_result_as_text() {
    let def = json!({ "name": "t", "outputSchema": { "type": "object", "properties": { "doc": { "type": "string",
        "contentMediaType": "application/json", "contentSchema": { "properties": { "s": { "x-sensitive": true } } } } } } });
    let doc = json!({ "s": "CANARY_A6_xyz" }).to_string();
    let inner = json!({ "content": [], "structuredContent": { "doc": doc } });
    closed(&def, &json!({ "content": [text(&format!("see {inner} ok"))] }), "CANARY_A6_xyz");
    closed(&def, &json!({ "content": [text(&format!("see {} ok", json!({"doc": doc})))] }), "CANARY_A6_xyz");
}

#[test]
fn a7_structured_and_text_disagree_array() {
    let def = json!({ "name": "t", "outputSchema": { "type": "array", "items": { "properties": { "s": { "x-sensitive": true } } } } });
    let raw = json!({ "content": [text(&json!([{ "s": "CANARY_A7_xyz" }]).to_string())], "structuredContent": [{ "s": "x" }] });
    closed(&def, &raw, "CANARY_A7_xyz");
}

#[test]
fn a8_is_error_result_with_marked_structured() {
    let raw = json!({ "content": [text(&json!({ "s": "CANARY_A8_xyz" }).to_string())], "isError": true });
    closed(&marks_s(), &raw, "CANARY_A8_xyz");
    let raw = json!({ "content": [text("failed")], "structuredContent": { "s": "CANARY_A8_xyz" }, "isError": true });
    closed(&marks_s(), &raw, "CANARY_A8_xyz");
}

/// A known value in a resource block's uri, name, title, annotations.
#[test]
fn a9_known_value_in_resource_fields() {
    let secret = "sk_live_RES_CANARY_9";
    let blocks = [
        json!({ "type": "resource_link", "uri": format!("https://x.test/{secret}"), "name": "n" }),
        json!({ "type": "resource_link", "uri": "https://x.test/a", "name": secret }),
        json!({ "type": "resource_link", "uri": "https://x.test/a", "name": "n", "title": secret }),
        json!({ "type": "resource_link", "uri": "https://x.test/a", "name": "n", "description": secret }),
        json!({ "type": "resource", "resource": { "uri": format!("file:///{secret}"), "text": "t" } }),
        json!({ "type": "resource", "resource": { "uri": "file:///a", "text": "t", "_meta": { "k": secret } } }),
        json!({ "type": "text", "text": "a", "annotations": { "audience": ["assistant"], "lastModified": secret } }),
        json!({ "type": "resource", "resource": { "uri": "file:///a", "mimeType": format!("text/{secret}"), "text": "t" } }),
        json!({ "type": "image", "data": "AAAA", "mimeType": format!("image/{secret}") }),
        json!({ "type": "resource_link", "uri": "https://x.test/a", "name": "n", "icons": [{ "src": format!("https://x.test/{secret}.png") }] }),
        json!({ "type": "resource_link", "uri": "https://x.test/a", "name": "n", "icons": [{ "src": "https://x.test/i.png", "sizes": [secret] }] }),
    ];
    for block in blocks {
        let raw = json!({ "content": [block.clone()] });
        for format in FORMATS {
            let o = run_with(
                json!({ "name": "echo" }),
                &raw.to_string(),
                format,
                &[KnownSecret { value: secret.into(), label: "k".into() }],
            );
            assert!(!o.agent_json.contains(secret), "{format:?}: {block}: {}", o.agent_json);
        }
    }
}

#[test]
fn a10_json_of_the_value_in_an_embedded_resource() {
    let res = |t: String| json!({ "type": "resource", "resource": { "uri": "file:///r.json", "mimeType": "application/json", "text": t } });
    let value = json!({ "s": "CANARY_A10_xyz" }).to_string();
    closed(&marks_s(), &json!({ "content": [res(value.clone())] }), "CANARY_A10_xyz");
    let inner = json!({ "content": [], "structuredContent": { "s": "CANARY_A10_xyz" } });
    closed(&marks_s(), &json!({ "content": [res(inner.to_string())] }), "CANARY_A10_xyz");
}

/// Marked numbers in odd notations, then echoed in later results.
#[test]
fn a11_marked_numbers_in_odd_notations_are_known_in_their_echoes() {
    let mut leaks = Vec::new();
    for (marked, echoes) in [
        (
            "123456789012345678901234567890",
            vec!["123456789012345678901234567890", "1.23456789012345678901234567890e29"],
        ),
        ("1.5e3", vec!["1500", "1.5E3", "1500.0"]),
        ("-0.000012345", vec!["-0.000012345", "-1.2345e-5"]),
        ("31415E-4", vec!["3.1415", "31415e-4"]),
        ("1e400", vec!["1e400", "1E400"]),
    ] {
        for echo in echoes {
            for later in [
                format!(r#"{{"n":{echo}}}"#),
                json!({ "content": [text(&format!("the number {echo} ok"))] }).to_string(),
                json!({ "content": [text(&format!(r#"{{"n":{echo}}}"#))] }).to_string(),
            ] {
                for format in FORMATS {
                    let mut r = redactor(format);
                    let first = r.redact(MARKED, &format!(r#"{{"s":{marked}}}"#), None);
                    if first.withheld {
                        continue;
                    }
                    let out = r.redact(PLAIN, &later, None);
                    if out.agent_json.contains(echo) && !out.withheld {
                        leaks.push(format!("{format:?} marked {marked} echo {later} -> {}", out.agent_json));
                    }
                }
            }
        }
    }
    assert!(leaks.is_empty(), "{leaks:#?}");
}

/// Marked strings with NUL, control characters, escapes and lone surrogates, echoed later.
#[test]
fn a12_marked_strings_with_escapes_are_known_in_their_echoes() {
    let mut leaks = Vec::new();
    for (marked_json, echo_json) in [
        (r#""ab\u0000cdef""#, r#""ab\u0000cdef""#),
        (r#""ab\u0000cdef""#, r#""xx ab\u0000cdef yy""#),
        (r#""pw\ud800zzzz""#, r#""x pw\udbffzzzz y""#),
        (r#""pw\ud800zzzz""#, r#""x pw\ufffdzzzz y""#),
        (r#""tab\tsecret1""#, r#""x tab\tsecret1 y""#),
        (r#""q\"uote\\s1""#, r#""x q\"uote\\s1 y""#),
        (r#""\ud83d\ude00emoji1""#, r#""x \ud83d\ude00emoji1 y""#),
    ] {
        for format in FORMATS {
            let mut r = redactor(format);
            r.redact(MARKED, &format!(r#"{{"s":{marked_json}}}"#), None);
            for later in
                [format!(r#"{{"n":{echo_json}}}"#), format!(r#"{{"content":[{{"type":"text","text":{echo_json}}}]}}"#)]
            {
                let out = r.redact(PLAIN, &later, None);
                let seen = webmcp_redact::parse_json(&out.agent_json).unwrap();
                let marked = webmcp_redact::parse_json(marked_json).unwrap().as_str().unwrap().to_string();
                let core: String = marked.chars().filter(|c| *c != '\u{fffd}').collect();
                let mut strings = Vec::new();
                string_leaves(&seen, &mut strings);
                if strings.iter().any(|s| s.contains(&marked) || (core.len() > 6 && s.contains(&core[..core.len()]))) {
                    leaks.push(format!("{format:?} {marked_json} via {later}: {}", out.agent_json));
                }
            }
        }
    }
    assert!(leaks.is_empty(), "{leaks:#?}");
}

/// check(): a known value carried in arguments, in the encodings value matching reads.
#[test]
fn a13_check_sees_known_values_in_encoded_arguments() {
    let mut r = redactor(Format::Webmcp);
    r.redact(MARKED, r#"{"s":"sk_live_EGRESS_K13"}"#, None);
    let post = r#"{"name":"post","annotations":{"openWorldHint":true,"readOnlyHint":false}}"#;
    let b64 = "c2tfbGl2ZV9FR1JFU1NfSzEz"; // base64 of sk_live_EGRESS_K13
    let mut missed = Vec::new();
    for args in [
        json!({ "u": "https://x.test/?q=sk%5Flive%5FEGRESS%5FK13" }),
        json!({ "u": format!("data:text/plain;base64,{b64}") }),
        json!({ "body": json!({ "inner": "sk_live_EGRESS_K13" }).to_string() }),
        json!({ "body": json!({ "inner": json!({ "x": "sk_live_EGRESS_K13" }).to_string() }).to_string() }),
        json!({ "sk_live_EGRESS_K13": 1 }),
        json!({ "h": "sk&#95;live&#95;EGRESS&#95;K13" }),
        json!({ "h": "\u{73}k_live_EGRESS_K13" }),
        json!([["sk_live_EGRESS_K13"]]),
        json!("sk_live_EGRESS_K13"),
    ] {
        let c = r.check(post, &args.to_string(), None).unwrap();
        if !c.reasons.iter().any(|x| x.rule.code() == "secret_egress") {
            missed.push(args);
        }
    }
    assert!(missed.is_empty(), "egress missed: {missed:?}");
}

/// $dynamicRef through anyOf in allowlist mode: a value only the dynamic target declares.
#[test]
fn a14_dynamic_ref_with_any_of_in_allowlist_mode() {
    let def = json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://x.test/root",
        "$defs": {
            "base": { "$id": "https://x.test/base", "$dynamicAnchor": "node",
                      "anyOf": [ { "type": "object", "properties": { "kids": { "type": "array", "items": { "$dynamicRef": "#node" } } } }, true ] },
            "node": { "$dynamicAnchor": "node", "type": "object", "properties": { "id": { "type": "string" }, "pw": { "type": "string", "x-sensitive": true } } }
        },
        "$ref": "base",
        "properties": { "id": { "type": "string" } }
    } });
    let raw = json!({ "id": "a", "kids": [{ "id": "b", "pw": "CANARY_A14_pw", "other": "CANARY_A14_und" }] });
    closed(&def, &raw, "CANARY_A14_pw");
    closed(&def, &raw, "CANARY_A14_und");
}

/// A marked value that is also a key elsewhere in the same result, and a marked key.
#[test]
fn a15_a_marked_value_that_is_also_a_key() {
    let raw = json!({ "s": "CANARY_A15_key", "m": { "CANARY_A15_key": 1 } });
    closed(&marks_s(), &raw, "CANARY_A15_key");
    let def = json!({ "name": "t", "outputSchema": { "type": "object", "properties": { "m": { "propertyNames": { "x-sensitive": true } } } } });
    let raw = json!({ "m": { "CANARY_A15_pn": 1 }, "note": "CANARY_A15_pn" });
    closed(&def, &raw, "CANARY_A15_pn");
    let raw = json!({ "content": [text(&json!({ "m": { "CANARY_A15_pn": 1 } }).to_string())], "structuredContent": { "m": {} }, "z": { "CANARY_A15_pn": 2 } });
    closed(&def, &raw, "CANARY_A15_pn");
}

/// The class of a1/a2/a10: JSON of the value in a block's text inside a result written as text,
/// at every depth up to the limit, mixing whole texts, prose, and embedded resources; deeper
/// than the limit the result fails closed.
#[test]
fn a16_json_in_texts_of_results_written_as_text_is_walked_at_every_depth() {
    let canary = "CANARY_A16_xyz";
    let wraps: [fn(String) -> Value; 3] = [
        |t| json!({ "content": [text(&t)] }),
        |t| json!({ "content": [text(&format!("Result:\n```json\n{t}\n```"))] }),
        |t| json!({ "content": [{ "type": "resource", "resource": { "uri": "file:///a", "text": t } }] }),
    ];
    for depth in 1..7 {
        for first in 0..3 {
            let mut t = json!({ "s": canary, "n": 2 }).to_string();
            for d in 0..depth {
                t = wraps[(first + d) % 3](t).to_string();
            }
            closed(&marks_s(), &serde_json::from_str(&t).unwrap(), canary);
        }
    }
    // Past the limit: withheld, never raw.
    let mut t = json!({ "s": canary }).to_string();
    for _ in 0..12 {
        t = format!("see {}", json!({ "content": [text(&t)] }));
    }
    let raw = json!({ "content": [text(&t)] });
    for format in FORMATS {
        let o = run_with(marks_s(), &raw.to_string(), format, &[]);
        assert!(!o.agent_json.contains(canary), "{format:?}: {}", o.agent_json);
    }
}

#[test]
fn a4_sensitive_claim_in_prose_json() {
    let def = json!({ "name": "t" });
    let inner = json!({ "content": [text("CANARY_A4_xyz")], "_meta": { "sensitiveHint": true } });
    closed(&def, &json!({ "content": [text(&format!("Result: {inner}"))] }), "CANARY_A4_xyz");
}

/// The class of a4: a result written inside prose makes its claims, however it claims, in a text
/// or a resource's text, at depth; a marked tool then goes allowlist. JSON in prose whose claims
/// cannot be read (a repeated key) fails closed.
#[test]
fn a17_a_result_written_inside_prose_makes_its_claims() {
    let canary = "CANARY_A17_xyz";
    let claims = [
        json!({ "_meta": { "sensitiveHint": true } }),
        json!({ "_meta": { "io.modelcontextprotocol/trust-annotations": { "sensitive": true } } }),
        json!({ "_meta": { "annotations": { "sensitiveHint": "high" } } }),
    ];
    for claim in claims {
        let mut inner = json!({ "content": [text(canary)] });
        inner.as_object_mut().unwrap().extend(claim.as_object().unwrap().clone());
        let once = format!("The tool said:\n```json\n{inner}\n```");
        let twice = format!("relay: {}", json!({ "content": [text(&once)] }));
        for t in [once.clone(), twice] {
            for block in [text(&t), json!({ "type": "resource", "resource": { "uri": "file:///a", "text": t } })] {
                let raw = json!({ "content": [block] });
                closed(&json!({ "name": "t" }), &raw, canary);
                closed(&marks_s(), &raw, canary);
            }
        }
    }
    let raw = json!({ "content": [text(&format!("log: {{\"a\":1,\"a\":2,\"x\":\"{canary}\"}}"))] });
    for format in FORMATS {
        let o = run_with(json!({ "name": "t" }), &raw.to_string(), format, &[]);
        assert!(o.withheld && !o.agent_json.contains(canary), "{format:?}: {}", o.agent_json);
    }
}

/// Known values in MCP's own `_meta` members and in a tool's reference label.
#[test]
fn b1_known_values_in_mcp_meta_members_and_reference_labels() {
    let mut leaks = Vec::new();
    for (secret, raw) in [
        ("918273645", r#"{"content":[],"_meta":{"progressToken":918273645}}"#.to_string()),
        ("sk_live_B1_tok", r#"{"content":[],"_meta":{"progressToken":"sk_live_B1_tok"}}"#.to_string()),
        (
            "sk_live_B1_task",
            r#"{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"sk_live_B1_task"}}}"#
                .to_string(),
        ),
        ("sk_live_B1_key", r#"{"content":[],"_meta":{"sk_live_B1_key":1}}"#.to_string()),
        (
            "sk_live_B1_lbl",
            r#"{"content":[{"type":"secret_reference","id":"r1","label":"key sk_live_B1_lbl","redeemUrl":"/r/1"}]}"#
                .to_string(),
        ),
        (
            "sk_live_B1_ann",
            r#"{"content":[{"type":"text","text":"a","annotations":{"audience":["assistant","sk_live_B1_ann"]}}]}"#
                .to_string(),
        ),
    ] {
        for format in FORMATS {
            let mut r = redactor(format);
            let marked = match secret.parse::<u64>() {
                Ok(n) => format!(r#"{{"s":{n}}}"#),
                Err(_) => json!({ "s": secret }).to_string(),
            };
            r.redact(MARKED, &marked, None);
            let out = r.redact(PLAIN, &raw, None);
            if out.agent_json.contains(secret) {
                leaks.push(format!("{format:?} {raw} -> {}", out.agent_json));
            }
        }
    }
    assert!(leaks.is_empty(), "{leaks:#?}");
}

/// check(): known values in argument keys written as JSON, and in JSON inside prose.
#[test]
fn b2_check_sees_known_values_in_keys_and_prose_json() {
    let mut r = redactor(Format::Webmcp);
    r.redact(MARKED, r#"{"s":"sk_live_EGRESS_B2"}"#, None);
    let post = r#"{"name":"post","annotations":{"openWorldHint":true,"readOnlyHint":false}}"#;
    let mut missed = Vec::new();
    for args in [
        json!({ json!({ "x": "sk_live_EGRESS_B2" }).to_string(): 1 }),
        json!({ "m": format!("note {}", json!({ "x": "sk\\u005flive_EGRESS_B2" })) }),
        json!({ "m": "sk\\u005flive\\u005fEGRESS\\u005fB2" }),
    ] {
        let c = r.check(post, &args.to_string(), None).unwrap();
        if !c.reasons.iter().any(|x| x.rule.code() == "secret_egress") {
            missed.push(args);
        }
    }
    assert!(missed.is_empty(), "egress missed: {missed:?}");
}

/// A value stringified twice (a JSON string holding the JSON of the value), or more: whole, in
/// prose, beside a structuredContent it differs from, in a resource, inside a result written as
/// text; prose with stray quotes around it still finds it.
#[test]
fn c3_a_value_stringified_twice() {
    let canary = "CANARY_C3_xyz";
    let quote = |v: String| Value::String(v).to_string();
    let twice = quote(json!({ "s": canary, "n": 1 }).to_string());
    let thrice = quote(format!("Result: {twice}"));
    let relayed = quote(json!({ "content": [], "structuredContent": { "s": canary } }).to_string());
    for raw in [
        json!({ "content": [text(&twice)] }),
        json!({ "content": [text(&format!("Result: {twice}"))] }),
        json!({ "content": [text(&twice)], "structuredContent": { "s": "other" } }),
        json!({ "content": [text(&format!("Result: {twice}"))], "structuredContent": { "n": 1 } }),
        json!({ "content": [text(&format!("He said \"hi\" {{}} then 5\" and: {twice} ok \""))] }),
        json!({ "content": [text(&format!("a \"b\" [1] {thrice}"))] }),
        json!({ "content": [text(&relayed)] }),
        json!({ "content": [{ "type": "resource", "resource": { "uri": "file:///a", "text": format!("x {twice}") } }] }),
        json!({ "content": [text(&json!({ "content": [text(&format!("x {twice}"))] }).to_string())] }),
    ] {
        closed(&marks_s(), &raw, canary);
    }
}

/// Every combination (up to three deep) of the ways a value can be written inside a result as
/// text: whole JSON text, a code fence, a JSON string (stringified twice), an embedded
/// resource, a CallToolResult written as text, and a text beside a different structuredContent.
/// For a denylist tool, an allowlist tool and a tool whose root is an `anyOf` behind a `$ref`,
/// in both formats: the marked value never reaches the agent, and a second pass changes nothing.
#[test]
fn d1_every_combination_of_text_wrappings_keeps_the_marks() {
    let canary = "CANARY_D1_xyz";
    let quote = |v: String| Value::String(v).to_string();
    let wraps: [&dyn Fn(String) -> String; 6] = [
        &|t| json!({ "content": [text(&t)] }).to_string(),
        &|t| json!({ "content": [text(&format!("Done.\n```json\n{t}\n```"))] }).to_string(),
        &|t| json!({ "content": [text(&format!("log: {}", quote(t)))] }).to_string(),
        &|t| json!({ "content": [{ "type": "resource", "resource": { "uri": "file:///a", "text": t } }] }).to_string(),
        &|t| json!({ "content": [text(&json!({ "content": [text(&t)] }).to_string())] }).to_string(),
        &|t| json!({ "content": [text(&format!("v {t}"))], "structuredContent": { "n": 9 } }).to_string(),
    ];
    let defs = [
        marks_s(),
        json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": { "type": "object",
            "properties": { "n": { "type": "number" }, "s": { "type": "string", "x-sensitive": true } } } }),
        json!({ "name": "t", "outputSchema": { "$ref": "#/$defs/v", "$defs": { "v": { "anyOf": [
            { "type": "object", "properties": { "s": { "x-sensitive": true } } }, { "type": "array" } ] } } } }),
    ];
    let mut leaks = Vec::new();
    let value = json!({ "s": canary, "n": 1 }).to_string();
    let mut combos: Vec<Vec<usize>> = (0..6).map(|a| vec![a]).collect();
    for _ in 0..2 {
        let longer: Vec<Vec<usize>> = combos
            .iter()
            .filter(|c| c.len() == combos.last().unwrap().len())
            .flat_map(|c| (0..6).map(move |w| [c.clone(), vec![w]].concat()))
            .collect();
        combos.extend(longer);
    }
    for combo in &combos {
        // The innermost wrapper must give a result; the value itself is the JSON text.
        let mut t = value.clone();
        for &w in combo {
            t = wraps[w](t);
        }
        for def in &defs {
            for format in FORMATS {
                let o = run_with(def.clone(), &t, format, &[]);
                if o.agent_json.contains(canary) {
                    leaks.push(format!("{combo:?} {format:?} {}: {}", def["name"], o.agent_json));
                } else if !o.withheld {
                    assert_idempotent(def, &o, format);
                }
            }
        }
    }
    assert!(leaks.is_empty(), "{} leaks, first: {:#?}", leaks.len(), &leaks[..leaks.len().min(3)]);
}

/// JSON in prose after a bracket that never closes (`[0, 10)`, `:-{`, `array[i`).
#[test]
fn e6_json_in_prose_after_an_unclosed_bracket() {
    let canary = "CANARY_E6_xyz";
    let value = json!({ "s": canary, "n": 1 });
    for prose in [
        format!("range [0, 10) ok. Result: {value}"),
        format!("oops :-{{ here it is {value}"),
        format!("Result: {value} and array[i"),
        format!("a [b {{ c ] d }} e {value}"),
    ] {
        closed(&marks_s(), &json!({ "content": [text(&prose)] }), canary);
    }
}

/// A result stringified twice makes its claims, as rule 5 walks it: whole, and in prose.
#[test]
fn f1_a_result_stringified_twice_makes_its_claims() {
    let canary = "CANARY_F1_xyz";
    let inner = json!({ "content": [text(canary)], "_meta": { "sensitiveHint": true } }).to_string();
    let twice = Value::String(inner).to_string();
    for t in [twice.clone(), format!("relay: {twice} done"), Value::String(format!("x {twice}")).to_string()] {
        closed(&json!({ "name": "t" }), &json!({ "content": [text(&t)] }), canary);
    }
}
