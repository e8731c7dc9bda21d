//! Review s37 (lead): rule 5 reads the JSON a text carries encoded once (`scrub::json_readings`,
//! helper A). Those readings are reading like value matching's views: they count against the
//! call's allowance (`scrub/meter.rs`): past it a result ends in `work_limit`, as when its
//! views pass it (`tests/reading.rs`), never in unmetered work.

mod common;

use common::*;
use webmcp_redact::{Config, Format, Limits, Redactor};

/// A tool whose schema marks something: its results' text blocks are walked for JSON (rule 5).
const MARKING: &str =
    r#"{"name":"t","outputSchema":{"type":"object","properties":{"s":{"type":"string","x-sensitive":true}}}}"#;

fn limited(max_work: usize) -> Redactor {
    let limits = Limits { max_work, ..Limits::default() };
    Redactor::new(Config { format: Format::Mcp, limits, ..Config::default() }, Box::new(Counter(0)))
}

/// JSON written with HTML references, `bytes` long: its reading with them decoded is JSON.
fn html_json(bytes: usize) -> String {
    let unit = "{&quot;note&quot;:&quot;plain words here&quot;} ";
    unit.repeat(bytes / unit.len() + 1)
}

#[test]
fn the_readings_of_encoded_json_count_against_the_allowance() {
    for bytes in [20_000, 80_000, 320_000] {
        let text = html_json(bytes);
        let decoded = text.replace("&quot;", "\"");
        let raw = text_result(&text).to_string();
        let out = limited(Limits::default().max_work).redact(MARKING, &raw, None);
        assert!(out.error.is_none(), "{:?}", out.error);
        // As written by the detectors, and decoded by rule 5 at least.
        assert!(
            out.read >= (text.len() + decoded.len()) as u64,
            "{bytes}: read {} bytes, the text and its decoding are {}",
            out.read,
            text.len() + decoded.len()
        );
    }
}
