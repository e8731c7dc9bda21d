//! Attack findings (review 0722): each test is a minimal input on which a documented guarantee
//! failed when the review found it; all hold now.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::Format;

/// forms.rs and the README claim .NET's `HtmlEncoder.Default` (`&#xE9;` for `é`, `&#x2B;` for
/// `+`), but `html_forms` returns no form at all for a value without one of `& < > " '`, so the
/// .NET form (and any numeric reference form) of a value with only non-ASCII or `+` is missing.
#[test]
fn attack_dotnet_html_encoding_of_value_without_html_specials() {
    for (secret, encoded) in [("café-latte-9", "caf&#xE9;-latte-9"), ("pass+word-77", "pass&#x2B;word-77")] {
        for view in later_views(json!(secret), &text_result(&format!("<p>{encoded}</p>"))) {
            assert!(!view.contains(encoded), "known {secret} leaked as {encoded}: {view}");
        }
    }
}

/// Percent-encoding as RFC 3986 / Python `urllib.parse.quote` / `urlencode` / Go
/// `url.QueryEscape` write it (unreserved `-._~` kept, `!*'()` encoded) is none of the three
/// JS styles the needles cover when the value holds `~` and one of `!*'()`.
#[test]
fn attack_rfc3986_percent_encoding() {
    let secret = "it's~mine-42";
    let encoded = "it%27s~mine-42"; // urllib.parse.quote(secret, safe="")
    for view in later_views(json!(secret), &text_result(&format!("https://x.test/cb?token={encoded}"))) {
        assert!(!view.contains(encoded), "known {secret} leaked percent-encoded: {view}");
    }
}

/// A text block whose whole text is a JSON *string* (a scalar JSON document) is not read as
/// JSON: a letter escaped with `\u` hides a known value, which any JSON reader decodes.
#[test]
fn attack_escaped_value_in_scalar_json_text_block() {
    let text = r#""\u0073k_live_abc123""#; // JSON.parse(text) === "sk_live_abc123"
    for view in later_views(json!("sk_live_abc123"), &text_result(text)) {
        let block = agent_text(&view);
        let decoded: Option<String> = serde_json::from_str(&block).ok();
        assert_ne!(decoded.as_deref(), Some("sk_live_abc123"), "known value reached the agent as JSON text: {view}");
    }
}

/// An embedded resource of `mimeType: application/json` is JSON text too; its strings are not
/// matched after decoding, so a `\u`-escaped known value passes.
#[test]
fn attack_escaped_value_in_json_resource_text() {
    let raw = json!({ "content": [{ "type": "resource", "resource": {
        "uri": "mem://r", "mimeType": "application/json", "text": r#"{"key":"\u0073k_live_abc123"}"#
    } }] });
    for view in later_views(json!("sk_live_abc123"), &raw) {
        assert!(!view.contains(r#"\\u0073k_live_abc123"#), "known value reached the agent escaped: {view}");
    }
}

/// JSON inside JSON: a JSON text block whose string member is itself JSON text holding a
/// `\u`-escaped known value; only one level is decoded.
#[test]
fn attack_escaped_value_in_json_inside_json_text_block() {
    let inner = r#"{"key":"\u0073k_live_abc123"}"#;
    let text = json!({ "inner": inner }).to_string();
    for view in later_views(json!("sk_live_abc123"), &text_result(&text)) {
        assert!(!view.contains("u0073k_live_abc123"), "known value reached the agent escaped twice: {view}");
    }
}

/// Allowlist mode (sensitiveHint plus marks): `additionalProperties: true` describes nothing,
/// but `additionalProperties: {"$ref": "#/$defs/any"}` with `any: true` (the same schema) lets
/// every undeclared name and value through.
#[test]
fn attack_allowlist_additional_properties_ref_to_true() {
    let tool = json!({ "name": "billing", "annotations": { "sensitiveHint": true }, "outputSchema": {
        "properties": { "card": { "x-sensitive": true } },
        "additionalProperties": { "$ref": "#/$defs/any" },
        "$defs": { "any": true }
    } });
    let out = run(tool, json!({ "card": "4111111111111111", "address": "CANARY 1 Main St" }));
    assert_no_canary(&out, "CANARY 1 Main St");
}

/// A replayed own view (same tool, so its stubs are trusted) after a stub's label became a known
/// value: the mcp stub's text is scrubbed, but `_meta["webmcp-redact/secret"].label` keeps it.
#[test]
fn attack_replayed_mcp_view_keeps_known_value_in_stub_meta_label() {
    let titled = r#"{"name":"t","outputSchema":{"properties":{"s":{"x-sensitive":true,"title":"CANARYlbl99"}}}}"#;
    let mut r = redactor(Format::Mcp);
    let first = r.redact(titled, r#"{"s":"zzzz1"}"#, None).agent_json;
    r.redact(MARKED, r#"{"s":"CANARYlbl99"}"#, None);
    let again = r.redact(titled, &first, None).agent_json;
    assert!(!again.contains("CANARYlbl99"), "known value in a later result: {again}");
}

/// A short value (CVV) standing alone once its separator is decoded: after `%20` in a URL, after
/// a JSON `\n` escape in JSON-looking prose.
#[test]
fn attack_short_value_after_an_encoded_separator() {
    for text in ["https://pay.test/confirm?note=CVV%20737", r#"log: {"msg":"card ok\n737"}"#] {
        for view in later_views(json!("737"), &text_result(text)) {
            assert!(!view.contains("737"), "known CVV leaked: {view}");
        }
    }
}

/// Cost: a 341 KB result whose marked value is 1,200 strings full of characters that HTML, JSON
/// and URLs escape took several seconds natively (6.7 s, 13 s in wasm): its values added 28 MB
/// of encoded forms to the matcher. Escaped forms are now read on decoded views, so each value
/// adds only itself (`scrub`'s `a_value_adds_one_needle_of_its_own_length`), and the result
/// passes; past `maxWork` bytes of values a run fails closed (tests/attack2.rs, with a small
/// `maxWork`).
#[test]
fn attack_cost_of_learning_values_full_of_escapes() {
    let values: Vec<String> = (0..1200).map(|i| format!("<&\"'>é+/ {i}").repeat(20)).collect();
    let raw = json!({ "s": values }).to_string();
    assert!(raw.len() < 1_000_000);
    let mut r = redactor(Format::Webmcp);
    let out = r.redact(MARKED, &raw, None);
    assert!(out.error.is_none(), "{:?}", out.error);
    assert!(!out.agent_json.contains("é+/"));
    // Every value is known: a later echo, escaped as HTML, is caught.
    let escaped = values[1199].replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let later = r.redact(PLAIN, &text_result(&escaped).to_string(), None);
    assert!(!later.agent_json.contains("é+/ 1199"), "{}", later.agent_json);
}

fn agent_text(view: &str) -> String {
    let v: Value = serde_json::from_str(view).unwrap();
    v["content"][0]["text"].as_str().unwrap_or_default().to_string()
}
