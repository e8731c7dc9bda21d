//! What a redaction produces: the agent view, the report, and the secrets for the vault.

use serde_json::Value;

use crate::policy::session::Labels;
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
    /// A block meant for the user only (`annotations.audience: ["user"]`).
    Audience,
    /// A block of a type this library does not know.
    UnknownBlock,
    /// A block of a known type without the fields that type requires.
    MalformedBlock,
    /// The tool's own `secret_reference`: `id`, `redeemUrl` and `ttl` were moved to the vault.
    SecretReference,
    /// A `secret_reference` block that was malformed and removed.
    MalformedReference,
    /// Not valid in the "mcp" format (a non-object structuredContent, a non-boolean isError,
    /// an audience role MCP does not define): removed there.
    NotMcp,
}

impl Reason {
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
            Reason::NotMcp => "not_mcp",
        }
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
}

impl Outcome {
    /// The caller's side of the outcome as JSON text (the wasm boundary hands this to JS):
    /// `{ redactions: [{pointer, reason, label, handle?}], withheld, secrets: [...], error }`.
    pub fn side_json(&self) -> String {
        use serde_json::{json, Map};
        let redactions: Vec<Value> = self
            .redactions
            .iter()
            .map(|r| {
                let mut o = Map::new();
                o.insert("pointer".into(), r.pointer.clone().into());
                o.insert("reason".into(), r.reason.as_str().into());
                o.insert("label".into(), r.label.clone().into());
                if let Some(h) = &r.handle {
                    o.insert("handle".into(), h.clone().into());
                }
                Value::Object(o)
            })
            .collect();
        let secrets: Vec<Value> = self.secrets.iter().map(Secret::to_json).collect();
        let error = match &self.error {
            Some(e) => json!({ "code": e.code.as_str(), "message": e.message(), "pointer": e.pointer, "tool": e.tool }),
            None => Value::Null,
        };
        json!({ "redactions": redactions, "withheld": self.withheld, "secrets": secrets, "error": error, "labels": self.labels.to_json() })
            .to_string()
    }
}

impl Secret {
    fn to_json(&self) -> Value {
        use serde_json::json;
        match &self.kind {
            SecretKind::Value(v) => json!({ "handle": self.handle, "label": self.label, "kind": "value", "value": v }),
            SecretKind::Many(items) => {
                let values: Vec<Value> =
                    items.iter().map(|(p, l, v)| json!({ "pointer": p, "label": l, "value": v })).collect();
                json!({ "handle": self.handle, "label": self.label, "kind": "many", "values": values })
            }
            SecretKind::Reference { id, redeem_url, ttl } => {
                let mut o = json!({ "handle": self.handle, "label": self.label, "kind": "reference", "id": id, "redeemUrl": redeem_url });
                if let Some(t) = ttl {
                    o["ttl"] = Value::Number(t.clone());
                }
                o
            }
        }
    }
}
