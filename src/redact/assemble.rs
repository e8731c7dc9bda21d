//! The last step of a redaction: handles for what was taken, stubs, the notice, and the
//! report in `_meta`.

use serde_json::{json, Value};

use crate::json::scan::write_str;
use crate::redact::stubs::{notice, stub, REPORT_KEY};
use crate::redact::{Agent, Run};
use crate::{Outcome, Reason};

impl Run<'_> {
    /// Issues handles, appends stubs and the notice, and adds the report to `_meta`.
    pub(super) fn finish(mut self, agent: Agent) -> Outcome {
        self.detect_in_report();
        let Run { mut collect, handles, known, format, .. } = self;
        let mut outcome = Outcome {
            agent_json: String::new(),
            redactions: Vec::new(),
            withheld: false,
            secrets: Vec::new(),
            error: None,
            labels: Default::default(),
            unchanged: false,
            learned: Vec::new(),
            engine: Default::default(),
        };
        if collect.is_empty() {
            // Only a reshaping (the mcp format's wrapping, a rewritten stub) gets here.
            outcome.agent_json = match agent {
                Agent::Value(agent) => agent.to_string(),
                Agent::Structured { value, text, is_object } => {
                    structured_json(&value, text.as_deref(), is_object, &[], None)
                }
            };
            return outcome;
        }
        let stubs = collect.issue(handles, known);
        collect.scrub_report(known.needles());
        let report = collect.report();
        let withheld: Vec<&str> = report.iter().filter(|r| r.handle.is_some()).map(|r| r.label.as_str()).collect();
        let other: Vec<&str> = report.iter().filter(|r| r.handle.is_none()).map(|r| r.label.as_str()).collect();
        let mut blocks: Vec<Value> = stubs.iter().map(|s| stub(format, &s.label, &s.handle)).collect();
        blocks.push(notice(&withheld, &other));
        let entries: Vec<Value> = report
            .iter()
            .map(|r| json!({ "pointer": r.pointer, "reason": r.reason.as_str(), "label": r.label }))
            .collect();
        outcome.withheld = report.iter().any(|r| r.reason == Reason::SensitiveTool);
        outcome.agent_json = match agent {
            Agent::Value(mut agent) => {
                if let Some(content) = agent["content"].as_array_mut() {
                    content.extend(blocks);
                }
                if let Some(agent) = agent.as_object_mut() {
                    let meta = agent.entry("_meta").or_insert_with(|| json!({}));
                    match meta.get_mut(REPORT_KEY).and_then(Value::as_array_mut) {
                        Some(existing) => existing.extend(entries),
                        None => meta[REPORT_KEY] = Value::Array(entries),
                    }
                }
                agent.to_string()
            }
            Agent::Structured { value, text, is_object } => {
                structured_json(&value, text.as_deref(), is_object, &blocks, Some(entries))
            }
        };
        (outcome.redactions, outcome.secrets) = collect.into_parts();
        outcome
    }
}

/// The agent view of a structured value the streaming engine read, written as the DOM engine
/// writes the same view: `content` (the value's text, then `blocks`), `structuredContent` for
/// an object, and the report in `_meta`. The value's text is copied, never parsed again.
fn structured_json(
    value: &str,
    text: Option<&str>,
    is_object: bool,
    blocks: &[Value],
    report: Option<Vec<Value>>,
) -> String {
    let text = text.unwrap_or(value);
    let mut out = String::with_capacity(value.len() + text.len() + 64);
    out.push_str(r#"{"content":[{"type":"text","text":"#);
    write_str(&mut out, text);
    out.push('}');
    for block in blocks {
        out.push(',');
        out.push_str(&block.to_string());
    }
    out.push(']');
    if is_object {
        out.push_str(r#","structuredContent":"#);
        out.push_str(value);
    }
    if let Some(entries) = report {
        out.push_str(r#","_meta":{"#);
        write_str(&mut out, REPORT_KEY);
        out.push(':');
        out.push_str(&Value::Array(entries).to_string());
        out.push('}');
    }
    out.push('}');
    out
}
