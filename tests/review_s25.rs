//! Found while merging the review of stop 25 (helper P's note): a cut can leave a known number
//! standing in another notation.

mod common;

use common::*;
use webmcp_redact::Format;

/// Cutting a known value out of a number token can leave a shorter number token that reads as
/// another known number (`555512e3` less `5555` leaves `12e3`, which is 12000). The first pass
/// must catch it, as a second pass would (rule 10). (It does: the number scan reads every start
/// of a mantissa, so `12e3` is found inside the longer token; this keeps it so.)
#[test]
fn what_a_cut_leaves_of_a_number_is_read_again() {
    for format in [Format::Webmcp, Format::Mcp] {
        let mut r = redactor(format);
        assert!(r.redact(MARKED, r#"{"s":"5555"}"#, None).error.is_none());
        assert!(r.redact(MARKED, r#"{"s":12000}"#, None).error.is_none());
        for text in ["555512e3", "total 555512e3 units", "[555512E+3]"] {
            let raw = text_result(text).to_string();
            let first = r.redact(PLAIN, &raw, None);
            assert!(first.error.is_none(), "{text}");
            assert!(!first.agent_json.to_lowercase().contains("12e"), "{format:?} {text}: {}", first.agent_json);
            let again = r.redact(PLAIN, &first.agent_json, None);
            assert_eq!(again.agent_json, first.agent_json, "{format:?} {text}: rule 10");
        }
    }
}

/// Found by the lead's random attack on rule 5 (stop 26): a marked value that is a JSON object
/// or array written as a string (stringified) was known whole, not what it holds, so the
/// password inside it passed when the tool (or a later one) echoed it on its own. What such a
/// string holds is now known too, at any level of stringification the core walks.
#[test]
fn what_a_taken_stringified_value_holds_is_known() {
    let inner = serde_json::json!({ "user": "ann", "password": "CANARY_STR_71x" }).to_string();
    let twice = serde_json::Value::String(serde_json::json!([{ "pin": "CANARY_STR_72x" }]).to_string()).to_string();
    for format in [Format::Webmcp, Format::Mcp] {
        let mut r = redactor(format);
        // The same result: its own echo, in prose.
        let raw = serde_json::json!({ "s": inner, "note": "your password is CANARY_STR_71x" }).to_string();
        let first = r.redact(MARKED, &raw, None);
        assert!(first.error.is_none(), "{format:?}");
        assert!(!first.agent_json.contains("CANARY_STR_71x"), "{format:?}: {}", first.agent_json);
        // A later result of a tool that marks nothing; and a value stringified twice.
        let later = r.redact(PLAIN, &text_result("echo: CANARY_STR_71x").to_string(), None);
        assert!(!later.agent_json.contains("CANARY_STR_71x"), "{format:?}: {}", later.agent_json);
        assert!(r.redact(MARKED, &serde_json::json!({ "s": twice }).to_string(), None).error.is_none());
        let later = r.redact(PLAIN, &text_result("pin CANARY_STR_72x").to_string(), None);
        assert!(!later.agent_json.contains("CANARY_STR_72x"), "{format:?}: {}", later.agent_json);
        // Envelope words and short leaves of the JSON stay out: "ann" is still said.
        let later = r.redact(PLAIN, &text_result("hello ann").to_string(), None);
        assert!(later.agent_json.contains("hello ann"), "{format:?}: {}", later.agent_json);
    }
}
