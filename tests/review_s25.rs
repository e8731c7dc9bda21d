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
