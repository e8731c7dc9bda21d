//! One error type for every operation, with a stable snake_case code and a JSON Pointer.

use std::fmt;

/// Stable error codes; the JS wrapper exposes them as `RedactionError.code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// The tool definition or its `outputSchema` is not something we can enforce.
    SchemaInvalid,
    /// A `$ref` points outside the schema document; it is never fetched.
    RemoteRef,
    /// A `$ref` chain is longer than `Limits::max_ref_hops`, or loops without consuming input.
    RefLimit,
    /// JSON nesting deeper than `Limits::max_depth`.
    DepthLimit,
    /// Input larger than `Limits::max_input_bytes`.
    SizeLimit,
    /// Applying the schema to the result took more than `Limits::max_work` units of work.
    WorkLimit,
    /// The JS value could not be serialized (BigInt, cycle, throwing getter). Raised by the JS side.
    Unserializable,
    /// The result text is not JSON.
    InvalidJson,
    /// An object in the result (or in JSON text inside it) repeats a key: the parsed value
    /// keeps the last one while the text holds the others, so nothing of it can be trusted.
    DuplicateKey,
    /// A bug or a trap in the module.
    Internal,
    /// The WebAssembly module could not be loaded (so JS raises it, with a fallback text).
    WasmUnavailable,
    /// A resource's read or a prompt's get (`installRedaction` over MCP-B) was withheld: it
    /// claims sensitivity, or a value was found inside base64 that masking would leave invalid.
    /// Raised by the JS side, which rejects the read with it.
    Withheld,
}

impl ErrorCode {
    /// Every code, in the order the README lists them.
    pub const ALL: [ErrorCode; 12] = [
        ErrorCode::SchemaInvalid,
        ErrorCode::RemoteRef,
        ErrorCode::RefLimit,
        ErrorCode::DepthLimit,
        ErrorCode::SizeLimit,
        ErrorCode::WorkLimit,
        ErrorCode::Unserializable,
        ErrorCode::InvalidJson,
        ErrorCode::DuplicateKey,
        ErrorCode::Internal,
        ErrorCode::WasmUnavailable,
        ErrorCode::Withheld,
    ];

    pub fn parse(s: &str) -> Option<ErrorCode> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::SchemaInvalid => "schema_invalid",
            ErrorCode::RemoteRef => "remote_ref",
            ErrorCode::RefLimit => "ref_limit",
            ErrorCode::DepthLimit => "depth_limit",
            ErrorCode::SizeLimit => "size_limit",
            ErrorCode::WorkLimit => "work_limit",
            ErrorCode::Unserializable => "unserializable",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::DuplicateKey => "duplicate_key",
            ErrorCode::Internal => "internal",
            ErrorCode::WasmUnavailable => "wasm_unavailable",
            ErrorCode::Withheld => "withheld",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What exactly is wrong with an `outputSchema`, finer than [`ErrorCode::SchemaInvalid`]:
/// lint reports each under its own code, so an author knows which fix applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SchemaFault {
    /// An `"x-sensitive"` value that is neither `true`, `false` nor a class name.
    InvalidMark,
    /// A reference inside the document that points at nothing.
    DanglingRef,
}

/// An error that names the tool and where the problem is.
///
/// `pointer` is a JSON Pointer into the tool definition (schema errors) or into the raw
/// result (limit and parse errors). The message never contains a value from the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub tool: String,
    pub pointer: String,
    pub detail: String,
    /// Set by the schema compiler when the error has a more precise kind than `code`.
    pub(crate) fault: Option<SchemaFault>,
}

impl Error {
    pub fn new(code: ErrorCode, pointer: impl Into<String>, detail: impl Into<String>) -> Self {
        Error { code, tool: String::new(), pointer: pointer.into(), detail: detail.into(), fault: None }
    }

    pub(crate) fn with_fault(mut self, fault: SchemaFault) -> Self {
        self.fault = Some(fault);
        self
    }

    /// This error as it leaves a redaction: a pointer into the tool's result keeps no key of
    /// the tool's data (see [`crate::json::without_data_keys`]); one into the tool definition
    /// (a schema compiled on first use) stays whole.
    pub(crate) fn about_result(mut self) -> Self {
        use ErrorCode::*;
        if matches!(self.code, DepthLimit | SizeLimit | WorkLimit | InvalidJson | DuplicateKey) {
            let kept = crate::json::without_data_keys(&self.pointer).len();
            self.pointer.truncate(kept);
        }
        self
    }

    pub fn for_tool(mut self, tool: &str) -> Self {
        self.tool = tool.to_string();
        self
    }

    /// The human message: what went wrong, for which tool, where, and what to do.
    pub fn message(&self) -> String {
        let at = if self.pointer.is_empty() { "the root".to_string() } else { self.pointer.clone() };
        format!("tool \"{}\": {} at {}: {}", self.tool, self.code, at, self.detail)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Error {}
