//! Attack findings (review 0740): each test is a minimal input on which a documented guarantee
//! failed at commit c08c573 (the fixes of review 0722); all hold now. The cost findings are
//! checked by outcome here (a run past the budget is forced with a small `maxWork`); the bound
//! itself is counted in `scrub::known`'s tests (forms per value are linear in the value).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::{Config, Format, Limits, Redactor};

/// A redactor whose runs may add only `bytes` to the known set (and do as much other work).
fn small_budget(bytes: usize) -> Redactor {
    let limits = Limits { max_work: bytes, ..Limits::default() };
    Redactor::new(Config { limits, ..Config::default() }, Box::new(Counter(0)))
}

fn learn_all(format: Format, secrets: Value) -> Redactor {
    let mut r = redactor(format);
    let o = r.redact(MARKED, &json!({ "s": secrets }).to_string(), None);
    assert!(o.error.is_none(), "{:?}", o.error);
    r
}

/// The string JSON.parse reads out of a text block of the agent view, at every JSON level
/// (a text that is JSON, JSON text inside its strings...): what an agent that decodes it sees.
fn decoded_strings(text: &str, out: &mut Vec<String>) {
    out.push(text.to_string());
    if let Ok(v) = serde_json::from_str::<Value>(&text.replace("\\ud800", "")) {
        let mut leaves = Vec::new();
        string_leaves(&v, &mut leaves);
        if let Value::Object(m) = &v {
            leaves.extend(m.keys().cloned());
        }
        for leaf in leaves {
            if leaf != text {
                decoded_strings(&leaf, out);
            }
        }
    }
}

fn assert_text_never_decodes_to(view: &str, secret: &str) {
    let v: Value = serde_json::from_str(view).unwrap();
    for block in v["content"].as_array().unwrap() {
        let Some(text) = block["text"].as_str() else { continue };
        let mut all = Vec::new();
        decoded_strings(text, &mut all);
        assert!(!all.iter().any(|s| s.contains(secret)), "known {secret} reaches the agent decoded: {view}");
    }
}

// ---------------------------------------------------------------------------------------------
// scrub/json_text.rs: "A text block's or a resource's text that is JSON (an object, an array or
// a string) is also matched on the strings it holds, decoded".

/// JSON text with a repeated key is still JSON to `JSON.parse` (last one wins), but
/// `parse_embedded` fails with `duplicate_key` and `scrub_json` swallows that error: the text
/// is matched only as written, and a `\u`-escaped known value passes.
#[test]
fn attack2_json_text_with_a_repeated_key_is_not_decoded() {
    let text = r#"{"a":1,"a":2,"k":"\u0073k_live_abc123"}"#;
    for view in later_views(json!("sk_live_abc123"), &text_result(text)) {
        assert!(!view.contains("u0073k_live_abc123"), "escaped known value passed: {view}");
    }
}

/// A text block whose whole text is a JSON string holding a lone surrogate escape (as
/// `JSON.stringify` writes a string cut inside an emoji): `parse_embedded` reads a non-container
/// with plain serde_json, which rejects lone surrogates, so the string is not decoded.
#[test]
fn attack2_json_string_text_with_a_lone_surrogate_is_not_decoded() {
    let text = r#""\ud800\u0073k_live_abc123""#; // JSON.parse: "\ud800sk_live_abc123"
    for view in later_views(json!("sk_live_abc123"), &text_result(text)) {
        assert!(!view.contains("u0073k_live_abc123"), "escaped known value passed: {view}");
    }
    // The same inside JSON: a member holding JSON text that is a string (level 2).
    let text = r#"{"k":"\"\\ud800\\u0073k_live_abc123\""}"#;
    for view in later_views(json!("sk_live_abc123"), &text_result(text)) {
        assert!(!view.contains("u0073k_live_abc123"), "escaped known value passed (nested): {view}");
    }
}

/// JSON text nested deeper than `maxDepth`: `parse_embedded` fails with `depth_limit`, the
/// error is swallowed and the text passes as prose with an escaped known value. README: "A
/// JSON text block the core would walk but cannot (nested past `maxDepth`) fails the result
/// instead of passing as prose."
#[test]
fn attack2_json_text_nested_past_max_depth_passes_as_prose() {
    let text = format!("{}\"\\u0073k_live_abc123\"{}", "[".repeat(130), "]".repeat(130));
    for view in later_views(json!("sk_live_abc123"), &text_result(&text)) {
        assert!(!view.contains("u0073k_live_abc123"), "escaped known value passed: {}", &view[..200]);
    }
}

/// Text that is not JSON only because of a known value (a value holding `"`): the decoded pass
/// does nothing (not JSON), the verbatim pass then replaces the value, and what is left is
/// valid JSON holding another known value `\u`-escaped. It reaches the agent; a second
/// redaction of the view then finds it (not idempotent).
#[test]
fn attack2_text_made_json_by_the_verbatim_pass_is_not_decoded() {
    let text = r#"{"x":"ab"cd1234","k":"\u0073k_live_abc123"}"#;
    for format in [Format::Webmcp, Format::Mcp] {
        let mut r = learn_all(format, json!(["ab\"cd1234", "sk_live_abc123"]));
        let first = r.redact(PLAIN, &text_result(text).to_string(), None).agent_json;
        let again = r.redact(PLAIN, &first, None).agent_json;
        assert_eq!(again, first, "a second redaction of the view changed it");
        assert_text_never_decodes_to(&first, "sk_live_abc123");
    }
}

// ---------------------------------------------------------------------------------------------
// escaped_separator_before: "also after an escaped separator, `CVV%20737` or a JSON `\n`".

/// A separator outside the BMP written as JSON escapes (a surrogate pair, `\ud83d\ude00` for 😀,
/// as Python's json.dumps and Gson write any emoji): the four hex digits before the value are a
/// low surrogate, `char::from_u32` fails and the CVV is taken as inside a word.
#[test]
fn attack2_short_value_after_an_escaped_emoji() {
    let text = r#"log {"m":"paid \ud83d\ude00737"}"#; // decoded: "paid 😀737"
    for view in later_views(json!("737"), &text_result(text)) {
        assert!(!view.contains("737"), "known CVV passed: {view}");
    }
}

// ---------------------------------------------------------------------------------------------
// settle_references: "a `$ref` or `allOf` that leads only to such schemas describe nothing".

/// `additionalProperties` a `$ref` to a schema that is a `$dynamicRef` to an annotation-only
/// schema (or the `$dynamicRef` itself): nodes with dynamic references are never settled, so in
/// allowlist mode every undeclared name and value passes.
#[test]
fn attack2_allowlist_additional_properties_through_a_dynamic_ref_to_true() {
    for additional in [json!({ "$ref": "#/$defs/dyn" }), json!({ "$dynamicRef": "#any" })] {
        let tool = json!({ "name": "billing", "annotations": { "sensitiveHint": true }, "outputSchema": {
            "properties": { "card": { "x-sensitive": true } },
            "additionalProperties": additional,
            "$defs": { "any": { "$dynamicAnchor": "any" }, "dyn": { "$dynamicRef": "#any" } }
        } });
        let out = run(tool, json!({ "card": "4111111111111111", "address": "CANARY 1 Main St" }));
        assert_no_canary(&out, "CANARY 1 Main St");
    }
}

// ---------------------------------------------------------------------------------------------
// `if` as a Condition: "a property named only inside an `if` is not declared".

/// The `if` names the property one level down (`if.properties.wrapper.properties.address`):
/// `declaring` starts from every location's own subschema (`deeper`), including those under an
/// `if`, so `address` is declared and passes allowlist mode.
#[test]
fn attack2_allowlist_property_named_only_inside_an_if_one_level_down() {
    let tool = json!({ "name": "billing", "annotations": { "sensitiveHint": true }, "outputSchema": {
        "properties": { "card": { "x-sensitive": true }, "wrapper": { "type": "object" } },
        "if": { "properties": { "wrapper": { "properties": { "address": { "type": "string" } } } } },
        "then": {}
    } });
    let out = run(tool, json!({ "card": "4111111111111111", "wrapper": { "address": "CANARY 1 Main St" } }));
    assert_no_canary(&out, "CANARY 1 Main St");
}

// ---------------------------------------------------------------------------------------------
// The learning budget (scrub/known.rs, redact/mod.rs).

/// A value first noted past a run's budget was kept verbatim only, and `note` never added its
/// forms again: a later, successful result that took the same value left it known verbatim
/// only, so its encoded forms passed in every later result. README: every value a redaction
/// took is scrubbed "verbatim, JSON-escaped, percent-encoded, HTML-escaped, and base64". (A
/// value is now one needle, and every encoding is read on decoded views of the text.)
#[test]
fn attack2_value_first_seen_past_the_budget_never_gets_its_forms() {
    let secret = "tok<live>&abc123";
    let mut values: Vec<String> = vec![secret.to_string()]; // popped last: noted past the budget
    values.extend((0..700).map(|i| format!("<&\"'>é+/ {i}").repeat(20)));
    let mut r = small_budget(100_000); // 154 KB of values
    let out = r.redact(MARKED, &json!({ "s": values }).to_string(), None);
    assert_eq!(out.error.map(|e| e.code.as_str().to_string()).as_deref(), Some("work_limit"));
    // An ordinary result of the marked tool takes the value: it succeeds.
    let out = r.redact(MARKED, &json!({ "s": secret }).to_string(), None);
    assert!(out.error.is_none() && !out.agent_json.contains("abc123"));
    for text in ["tok&lt;live&gt;&amp;abc123", "tok%3Clive%3E%26abc123", "dG9rPGxpdmU+JmFiYzEyMw=="] {
        let later = r.redact(PLAIN, &text_result(text).to_string(), None);
        assert!(later.agent_json.contains("[redacted"), "{text} passed: {}", later.agent_json);
    }
}

/// Cost: a 153 KB result of 550 values full of characters HTML, JSON and URLs escape took
/// about 4.3 s natively (about 40 long forms per value). Escaped forms are now read on decoded
/// views of the text, so each value keeps only its verbatim and base64 forms: it passes, and
/// every value is redacted.
#[test]
fn attack2_cost_under_the_learning_budget() {
    let values: Vec<String> = (0..550).map(|i| format!("<&\"'>é+/ {i}").repeat(20)).collect();
    let raw = json!({ "s": values }).to_string();
    assert!(raw.len() < 200_000);
    let mut r = redactor(Format::Webmcp);
    let out = r.redact(MARKED, &raw, None);
    assert!(out.error.is_none(), "{:?}", out.error);
    assert!(!out.agent_json.contains("é+/"));
}

/// A result past the budget fails with `work_limit`; the next call works, and the values the
/// failed run noted are still caught, as written and escaped.
#[test]
fn attack2_cost_of_a_failed_learning_run_moves_to_the_next_call() {
    let values: Vec<String> = (0..640).map(|i| format!("<&\"'>é+/ {i}").repeat(20)).collect();
    let raw = json!({ "s": values }).to_string();
    let mut r = small_budget(100_000); // 141 KB of values
    let out = r.redact(MARKED, &raw, None);
    assert_eq!(out.error.map(|e| e.code.as_str().to_string()).as_deref(), Some("work_limit"));
    let later = r.redact(PLAIN, &text_result("hello").to_string(), None);
    assert!(later.error.is_none());
    for v in [&values[0], &values[639]] {
        let escaped = v.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
        let later = r.redact(PLAIN, &text_result(&format!("a {v} b {escaped}")).to_string(), None);
        assert!(!later.agent_json.contains("é+/"), "{}", later.agent_json);
    }
}

/// Over-redaction (regression: the same input passes at c08c573~1, in 0.5 s natively): a sensitive tool without marks (its whole result goes behind one stub the
/// user can reveal) returning 360 KB of ordinary, distinct HTML e-mails now fails with
/// `work_limit`: every string of the result is learned with its ~40 HTML/JSON/URL forms, past
/// the 16 MiB budget. The agent still gets nothing, but the user loses the stub and the vault
/// entry (the result is withheld as an error), for an input 1/180 of `maxInputBytes`.
#[test]
fn attack2_ordinary_sensitive_result_fails_with_work_limit() {
    let body = "<p>Hi Anna,</p><p>Thanks for the update &mdash; I've attached the \"Q3 report\" you asked for. Let's talk on Monday at 10:00 &amp; review the numbers.</p><p>Best, Bob</p>\n";
    let emails: Vec<Value> = (0..200)
        .map(|i| json!({ "id": format!("msg-{i}"), "from": "bob@example.com", "subject": format!("Re: Q3 report #{i}"), "html": format!("{}{i}", body.repeat(10)) }))
        .collect();
    let raw = json!({ "messages": emails }).to_string();
    assert!(raw.len() < 400_000);
    let tool = r#"{"name":"read_inbox","annotations":{"sensitiveHint":true}}"#;
    let out = redactor(Format::Webmcp).redact(tool, &raw, None);
    assert!(out.error.is_none(), "{:?}: {}", out.error.map(|e| e.code), out.agent_json);
}

/// A plain structured value wrapped for the mcp format: the library writes a text block of its
/// JSON, and a string in it holding JSON text with a `\u`-escaped known value reaches the agent
/// in that text block (JSON inside a text block's JSON, which the README says is matched
/// decoded; a tool-written text block with the same text is caught).
#[test]
fn attack2_mcp_wrapper_text_block_holds_escaped_json_in_a_string() {
    let raw = json!({ "log": r#"{"k":"\u0073k_live_abc123"}"# });
    let mut r = learn_all(Format::Mcp, json!("sk_live_abc123"));
    let view = r.redact(PLAIN, &raw.to_string(), None).agent_json;
    assert_text_never_decodes_to(&view, "sk_live_abc123");
}
