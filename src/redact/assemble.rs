//! The last step of a redaction: handles for what was taken, stubs, the notice, and the
//! report in `_meta`. What it adds is written once as JSON text ([`tail`]) and placed into
//! the agent view as that view is written ([`place`]): no `Value`s built only to be serialized.

use serde_json::{Map, Value};

use crate::json::write::{self, object};
use crate::redact::collect::{Collector, StubSpec};
use crate::redact::stream_call::Call;
use crate::redact::stubs::{notice_shown, write_notice, write_stub, REPORT_KEY};
use crate::redact::{Agent, Run};
use crate::scrub::known::KnownSecrets;
use crate::scrub::Needles;
use crate::{Format, HandleSource, Outcome, Reason, Redaction};

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

/// Issues the handles of what `collect` took (the known set learns them), and writes the
/// stubs, the notice and the report entries (scrubbed already: `Run::uncovered`).
/// `collect` must not be empty. `notice`: the notice's text as `Run::glued_in_tail` read it
/// (the same labels against the same known set: issuing handles adds no value to it).
pub(crate) fn tail(
    collect: &mut Collector,
    format: Format,
    handles: &mut dyn HandleSource,
    known: &mut KnownSecrets,
    notice: Option<String>,
) -> Tail {
    let stubs = collect.issue(handles, known);
    write_tail(&stubs, collect.report(), format, Some(known.needles()), notice)
}

/// The stubs and the notice, and the report's entries, as JSON text. The notice is `notice`
/// when given, else written and value-matched with `needles` here.
fn write_tail(
    stubs: &[StubSpec],
    report: &[Redaction],
    format: Format,
    needles: Option<&Needles>,
    notice: Option<String>,
) -> Tail {
    let mut blocks = String::with_capacity(stubs.len() * 96 + 256);
    for s in stubs {
        write_stub(&mut blocks, format, &s.label, &s.handle);
        blocks.push(',');
    }
    let (mut withheld, mut other) = (Vec::new(), Vec::new());
    for r in report {
        if r.handle.is_some() { &mut withheld } else { &mut other }.push(r.label.as_str());
    }
    let notice = notice.unwrap_or_else(|| notice_shown(&withheld, &other, needles));
    write_notice(&mut blocks, &notice);
    // Sized to what the entries take: a doubling past that would leave a larger hole in the
    // module's memory, which only grows (it was one byte per entry short: a dense result's
    // entries grew from 0.66 MB to a 1.3 MB buffer). 32: the keys, braces and a comma.
    let size = report
        .iter()
        .map(|r| write::string_len(&r.pointer) + r.reason.as_str().len() + 2 + write::string_len(&r.label) + 32)
        .sum();
    let mut entries = String::with_capacity(size);
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
    let mut out = String::new();
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
        if !top.contains_key("content") {
            o.raw("content", "null"); // as indexing the value for it did: kept byte for byte
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
    pub(super) fn finish(self, agent: Agent) -> Outcome {
        let Run { mut collect, handles, known, format, notice, .. } = self;
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
            read: 0,
        };
        // Nothing collected: only a reshaping (the mcp format's wrapping, a rewritten stub).
        let tail = (!collect.is_empty()).then(|| tail(&mut collect, format, handles, known, notice));
        outcome.agent_json = match (&agent, &tail) {
            (Agent::Value(agent), Some(tail)) => place(agent, tail),
            (Agent::Value(agent), None) => {
                let mut out = String::new();
                write::value(&mut out, agent);
                out
            }
            (Agent::Structured { value, text, is_object }, tail) => {
                structured_view(value, text.as_deref(), *is_object, tail.as_ref())
            }
            (Agent::Call { value, call }, tail) => call_view(value, call, tail.as_ref()),
        };
        outcome.withheld = tail.is_some_and(|t| t.withheld);
        (outcome.redactions, outcome.secrets) = collect.into_parts();
        outcome
    }
}

/// The agent view of a structured value the streaming engine read, as the DOM engine writes the
/// same view: `content` (the value's text, then the tail's blocks), `structuredContent` for an
/// object, and the report in `_meta`. The value's text is copied, never parsed again.
fn structured_view(value: &str, text: Option<&str>, is_object: bool, tail: Option<&Tail>) -> String {
    let text = text.unwrap_or(value);
    // Exactly what it takes (the fixed words are under 128 bytes): the text block is the
    // value's JSON written escaped, longer than the value by a backslash per quote.
    let size = value.len() + write::string_len(text) + 128;
    let block = |out: &mut String| {
        out.push_str(r#"{"type":"text","text":"#);
        write::string(out, text);
        out.push('}');
        true
    };
    streamed_view(size, block, is_object.then_some(value), None, tail)
}

/// The agent view of a CallToolResult the streaming engine read ([`Agent::Call`]), as the DOM
/// engine's `call_view` writes it: its blocks in their order and members' order, the
/// duplicates written as the value, then `structuredContent`, then `isError`.
fn call_view(value: &str, call: &Call, tail: Option<&Tail>) -> String {
    let size =
        value.len() + call.blocks.iter().map(|b| write::string_len(b.text_in(value, true)) + 32).sum::<usize>() + 128;
    let blocks = |out: &mut String| {
        for (i, b) in call.blocks.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            b.write(out, b.text_in(value, true));
        }
        !call.blocks.is_empty()
    };
    let is_error = call.is_error.map(|e| if e { "true" } else { "false" });
    streamed_view(size, blocks, Some(value), is_error, tail)
}

/// A view the streaming engine writes: `content` (what `blocks` writes, true when it wrote
/// any, then the tail's blocks), `structuredContent` and `isError` when given, and the
/// report in `_meta`. `size`: what all but the tail takes, at most.
fn streamed_view(
    size: usize,
    blocks: impl FnOnce(&mut String) -> bool,
    structured: Option<&str>,
    is_error: Option<&str>,
    tail: Option<&Tail>,
) -> String {
    let extra = tail.map_or(0, |t| t.blocks.len() + t.entries.len());
    let mut out = String::with_capacity(size + extra);
    out.push_str(r#"{"content":["#);
    let any = blocks(&mut out);
    if let Some(tail) = tail {
        if any {
            out.push(',');
        }
        out.push_str(&tail.blocks);
    }
    out.push(']');
    if let Some(value) = structured {
        out.push_str(r#","structuredContent":"#);
        out.push_str(value);
    }
    if let Some(is_error) = is_error {
        out.push_str(r#","isError":"#);
        out.push_str(is_error);
    }
    if let Some(tail) = tail {
        out.push_str(r#","_meta":{"#);
        write::string(&mut out, REPORT_KEY);
        out.push_str(":[");
        out.push_str(&tail.entries);
        out.push_str("]}");
    }
    out.push('}');
    out
}

/// The old assembly, kept as the oracle: append `Value`s to the agent view and serialize it.
#[cfg(all(test, not(target_arch = "wasm32")))]
fn place_oracle(mut agent: Value, stubs: &[StubSpec], report: &[Redaction], format: Format) -> String {
    use crate::redact::stubs::{notice, stub};
    use serde_json::json;
    let withheld: Vec<&str> = report.iter().filter(|r| r.handle.is_some()).map(|r| r.label.as_str()).collect();
    let other: Vec<&str> = report.iter().filter(|r| r.handle.is_none()).map(|r| r.label.as_str()).collect();
    let notice = notice(&withheld, &other);
    if let Some(content) = agent["content"].as_array_mut() {
        content.extend(stubs.iter().map(|s| stub(format, &s.label, &s.handle)));
        content.push(notice);
    }
    let entries: Vec<Value> =
        report.iter().map(|r| json!({ "pointer": r.pointer, "reason": r.reason.as_str(), "label": r.label })).collect();
    if let Some(agent) = agent.as_object_mut() {
        let meta = agent.entry("_meta").or_insert_with(|| json!({}));
        match meta.get_mut(REPORT_KEY).and_then(Value::as_array_mut) {
            Some(existing) => existing.extend(entries),
            None => meta[REPORT_KEY] = Value::Array(entries),
        }
    }
    agent.to_string()
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    /// Text that needs escaping, near misses of our keys and wording, non-ASCII.
    fn text() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "a",
            "\"",
            "\\",
            "\n",
            "\u{1}",
            "\u{8}",
            "\u{c}",
            "\u{1f}",
            "\u{7f}",
            "é",
            "😀",
            "\u{2028}",
            "webmcp-redact/",
            "redactions",
            "_meta",
            "content",
            "~1",
            "/",
            " ",
            "[secret withheld: ",
        ]);
        prop::collection::vec(pieces, 0..6).prop_map(|p| p.concat())
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            prop::sample::select(vec!["0", "-1.5e300", "12345678901234567890123", "1E-7"])
                .prop_map(|n| serde_json::from_str(n).unwrap()),
            text().prop_map(Value::String),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// An agent view: `content` and `_meta` (with or without a report) in any form and place.
    fn agent() -> impl Strategy<Value = Value> {
        // A `_meta` that is no object (nor null) is left out: the oracle panicked on it.
        let report = prop_oneof![
            Just(None),
            value().prop_map(Some),
            prop::collection::vec(value(), 0..3).prop_map(|v| Some(Value::Array(v)))
        ];
        let meta = prop_oneof![
            Just(None),
            Just(Some(Value::Null)),
            (report, prop::collection::vec((text(), value()), 0..3), any::<bool>()).prop_map(|(r, mut m, first)| {
                if let Some(r) = r {
                    m.insert(if first { 0 } else { m.len() }, (REPORT_KEY.to_string(), r));
                }
                Some(Value::Object(m.into_iter().collect()))
            }),
        ];
        let content = prop_oneof![
            Just(None),
            value().prop_map(Some),
            prop::collection::vec(value(), 0..3).prop_map(|v| Some(Value::Array(v)))
        ];
        (content, meta, prop::collection::vec((text(), value()), 0..3), any::<u8>()).prop_map(|(c, m, rest, order)| {
            let mut top: Vec<(String, Value)> = rest.into_iter().filter(|(k, _)| k != "_meta").collect();
            for (key, v) in [("content", c), ("_meta", m)] {
                if let Some(v) = v {
                    let at = usize::from(order) % (top.len() + 1);
                    top.insert(at, (key.to_string(), v));
                }
            }
            Value::Object(top.into_iter().collect())
        })
    }

    fn report() -> impl Strategy<Value = Vec<Redaction>> {
        let reason = prop::sample::select(vec![
            Reason::XSensitive,
            Reason::SensitiveTool,
            Reason::ValueMatch,
            Reason::Undeclared,
        ]);
        let entry = (text(), reason, text(), any::<bool>()).prop_map(|(pointer, reason, label, held)| Redaction {
            pointer,
            reason,
            label,
            handle: held.then(|| "0a".repeat(16)),
        });
        prop::collection::vec(entry, 1..14)
    }

    proptest! {
        #[test]
        fn written_values_are_what_serde_writes(v in value()) {
            let mut out = String::new();
            write::value(&mut out, &v);
            prop_assert_eq!(out, serde_json::to_string(&v).unwrap());
        }

        #[test]
        fn placing_the_tail_is_appending_to_the_value(
            agent in agent(),
            labels in prop::collection::vec(text(), 0..5),
            report in report(),
            mcp in any::<bool>(),
        ) {
            let format = if mcp { Format::Mcp } else { Format::Webmcp };
            let stubs: Vec<StubSpec> =
                labels.into_iter().enumerate().map(|(i, label)| StubSpec { handle: format!("{i:032x}"), label }).collect();
            let tail = write_tail(&stubs, &report, format, None, None);
            prop_assert_eq!(place(&agent, &tail), place_oracle(agent.clone(), &stubs, &report, format));
        }
    }

    /// The old assembly panicked here (indexing a string as an object: a trap in wasm, a
    /// withheld result); the report then stays out of the agent view, in the side record only.
    #[test]
    fn a_meta_that_is_no_object_is_left_as_the_tool_wrote_it() {
        let tail = write_tail(
            &[],
            &[Redaction { pointer: "/k".into(), reason: Reason::ValueMatch, label: "key".into(), handle: None }],
            Format::Webmcp,
            None,
            None,
        );
        let placed = place(&json!({ "content": [], "_meta": "x" }), &tail);
        assert!(placed.ends_with(r#"}],"_meta":"x"}"#), "{placed}");
    }

    #[test]
    fn the_tail_goes_where_it_belongs() {
        let stubs = [StubSpec { handle: "0a".repeat(16), label: "key".into() }];
        let report = [Redaction {
            pointer: "/k".into(),
            reason: Reason::XSensitive,
            label: "key".into(),
            handle: Some("0a".repeat(16)),
        }];
        let tail = write_tail(&stubs, &report, Format::Webmcp, None, None);
        let agent = json!({ "content": [{ "type": "text", "text": "x" }], "isError": false });
        let placed: Value = serde_json::from_str(&place(&agent, &tail)).unwrap();
        assert_eq!(
            placed["content"][1],
            json!({ "type": "secret_reference", "label": "key", "handle": "0a".repeat(16) })
        );
        assert_eq!(placed["content"][2]["_meta"], json!({ "webmcp-redact/notice": true }));
        assert_eq!(placed["_meta"][REPORT_KEY], json!([{ "pointer": "/k", "reason": "x_sensitive", "label": "key" }]));
    }
}
