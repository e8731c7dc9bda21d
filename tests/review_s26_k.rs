//! Review s26, helper K: a careless or hostile tool against the Rust core. Each test states a
//! leak (or a broken promise) that must stay closed.

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::Format;

fn marks_s() -> Value {
    json!({ "name": "t", "outputSchema": { "type": "object", "properties": {
        "s": { "type": "string", "x-sensitive": true }, "password": { "x-sensitive": true } } } })
}

fn texts(t: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": t }] })
}

#[test]
fn p1_json_inside_a_bracketed_span_that_is_not_json() {
    for t in [
        r#"{see: {"password":"CANARY_P1_xyz"}}"#,
        r#"[note: {"s":"CANARY_P1_xyz"}]"#,
        r#"(x {"s":"CANARY_P1_xyz"})"#,
        r#"[a, {"s":"CANARY_P1_xyz"} b]"#,
        r#"{{{ {"s":"CANARY_P1_xyz"} }}}"#,
        r#"[note: "{\"s\":\"CANARY_P1_xyz\"}"]"#,
        r#"{x: "{\"s\":\"CANARY_P1_xyz\"}"}"#,
    ] {
        closed(&marks_s(), &texts(t), "CANARY_P1_xyz");
    }
}

#[test]
fn p1_a_stray_quote_after_an_unclosed_bracket_hides_nothing() {
    for t in [
        r#"[0, 10) 5" tall {"s":"CANARY_P1b_xyz"}"#,
        r#"{ 5" x {"s":"CANARY_P1b_xyz"} y"#,
        r#"[" {"s":"CANARY_P1b_xyz"}"#,
        r#"["a {"s":"CANARY_P1b_xyz"}"#,
        r#"["\" {"s":"CANARY_P1b_xyz"}"#,
    ] {
        closed(&marks_s(), &texts(t), "CANARY_P1b_xyz");
    }
}

#[test]
fn p1_a_value_that_starts_inside_a_string_of_another_is_walked_too() {
    // Both parse: the array, and the object read from the `{` inside its first string.
    let def = json!({ "name": "t", "outputSchema": { "additionalProperties": { "x-sensitive": true } } });
    let t = r#"see ["{",1,":",987654321,"}"] ok"#;
    closed(&def, &texts(t), "987654321");
}

#[test]
fn p1_an_object_inside_an_array_the_schema_cannot_take() {
    let sc = json!({ "s": "x" });
    for t in [
        r#"[{"s":"CANARY_P1c_xyz"}]"#,
        r#"Result: [{"s":"CANARY_P1c_xyz"}]"#,
        r#"["{\"s\":\"CANARY_P1c_xyz\"}"]"#,
        // Value matching cuts the number out of the array, and leaves the first object whole
        // with `[redacted: …]` in it: a second pass must not take that again.
        r#"see [{"password":"CANARY_P1c_xyz"}, {"password": 123456}]"#,
    ] {
        let raw = json!({ "content": [{ "type": "text", "text": t }], "structuredContent": sc });
        closed(&marks_s(), &raw, "CANARY_P1c_xyz");
    }
}

/// An allowlist tool (sensitive, with marks) whose `additionalProperties` is `extra`: an
/// undeclared member must not pass.
fn undeclared_passes(extra: Value) -> Option<String> {
    let def = json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": { "type": "object",
        "properties": { "id": { "type": "string" }, "s": { "x-sensitive": true } }, "additionalProperties": extra } });
    let raw = json!({ "content": [], "structuredContent": { "id": "a", "s": "x", "note": "CANARY_P2_xyz" } });
    let o = run_with(def, &raw.to_string(), Format::Webmcp, &[]);
    o.agent_json.contains("CANARY_P2_xyz").then_some(o.agent_json)
}

#[test]
fn p2a_assertions_that_hold_for_every_value_declare_nothing() {
    for extra in [
        json!({ "minLength": 0 }),
        json!({ "type": ["string", "number", "boolean", "object", "array", "null"] }),
        json!({ "not": false }),
        json!({ "anyOf": [true] }),
        json!({ "required": [] }),
        json!({ "minItems": 0, "minProperties": 0 }),
    ] {
        assert_eq!(undeclared_passes(extra.clone()), None, "{extra}");
    }
}

#[test]
fn p2b_a_choice_of_nothing_but_false_is_false() {
    for extra in
        [json!({ "anyOf": [false] }), json!({ "oneOf": [false] }), json!({ "allOf": [false, {}] }), json!(false)]
    {
        assert_eq!(undeclared_passes(extra.clone()), None, "{extra}");
    }
}

#[test]
fn p1_claims_in_json_inside_brackets_that_are_not_json() {
    let inner =
        json!({ "content": [{ "type": "text", "text": "CANARY_P1e_xyz" }], "_meta": { "sensitiveHint": true } });
    for t in [format!("[relay: {inner}]"), format!("[0, 1) 5\" {inner}"), format!("[\"a {inner}")] {
        let o = run_with(marks_s(), &texts(&t).to_string(), Format::Webmcp, &[]);
        assert!(!o.agent_json.contains("CANARY_P1e_xyz"), "{t}: {}", o.agent_json);
    }
}

/// Redacts `first` with `MARKED`, learns `later_secret` from another result, then redacts the
/// first view again: returns (first view, second view, third pass over the second view).
fn again_after_learning(format: Format, first: &Value, later_secret: &str) -> (String, String, String) {
    let mut r = redactor(format);
    let v1 = r.redact(MARKED, &first.to_string(), None).agent_json;
    r.redact(MARKED, &json!({ "s": later_secret }).to_string(), None);
    let v2 = r.redact(MARKED, &v1, None).agent_json;
    let v3 = r.redact(MARKED, &v2, None).agent_json;
    (v1, v2, v3)
}

/// A view redacted again after a value in it became known: the value goes, and a further pass
/// changes nothing. (It gets a second notice block for what went the second time: left open,
/// see `tests/repro_s26_k/README.md`.)
#[test]
fn p2c_a_view_redacted_again_after_new_values_is_stable_after() {
    let first = json!({ "content": [{ "type": "text", "text": "ids: LATER_P2c_secret ok" }], "structuredContent": { "s": "FIRST_P2c_secret" } });
    for format in FORMATS {
        let (v1, v2, v3) = again_after_learning(format, &first, "LATER_P2c_secret");
        assert!(v1.contains("LATER_P2c_secret"), "not known yet: {v1}");
        assert!(!v2.contains("LATER_P2c_secret"), "{format:?}: {v2}");
        assert_eq!(v3, v2, "{format:?}: a further pass changed it");
    }
}

/// Both engines, both formats: the canary never reaches the agent, and the engines agree byte
/// for byte. Returns what went wrong.
fn both_engines(schema: Value, raw: &str) -> Vec<String> {
    use webmcp_redact::{redact_with, Engine, KnownSecrets, Options};
    let t = tool(json!({ "name": "t", "outputSchema": schema }));
    let mut bad = Vec::new();
    for format in FORMATS {
        let mut views = Vec::new();
        for engine in [Engine::Streaming, Engine::Dom] {
            let options = Options { format, engine, ..Options::default() };
            let o = redact_with(&t, raw, &options, &mut Counter(0), &mut KnownSecrets::default());
            if o.agent_json.contains("CANARY") {
                bad.push(format!("{format:?} {engine:?} leaked: {raw} -> {}", o.agent_json));
            }
            views.push(o.agent_json);
        }
        if views[0] != views[1] {
            bad.push(format!("{format:?}: the engines differ on {raw}: {} / {}", views[0], views[1]));
        }
    }
    bad
}

/// Attacks that found nothing (kept as guards): escaped keys, a BOM or odd whitespace before
/// JSON, `$ref`s with pointer escapes and relative `$id`/`$anchor`, `unevaluated*`, `if`/`then`/
/// `else`, `propertyNames`, `dependentSchemas`, `prefixItems` beside `items`, base64 content,
/// escaped claim keys, nesting at the depth limit.
#[test]
fn p3_fresh_angles_hold_in_both_engines() {
    let m = json!({ "x-sensitive": true });
    let deep = |n: usize| format!("{}{}{}", "[".repeat(n), r#"{"s":"CANARY"}"#, "]".repeat(n));
    let recursive = json!({ "$defs": { "a": { "anyOf": [{ "type": "array", "items": { "$ref": "#/$defs/a" } },
        { "properties": { "s": m } }] } }, "$ref": "#/$defs/a" });
    let text = |t: &str| json!({ "content": [{ "type": "text", "text": t }] }).to_string();
    let props = json!({ "properties": { "secret": m, "s": m } });
    let content = |s: Value| json!({ "properties": { "doc": s } });
    let cases: Vec<(Value, String)> = vec![
        (props.clone(), r#"{"\u0073ecret":"CANARY"}"#.into()),
        (props.clone(), r#"{"secre\u0074":"CANARY","\u0073":"CANARY"}"#.into()),
        (json!({ "properties": { "a/b": m } }), r#"{"a\/b":"CANARY"}"#.into()),
        (json!({ "patternProperties": { "^secret$": m } }), r#"{"\u0073ecret":"CANARY"}"#.into()),
        (props.clone(), text(r#"see {"\u0073ecret":"CANARY"} ok"#)),
        (props.clone(), text("\u{feff}{\"secret\":\"CANARY\"}")),
        (props.clone(), text("\u{0c}{\"secret\":\"CANARY\"}")),
        (props.clone(), text("\u{a0}{\"secret\":\"CANARY\"}\u{2028}")),
        (props.clone(), "\u{feff}{\"secret\":\"CANARY\"}".into()),
        (props.clone(), " \t\r\n{\"secret\":\"CANARY\"}\n".into()),
        (
            json!({ "$defs": { "a/b": m }, "properties": { "s": { "$ref": "#/$defs/a~1b" } } }),
            r#"{"s":"CANARY"}"#.into(),
        ),
        (
            json!({ "$defs": { "a~b": m }, "properties": { "s": { "$ref": "#/$defs/a~0b" } } }),
            r#"{"s":"CANARY"}"#.into(),
        ),
        (
            json!({ "$defs": { "a b": m }, "properties": { "s": { "$ref": "#/$defs/a%20b" } } }),
            r#"{"s":"CANARY"}"#.into(),
        ),
        (
            json!({ "$defs": { "é": m }, "properties": { "s": { "$ref": "#/$defs/%C3%A9" } } }),
            r#"{"s":"CANARY"}"#.into(),
        ),
        (
            json!({ "$id": "https://x.test/root/main.json", "$defs": { "s": { "$id": "sub/s.json", "x-sensitive": true } },
                "properties": { "s": { "$ref": "sub/s.json" } } }),
            r#"{"s":"CANARY"}"#.into(),
        ),
        (
            json!({ "$id": "https://x.test/a/", "$defs": { "s": { "$id": "b/", "$defs": { "t": { "$anchor": "sec", "x-sensitive": true } } } },
                "properties": { "s": { "$ref": "b/#sec" } } }),
            r#"{"s":"CANARY"}"#.into(),
        ),
        (
            json!({ "allOf": [{ "properties": { "a": {} } }], "unevaluatedProperties": m }),
            r#"{"a":1,"b":"CANARY"}"#.into(),
        ),
        (
            json!({ "if": { "properties": { "b": { "const": "x" } }, "required": ["b"] }, "then": true, "unevaluatedProperties": m }),
            r#"{"b":"CANARY"}"#.into(),
        ),
        (json!({ "allOf": [{ "prefixItems": [{}] }], "unevaluatedItems": m }), r#"[1,"CANARY"]"#.into()),
        (
            json!({ "if": { "properties": { "k": { "const": "card" } } }, "then": { "properties": { "n": {} } }, "else": { "properties": { "n": m } } }),
            r#"{"k":"x","n":"CANARY"}"#.into(),
        ),
        (json!({ "propertyNames": { "pattern": "^s", "x-sensitive": true } }), r#"{"CANARY":1}"#.into()),
        (
            json!({ "dependentSchemas": { "card": { "properties": { "cvv": m } } } }),
            r#"{"c\u0061rd":1,"cvv":"CANARY"}"#.into(),
        ),
        (json!({ "prefixItems": [{}], "items": m }), r#"["a","CANARY"]"#.into()),
        (json!({ "items": [{}], "additionalItems": m }), r#"["a","CANARY"]"#.into()),
        (
            content(
                json!({ "contentEncoding": "base64", "contentMediaType": "application/json", "contentSchema": { "properties": { "s": m } } }),
            ),
            r#"{"doc":"eyJzIjoiQ0FOQVJZIn0="}"#.into(),
        ),
        (
            content(json!({ "contentSchema": { "properties": { "s": m } } })),
            r#"{"doc":"{\"\\u0073\":\"CANARY\"}"}"#.into(),
        ),
        (
            content(json!({ "contentSchema": { "properties": { "s": m } } })),
            r#"{"doc":"see {\"s\":\"CANARY\"}"}"#.into(),
        ),
        (props.clone(), r#"{"\u005fmeta":{"sensitiveHint":true},"data":"CANARY"}"#.into()),
        (props.clone(), r#"{"\u0061nnotations":{"sensitiveHint":true},"data":"CANARY"}"#.into()),
        (props.clone(), r#"{"_meta":{"\u0073ensitiveHint":"\u0068igh"},"data":"CANARY"}"#.into()),
        (props.clone(), r#"{"c\u006fntent":[],"s":"CANARY"}"#.into()),
        (props.clone(), r#"{"a\ud800":1,"a\udbff":2,"s":"CANARY"}"#.into()),
        (recursive.clone(), deep(127)),
        (recursive.clone(), deep(128)),
        (recursive, deep(129)),
    ];
    let bad: Vec<String> = cases.into_iter().flat_map(|(schema, raw)| both_engines(schema, &raw)).collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Found by a random search over prose pieces: a whole text that is a JSON string, holding
/// prose with JSON in it. The first pass writes the JSON inside back; a second pass over our
/// own view must not take the string whole as a mismatch now that its prose is not walked.
#[test]
fn p1_a_string_of_prose_holding_json_is_stable_on_a_second_pass() {
    let t = r#"",{ \"{\"s\":\"CANARY_P1f_xyz\"}""#;
    closed(&marks_s(), &texts(t), "CANARY_P1f_xyz");
    closed(&marks_s(), &texts(r#""see {\"s\":\"CANARY_P1f_xyz\"} ok""#), "CANARY_P1f_xyz");
}

/// A random search over pieces of prose and JSON (fixed seed, so it is the same search each
/// run): wherever a JSON object holding the marked `s` parses in the text, its value must not
/// reach the agent, and a second pass over the view changes nothing. (It found the case above.)
#[test]
fn p1_random_prose_pieces() {
    let pieces = [
        "{",
        "[",
        "\"",
        "\\\"",
        "\"s\"",
        ":",
        ",",
        "\"CANARY_Q\"",
        "]",
        "}",
        " ",
        "note",
        "1",
        "\\",
        "`",
        "\n",
        "\"{\\\"s\\\":\\\"CANARY_Q\\\"}\"",
    ];
    let mut seed: u64 = 0x1234_5678;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for case in 0..4000 {
        let mut t: String = (0..3 + next() % 16).map(|_| pieces[next() % pieces.len()]).collect();
        if case % 4 == 0 {
            t = Value::String(t).to_string(); // the whole text a JSON string
        }
        let holds = t.char_indices().any(|(i, c)| {
            let first = serde_json::Deserializer::from_str(&t[i..]).into_iter::<Value>().next();
            c == '{' && matches!(first, Some(Ok(Value::Object(o))) if o.get("s") == Some(&json!("CANARY_Q")))
        });
        let mut raw = texts(&t);
        if case % 2 == 1 {
            raw["structuredContent"] = json!({ "s": "x" });
        }
        for format in FORMATS {
            let o = run_with(marks_s(), &raw.to_string(), format, &[]);
            assert!(!holds || o.withheld || !o.agent_json.contains("CANARY_Q"), "{t:?}: {}", o.agent_json);
            if !o.withheld {
                assert_idempotent(&marks_s(), &o, format);
            }
        }
    }
}
