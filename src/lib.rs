//! webmcp-redact: schema-guided redaction of WebMCP / MCP tool results.
//!
//! The core is pure Rust and works on JSON text: a tool definition is compiled once
//! ([`CompiledTool::compile`]), then each raw result is turned into what an AI agent may see
//! ([`redact`]). Sensitive values never reach the agent view; they come back to the caller as
//! [`Secret`]s to keep in a vault on the caller's side. Every failure is fail-closed: the agent
//! view is then a short "withheld" error result, never the raw one.
//!
//! `src/wasm.rs` is the only WebAssembly boundary; nothing else imports wasm-bindgen.

mod assemble;
mod blocks;
pub mod check;
mod error;
mod json;
pub mod lint;
pub mod model;
mod options;
pub mod policy;
mod outcome;
mod redact;
mod schema;
mod scrub;
pub mod session;
mod stubs;
mod tool;
mod walk;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use error::{Error, ErrorCode};
pub use options::{Format, Limits, Options};
pub use outcome::{Outcome, Reason, Redaction, Secret, SecretKind};
pub use redact::{redact, withheld_result, HandleSource, KnownSecret};
pub use tool::CompiledTool;
