//! Issue 11, adversarial review (core side): what a careless or hostile tool could do to the
//! detectors, the newest wire forms and user-only blocks. Each test is a problem found and fixed.

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::Format;

const AWS_ID: &str = "AKIA2OGYBAH6STMMNXNN";
const GOOGLE: &str = "AIzaSyD8kQ3vX2pLmN7tRb1YcW9sHd3FgJ0aZx4";
const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QifQ.c2lnbmF0dXJlLW5vdC1yZWFsLWJ1dC1sb25n";

fn plain() -> Value {
    json!({ "name": "plain" })
}

/// An escape's own characters are token characters (`%22` is `%`, `2`, `2`; `\n` is `\`, `n`),
/// so a token right after a percent escape, a JSON escape in raw text, or a `\u` escape made
/// one longer run with them, and "a hit is never part of a longer token" let it through: a URL
/// with a percent-encoded query (`?q=%7B%22token%22%3A%22AIza…%22%7D`) or a log line of
/// escaped JSON (`"a\nAIza…"`) carried the key to the agent.
#[test]
fn a_token_right_after_an_escape_is_found() {
    for (before, after) in [
        ("https://x.example/?q=%7B%22key%22%3A%22", "%22%7D"),
        ("https://x.example/?next=%2Fcb%3Fkey%3D", "&y=1"),
        ("https://x.example/?next=%252Fcb%253Fkey%253D", ""),
        ("log: \"first line\\n", "\\nlast\""),
        ("log: \"\\t", "\""),
        ("{\\u0022key\\u0022:\\u0022", "\\u0022}"),
    ] {
        for secret in [GOOGLE, AWS_ID, JWT] {
            let text = format!("{before}{secret}{after}");
            let raw = json!({ "content": [{ "type": "text", "text": text }] });
            let o = run(plain(), raw);
            assert_no_canary(&o, secret);
            assert!(
                o.redactions.iter().any(|r| r.reason.as_str().starts_with("detected:")),
                "{text}: {:?}",
                o.redactions
            );
            assert_idempotent(&plain(), &o, Format::Webmcp);
        }
    }
}

/// A whole run that is a credential stays one: the backslash of a Windows path before an npm
/// token is no escape of its `n`.
#[test]
fn a_whole_token_after_a_backslash_is_kept_whole() {
    // npm_ + 30 random characters + their CRC32 in base62 (docs/detectors.md).
    let npm = "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";
    let raw = json!({ "content": [{ "type": "text", "text": format!("C:\\{npm}") }] });
    let o = run(plain(), raw);
    assert_no_canary(&o, npm);
    assert_eq!(agent(&o)["content"][0]["text"], "C:\\[redacted: npm token]");
}

/// The same escape prefixes in front of ordinary words are no credential: `%20sk_live_`
/// needs a random key, `\nAKIA` exactly 16 base32 characters.
#[test]
fn an_escape_before_ordinary_text_finds_nothing() {
    for text in ["%20AKIAFAKE", "\\nsk_live_abcdefghijklmnopqrstuvwx", "%2520eyJhbGciOiJIUzI1NiJ9", "%41IzaSy"] {
        let raw = json!({ "content": [{ "type": "text", "text": text }] });
        let o = run(plain(), raw);
        assert!(o.redactions.is_empty(), "{text}: {:?}", o.redactions);
    }
}

/// An `audience` that is not a list (`"user"`, `{}`, `7`) is malformed: the field was dropped as
/// not MCP's and the block shown to the agent, although the tool said, however badly, that it
/// was not for the agent. Fail closed: only an audience that names "assistant" (or none, or
/// `null`) lets a block through.
#[test]
fn a_malformed_audience_that_does_not_name_the_assistant_is_user_only() {
    for f in [Format::Webmcp, Format::Mcp] {
        for audience in [json!("user"), json!({ "user": true }), json!(7), json!("USER")] {
            let raw = json!({ "content": [{ "type": "text", "text": "PIN 4821-77", "annotations": { "audience": audience } }] });
            let o = run_with(plain(), &raw.to_string(), f, &[]);
            assert_no_canary(&o, "4821-77");
            assert_eq!(o.redactions[0].reason.as_str(), "audience", "{audience}");
            assert_idempotent(&plain(), &o, f);
        }
        for audience in [json!("assistant"), Value::Null] {
            let raw = json!({ "content": [{ "type": "text", "text": "PIN 4821-77", "annotations": { "audience": audience } }] });
            let o = run_with(plain(), &raw.to_string(), f, &[]);
            assert!(o.agent_json.contains("4821-77"), "{audience}: {}", o.agent_json);
        }
    }
}

/// A tool hint that is not a boolean was a problem and no claim: `destructiveHint: "true"`
/// beside `readOnlyHint: true` left a read-only tool that `check` allowed, and
/// `requiresConfirmation: "true"` asked for nothing. Like a result's non-boolean trust claim,
/// it now counts as the riskier value.
#[test]
fn a_non_boolean_tool_hint_counts_as_the_riskier_value() {
    let mut r = redactor(Format::Webmcp);
    for (annotations, rule) in [
        (json!({ "readOnlyHint": true, "destructiveHint": "true" }), "irreversible"),
        (json!({ "readOnlyHint": true, "destructiveHint": 1 }), "irreversible"),
        (json!({ "readOnlyHint": "false" }), "irreversible"),
        (json!({ "readOnlyHint": true, "requiresConfirmation": "true" }), "requires_confirmation"),
    ] {
        let def = json!({ "name": "t", "annotations": annotations });
        let c = r.check(&def.to_string(), "{}", None).unwrap().to_json();
        assert_eq!(c["decision"], "confirm", "{annotations}: {c}");
        assert!(c["reasons"].as_array().unwrap().iter().any(|x| x["code"] == rule), "{annotations}: {c}");
    }
    let def = json!({ "name": "t", "annotations": { "readOnlyHint": true, "destructiveHint": null } });
    assert_eq!(r.check(&def.to_string(), "{}", None).unwrap().to_json()["decision"], "allow");
}

/// A PEM key a page renders as HTML has `<br>` for its line breaks: the body stopped at the
/// first `<`, so the block never closed and the key reached the agent.
#[test]
fn a_pem_key_with_html_line_breaks_is_found() {
    let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n";
    let pem = format!("-----BEGIN PRIVATE KEY-----\n{body}-----END PRIVATE KEY-----").replace('\n', "<br>");
    let raw = json!({ "content": [{ "type": "text", "text": format!("<p>{pem}</p>") }] });
    let o = run(plain(), raw);
    assert_no_canary(&o, "MzEfYyjiWA4R4");
    assert_eq!(agent(&o)["content"][0]["text"], "<p>[redacted: private key]</p>");
    assert_idempotent(&plain(), &o, Format::Webmcp);
}

/// Found by the fuzzer: an unknown block's `type` is the label of its report entry and of the
/// notice, but detection skipped `type` (a structural field), so a token there reached the
/// agent in the label (and a second pass found it: not idempotent).
#[test]
fn a_token_in_an_unknown_blocks_type_is_found() {
    let token = "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";
    let raw = json!({ "content": [{ "type": format!("runner token {token} rotated") }] });
    for f in [Format::Webmcp, Format::Mcp] {
        let o = run_with(plain(), &raw.to_string(), f, &[]);
        assert_no_canary(&o, "FAKEfakeFAKE");
        assert!(o.redactions.iter().any(|r| r.reason.as_str() == "detected:github_token"), "{:?}", o.redactions);
        assert_idempotent(&plain(), &o, f);
    }
}

/// A kept block's fields the library never rewrites (`mimeType`, `annotations.lastModified`,
/// an audience role) are read by value matching, which removes the block when one holds a known
/// value; detection must read them too, or an undeclared credential there reaches the agent.
#[test]
fn a_credential_in_a_fixed_field_of_a_kept_block_is_found() {
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    for raw in [
        json!({ "content": [{ "type": "image", "data": png, "mimeType": format!("image/png; key={GOOGLE}") }] }),
        json!({ "content": [{ "type": "resource", "resource": { "uri": "file:///a", "blob": png, "mimeType": format!("application/octet-stream; name={AWS_ID}") } }] }),
        json!({ "content": [{ "type": "text", "text": "ok", "annotations": { "audience": ["assistant", GOOGLE] } }] }),
    ] {
        for f in [Format::Webmcp, Format::Mcp] {
            let o = run_with(plain(), &raw.to_string(), f, &[]);
            assert_no_canary(&o, GOOGLE);
            assert_no_canary(&o, AWS_ID);
            assert_idempotent(&plain(), &o, f);
        }
    }
}

/// Found by a 90 s fuzz run (redact_json): a value equal to one of MCP's field names
/// (`content`) became known, and a second pass renamed the library's own `content` key: the
/// output was not idempotent. A CallToolResult's field names are its shape, never matched.
#[test]
fn a_known_value_equal_to_a_result_field_name_leaves_the_shape_alone() {
    let def = json!({ "name": "t", "outputSchema": { "type": "object", "title": "Password", "x-sensitive": true } });
    let raw = json!({ "children": ["content", "isError", "structuredContent"] });
    for f in [Format::Webmcp, Format::Mcp] {
        let o = run_with(def.clone(), &raw.to_string(), f, &[]);
        assert!(agent(&o)["content"].is_array());
        assert_idempotent(&def, &o, f);
    }
}
