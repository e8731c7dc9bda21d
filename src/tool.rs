//! A tool definition, compiled once: its name, its sensitivity, and its output schema.

use serde_json::Value;

use crate::json::{parse_limited, top_level_string};
use crate::model::{Hint, Level, Source, ToolModel};
use crate::policy::Policy;
use crate::schema::{agent_schema, compile, Schema};
use crate::scrub::detect::Detect;
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
    untrusted: bool,
    spotlight: bool,
    detect: Detect,
    /// The policy's `withholdAt`, which a result's own sensitivity claim is held to as well.
    withhold_at: Level,
    schema: Option<Schema>,
    /// Does the schema mark something under each of [`MCP_MEMBERS`]? Worked out once: asked for
    /// every piece of JSON a result holds (each JSON object in a text's prose), a walk of the
    /// schema each time made a large schema times many small objects quadratic (found by
    /// review s25: 0.5 MB of schema and 0.14 MB of `{"content":[]}` in a text took 1.7 s).
    marks_mcp: [bool; 3],
    model: ToolModel,
}

/// The members of a CallToolResult whose marks make a value that has them the tool's data.
const MCP_MEMBERS: [&str; 3] = ["content", "_meta", "isError"];

impl CompiledTool {
    /// Parses and validates a tool definition (`{ name, title?, outputSchema?, annotations?, ... }`)
    /// under the default [`Policy`].
    pub fn compile(tool_json: &str, limits: &Limits) -> Result<CompiledTool, Error> {
        Self::compile_with(tool_json, limits, &Policy::default())
    }

    /// Like [`CompiledTool::compile`], with a policy deciding which tools are sensitive.
    pub fn compile_with(tool_json: &str, limits: &Limits, policy: &Policy) -> Result<CompiledTool, Error> {
        let tool = parse_limited(tool_json, limits)
            .map_err(|e| e.for_tool(&top_level_string(tool_json, "name").unwrap_or_default()))?;
        Self::from_value_with(&tool, limits, policy)
    }

    /// Like [`CompiledTool::compile`], from a parsed definition.
    pub fn from_value(tool: &Value, limits: &Limits) -> Result<CompiledTool, Error> {
        Self::from_value_with(tool, limits, &Policy::default())
    }

    /// Like [`CompiledTool::compile_with`], from a parsed definition.
    pub fn from_value_with(tool: &Value, limits: &Limits, policy: &Policy) -> Result<CompiledTool, Error> {
        let name_of = tool.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let fail = |e: Error| e.for_tool(&name_of);
        let Value::Object(def) = tool else {
            return Err(fail(Error::new(ErrorCode::SchemaInvalid, "", "a tool definition must be an object")));
        };
        let name = match def.get("name") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => {
                return Err(fail(Error::new(
                    ErrorCode::SchemaInvalid,
                    "/name",
                    "a tool needs a non-empty string `name`",
                )))
            }
        };
        if !matches!(def.get("annotations"), None | Some(Value::Null | Value::Object(_))) {
            return Err(fail(Error::new(ErrorCode::SchemaInvalid, "/annotations", "`annotations` must be an object")));
        }
        let model = ToolModel::read(tool);
        // Rule 4 through the model: a level at or above `withholdAt`, or a listed data class.
        let sensitive = model.level().is_some_and(|l| l >= policy.withhold_at)
            || policy.redact_classes.iter().any(|c| model.has_output_class(*c));
        let untrusted = model.hint(Hint::UntrustedContent) == Some(true)
            || model.output_source.as_ref().is_some_and(|s| s.value == Source::UntrustedPublic);
        let schema = match def.get("outputSchema") {
            None | Some(Value::Null) => None,
            Some(s @ (Value::Object(_) | Value::Bool(_))) => Some(compile(s, "/outputSchema", limits).map_err(fail)?),
            Some(_) => {
                return Err(fail(Error::new(
                    ErrorCode::SchemaInvalid,
                    "/outputSchema",
                    "`outputSchema` must be a JSON Schema object",
                )))
            }
        };
        let title = def.get("title").and_then(Value::as_str).map(str::to_string);
        let (spotlight, detect, withhold_at) = (policy.spotlight, policy.detect, policy.withhold_at);
        let marks_mcp = MCP_MEMBERS.map(|k| schema.as_ref().is_some_and(|s| s.marks_property(k)));
        Ok(CompiledTool { name, title, sensitive, untrusted, spotlight, detect, withhold_at, schema, marks_mcp, model })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Does the tool declare (by `sensitiveHint`) that its output is sensitive?
    pub fn is_sensitive(&self) -> bool {
        self.sensitive
    }

    /// What the tool says about itself, read from every proposal's vocabulary.
    pub fn model(&self) -> &ToolModel {
        &self.model
    }

    /// What `redactor.describe(tool)` returns: the model, and what this library makes of it.
    pub fn describe(&self) -> Value {
        let mut v = self.model.to_json();
        if let Some(o) = v.as_object_mut() {
            o.insert("name".into(), Value::String(self.name.clone()));
            o.insert("sensitive".into(), Value::Bool(self.sensitive));
            o.insert("untrusted".into(), Value::Bool(self.untrusted));
            o.insert("marks".into(), Value::Bool(self.has_marks()));
        }
        v
    }

    /// The `outputSchema` to give the runtime and the agent instead of `tool`'s own (this tool's
    /// definition, parsed): it describes the redacted view (see `schema::agent`). `None` when no
    /// view carries `structuredContent`: no schema, or every result withheld (rule 4).
    pub fn agent_schema(&self, tool: &Value, limits: &Limits) -> Result<Option<Value>, Error> {
        let doc = match tool.get("outputSchema") {
            Some(doc) if self.publishes_schema() => doc,
            _ => return Ok(None),
        };
        agent_schema(doc, "/outputSchema", self.mode() == Mode::Allowlist, limits).map_err(|e| e.for_tool(&self.name))
    }

    /// Results come from untrusted public sources (`returnMetadata.Source` or
    /// `untrustedContentHint`): the agent view marks them.
    pub(crate) fn is_untrusted(&self) -> bool {
        self.untrusted
    }

    pub(crate) fn spotlight(&self) -> bool {
        self.spotlight
    }

    /// The credential formats detected in its results (`policy.detect`).
    pub(crate) fn detect(&self) -> Detect {
        self.detect
    }

    pub(crate) fn schema(&self) -> Option<&Schema> {
        self.schema.as_ref()
    }

    pub(crate) fn has_marks(&self) -> bool {
        self.schema.as_ref().is_some_and(Schema::has_marks)
    }

    /// Is `value` a CallToolResult of this tool: shaped like one, and, with no
    /// `structuredContent`, not a value whose schema marks something under one of MCP's member
    /// names? A document `{ title, content: [typed parts] }` whose schema marks `content` (or
    /// `_meta`) says those members are the tool's data, so the schema applies to them (found by
    /// review: read as a CallToolResult, its marked text blocks reached the agent).
    pub(crate) fn reads_as_call_result(&self, value: &Value) -> bool {
        let marks_mcp_member = MCP_MEMBERS.iter().zip(self.marks_mcp).any(|(k, marks)| marks && value.get(k).is_some());
        crate::json::is_call_result(value) && (value.get("structuredContent").is_some() || !marks_mcp_member)
    }

    /// Does the schema mark something under one of MCP's member names? Then a result with no
    /// `structuredContent` may be the tool's data ([`Self::reads_as_call_result`]).
    pub(crate) fn marks_mcp_members(&self) -> bool {
        self.marks_mcp.contains(&true)
    }

    /// Does `agent_schema` give the runtime an `outputSchema` (the tool has one, and not every
    /// result is withheld whole)?
    pub(crate) fn publishes_schema(&self) -> bool {
        self.mode() != Mode::Withhold && self.schema.is_some()
    }

    pub(crate) fn mode(&self) -> Mode {
        self.mode_for(Level::None)
    }

    /// The mode for one result whose own annotations claim `level` (SEP-1913 `sensitiveHint`,
    /// the trust-annotations extension's `sensitive`): a claim at or above `withholdAt` makes
    /// that result a sensitive tool's result. A result can make a tool stricter, never laxer.
    pub(crate) fn mode_for(&self, level: Level) -> Mode {
        let sensitive = self.sensitive || (level > Level::None && level >= self.withhold_at);
        match (sensitive, self.has_marks()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the schema marks MCP's member names is asked of every JSON object a result's
    /// text holds: the schema is walked for it once, when compiling, never per object (review
    /// s25: a walk per object made `n` objects times a schema of `n` subschemas quadratic).
    #[test]
    fn json_objects_in_a_text_do_not_walk_the_schema_each() {
        use crate::redactor::tests::Counter;
        let visits = |n: usize| {
            let (schema, raw) = crate::schema::families::objects_in_prose(n);
            let before = crate::schema::MARKS_VISITS.with(|v| v.get());
            let tool = CompiledTool::from_value(
                &serde_json::json!({ "name": "t", "outputSchema": schema }),
                &Limits::default(),
            )
            .unwrap();
            let out = crate::redact(&tool, &raw.to_string(), &crate::Options::default(), &mut Counter(0), &[]);
            assert!(out.error.is_none() && out.redactions.len() == 1, "{:?}", out.error);
            crate::schema::MARKS_VISITS.with(|v| v.get()) - before
        };
        let (small, large) = (visits(500), visits(1000));
        assert!(large <= 2 * small + 8, "doubling the objects and the schema: {small} then {large} subschemas visited");
    }

    #[test]
    fn a_definition_over_the_limits_is_still_named() {
        let deep = format!(r#"{{"name":"deep_tool","outputSchema":{}{}}}"#, "[".repeat(200), "]".repeat(200));
        let e = CompiledTool::compile(&deep, &Limits::default()).err().unwrap();
        assert_eq!((e.code, e.tool.as_str()), (ErrorCode::DepthLimit, "deep_tool"));
        let late = format!(r#"{{"outputSchema":{}{},"name":"late"}}"#, "[".repeat(200), "]".repeat(200));
        assert_eq!(CompiledTool::compile(&late, &Limits::default()).err().unwrap().tool, "late", "wherever it stands");
    }

    #[test]
    fn the_agent_schema_follows_the_mode() {
        let limits = Limits::default();
        let schema = serde_json::json!({
            "type": "object",
            "required": ["id", "secret"],
            "properties": { "id": { "type": "string" }, "secret": { "type": "string", "x-sensitive": true } }
        });
        let agent = |def: Value| CompiledTool::from_value(&def, &limits).unwrap().agent_schema(&def, &limits).unwrap();
        let denylist = agent(serde_json::json!({ "name": "t", "outputSchema": schema }));
        assert_eq!(denylist.unwrap()["required"], serde_json::json!(["id"]));
        // Sensitive with marks: `id` is declared, so it stays.
        let allowlist =
            agent(serde_json::json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": schema }));
        assert_eq!(allowlist.unwrap()["required"], serde_json::json!(["id"]));
        // Sensitive without marks: every result is withheld whole, none has structuredContent.
        let plain =
            serde_json::json!({ "type": "object", "required": ["id"], "properties": { "id": { "type": "string" } } });
        assert_eq!(
            agent(serde_json::json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": plain })),
            None
        );
        assert_eq!(agent(serde_json::json!({ "name": "t" })), None);
    }

    #[test]
    fn sensitivity_follows_the_policy() {
        let tool = |a: &str| {
            CompiledTool::compile(&format!(r#"{{"name":"t","annotations":{a}}}"#), &Limits::default()).unwrap()
        };
        assert!(tool(r#"{"sensitiveHint":true}"#).is_sensitive());
        assert!(!tool(r#"{"sensitiveHint":"medium"}"#).is_sensitive(), "below the default withholdAt");
        assert!(tool(r#"{"returnMetadata":{"Sensitivity":"Credentials"}}"#).is_sensitive());
        let medium = Policy { withhold_at: crate::model::Level::Medium, ..Policy::default() };
        let t = CompiledTool::compile_with(
            r#"{"name":"t","_meta":{"mcp.dev/resultSensitivity":"confidential"}}"#,
            &Limits::default(),
            &medium,
        )
        .unwrap();
        assert!(t.is_sensitive());
    }
}
