//! The last step of a redaction: handles for what was taken, stubs, the notice, and the
//! report in `_meta`.

use serde_json::{json, Value};

use crate::redact::stubs::{notice, stub, REPORT_KEY};
use crate::redact::Run;
use crate::{Outcome, Reason};

impl Run<'_> {
    /// Issues handles, appends stubs and the notice, and adds the report to `_meta`.
    pub(super) fn finish(mut self, mut agent: Value) -> Outcome {
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
        };
        if collect.is_empty() {
            // Only a reshaping (the mcp format's wrapping, a rewritten stub) gets here.
            outcome.agent_json = agent.to_string();
            return outcome;
        }
        let stubs = collect.issue(handles, known);
        collect.scrub_report(known.needles());
        let report = collect.report();
        let withheld: Vec<&str> = report.iter().filter(|r| r.handle.is_some()).map(|r| r.label.as_str()).collect();
        let other: Vec<&str> = report.iter().filter(|r| r.handle.is_none()).map(|r| r.label.as_str()).collect();
        let notice = notice(&withheld, &other);
        if let Some(content) = agent["content"].as_array_mut() {
            content.extend(stubs.iter().map(|s| stub(format, &s.label, &s.handle)));
            content.push(notice);
        }
        let entries: Vec<Value> = report
            .iter()
            .map(|r| json!({ "pointer": r.pointer, "reason": r.reason.as_str(), "label": r.label }))
            .collect();
        if let Some(agent) = agent.as_object_mut() {
            let meta = agent.entry("_meta").or_insert_with(|| json!({}));
            match meta.get_mut(REPORT_KEY).and_then(Value::as_array_mut) {
                Some(existing) => existing.extend(entries),
                None => meta[REPORT_KEY] = Value::Array(entries),
            }
        }
        outcome.withheld = report.iter().any(|r| r.reason == Reason::SensitiveTool);
        outcome.agent_json = agent.to_string();
        (outcome.redactions, outcome.secrets) = collect.into_parts();
        outcome
    }
}
