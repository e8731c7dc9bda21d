//! Options shared by compilation and redaction.

/// How secret stubs are written into the agent view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// `{ type: "secret_reference", label, handle }` blocks (the WebMCP #110 proposal).
    #[default]
    Webmcp,
    /// Only the five standard MCP block types; a stub is a text block with
    /// `_meta["webmcp-redact/secret"] = { label, handle }`.
    Mcp,
}

impl Format {
    pub const ALL: [Format; 2] = [Format::Webmcp, Format::Mcp];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Webmcp => "webmcp",
            Format::Mcp => "mcp",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "webmcp" => Some(Format::Webmcp),
            "mcp" => Some(Format::Mcp),
            _ => None,
        }
    }
}

/// Resource limits; exceeding one is an error, and errors are fail-closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest JSON nesting accepted in a result or a schema.
    pub max_depth: usize,
    /// Largest result, in bytes of JSON text.
    pub max_input_bytes: usize,
    /// Longest chain of `$ref`s followed without moving into the instance.
    pub max_ref_hops: usize,
    /// Most units of work applying the schema to one result may take. A unit is about 0.1 µs
    /// natively: one subschema visited or added to a set, one owner of properties scanned for a
    /// key, one key character matched against literal patterns, 32 regex steps (a state or class
    /// range for a character), 16 bytes of JSON inside a string parsed. What memoization answers
    /// (a set of subschemas or a key seen before) costs nothing. Past it the result is withheld
    /// (`work_limit`).
    pub max_work: usize,
}

impl Limits {
    /// Depth is capped so that no configuration can drive the parser into a stack overflow.
    pub const DEPTH_CEILING: usize = 512;
    /// The default of `max_work` (2^24): a few seconds of work natively at the worst, and more
    /// than ten times what 1 MB of the costliest linear case measured takes.
    pub const DEFAULT_MAX_WORK: usize = 1 << 24;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 128,
            max_input_bytes: 64 * 1024 * 1024,
            max_ref_hops: 64,
            max_work: Limits::DEFAULT_MAX_WORK,
        }
    }
}

/// Which engine reads a result. Both give the same agent view byte for byte; the tests hold
/// them to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// One pass over the bytes where it applies (plain structured results), the DOM engine
    /// for the rest.
    #[default]
    Streaming,
    /// The result parsed whole, walked and written again: the oracle.
    Dom,
}

/// Everything `redact` needs besides the tool and the result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub format: Format,
    pub limits: Limits,
    pub engine: Engine,
}
