//! The last step of a redaction: handles for what was taken, stubs, the notice, and the
//! report in `_meta`. What it adds is written once as JSON text ([`tail`]) and placed into
//! the agent view as that view is written ([`place`]): no `Value`s built only to be serialized.

use serde_json::{Map, Value};

use crate::json::write::{self, object};
use crate::redact::collect::Collector;
use crate::redact::stubs::{write_notice, write_stub, REPORT_KEY};
use crate::redact::Run;
use crate::scrub::known::KnownSecrets;
use crate::{Format, HandleSource, Outcome, Reason};

/// What a redaction adds to its agent view, as JSON text.
pub(crate) struct Tail {
    /// The stubs, then the notice: content blocks, comma-separated, to end `content`.
    pub blocks: String,
    /// The report's entries `{ pointer, reason, label }`, comma-separated, to end
    /// `_meta["webmcp-redact/redactions"]`.
    pub entries: String,
    /// A sensitive tool's result was withheld whole.
    pub withheld: bool,
}

/// Issues the handles of what `collect` took (the known set learns them), scrubs the report,
/// and writes the stubs, the notice and the report entries. `collect` must not be empty.
pub(crate) fn tail(
    collect: &mut Collector,
    format: Format,
    handles: &mut dyn HandleSource,
    known: &mut KnownSecrets,
) -> Tail {
    let stubs = collect.issue(handles, known);
    collect.scrub_report(known.needles());
    let report = collect.report();
    let mut blocks = String::with_capacity(stubs.len() * 96 + 256);
    for s in &stubs {
        write_stub(&mut blocks, format, &s.label, &s.handle);
        blocks.push(',');
    }
    let (mut withheld, mut other) = (Vec::new(), Vec::new());
    for r in report {
        if r.handle.is_some() { &mut withheld } else { &mut other }.push(r.label.as_str());
    }
    write_notice(&mut blocks, &withheld, &other);
    let mut entries = String::with_capacity(report.len() * 64);
    for (i, r) in report.iter().enumerate() {
        if i > 0 {
            entries.push(',');
        }
        object(&mut entries, |o| {
            o.str("pointer", &r.pointer).str("reason", r.reason.as_str()).str("label", &r.label);
        });
    }
    Tail { blocks, entries, withheld: report.iter().any(|r| r.reason == Reason::SensitiveTool) }
}

/// The agent view as JSON text with `tail` in place: its blocks end a `content` array, its
/// entries end `_meta`'s report (after the entries of one that is there), which is added, with
/// `_meta` itself, where missing. Exactly what appending to the value and serializing it gave.
pub(crate) fn place(agent: &Value, tail: &Tail) -> String {
    let mut out = String::with_capacity(tail.blocks.len() + tail.entries.len() + 4096);
    let Value::Object(top) = agent else {
        write::value(&mut out, agent);
        return out;
    };
    object(&mut out, |o| {
        for (key, value) in top {
            let at = o.key(key);
            match (key.as_str(), value) {
                ("content", Value::Array(blocks)) => extend(at, blocks, &tail.blocks),
                ("_meta", Value::Object(meta)) => report_into(at, meta, &tail.entries),
                ("_meta", Value::Null) => report_into(at, &Map::new(), &tail.entries),
                _ => write::value(at, value),
            }
        }
        if !top.contains_key("_meta") {
            report_into(o.key("_meta"), &Map::new(), &tail.entries);
        }
    });
    out
}

/// `_meta` with the report's entries added to its report.
fn report_into(out: &mut String, meta: &Map<String, Value>, entries: &str) {
    object(out, |o| {
        for (key, value) in meta {
            let at = o.key(key);
            match value {
                Value::Array(existing) if key == REPORT_KEY => extend(at, existing, entries),
                _ if key == REPORT_KEY => extend(at, &[], entries),
                _ => write::value(at, value),
            }
        }
        if !meta.contains_key(REPORT_KEY) {
            extend(o.key(REPORT_KEY), &[], entries);
        }
    });
}

/// An array of `items`, then the comma-separated JSON text `more`.
fn extend(out: &mut String, items: &[Value], more: &str) {
    out.push('[');
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write::value(out, v);
    }
    if !items.is_empty() && !more.is_empty() {
        out.push(',');
    }
    out.push_str(more);
    out.push(']');
}

impl Run<'_> {
    /// Issues handles, appends stubs and the notice, and adds the report to `_meta`.
    pub(super) fn finish(mut self, agent: Value) -> Outcome {
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
            write::value(&mut outcome.agent_json, &agent);
            return outcome;
        }
        let tail = tail(&mut collect, format, handles, known);
        outcome.agent_json = place(&agent, &tail);
        outcome.withheld = tail.withheld;
        (outcome.redactions, outcome.secrets) = collect.into_parts();
        outcome
    }
}
