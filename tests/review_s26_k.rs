//! Review s26, helper K: a careless or hostile tool against the Rust core. Each test states a
//! leak (or a broken promise) that must stay closed.

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::Format;

const FORMATS: [Format; 2] = [Format::Webmcp, Format::Mcp];

fn marks_s() -> Value {
    json!({ "name": "t", "outputSchema": { "type": "object", "properties": {
        "s": { "type": "string", "x-sensitive": true }, "password": { "x-sensitive": true } } } })
}

/// Runs `raw` through `def` in both formats; the canary must not reach the agent, and a second
/// pass must change nothing.
fn closed(def: &Value, raw: &Value, canary: &str) {
    for format in FORMATS {
        let o = run_with(def.clone(), &raw.to_string(), format, &[]);
        assert!(!o.agent_json.contains(canary), "{format:?}: {canary} leaked from {raw}: {}", o.agent_json);
        if !o.withheld {
            assert_idempotent(def, &o, format);
        }
    }
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

#[test]
fn p1_claims_in_json_inside_brackets_that_are_not_json() {
    let inner =
        json!({ "content": [{ "type": "text", "text": "CANARY_P1e_xyz" }], "_meta": { "sensitiveHint": true } });
    for t in [format!("[relay: {inner}]"), format!("[0, 1) 5\" {inner}"), format!("[\"a {inner}")] {
        let o = run_with(marks_s(), &texts(&t).to_string(), Format::Webmcp, &[]);
        assert!(!o.agent_json.contains("CANARY_P1e_xyz"), "{t}: {}", o.agent_json);
    }
}
