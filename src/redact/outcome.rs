//! What a redaction produces: the agent view, the report, and the secrets for the vault.

use serde_json::Value;

use crate::policy::session::Labels;
use crate::scrub::detect::Kind;
use crate::Error;

/// Why a value or block left the agent view. The strings are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Marked by `"x-sensitive"` in the output schema.
    XSensitive,
    /// Its type did not match a subschema that has marks below it.
    SchemaMismatch,
    /// Not described by the schema of a sensitive tool (allowlist mode).
    Undeclared,
    /// The tool is sensitive and its schema marks nothing: the whole result was withheld.
    SensitiveTool,
    /// A string contained a redacted value (verbatim, JSON-escaped or percent-encoded).
    ValueMatch,
    /// A block meant for the user only (`annotations.audience` without `"assistant"`): moved
    /// whole to the vault as a `user_only` entry, so that the page can show it.
    Audience,
    /// A block of a type this library does not know.
    UnknownBlock,
    /// A block of a known type without the fields that type requires.
    MalformedBlock,
    /// The tool's own `secret_reference`: `id`, `redeemUrl` and `ttl` were moved to the vault.
    SecretReference,
    /// A `secret_reference` block that was malformed and removed.
    MalformedReference,
    /// A field MCP does not define for a block (or its `resource` or `annotations`), one of the
    /// wrong kind, or a non-boolean `isError`: removed, since it could carry data.
    UnknownField,
    /// Shaped like this library's own part (a `webmcp-redact/` key) in a result this redactor
    /// did not return: removed.
    Forged,
    /// Not valid in the "mcp" format (a non-object structuredContent, a non-boolean isError,
    /// an audience role MCP does not define): removed there.
    NotMcp,
    /// A credential the tool did not declare, found by its format (`docs/detectors.md`):
    /// `detected:<kind>`.
    Detected(Kind),
}

impl Reason {
    /// Every reason but `detected:<kind>`, whose words are [`Reason::words`]'.
    pub const ALL: [Reason; 13] = [
        Reason::XSensitive,
        Reason::SchemaMismatch,
        Reason::Undeclared,
        Reason::SensitiveTool,
        Reason::ValueMatch,
        Reason::Audience,
        Reason::UnknownBlock,
        Reason::MalformedBlock,
        Reason::SecretReference,
        Reason::MalformedReference,
        Reason::UnknownField,
        Reason::Forged,
        Reason::NotMcp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::XSensitive => "x_sensitive",
            Reason::SchemaMismatch => "schema_mismatch",
            Reason::Undeclared => "undeclared",
            Reason::SensitiveTool => "sensitive_tool",
            Reason::ValueMatch => "value_match",
            Reason::Audience => "audience",
            Reason::UnknownBlock => "unknown_block",
            Reason::MalformedBlock => "malformed_block",
            Reason::SecretReference => "secret_reference",
            Reason::MalformedReference => "malformed_reference",
            Reason::UnknownField => "unknown_field",
            Reason::Forged => "forged",
            Reason::NotMcp => "not_mcp",
            Reason::Detected(kind) => kind.code_and_reason().1,
        }
    }

    /// Every reason's word, the detected kinds' included.
    pub fn words() -> Vec<&'static str> {
        let detected = Kind::ALL.iter().map(|k| Reason::Detected(*k).as_str());
        Reason::ALL.iter().map(|r| r.as_str()).chain(detected).collect()
    }
}

/// One entry of the report. No values, only where and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Redaction {
    /// JSON Pointer into the raw result.
    pub pointer: String,
    pub reason: Reason,
    pub label: String,
    /// The vault handle of the stub that stands for this value, if one was made.
    pub handle: Option<String>,
}

/// What a vault entry holds.
#[derive(Clone, Debug, PartialEq)]
pub enum SecretKind {
    /// A value the library stripped: the raw JSON value.
    Value(Value),
    /// Several values behind one overflow stub: `[{ pointer, label, value }]`.
    Many(Vec<(String, String, Value)>),
    /// A content block meant for the user only (`annotations.audience` without `"assistant"`),
    /// whole: the page shows it; the agent gets a stub.
    UserOnly(Value),
    /// A tool's own `secret_reference`, to be redeemed later.
    Reference { id: String, redeem_url: String, ttl: Option<serde_json::Number> },
}

/// A vault entry for the caller: never part of the agent view.
#[derive(Clone, Debug, PartialEq)]
pub struct Secret {
    pub handle: String,
    pub label: String,
    pub kind: SecretKind,
}

/// The result of one redaction. `agent_json` is always safe to give the agent.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub agent_json: String,
    pub redactions: Vec<Redaction>,
    /// True when the agent got none of the result: a sensitive tool without marks, or an error.
    pub withheld: bool,
    pub secrets: Vec<Secret>,
    pub error: Option<Error>,
    /// What this result adds to a session's labels (SEP-1913): the tool's declared labels and
    /// the result's own annotations.
    pub labels: Labels,
    /// The raw text passed through byte for byte (`agent_json` is a copy of it).
    pub unchanged: bool,
    /// What joined the redactor's known-secret set (filled in by `Redactor::redact`).
    pub learned: Vec<crate::scrub::known::Learned>,
    /// Which engine read the result (the tests compare the two).
    pub engine: crate::Engine,
    /// Bytes value matching and the detectors read (see `scrub/meter.rs`; the tests hold
    /// ordinary results far below the allowance).
    pub read: u64,
}

impl Outcome {
    /// The caller's side of the outcome as JSON text (see `wire::side_json`).
    pub fn side_json(&self) -> String {
        crate::wire::side_json(self, None, None)
    }
}
