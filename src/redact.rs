//! The contract, end to end: parse, pick the shape, apply the tool's mode, assemble the agent
//! view. Any error becomes the fail-closed "withheld" result.

use serde_json::{json, Map, Value};

use crate::blocks::{block_label, classify, Block};
use crate::json::{child, parse_limited};
use crate::scrub::{strings_of, Needles};
use crate::stubs::{is_library_block, is_library_key, new_handle, notice, stub, MAX_STUBS, REPORT_KEY};
use crate::tool::Mode;
use crate::walk::walk;
use crate::{CompiledTool, Error, ErrorCode, Format, Options, Outcome, Reason, Redaction, Secret, SecretKind};

pub use crate::stubs::HandleSource;

/// A value the caller's vault already holds (revealed or redeemed): scrubbed wherever it
/// shows up again.
#[derive(Clone, Debug)]
pub struct KnownSecret {
    pub label: String,
    pub value: String,
}

/// Redacts one raw result (JSON text) of `tool`. Never fails: on any error the agent view is
/// [`withheld_result`] and `error` says why.
pub fn redact(tool: &CompiledTool, raw_json: &str, options: &Options, handles: &mut dyn HandleSource, known: &[KnownSecret]) -> Outcome {
    let mut run = Run { tool, format: options.format, handles, report: Vec::new(), vaulted: Vec::new(), secrets: Vec::new(), needles: Needles::default() };
    for k in known {
        run.needles.add(&k.value, &k.label);
    }
    match run.result(raw_json, options) {
        Ok(Some(agent)) => run.finish(agent),
        Ok(None) => Outcome { agent_json: raw_json.to_string(), redactions: Vec::new(), withheld: false, secrets: Vec::new(), error: None },
        Err(e) => failed(tool.name(), e.for_tool(tool.name())),
    }
}

/// The agent view when a result cannot be redacted: no part of the raw result.
pub fn withheld_result(tool_name: &str, code: ErrorCode) -> String {
    let text = format!("The result of {tool_name} was withheld: {code}.");
    json!({ "content": [{ "type": "text", "text": text }], "isError": true }).to_string()
}

fn failed(tool_name: &str, error: Error) -> Outcome {
    let agent_json = withheld_result(tool_name, error.code);
    Outcome { agent_json, redactions: Vec::new(), withheld: true, secrets: Vec::new(), error: Some(error) }
}

/// A value on its way to the vault, before handles are assigned.
struct Vaulted {
    pointer: String,
    label: String,
    value: Value,
    report: usize,
}

struct Run<'a> {
    tool: &'a CompiledTool,
    format: Format,
    handles: &'a mut dyn HandleSource,
    report: Vec<Redaction>,
    vaulted: Vec<Vaulted>,
    secrets: Vec<Secret>,
    needles: Needles,
}

impl Run<'_> {
    /// The agent view as a value, or `None` when the raw text passes through unchanged.
    fn result(&mut self, raw_json: &str, options: &Options) -> Result<Option<Value>, Error> {
        let raw = parse_limited(raw_json, &options.limits)?;
        let is_call_result = raw.get("content").is_some_and(Value::is_array);
        let mode = self.tool.mode();
        let agent = match raw {
            _ if mode == Mode::Withhold && is_call_result && only_library_parts(&raw) => return Ok(None),
            _ if mode == Mode::Withhold => self.withhold_whole(raw),
            Value::Object(mut result) if is_call_result => {
                let content = match result.shift_remove("content") {
                    Some(Value::Array(c)) => c,
                    _ => Vec::new(),
                };
                self.call_result(result, content, mode == Mode::Allowlist)
            }
            value => self.structured(value, mode == Mode::Allowlist),
        };
        let unchanged = self.report.is_empty() && (self.format == Format::Webmcp || is_call_result);
        Ok(if unchanged { None } else { Some(agent) })
    }

    fn take(&mut self, pointer: String, reason: Reason, label: String, value: Value) {
        self.vaulted.push(Vaulted { pointer: pointer.clone(), label: label.clone(), value, report: self.report.len() });
        self.report.push(Redaction { pointer, reason, label, handle: None });
    }

    fn note(&mut self, pointer: String, reason: Reason, label: String) {
        self.report.push(Redaction { pointer, reason, label, handle: None });
    }

    /// Rule 4, no marks: one stub for the whole result.
    fn withhold_whole(&mut self, raw: Value) -> Value {
        let is_error = raw.get("isError") == Some(&Value::Bool(true));
        self.take(String::new(), Reason::SensitiveTool, self.tool.result_label(), raw);
        let mut agent = json!({ "content": [] });
        if is_error {
            agent["isError"] = Value::Bool(true);
        }
        agent
    }

    /// A plain structured value V: walk it; if anything goes, wrap V' as a CallToolResult.
    fn structured(&mut self, mut value: Value, allowlist: bool) -> Value {
        let base = String::new();
        self.walk_into(&mut value, &base, allowlist);
        self.scrub(&mut value, &base);
        if value.is_null() {
            return json!({ "content": [] }); // taken whole: the stub says it all
        }
        let text = json!({ "type": "text", "text": value.to_string() });
        let mut agent = json!({ "content": [text] });
        if value.is_object() {
            agent["structuredContent"] = value;
        }
        agent
    }

    /// Walks a structured value with the schema, vaulting what it takes under `base`.
    fn walk_into(&mut self, value: &mut Value, base: &str, allowlist: bool) -> bool {
        let Some(schema) = self.tool.schema() else { return false };
        let taken = walk(schema, value, allowlist);
        let any = !taken.is_empty();
        for t in taken {
            let mut strings = Vec::new();
            strings_of(&t.value, t.secret_keys, &mut strings);
            for s in &strings {
                self.needles.add(s, &t.label);
            }
            self.take(format!("{base}{}", t.pointer), t.reason, t.label, t.value);
        }
        any
    }

    /// Scrubs every string of `value` (at `pointer`) that contains a redacted value.
    fn scrub(&mut self, value: &mut Value, pointer: &str) -> bool {
        if self.needles.is_empty() {
            return false;
        }
        let mut hits = Vec::new();
        self.needles.scrub_value(value, &mut pointer.to_string(), &mut hits);
        let any = !hits.is_empty();
        for hit in hits {
            for label in hit.labels {
                self.note(hit.pointer.clone(), Reason::ValueMatch, label);
            }
        }
        any
    }

    /// A CallToolResult: structuredContent, then each block, then `_meta` and the rest.
    fn call_result(&mut self, mut result: Map<String, Value>, content: Vec<Value>, allowlist: bool) -> Value {
        let duplicates = duplicate_texts(&content, result.get("structuredContent"));
        let mut structured = result.shift_remove("structuredContent").filter(|v| !v.is_null());
        let mut changed = match structured.as_mut() {
            Some(v) => self.walk_into(v, "/structuredContent", allowlist),
            None => false,
        };
        let content = self.blocks(content, &duplicates, structured.is_none(), allowlist);
        if let Some(v) = structured.as_mut() {
            changed |= self.scrub(v, "/structuredContent");
        }
        let mut agent = Map::new();
        agent.insert("content".into(), Value::Array(self.regenerate(content, &duplicates, structured.as_ref(), changed)));
        if let Some(v) = structured.filter(|v| !v.is_null()) {
            agent.insert("structuredContent".into(), v);
        }
        for (key, mut value) in result {
            let pointer = child("", &key);
            match key.as_str() {
                "isError" => {}
                "_meta" => value = self.meta(value, &pointer, allowlist),
                _ if allowlist => {
                    self.take(pointer, Reason::Undeclared, key, value);
                    continue;
                }
                _ => {
                    self.scrub(&mut value, &pointer);
                }
            }
            agent.insert(key, value);
        }
        Value::Object(agent)
    }

    /// Rule 5 for each block. `bare` means there is no structuredContent, so JSON text blocks
    /// are walked with the schema themselves (the commonest way a marked field leaks).
    fn blocks(&mut self, content: Vec<Value>, duplicates: &[bool], bare: bool, allowlist: bool) -> Vec<Value> {
        let mut kept = Vec::with_capacity(content.len());
        for (i, mut block) in content.into_iter().enumerate() {
            let pointer = format!("/content/{i}");
            match classify(&block) {
                Block::Library => {}
                Block::UserOnly => {
                    self.note(pointer, Reason::Audience, block_label(&block));
                    continue;
                }
                Block::Unknown => {
                    self.note(pointer, Reason::UnknownBlock, block_label(&block));
                    continue;
                }
                Block::Malformed => {
                    self.note(pointer, Reason::MalformedBlock, block_label(&block));
                    continue;
                }
                Block::BadReference(strings) => {
                    strings.iter().for_each(|s| self.needles.add(s, "secret_reference"));
                    self.note(pointer, Reason::MalformedReference, "secret_reference".into());
                    continue;
                }
                Block::Reference(r) => {
                    self.needles.add(&r.id, &r.label);
                    self.needles.add(&r.redeem_url, &r.label);
                    let handle = new_handle(self.handles);
                    self.report.push(Redaction { pointer: pointer.clone(), reason: Reason::SecretReference, label: r.label.clone(), handle: Some(handle.clone()) });
                    block = stub(self.format, &r.label, &handle);
                    let kind = SecretKind::Reference { id: r.id, redeem_url: r.redeem_url, ttl: r.ttl };
                    self.secrets.push(Secret { handle, label: r.label, kind });
                }
                Block::Text if duplicates[i] => {}
                Block::Text if bare && self.is_schema_json(&block) => {
                    self.walk_text(&mut block, &pointer, allowlist);
                }
                Block::Text | Block::Media if allowlist => {
                    let label = block_label(&block);
                    self.take(pointer, Reason::Undeclared, label, block);
                    continue;
                }
                Block::Text | Block::Media => {}
            }
            if allowlist && !is_library_block(&block) {
                if let Some(meta) = block.as_object_mut().and_then(|b| b.shift_remove("_meta")) {
                    self.take(child(&pointer, "_meta"), Reason::Undeclared, "_meta".into(), meta);
                }
            }
            kept.push((i, block));
        }
        // Scrub after every block has added its needles, so order does not matter.
        kept.into_iter()
            .map(|(i, mut block)| {
                if !duplicates[i] && !is_library_block(&block) {
                    self.scrub(&mut block, &format!("/content/{i}"));
                }
                block
            })
            .collect()
    }

    /// Is this a text block of JSON that the schema describes (an object or an array)?
    fn is_schema_json(&self, block: &Value) -> bool {
        let text = block.get("text").and_then(Value::as_str).unwrap_or("");
        self.tool.has_marks()
            && text.trim_start().starts_with(['{', '['])
            && serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_object() || v.is_array())
    }

    /// A text block holding JSON, with no structuredContent beside it: redact that JSON as
    /// the structured value it stands for.
    fn walk_text(&mut self, block: &mut Value, pointer: &str, allowlist: bool) {
        let Some(text) = block.get("text").and_then(Value::as_str) else { return };
        let Ok(mut value) = serde_json::from_str::<Value>(text) else { return };
        let before = self.report.len();
        self.walk_into(&mut value, "", allowlist);
        for r in &mut self.report[before..] {
            r.pointer = child(pointer, "text"); // a pointer cannot go inside a string
        }
        for v in &mut self.vaulted[..] {
            if v.report >= before {
                v.pointer = child(pointer, "text");
            }
        }
        if self.report.len() > before {
            block["text"] = Value::String(value.to_string());
        }
    }

    /// Text blocks that duplicated structuredContent are rewritten from the redacted value,
    /// or dropped when it was taken whole.
    fn regenerate(&self, content: Vec<Value>, duplicates: &[bool], structured: Option<&Value>, changed: bool) -> Vec<Value> {
        if !changed {
            return content;
        }
        let text = structured.filter(|v| !v.is_null()).map(Value::to_string);
        let mut out = Vec::with_capacity(content.len());
        for (i, mut block) in content.into_iter().enumerate() {
            if duplicates.get(i).copied().unwrap_or(false) && matches!(classify(&block), Block::Text) {
                let Some(t) = &text else { continue };
                block["text"] = Value::String(t.clone());
            }
            out.push(block);
        }
        out
    }

    /// `_meta`: our own keys stay; in allowlist mode every other key goes, else it is scrubbed.
    fn meta(&mut self, meta: Value, pointer: &str, allowlist: bool) -> Value {
        let Value::Object(map) = meta else {
            return if allowlist { self.take_meta(pointer, meta) } else { self.scrubbed(meta, pointer) };
        };
        let mut out = Map::new();
        for (key, mut value) in map {
            let at = child(pointer, &key);
            if is_library_key(&key) {
            } else if allowlist {
                self.take(at, Reason::Undeclared, key, value);
                continue;
            } else {
                self.scrub(&mut value, &at);
            }
            out.insert(key, value);
        }
        Value::Object(out)
    }

    fn take_meta(&mut self, pointer: &str, value: Value) -> Value {
        self.take(pointer.to_string(), Reason::Undeclared, "_meta".into(), value);
        Value::Object(Map::new())
    }

    fn scrubbed(&mut self, mut value: Value, pointer: &str) -> Value {
        self.scrub(&mut value, pointer);
        value
    }

    /// Assigns handles, appends stubs and the notice, adds the report to `_meta`.
    fn finish(mut self, mut agent: Value) -> Outcome {
        if self.report.is_empty() {
            // Only the "mcp" format's wrapping of a plain value gets here.
            return Outcome { agent_json: agent.to_string(), redactions: Vec::new(), withheld: false, secrets: Vec::new(), error: None };
        }
        let withheld = self.report.iter().any(|r| r.reason == Reason::SensitiveTool);
        let vaulted = std::mem::take(&mut self.vaulted);
        let mut stubs = Vec::new();
        let overflow = vaulted.len() > MAX_STUBS + 1;
        let mut rest = Vec::new();
        let mut rest_reports = Vec::new();
        for (n, v) in vaulted.into_iter().enumerate() {
            if overflow && n >= MAX_STUBS {
                rest_reports.push(v.report);
                rest.push((v.pointer, v.label, v.value));
                continue;
            }
            let handle = new_handle(self.handles);
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
            stubs.push(stub(self.format, &label, &handle));
            self.secrets.push(Secret { handle, label, kind: SecretKind::Many(rest) });
        }
        let mut labels: Vec<&str> = Vec::new();
        for r in &self.report {
            if !labels.contains(&r.label.as_str()) {
                labels.push(&r.label);
            }
        }
        let notice = notice(self.report.len(), &labels);
        let content = agent["content"].as_array_mut().expect("every agent view has content");
        content.extend(stubs);
        content.push(notice);
        let entries: Vec<Value> = self
            .report
            .iter()
            .map(|r| json!({ "pointer": r.pointer, "reason": r.reason.as_str(), "label": r.label }))
            .collect();
        let meta = agent.as_object_mut().expect("an object").entry("_meta").or_insert_with(|| json!({}));
        match meta.get_mut(REPORT_KEY).and_then(Value::as_array_mut) {
            Some(existing) => existing.extend(entries),
            None => meta[REPORT_KEY] = Value::Array(entries),
        }
        let agent_json = agent.to_string();
        Outcome { agent_json, redactions: self.report, withheld, secrets: self.secrets, error: None }
    }
}

/// Which text blocks are the JSON text of structuredContent (compact, pretty, any key order).
fn duplicate_texts(content: &[Value], structured: Option<&Value>) -> Vec<bool> {
    let Some(structured) = structured.filter(|v| !v.is_null()) else { return vec![false; content.len()] };
    content
        .iter()
        .map(|b| {
            let text = b.get("type").filter(|t| *t == "text").and_then(|_| b.get("text")).and_then(Value::as_str);
            text.filter(|t| t.trim_start().starts_with(['{', '[']))
                .and_then(|t| serde_json::from_str::<Value>(t).ok())
                .is_some_and(|v| &v == structured)
        })
        .collect()
}

/// A CallToolResult made only of what this library writes: a second pass leaves it alone.
fn only_library_parts(raw: &Value) -> bool {
    let Value::Object(r) = raw else { return false };
    r.iter().all(|(k, v)| match k.as_str() {
        "content" => v.as_array().is_some_and(|c| c.iter().all(is_library_block)),
        "_meta" => v.as_object().is_some_and(|m| m.keys().all(|k| is_library_key(k))),
        "isError" => true,
        _ => false,
    })
}
