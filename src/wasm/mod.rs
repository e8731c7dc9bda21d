//! The WebAssembly boundary: the only file that imports wasm-bindgen.
//!
//! Payloads cross as JSON text (`&str` in, `String` out), which wasm-bindgen moves through wasm
//! memory with `TextEncoder`/`TextDecoder`; serde-wasm-bindgen reads only the small options
//! object. `js/index.js` is the intended caller; these exports are low level.
//!
//! Errors the caller should report (schema errors, bad arguments) are thrown as a JSON *string*
//! `{code, message, pointer, tool}` so that JS can tell them apart from anything else that
//! escapes the module (a trap, a JS exception), which means the instance must be replaced.

use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::lint::lint;
use crate::policy::check::check;
use crate::policy::session::Labels;
use crate::policy::Policy;
use crate::{
    redact as core_redact, CompiledTool, Error, ErrorCode, Format, HandleSource, KnownSecret, Limits, Options,
};

#[wasm_bindgen]
extern "C" {
    /// Web Crypto's CSPRNG; `globalThis.crypto` exists in browsers and in Node 20+.
    #[wasm_bindgen(catch, js_namespace = crypto, js_name = getRandomValues)]
    fn get_random_values(buf: &mut [u8]) -> Result<(), JsValue>;
}

/// Handles come from `crypto.getRandomValues`. Without a CSPRNG there is no safe handle, so a
/// failure aborts (a trap): the JS side then withholds the result and re-instantiates.
struct CryptoHandles;

impl HandleSource for CryptoHandles {
    fn fill(&mut self, bytes: &mut [u8; 16]) {
        if get_random_values(bytes).is_err() {
            panic!("crypto.getRandomValues failed");
        }
    }
}

/// A tool definition compiled once, together with the limits it was compiled with (the same
/// limits then apply to every result redacted with it).
///
/// ```js
/// const tool = compileTool(JSON.stringify({ name: "t", outputSchema: { type: "object" } }), {});
/// tool.name;  // "t"
/// tool.free(); // release the wasm memory when the tool is no longer needed
/// ```
#[wasm_bindgen]
pub struct WasmTool {
    tool: CompiledTool,
    limits: Limits,
    policy: Policy,
}

#[wasm_bindgen]
impl WasmTool {
    /// The tool's `name`, as used in error messages and in the withheld notice.
    ///
    /// ```js
    /// compileTool('{"name":"generate_api_key"}', {}).name; // "generate_api_key"
    /// ```
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.tool.name().to_string()
    }

    /// The largest result (bytes of JSON text) this tool accepts, so that JS can refuse an
    /// oversized result before copying it into wasm memory.
    ///
    /// ```js
    /// if (text.length > tool.maxInputBytes) throw sizeLimit(); // without entering wasm
    /// ```
    #[wasm_bindgen(getter = maxInputBytes)]
    pub fn max_input_bytes(&self) -> f64 {
        self.limits.max_input_bytes as f64
    }
}

/// What one redaction produced: two JSON texts. Read both, then `free()`.
///
/// ```js
/// const out = redact(tool, rawJson, "webmcp", "[]");
/// try { agent = out.agentJson; side = out.sideJson; } finally { out.free(); }
/// ```
#[wasm_bindgen]
pub struct RedactOutput {
    agent_json: String,
    side_json: String,
}

#[wasm_bindgen]
impl RedactOutput {
    /// The agent view: always safe to hand to the agent.
    ///
    /// ```js
    /// const result = JSON.parse(out.agentJson);
    /// ```
    #[wasm_bindgen(getter = agentJson)]
    pub fn agent_json(&self) -> String {
        self.agent_json.clone()
    }

    /// The caller's side: `{ redactions, withheld, secrets, error }` (secrets hold raw values).
    ///
    /// ```js
    /// const { redactions, withheld, secrets, error } = JSON.parse(out.sideJson);
    /// ```
    #[wasm_bindgen(getter = sideJson)]
    pub fn side_json(&self) -> String {
        self.side_json.clone()
    }
}

/// The options object `{ limits?: { maxDepth?, maxInputBytes?, maxRefHops? } }`.
/// Numbers arrive as f64 so that fractions and huge values are rejected here, not truncated.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsOptions {
    limits: Option<JsLimits>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsLimits {
    max_depth: Option<f64>,
    max_input_bytes: Option<f64>,
    max_ref_hops: Option<f64>,
}

fn limit(name: &str, value: Option<f64>, default: usize, max: usize) -> Result<usize, JsError> {
    match value {
        None => Ok(default),
        Some(v) if v.fract() == 0.0 && v >= 1.0 && v <= max as f64 => Ok(v as usize),
        Some(_) => Err(JsError::new(&format!("limits.{name} must be an integer from 1 to {max}"))),
    }
}

fn read_limits(options: JsValue) -> Result<Limits, JsError> {
    let opts: JsOptions = if options.is_undefined() || options.is_null() {
        JsOptions::default()
    } else {
        serde_wasm_bindgen::from_value(options).map_err(|e| JsError::new(&format!("invalid options: {e}")))?
    };
    let js = opts.limits.unwrap_or_default();
    let d = Limits::default();
    // usize is 32 bits here: u32::MAX keeps every accepted value representable.
    let cap = u32::MAX as usize;
    Ok(Limits {
        max_depth: limit("maxDepth", js.max_depth, d.max_depth, Limits::DEPTH_CEILING)?,
        max_input_bytes: limit("maxInputBytes", js.max_input_bytes, d.max_input_bytes, cap)?,
        max_ref_hops: limit("maxRefHops", js.max_ref_hops, d.max_ref_hops, cap)?,
    })
}

/// The JSON string thrown for a reportable error.
fn error_json(e: &Error) -> JsValue {
    let v =
        serde_json::json!({ "code": e.code.as_str(), "message": e.message(), "pointer": e.pointer, "tool": e.tool });
    JsValue::from_str(&v.to_string())
}

/// Compiles a tool definition given as JSON text. `options` is
/// `{ limits?: { maxDepth?, maxInputBytes?, maxRefHops? } }` (positive integers, `maxDepth` ≤ 512).
///
/// Throws a JSON string `{code, message, pointer, tool}` for a tool the core rejects
/// (`schema_invalid`, `remote_ref`, `ref_limit`, `depth_limit`, ...), and an `Error` for bad
/// options.
///
/// ```js
/// try {
///   const tool = compileTool(JSON.stringify(def), { limits: { maxDepth: 64 } });
/// } catch (e) {
///   if (typeof e === "string") throw toRedactionError(JSON.parse(e)); else throw e;
/// }
/// ```
/// `policyJson` is the policy as JSON text (`"{}"` for the defaults; see README "Policy").
#[wasm_bindgen(js_name = compileTool)]
pub fn compile_tool(tool_json: &str, options: JsValue, policy_json: &str) -> Result<WasmTool, JsValue> {
    let limits = read_limits(options).map_err(JsValue::from)?;
    let policy = serde_json::from_str(policy_json)
        .map_err(|e| e.to_string())
        .and_then(|v| Policy::from_json(&v))
        .map_err(|e| JsValue::from(JsError::new(&format!("invalid policy: {e}"))))?;
    match CompiledTool::compile_with(tool_json, &limits, &policy) {
        Ok(tool) => Ok(WasmTool { tool, limits, policy }),
        Err(e) => Err(error_json(&e)),
    }
}

/// What is wrong with a policy (JSON text), or `""` when nothing is: `createRedactor` asks
/// before it accepts one, so a bad policy is a plain error there, never a failed compile.
///
/// ```js
/// const problem = policyProblem(JSON.stringify({ withholdAt: "medium" })); // ""
/// ```
#[wasm_bindgen(js_name = policyProblem)]
pub fn policy_problem(policy_json: &str) -> String {
    match serde_json::from_str(policy_json).map_err(|e| e.to_string()).and_then(|v| Policy::from_json(&v)) {
        Ok(_) => String::new(),
        Err(e) => format!("invalid policy: {e}"),
    }
}

/// The tool as one model of the five proposals' vocabulary, as JSON text: every fact with the
/// claims behind it, and whether this library treats the tool as sensitive.
///
/// ```js
/// const model = JSON.parse(describeTool(tool));
/// model.output.level?.value; // "high"
/// ```
#[wasm_bindgen(js_name = describeTool)]
pub fn describe_tool(tool: &WasmTool) -> String {
    tool.tool.describe().to_string()
}

/// The pre-call decision for `tool` with `argsJson`, given the session's `labelsJson` and the
/// vault's `knownJson` (`[{label, value}]`): `{ decision, reasons: [{code, decision, message, source}] }`.
///
/// ```js
/// const { decision } = JSON.parse(checkCall(tool, JSON.stringify(args), labelsJson, "[]"));
/// ```
#[wasm_bindgen(js_name = checkCall)]
pub fn check_call(tool: &WasmTool, args_json: &str, labels_json: &str, known_json: &str) -> Result<String, JsValue> {
    let bad = |detail: String| error_json(&Error::new(ErrorCode::InvalidJson, "", detail).for_tool(tool.tool.name()));
    let args: serde_json::Value = serde_json::from_str(args_json).map_err(|e| bad(format!("arguments: {e}")))?;
    let labels = serde_json::from_str(labels_json)
        .map_err(|e| e.to_string())
        .and_then(|v| Labels::from_json(&v))
        .map_err(bad)?;
    let known = known_secrets(known_json).map_err(|e| bad(format!("knownJson: {e}")))?;
    Ok(check(tool.tool.model(), &args, &labels, &tool.policy, &known).to_json().to_string())
}

/// Session labels after a result: `a` merged with `b` (SEP-1913 propagation), as JSON text.
///
/// ```js
/// session = mergeLabels(session, JSON.parse(out.sideJson).labels);
/// ```
#[wasm_bindgen(js_name = mergeLabels)]
pub fn merge_labels(a_json: &str, b_json: &str) -> Result<String, JsError> {
    let read = |t: &str| {
        serde_json::from_str(t)
            .map_err(|e| e.to_string())
            .and_then(|v| Labels::from_json(&v))
            .map_err(|e| JsError::new(&e))
    };
    let mut a = read(a_json)?;
    a.merge(&read(b_json)?);
    Ok(a.to_json().to_string())
}

/// Lints a file of tool definitions (one tool, an array, or a `tools/list` result) given as
/// JSON text: `[{severity, code, tool, pointer, message}]`.
///
/// ```js
/// const findings = JSON.parse(lintTools(fs.readFileSync("tools.json", "utf8")));
/// ```
/// A file that is not JSON is one finding (`invalid_json`), not an exception.
#[wasm_bindgen(js_name = lintTools)]
pub fn lint_tools(doc_json: &str) -> String {
    let findings = match crate::json::parse_limited(doc_json, &Limits::default()) {
        Ok(doc) => lint(&doc).iter().map(|f| f.to_json()).collect(),
        Err(e) => vec![
            serde_json::json!({ "severity": "error", "code": e.code.as_str(), "tool": "", "pointer": e.pointer, "message": e.detail }),
        ],
    };
    serde_json::Value::Array(findings).to_string()
}

fn known_secrets(known_json: &str) -> Result<Vec<KnownSecret>, serde_json::Error> {
    let known: Vec<JsKnown> = serde_json::from_str(known_json)?;
    Ok(known.into_iter().map(|k| KnownSecret { label: k.label, value: k.value }).collect())
}

/// One known secret, as `js/index.js` sends the vault's string values.
#[derive(Deserialize)]
struct JsKnown {
    label: String,
    value: String,
}

/// Redacts one raw result (JSON text) for the agent. `format` is `"webmcp"` or `"mcp"`;
/// `knownJson` is `[{label, value}]`: strings the vault already holds, scrubbed wherever they
/// appear. Result problems do not throw: they come back in `sideJson.error` with a withheld
/// `agentJson`. Throws a JSON string only for a bad `format` or `knownJson`.
///
/// ```js
/// const out = redact(tool, '{"id":"key_1","secret":"sk_live_x"}', "webmcp", "[]");
/// try {
///   const agent = JSON.parse(out.agentJson);
///   const { redactions, secrets } = JSON.parse(out.sideJson);
/// } finally { out.free(); }
/// ```
#[wasm_bindgen]
pub fn redact(tool: &WasmTool, raw_json: &str, format: &str, known_json: &str) -> Result<RedactOutput, JsValue> {
    let bad = |detail: String| error_json(&Error::new(ErrorCode::Internal, "", detail).for_tool(tool.tool.name()));
    let format = Format::parse(format).ok_or_else(|| bad(format!("unknown format {format:?}")))?;
    let known = known_secrets(known_json).map_err(|e| bad(format!("knownJson: {e}")))?;
    let options = Options { format, limits: tool.limits };
    let outcome = core_redact(&tool.tool, raw_json, &options, &mut CryptoHandles, &known);
    Ok(RedactOutput { side_json: outcome.side_json(), agent_json: outcome.agent_json })
}
