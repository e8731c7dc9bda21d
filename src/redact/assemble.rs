//! The last step of a redaction: handles for what was taken, stubs, the notice, and the
//! report in `_meta`.

use serde_json::{json, Value};

use crate::redact::stubs::{new_handle, notice, stub, MAX_STUBS, REPORT_KEY};
use crate::redact::Run;
use crate::{Outcome, Reason, Secret, SecretKind};

impl Run<'_> {
    /// Assigns handles, appends stubs and the notice, and adds the report to `_meta`.
    pub(crate) fn finish(mut self, mut agent: Value) -> Outcome {
        if self.report.is_empty() {
            // Only a reshaping (the mcp format's wrapping, a rewritten stub) gets here.
            return Outcome {
                agent_json: agent.to_string(),
                redactions: Vec::new(),
                withheld: false,
                secrets: Vec::new(),
                error: None,
                labels: Default::default(),
                unchanged: false,
            };
        }
        let stubs = self.stubs();
        self.scrub_report();
        let withheld: Vec<&str> = self.report.iter().filter(|r| r.handle.is_some()).map(|r| r.label.as_str()).collect();
        let other: Vec<&str> = self.report.iter().filter(|r| r.handle.is_none()).map(|r| r.label.as_str()).collect();
        let notice = notice(&withheld, &other);
        if let Some(content) = agent["content"].as_array_mut() {
            content.extend(stubs);
            content.push(notice);
        }
        let entries: Vec<Value> = self
            .report
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
        let withheld = self.report.iter().any(|r| r.reason == Reason::SensitiveTool);
        Outcome {
            agent_json: agent.to_string(),
            redactions: self.report,
            withheld,
            secrets: self.secrets,
            error: None,
            labels: Default::default(),
            unchanged: false,
        }
    }

    /// One stub per taken value, up to `MAX_STUBS`; past that, one more for all the rest.
    fn stubs(&mut self) -> Vec<Value> {
        let vaulted = std::mem::take(&mut self.vaulted);
        let overflow = vaulted.len() > MAX_STUBS + 1;
        let mut stubs = Vec::new();
        let mut rest = Vec::new();
        let mut rest_reports = Vec::new();
        let mut rest_strings = Vec::new();
        for (n, v) in vaulted.into_iter().enumerate() {
            if overflow && n >= MAX_STUBS {
                rest_reports.push(v.report);
                rest_strings.push((v.label.clone(), v.strings));
                rest.push((v.pointer, v.label, v.value));
                continue;
            }
            let handle = new_handle(self.handles);
            self.own(&handle, &v.label, &v.strings);
            self.report[v.report].handle = Some(handle.clone());
            stubs.push(stub(self.format, &v.label, &handle));
            self.secrets.push(Secret { handle, label: v.label, kind: SecretKind::Value(v.value) });
        }
        if overflow {
            let handle = new_handle(self.handles);
            let label = format!("{} more values", rest.len());
            for r in rest_reports {
                self.report[r].handle = Some(handle.clone());
            }
            for (label, strings) in &rest_strings {
                self.own(&handle, label, strings);
            }
            stubs.push(stub(self.format, &label, &handle));
            self.secrets.push(Secret { handle, label, kind: SecretKind::Many(rest) });
        }
        stubs
    }

    /// The vault entry `handle` holds these strings: forgetting it forgets them.
    fn own(&mut self, handle: &str, label: &str, strings: &[String]) {
        for s in strings {
            self.known.own(handle, s, label);
        }
    }

    /// A pointer names raw keys, and a key can hold a value the vault knows: scrub the report
    /// like everything else the agent sees.
    fn scrub_report(&mut self) {
        for r in &mut self.report {
            if let Some((clean, _)) = self.known.needles().scrub(&r.pointer) {
                r.pointer = clean;
            }
            if let Some((clean, _)) = self.known.needles().scrub(&r.label) {
                r.label = clean;
            }
        }
    }
}
