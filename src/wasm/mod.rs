//! The only door between the core and JS, and the only module that imports wasm-bindgen.
//!
//! One exported object, [`WasmRedactor`], wraps the core [`Redactor`]: created once per
//! `createRedactor` with the options validated here, it keeps the compiled tools, the known
//! secrets, the sessions and the handle issuer. Per call, only the tool definition and the
//! payload cross, as JSON text: the definition as a string, the payload as its UTF-8 bytes
//! (wasm-bindgen copies a string in a character at a time while it is ASCII, a typed array in
//! one copy); the options cross once.
//! Errors are thrown as real `Error` objects (see `errors.rs`); `js/engine.js` treats anything
//! else that escapes as a trap.

mod crypto;
mod errors;
mod float;
mod heap;

#[global_allocator]
static HEAP: heap::Counting = heap::Counting;

/// Bytes the core's heap holds live (see `heap.rs`): `js/engine.js` replaces an instance only
/// when most of its memory is slack.
#[wasm_bindgen(js_name = liveBytes)]
pub fn live_bytes() -> f64 {
    heap::live() as f64
}

use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::json::parse::parse;
use crate::json::write;
use crate::policy::reference::Vault;
use crate::policy::session::Labels;
use crate::scrub::known::Learned;
use crate::wire::{self, OptionError, Settings};
use crate::{withheld_result, Error, ErrorCode, Redactor, SessionId};
use crypto::CryptoHandles;
use errors::{option_error, redaction_error};

/// A redactor: its configuration, compiled tools, known secrets and sessions.
///
/// ```js
/// const core = new WasmRedactor({ format: "mcp" });          // throws TypeError / RangeError
/// const [agentJson, sideJson, error] = core.redact(toolJson, rawJson, 0);
/// ```
/// The nesting serde_json's parser allows by default (127 levels): option objects, the vault
/// and session labels are read under it, as they were when serde_json read them.
const OPTIONS_DEPTH: Option<usize> = Some(128);

#[wasm_bindgen]
pub struct WasmRedactor {
    core: Redactor,
    settings: Settings,
}

#[wasm_bindgen]
impl WasmRedactor {
    /// `options_json` is what `createRedactor` was given, as JSON text (`format`, `limits`,
    /// `policy`, `vault`, `redeem`). Throws a `TypeError` or `RangeError` with code
    /// `invalid_options`.
    #[wasm_bindgen(constructor)]
    pub fn new(options_json: &str) -> Result<WasmRedactor, JsValue> {
        open();
        let value = parse(options_json, OPTIONS_DEPTH)
            .map_err(|_| option_error(&OptionError::Type("createRedactor: options must be plain data".into())))?;
        let settings = wire::read_options(&value).map_err(|e| option_error(&e))?;
        let mut core = Redactor::new(settings.config.clone(), Box::new(CryptoHandles::new()));
        core.set_heap_meter(heap::live);
        Ok(WasmRedactor { core, settings })
    }

    /// The normalized options JS acts on itself, as JSON text:
    /// `{ format, maxInputBytes, vault: { ttl }, redeem: { maxTtl, allowedPaths } }`.
    pub fn settings(&self) -> String {
        wire::settings_json(&self.settings)
    }

    /// Compiles (and caches) a tool definition given as JSON text; throws a `RedactionError`.
    /// Every tool definition crosses as UTF-8 bytes, like a result (see `redact`): a 1.5 MB
    /// definition took 18 ms to cross as a string, on every call.
    pub fn compile(&mut self, tool_utf8: &[u8]) -> Result<(), JsValue> {
        self.core.compile(text(tool_utf8)).map(|_| ()).map_err(|e| redaction_error(&e))
    }

    /// The tool's model (see README "Policy") as JSON text.
    pub fn describe(&mut self, tool_utf8: &[u8]) -> Result<String, JsValue> {
        self.core.describe(text(tool_utf8)).map(|v| write::text(&v)).map_err(|e| redaction_error(&e))
    }

    /// The `outputSchema` to register the tool with, as JSON text (`null`: none): its own,
    /// relaxed to describe the redacted view (README "MCP bridges"). Throws a `RedactionError`.
    #[wasm_bindgen(js_name = agentSchema)]
    pub fn agent_schema(&mut self, tool_utf8: &[u8]) -> Result<String, JsValue> {
        let schema = self.core.agent_schema(text(tool_utf8)).map_err(|e| redaction_error(&e))?;
        Ok(schema.map_or_else(|| "null".to_string(), |v| write::text(&v)))
    }

    /// Redacts one raw result, given as UTF-8 bytes (`TextEncoder#encode` of the text: a typed
    /// array crosses as one copy, where a string crosses a character at a time). Never throws
    /// for a bad tool or result: returns `[agentJson, sideJson, error]`, where `agentJson` is
    /// `null` when the raw text passes through unchanged, and `error` is a `RedactionError` when
    /// the result was withheld because of one. `session` is 0 for none.
    pub fn redact(&mut self, tool_utf8: &[u8], raw_utf8: &[u8], session: SessionId) -> Array {
        let session = (session != 0).then_some(session);
        let outcome = self.core.redact(text(tool_utf8), text(raw_utf8), session);
        // Named with bytes drawn in the fill that drew its handles (`crypto.rs`).
        let result_id = (!outcome.secrets.is_empty()).then(|| self.core.new_id());
        let merged = session.and_then(|id| self.core.session_labels(id));
        let side = wire::side_json(&outcome, merged, result_id.as_deref());
        let agent = if outcome.unchanged { JsValue::NULL } else { JsValue::from_str(&outcome.agent_json) };
        let error = outcome.error.as_ref().map_or(JsValue::UNDEFINED, redaction_error);
        Array::of3(&agent, &JsValue::from_str(&side), &error)
    }

    /// The withheld view and its `RedactionError` for a problem JS found before the core
    /// could look (an unserializable value, a non-string text, an oversized one):
    /// `[agentJson, error]`.
    pub fn withheld(&self, tool_name: &str, code: &str, detail: &str) -> Array {
        let code = ErrorCode::parse(code).unwrap_or(ErrorCode::Internal);
        let error = Error::new(code, "", detail).for_tool(tool_name);
        Array::of2(&JsValue::from_str(&self.core.withheld_view(tool_name, code)), &redaction_error(&error))
    }

    /// The pre-call decision as JSON text: `{ decision, reasons: [...], references? }`. Throws a
    /// `RedactionError` for a tool that does not compile; arguments the core cannot read (too
    /// large, too deep, repeated keys) are denied (`unserializable`), never an exception.
    /// `vault_json` (optional) is what the page's vault holds for secret references:
    /// `{ handles, approved }` (see `policy::reference::Vault`); a malformed one is no vault.
    pub fn check(
        &mut self,
        tool_utf8: &[u8],
        args_json: &str,
        session: SessionId,
        vault_json: Option<String>,
    ) -> Result<String, JsValue> {
        self.compile(tool_utf8)?;
        let tool_json = text(tool_utf8);
        let session = (session != 0).then_some(session);
        let vault = vault_json
            .and_then(|j| parse(&j, OPTIONS_DEPTH).ok())
            .and_then(|v| Vault::from_json(&v).ok())
            .unwrap_or_default();
        Ok(match self.core.check_with(tool_json, args_json, session, &vault) {
            Ok(result) => wire::check_json(&result),
            Err(e) => wire::unreadable_arguments_json(&e),
        })
    }

    /// The call's arguments (JSON text) with the values the known set holds replaced, for a
    /// consent prompt; `null` when they cannot be read.
    #[wasm_bindgen(js_name = scrubKnown)]
    pub fn scrub_known(&self, args_json: &str) -> String {
        self.core.scrub_known(args_json).map_or_else(|| "null".to_string(), |v| write::text(&v))
    }

    /// The pointer of the first block for the user only among the messages inside a value
    /// (JSON text as UTF-8 bytes), or `undefined`: MCP-B's bridge withholds a prompt or a
    /// sampling request holding one (js/install.js). Throws a `RedactionError` for text it
    /// cannot read.
    #[wasm_bindgen(js_name = userOnlyMessage)]
    pub fn user_only_message(&self, value_utf8: &[u8]) -> Result<Option<String>, JsValue> {
        self.core.user_only_message(text(value_utf8)).map_err(|e| redaction_error(&e))
    }

    /// A value the user was given by `redeem`: scrubbed from every later result.
    pub fn learn(&mut self, handle: &str, label: &str, value: &str) {
        self.core.learn(handle, label, value);
    }

    /// Replays one entry of a side record's `known` (what an earlier core learned) after a
    /// trap: held by `handle`, or pinned when `handle` is undefined.
    pub fn remember(&mut self, handle: Option<String>, label: String, value: String) {
        self.core.remember(&Learned { handle: handle.map(Into::into), label: label.into(), value: value.into() });
    }

    /// The vault entry `handle` was deleted.
    pub fn forget(&mut self, handle: &str) {
        self.core.forget(handle);
    }

    /// The vault entries of `handles` (separated by spaces: handles are hex) expired. One call
    /// for all the entries a sweep found, not one per entry.
    pub fn expire(&mut self, handles: &str) {
        self.core.expire(handles.split(' ').filter(|h| !h.is_empty()));
    }

    /// The vault was cleared.
    #[wasm_bindgen(js_name = forgetAll)]
    pub fn forget_all(&mut self) {
        self.core.forget_all();
    }

    /// How many distinct values the known set holds.
    #[wasm_bindgen(getter, js_name = knownCount)]
    pub fn known_count(&self) -> u32 {
        self.core.known().len() as u32
    }

    /// Changes whenever what the known set matches may have: a scrub's answer holds while it
    /// stays the same (exact as a number up to 2^53 changes).
    #[wasm_bindgen(getter, js_name = knownGeneration)]
    pub fn known_generation(&self) -> f64 {
        self.core.known().generation() as f64
    }

    #[wasm_bindgen(js_name = openSession)]
    pub fn open_session(&mut self) -> SessionId {
        self.core.open_session()
    }

    #[wasm_bindgen(js_name = closeSession)]
    pub fn close_session(&mut self, id: SessionId) {
        self.core.close_session(id);
    }

    /// A session's labels as JSON text.
    #[wasm_bindgen(js_name = sessionLabels)]
    pub fn session_labels(&self, id: SessionId) -> Option<String> {
        self.core.session_labels(id).map(wire::labels_json)
    }

    /// Sets a session's labels from JSON text (`reset`, or a restore); throws a `TypeError` for
    /// labels that are not `{ sensitivity?, private?, openWorld?, malicious?, attribution? }`.
    #[wasm_bindgen(js_name = setSessionLabels)]
    pub fn set_session_labels(&mut self, id: SessionId, labels_json: &str) -> Result<bool, JsValue> {
        let bad = |m: String| option_error(&OptionError::Type(format!("session labels: {m}")));
        let value = parse(labels_json, OPTIONS_DEPTH).map_err(|e| bad(e.message(labels_json)))?;
        let labels = Labels::from_json(&value).map_err(bad)?;
        Ok(self.core.set_session_labels(id, labels))
    }
}

/// What every entry point does before the core runs: seeds its hashing (before anything hashes,
/// see `crypto.rs`) and gives it JavaScript's reading of numbers (`float.rs`).
fn open() {
    crypto::seed_hashing();
    crate::json::float::set_reader(float::parse_float);
}

/// JSON text given as UTF-8 bytes. TextEncoder writes UTF-8 only; anything else reads as no
/// text, which no tool compiles from and no result parses from (`invalid_json`).
fn text(utf8: &[u8]) -> &str {
    std::str::from_utf8(utf8).unwrap_or("")
}

/// Lints a file of tool definitions (one tool, an array, or a `tools/list` result) given as
/// JSON text: `[{severity, code, tool, pointer, message}]` as JSON text. A file that is not
/// JSON is one finding (`invalid_json`), not an exception.
#[cfg(feature = "lint")]
#[wasm_bindgen(js_name = lintTools)]
pub fn lint_tools(doc_json: &str) -> String {
    open();
    let findings = match crate::json::parse_limited(doc_json, &crate::Limits::default()) {
        Ok(doc) => crate::lint::lint(&doc).iter().map(|f| f.to_json()).collect(),
        Err(e) => vec![
            serde_json::json!({ "severity": "error", "code": e.code.as_str(), "tool": "", "pointer": e.pointer, "message": e.detail }),
        ],
    };
    serde_json::Value::Array(findings).to_string()
}

/// Every word and constant JS mirrors, as JSON text (see `wire::Vocabulary`).
#[wasm_bindgen]
pub fn vocabulary() -> String {
    open();
    wire::vocabulary_json()
}

/// The agent view for a result withheld with `code` (JSON text).
#[wasm_bindgen(js_name = withheldJson)]
pub fn withheld_json(tool_name: &str, code: &str) -> String {
    open();
    withheld_result(tool_name, ErrorCode::parse(code).unwrap_or(ErrorCode::Internal))
}
