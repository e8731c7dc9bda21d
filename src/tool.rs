//! A tool definition, compiled once: its name, its sensitivity, and its output schema.

use serde_json::Value;

use crate::json::{parse_limited, truthy};
use crate::schema::{compile, Schema};
use crate::{Error, ErrorCode, Limits};

/// How a result of this tool is treated (rule 4 of the contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Not sensitive: only marked values are redacted.
    Denylist,
    /// Sensitive with marks: marked values and everything the schema does not describe go.
    Allowlist,
    /// Sensitive without marks: the whole result is withheld.
    Withhold,
}

/// A tool definition, validated and ready to redact results with.
///
/// ```
/// use webmcp_redact::{CompiledTool, Limits};
/// let tool = CompiledTool::compile(r#"{"name":"t","outputSchema":{"type":"object"}}"#, &Limits::default()).unwrap();
/// assert_eq!(tool.name(), "t");
/// ```
pub struct CompiledTool {
    name: String,
    title: Option<String>,
    sensitive: bool,
    schema: Option<Schema>,
}

impl CompiledTool {
    /// Parses and validates a tool definition (`{ name, title?, outputSchema?, annotations?, ... }`).
    pub fn compile(tool_json: &str, limits: &Limits) -> Result<CompiledTool, Error> {
        let tool = parse_limited(tool_json, limits)?;
        Self::from_value(&tool, limits)
    }

    /// Like [`CompiledTool::compile`], from a parsed definition.
    pub fn from_value(tool: &Value, limits: &Limits) -> Result<CompiledTool, Error> {
        let name_of = tool.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let fail = |e: Error| e.for_tool(&name_of);
        let Value::Object(def) = tool else {
            return Err(fail(Error::new(ErrorCode::SchemaInvalid, "", "a tool definition must be an object")));
        };
        let name = match def.get("name") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err(fail(Error::new(ErrorCode::SchemaInvalid, "/name", "a tool needs a non-empty string `name`"))),
        };
        let annotations = match def.get("annotations") {
            None | Some(Value::Null) => None,
            Some(Value::Object(a)) => Some(a),
            Some(_) => return Err(fail(Error::new(ErrorCode::SchemaInvalid, "/annotations", "`annotations` must be an object"))),
        };
        let sensitive = annotations.and_then(|a| a.get("sensitiveHint")).is_some_and(truthy);
        let schema = match def.get("outputSchema") {
            None | Some(Value::Null) => None,
            Some(s @ (Value::Object(_) | Value::Bool(_))) => Some(compile(s, "/outputSchema", limits).map_err(fail)?),
            Some(_) => return Err(fail(Error::new(ErrorCode::SchemaInvalid, "/outputSchema", "`outputSchema` must be a JSON Schema object"))),
        };
        let title = def.get("title").and_then(Value::as_str).map(str::to_string);
        Ok(CompiledTool { name, title, sensitive, schema })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Does the tool declare (by `sensitiveHint`) that its output is sensitive?
    pub fn is_sensitive(&self) -> bool {
        self.sensitive
    }

    pub(crate) fn schema(&self) -> Option<&Schema> {
        self.schema.as_ref()
    }

    pub(crate) fn has_marks(&self) -> bool {
        self.schema.as_ref().is_some_and(Schema::has_marks)
    }

    pub(crate) fn mode(&self) -> Mode {
        match (self.sensitive, self.has_marks()) {
            (false, _) => Mode::Denylist,
            (true, true) => Mode::Allowlist,
            (true, false) => Mode::Withhold,
        }
    }

    /// The label of a stub that stands for the whole result.
    pub(crate) fn result_label(&self) -> String {
        let schema_title = self.schema.as_ref().and_then(Schema::title);
        schema_title.or(self.title.as_deref()).unwrap_or(&self.name).to_string()
    }
}
