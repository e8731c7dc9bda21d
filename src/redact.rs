//! The contract, end to end: parse, pick the shape, apply the tool's mode. Any error becomes
//! the fail-closed "withheld" result. `assemble.rs` writes the final agent view.

use serde_json::{json, Map, Value};

use crate::blocks::{block_label, classify, reference_strings, Block, STRUCTURAL};
use crate::json::{child, parse_result};
use crate::scrub::{strings_of, Needles};
use crate::session::Labels;
use crate::stubs::{as_mcp_stub, is_library_block, is_library_key, new_handle, stub};
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
///
/// ```
/// use webmcp_redact::{redact, CompiledTool, HandleSource, Limits, Options};
/// struct Fixed;
/// impl HandleSource for Fixed { fn fill(&mut self, b: &mut [u8; 16]) { *b = [7; 16]; } }
/// let tool = CompiledTool::compile(r#"{"name":"k","outputSchema":{"properties":{"secret":{"x-sensitive":true}}}}"#, &Limits::default()).unwrap();
/// let out = redact(&tool, r#"{"id":1,"secret":"sk_live_1"}"#, &Options::default(), &mut Fixed, &[]);
/// assert!(!out.agent_json.contains("sk_live_1"));
/// assert_eq!(out.redactions[0].pointer, "/secret");
/// ```
pub fn redact(tool: &CompiledTool, raw_json: &str, options: &Options, handles: &mut dyn HandleSource, known: &[KnownSecret]) -> Outcome {
    let mut run = Run { tool, format: options.format, handles, report: Vec::new(), vaulted: Vec::new(), secrets: Vec::new(), needles: Needles::default(), reshaped: false };
    for k in known {
        run.needles.add(&k.value, &k.label);
    }
    let mut labels = Labels::observe(tool.model(), None);
    let mut outcome = match run.result(raw_json, options, &mut labels) {
        Ok(Some(agent)) => run.finish(agent),
        Ok(None) => Outcome { agent_json: raw_json.to_string(), redactions: Vec::new(), withheld: false, secrets: Vec::new(), error: None, labels: Labels::default() },
        Err(e) => failed(tool.name(), e.for_tool(tool.name())),
    };
    outcome.labels = labels;
    outcome
}

/// The agent view when a result cannot be redacted: no part of the raw result.
pub fn withheld_result(tool_name: &str, code: ErrorCode) -> String {
    let text = format!("The result of {tool_name} was withheld: {code}.");
    json!({ "content": [{ "type": "text", "text": text }], "isError": true }).to_string()
}

fn failed(tool_name: &str, error: Error) -> Outcome {
    let agent_json = withheld_result(tool_name, error.code);
    Outcome { agent_json, redactions: Vec::new(), withheld: true, secrets: Vec::new(), error: Some(error), labels: Labels::default() }
}

const UNTRUSTED_KEY: &str = "webmcp-redact/untrusted";
const UNTRUSTED_POINTER: &str = "/_meta/webmcp-redact~1untrusted";
/// Spotlighting delimiters around untrusted text.
const SPOTLIGHT: (&str, &str) = ("<untrusted-content>", "</untrusted-content>");

/// A value on its way to the vault, before handles are assigned.
pub(crate) struct Vaulted {
    pub pointer: String,
    pub label: String,
    pub value: Value,
    pub report: usize,
}

pub(crate) struct Run<'a> {
    pub tool: &'a CompiledTool,
    pub format: Format,
    pub handles: &'a mut dyn HandleSource,
    pub report: Vec<Redaction>,
    pub vaulted: Vec<Vaulted>,
    pub secrets: Vec<Secret>,
    pub needles: Needles,
    /// Something changed that the report does not list (a stub rewritten for the mcp format).
    pub reshaped: bool,
}

impl Run<'_> {
    /// The agent view as a value, or `None` when the raw text passes through unchanged.
    fn result(&mut self, raw_json: &str, options: &Options, labels: &mut Labels) -> Result<Option<Value>, Error> {
        let raw = parse_result(raw_json, &options.limits)?;
        *labels = Labels::observe(self.tool.model(), Some(&raw));
        let is_call_result = raw.get("content").is_some_and(Value::is_array);
        let mark_untrusted = self.tool.is_untrusted() && raw.pointer(UNTRUSTED_POINTER) != Some(&Value::Bool(true));
        let mode = self.tool.mode();
        let mut agent = match raw {
            _ if mode == Mode::Withhold && is_call_result && only_library_parts(&raw, self.format) => return Ok(None),
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
        if mark_untrusted {
            self.mark_untrusted(&mut agent);
        }
        let wraps = (self.format == Format::Mcp || mark_untrusted) && !is_call_result;
        Ok((!self.report.is_empty() || self.reshaped || wraps).then_some(agent))
    }

    /// Results from untrusted public sources carry `_meta["webmcp-redact/untrusted"]`, and with
    /// `spotlight` their text sits between delimiters it cannot close early.
    fn mark_untrusted(&mut self, agent: &mut Value) {
        self.reshaped = true;
        if self.tool.spotlight() {
            for block in agent["content"].as_array_mut().into_iter().flatten() {
                if is_library_block(block) {
                    continue;
                }
                if let Some(Value::String(text)) = block.get_mut("text") {
                    let inner = text.replace(SPOTLIGHT.1, "[/untrusted-content]");
                    *text = format!("{}\n{inner}\n{}", SPOTLIGHT.0, SPOTLIGHT.1);
                }
            }
        }
        if let Some(agent) = agent.as_object_mut() {
            let meta = agent.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(UNTRUSTED_KEY.into(), Value::Bool(true));
            }
        }
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
        self.walk_into(&mut value, "", allowlist);
        self.scrub(&mut value, "");
        if value.is_null() && !self.report.is_empty() {
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

    /// Value matching on every string of `value` (at `pointer`).
    pub(crate) fn scrub(&mut self, value: &mut Value, pointer: &str) -> bool {
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

    /// Value matching on the content fields of a block (never its type, audience or data).
    fn scrub_block(&mut self, block: &mut Value, pointer: &str, skip_text: bool) {
        let library = is_library_block(block);
        let Value::Object(fields) = block else { return };
        for (key, value) in fields.iter_mut() {
            let k = key.as_str();
            let skip = STRUCTURAL.contains(&k) || (skip_text && k == "text") || (library && k == "_meta");
            if skip {
                continue;
            }
            let at = child(pointer, k);
            match (k, value) {
                ("resource", Value::Object(r)) => {
                    for (rk, rv) in r.iter_mut().filter(|(rk, _)| !STRUCTURAL.contains(&rk.as_str())) {
                        self.scrub(rv, &child(&at, rk));
                    }
                }
                (_, v) => {
                    self.scrub(v, &at);
                }
            }
        }
    }

    /// A CallToolResult: structuredContent, then each block, then `_meta` and the rest.
    fn call_result(&mut self, mut result: Map<String, Value>, content: Vec<Value>, allowlist: bool) -> Value {
        let duplicates = duplicate_texts(&content, result.get("structuredContent"));
        let mut structured = result.shift_remove("structuredContent").filter(|v| !v.is_null());
        if self.format == Format::Mcp && structured.as_ref().is_some_and(|v| !v.is_object()) {
            self.note("/structuredContent".into(), Reason::NotMcp, "structuredContent".into());
            structured = None;
        }
        let mut changed = match structured.as_mut() {
            Some(v) => self.walk_into(v, "/structuredContent", allowlist),
            None => false,
        };
        let kept = self.blocks(content, &duplicates, structured.is_none(), allowlist);
        if let Some(v) = structured.as_mut() {
            changed |= self.scrub(v, "/structuredContent");
        }
        // Scrub after every block has added its needles, so block order does not matter.
        let text = structured.as_ref().map(Value::to_string);
        let mut blocks = Vec::with_capacity(kept.len());
        for (i, mut block) in kept {
            let regenerate = duplicates[i] && changed;
            if regenerate {
                let Some(t) = &text else { continue }; // taken whole: its duplicate goes too
                block["text"] = Value::String(t.clone());
            }
            self.scrub_block(&mut block, &format!("/content/{i}"), regenerate);
            blocks.push(block);
        }
        let mut agent = Map::new();
        agent.insert("content".into(), Value::Array(blocks));
        if let Some(v) = structured {
            agent.insert("structuredContent".into(), v);
        }
        for (key, value) in result {
            if let Some(value) = self.top_level(&key, value, allowlist) {
                agent.insert(key, value);
            }
        }
        Value::Object(agent)
    }

    /// `isError`, `_meta` and anything else at the top of a CallToolResult.
    fn top_level(&mut self, key: &str, mut value: Value, allowlist: bool) -> Option<Value> {
        let pointer = child("", key);
        match key {
            "isError" if self.format == Format::Mcp && !value.is_boolean() => {
                self.note(pointer, Reason::NotMcp, key.into());
                None
            }
            "isError" => Some(value),
            "_meta" => Some(self.meta(value, &pointer, allowlist)),
            _ if allowlist => {
                self.take(pointer, Reason::Undeclared, key.into(), value);
                None
            }
            _ => {
                self.scrub(&mut value, &pointer);
                Some(value)
            }
        }
    }

    /// Rule 5 for each block; returns the blocks that stay, with their index in the raw
    /// content. `bare` means there is no structuredContent, so JSON text blocks are walked with
    /// the schema themselves (the commonest way a marked field leaks).
    fn blocks(&mut self, content: Vec<Value>, duplicates: &[bool], bare: bool, allowlist: bool) -> Vec<(usize, Value)> {
        let mut kept = Vec::with_capacity(content.len());
        for (i, mut block) in content.into_iter().enumerate() {
            let pointer = format!("/content/{i}");
            for s in reference_strings(&block) {
                self.needles.add(&s, block.get("label").and_then(Value::as_str).unwrap_or("secret_reference"));
            }
            let kind = classify(&block);
            let json = if bare && matches!(kind, Block::Text) && !duplicates[i] { self.schema_json(&block) } else { None };
            let removed = match kind {
                Block::Library => {
                    self.library_block(&mut block);
                    None
                }
                Block::UserOnly => Some(Reason::Audience),
                Block::Unknown => Some(Reason::UnknownBlock),
                Block::Malformed => Some(Reason::MalformedBlock),
                Block::BadReference => Some(Reason::MalformedReference),
                Block::Reference(r) => {
                    let handle = new_handle(self.handles);
                    self.report.push(Redaction { pointer: pointer.clone(), reason: Reason::SecretReference, label: r.label.clone(), handle: Some(handle.clone()) });
                    block = stub(self.format, &r.label, &handle);
                    let kind = SecretKind::Reference { id: r.id, redeem_url: r.redeem_url, ttl: r.ttl };
                    self.secrets.push(Secret { handle, label: r.label, kind });
                    None
                }
                Block::Text if duplicates[i] => None,
                Block::Text if json.is_some() => {
                    if let Some(value) = json {
                        self.walk_text(&mut block, value, &pointer, allowlist);
                    }
                    None
                }
                Block::Text | Block::Media if allowlist => {
                    let label = block_label(&block);
                    self.take(pointer, Reason::Undeclared, label, block);
                    continue;
                }
                Block::Text | Block::Media => None,
            };
            if let Some(reason) = removed {
                let label = if reason == Reason::MalformedReference { "secret_reference".into() } else { block_label(&block) };
                self.note(pointer, reason, label);
                continue;
            }
            if allowlist && !is_library_block(&block) {
                if let Some(meta) = block.as_object_mut().and_then(|b| b.shift_remove("_meta")) {
                    self.take(child(&pointer, "_meta"), Reason::Undeclared, "_meta".into(), meta);
                }
            }
            if self.format == Format::Mcp {
                self.mcp_audience(&mut block, &pointer);
            }
            kept.push((i, block));
        }
        kept
    }

    /// Our own stub from a webmcp-format pass, met in the mcp format: rewritten, same handle.
    fn library_block(&mut self, block: &mut Value) {
        if self.format == Format::Mcp {
            if let Some(mcp) = as_mcp_stub(block) {
                *block = mcp;
                self.reshaped = true;
            }
        }
    }

    /// MCP defines only the "user" and "assistant" roles.
    fn mcp_audience(&mut self, block: &mut Value, pointer: &str) {
        let Some(Value::Array(audience)) = block.pointer_mut("/annotations/audience") else { return };
        let before = audience.len();
        audience.retain(|a| a == "user" || a == "assistant");
        if audience.len() != before {
            self.note(format!("{pointer}/annotations/audience"), Reason::NotMcp, "audience".into());
        }
    }

    /// The JSON of a text block that stands for a structured value the schema describes, parsed
    /// once here. (Any JSON: the mcp format wraps even `null` or `42` as text.)
    fn schema_json(&self, block: &Value) -> Option<Value> {
        let text = block.get("text").and_then(Value::as_str)?;
        if !self.tool.has_marks() {
            return None;
        }
        serde_json::from_str(text).ok()
    }

    /// A text block holding JSON, with no structuredContent beside it: redact that JSON as
    /// the structured value it stands for. A pointer cannot go inside a string, so every
    /// redaction in it points at the text.
    fn walk_text(&mut self, block: &mut Value, mut value: Value, pointer: &str, allowlist: bool) {
        let before = self.report.len();
        if !self.walk_into(&mut value, "", allowlist) {
            return;
        }
        let at = child(pointer, "text");
        for r in &mut self.report[before..] {
            r.pointer = at.clone();
        }
        for v in self.vaulted.iter_mut().filter(|v| v.report >= before) {
            v.pointer = at.clone();
        }
        block["text"] = Value::String(value.to_string());
    }

    /// `_meta`: our own keys stay; in allowlist mode every other key goes, else it is scrubbed.
    fn meta(&mut self, meta: Value, pointer: &str, allowlist: bool) -> Value {
        let Value::Object(map) = meta else {
            if allowlist {
                self.take(pointer.to_string(), Reason::Undeclared, "_meta".into(), meta);
                return json!({});
            }
            let mut meta = meta;
            self.scrub(&mut meta, pointer);
            return meta;
        };
        let mut out = Map::new();
        for (key, mut value) in map {
            let at = child(pointer, &key);
            if allowlist && !is_library_key(&key) {
                self.take(at, Reason::Undeclared, key, value);
                continue;
            }
            self.scrub(&mut value, &at);
            out.insert(key, value);
        }
        Value::Object(out)
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

/// A CallToolResult made only of what this library writes (in this format): a second pass
/// leaves it alone.
fn only_library_parts(raw: &Value, format: Format) -> bool {
    let Value::Object(r) = raw else { return false };
    r.iter().all(|(k, v)| match k.as_str() {
        "content" => v.as_array().is_some_and(|c| c.iter().all(|b| is_library_block(b) && !(format == Format::Mcp && as_mcp_stub(b).is_some()))),
        "_meta" => v.as_object().is_some_and(|m| m.keys().all(|k| is_library_key(k))),
        "isError" => true,
        _ => false,
    })
}
