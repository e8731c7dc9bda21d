//! webmcp-redact: schema-guided redaction of WebMCP / MCP tool results.
//!
//! The core is pure Rust and works on JSON text: a tool definition is compiled once
//! ([`CompiledTool::compile`]), then each raw result is turned into what an AI agent may see
//! ([`redact`]). Sensitive values never reach the agent view; they come back to the caller as
//! [`Secret`]s to keep in a vault on the caller's side. Every failure is fail-closed: the agent
//! view is then a short "withheld" error result, never the raw one.
//!
//! The rooms: `json` (parsing under limits, pointers), `schema` (compiling `outputSchema`),
//! `model` (the proposals' vocabulary), `redact` (the agent view), `scrub` (value matching),
//! `policy` (policy, session labels, pre-call checks), `lint`. `wasm` is the only door to JS;
//! nothing else imports wasm-bindgen.

mod ascii;
mod error;
mod hash;
mod json;
#[cfg(feature = "lint")]
pub mod lint;
pub mod model;
mod options;
pub mod policy;
mod redact;
mod redactor;
mod schema;
mod scrub;
mod sort;
mod tool;
pub mod wire;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use error::{Error, ErrorCode};
pub use json::parse_limited as parse_json_with;

/// JSON text as the core reads it (what `JSON.parse` accepts; a repeated key is
/// `duplicate_key`), held to the default [`Limits`] (`maxDepth`, `maxInputBytes`): a value
/// nested past them could not even be dropped without overflowing the stack. Use
/// [`parse_json_with`] for other limits.
pub fn parse_json(text: &str) -> Result<serde_json::Value, Error> {
    json::parse_limited(text, &Limits::default())
}
pub use options::{Engine, Format, Limits, Options};
pub use policy::{check, session};
pub use redact::outcome::{Outcome, Reason, Redaction, Secret, SecretKind};
pub use redact::{redact, redact_with, withheld_result, HandleSource, KnownSecret};
pub use redactor::{Config, Redactor, SessionId, TOOL_CACHE_SIZE};
pub use scrub::known::KnownSecrets;
pub use tool::CompiledTool;

#[cfg(fuzzing)]
#[doc(hidden)]
pub use schema::fuzzing;
