//! Review s36 (lead): a tool's name in our own wording. The withheld view names the tool
//! ("The result of <name> was withheld: <code>."); a tool named after a value this redactor
//! knows put it back in front of the agent (found by helper L: `redactJson({ name: "get_" + V },
//! "x")` returned V).

mod common;

use common::*;
use serde_json::json;
use webmcp_redact::Format;

const SEED: u64 = 0x5eed_0036_0000_0001;

/// A tool named with `canary` somewhere in its name, and how its result comes to be withheld:
/// a result that is no JSON, or a definition that does not compile.
fn named(canary: &str, rng: &mut Rng) -> (String, &'static str) {
    let name = format!("{}{canary}{}", ["", "get_", "a.b/"][rng.below(3)], ["", "_now", " (v2)"][rng.below(3)]);
    match rng.below(3) {
        0 => (json!({ "name": name }).to_string(), "x"),
        1 => (
            json!({ "name": name, "outputSchema": { "properties": { "s": { "x-sensitive": true } } } }).to_string(),
            "{\"s\":",
        ),
        _ => (json!({ "name": name, "outputSchema": { "patternProperties": { "(?=a)": {} } } }).to_string(), "{}"),
    }
}

#[test]
fn a_withheld_view_does_not_name_a_known_value() {
    let mut rng = Rng(SEED);
    let mut bad = Vec::new();
    let cases = 300;
    for _ in 0..cases {
        let canary = rng.canary();
        let (tool, raw) = named(&canary, &mut rng);
        for format in FORMATS {
            let mut r = redactor(format);
            r.redact(MARKED, &json!({ "s": canary }).to_string(), None);
            let out = r.redact(&tool, raw, None);
            assert!(out.withheld, "{tool} {raw}: not withheld");
            if shows(&out.agent_json, &canary) {
                bad.push(format!("{format:?} {tool}: {}", out.agent_json));
            }
            // Our own view, given back, stays as it is (rule 10).
            let again = r.redact(&tool, &out.agent_json, None);
            if !again.unchanged && again.agent_json != out.agent_json {
                bad.push(format!("{format:?} {tool}: second pass {}", again.agent_json));
            }
        }
    }
    println!("withheld views naming a known value: {} of {} (seed {SEED:#x})", bad.len(), cases * 2);
    assert!(bad.is_empty(), "{:#?}", &bad[..bad.len().min(5)]);
}

#[test]
fn a_name_holding_nothing_known_is_written_as_it_is() {
    let mut r = redactor(Format::Webmcp);
    r.redact(MARKED, r#"{"s":"Cz0000beefQx"}"#, None);
    let out = r.redact(r#"{"name":"get_report"}"#, "x", None);
    assert_eq!(
        out.agent_json,
        r#"{"content":[{"type":"text","text":"The result of get_report was withheld: invalid_json."}],"isError":true}"#
    );
}
