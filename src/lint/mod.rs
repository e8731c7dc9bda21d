//! `webmcp-redact lint`: findings about tool definitions, for tool authors' CI. Each finding
//! has a severity, a stable code, the tool's name and a JSON Pointer into the input file.

mod near_miss;
mod trail;

use serde_json::{json, Value};

use crate::error::SchemaFault;
use crate::model::{Hint, Level, Outcomes, ToolModel};
use crate::schema::is_mark;
use crate::{CompiledTool, ErrorCode, Limits};
use trail::{Step, Trail};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub severity: Severity,
    pub code: &'static str,
    pub tool: String,
    pub pointer: String,
    pub message: String,
}

impl Finding {
    pub fn to_json(&self) -> Value {
        let severity = if self.severity == Severity::Error { "error" } else { "warning" };
        json!({ "severity": severity, "code": self.code, "tool": self.tool, "pointer": self.pointer, "message": self.message })
    }
}

/// Bytes of findings (pointers, messages, tool names, and 64 for the rest of each) past which
/// [`lint`] stops reporting (see [`lint_within`]).
pub const MAX_FINDINGS_BYTES: usize = 1 << 20;

/// Lints a file: one tool, an array of tools, or a `tools/list` result (`{ tools }`, also
/// inside a JSON-RPC `result`). Anything else, a tool's result given by mistake above all, is
/// one `not_a_tool` error: "0 errors" would say the file was checked.
pub fn lint(doc: &Value) -> Vec<Finding> {
    lint_within(doc, MAX_FINDINGS_BYTES)
}

/// [`lint`], reporting at most `max_bytes` of findings. A finding's pointer and message repeat
/// the keys above it, so a schema nested `d` deep gives findings of `d` times its size (1 MB of
/// deep, secret-looking property names gave 62 MB): past the cap, the findings so far are kept
/// in order and one `findings_limit` error ends the list.
pub fn lint_within(doc: &Value, max_bytes: usize) -> Vec<Finding> {
    let mut out = Findings { list: Vec::new(), room: max_bytes, cut: false };
    lint_into(doc, &mut out);
    if out.cut {
        out.list.push(Finding {
            severity: Severity::Error,
            code: "findings_limit",
            tool: String::new(),
            pointer: String::new(),
            message: format!("lint stopped reporting after {max_bytes} bytes of findings; fix those and run it again"),
        });
    }
    out.list
}

/// The findings so far, and the bytes left for more.
struct Findings {
    list: Vec<Finding>,
    room: usize,
    cut: bool,
}

impl Findings {
    /// Keeps `f` if it fits in what is left, and nothing once one did not (the list stays a
    /// prefix of the whole). False once the list is cut: whoever is finding more can stop, as
    /// nothing it finds will be kept.
    fn push(&mut self, f: Finding) -> bool {
        let size = 64 + f.pointer.len() + f.message.len() + f.tool.len();
        match self.room.checked_sub(size) {
            Some(room) if !self.cut => {
                self.room = room;
                self.list.push(f);
            }
            _ => self.cut = true,
        }
        !self.cut
    }
}

fn lint_into(doc: &Value, out: &mut Findings) {
    let (tools, base) = match doc {
        Value::Array(list) => (list.iter().collect::<Vec<_>>(), String::new()),
        Value::Object(o) if o.get("tools").is_some_and(Value::is_array) => {
            (o["tools"].as_array().into_iter().flatten().collect(), "/tools".to_string())
        }
        Value::Object(_) if doc.pointer("/result/tools").is_some_and(Value::is_array) => {
            (doc["result"]["tools"].as_array().into_iter().flatten().collect(), "/result/tools".to_string())
        }
        v if is_tool(v) => {
            return lint_tool(v, "", out);
        }
        v => {
            out.push(not_a_tool(v, String::new()));
            return;
        }
    };
    for (i, tool) in tools.into_iter().enumerate() {
        if out.cut {
            return;
        }
        let at = format!("{base}/{i}");
        if is_tool(tool) {
            lint_tool(tool, &at, out);
        } else {
            out.push(not_a_tool(tool, at));
        }
    }
}

/// A tool definition, as `registerTool` takes it or `tools/list` lists it: an object with a
/// string `name`, none of the members only a result has, and either nothing but members a tool
/// definition has or at least one that defines a tool. A structured result such as
/// `{ id, name, secret }` has a `name` too; its other members tell it apart.
fn is_tool(v: &Value) -> bool {
    // MCP's `Tool` (2025-11-25) and WebMCP's `registerTool` dictionary.
    const FIELDS: &[&str] = &[
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "icons",
        "execution",
        "_meta",
        "execute",
    ];
    const DEFINING: &[&str] = &["description", "inputSchema", "outputSchema", "annotations"];
    let Value::Object(o) = v else { return false };
    o.get("name").is_some_and(Value::is_string)
        && !is_result(v)
        && (o.keys().all(|k| FIELDS.contains(&k.as_str())) || DEFINING.iter().any(|k| o.contains_key(*k)))
}

/// A `CallToolResult` (or a JSON-RPC response carrying one).
fn is_result(v: &Value) -> bool {
    let own = |v: &Value| {
        v.get("content").is_some_and(Value::is_array)
            || v.get("structuredContent").is_some()
            || v.get("isError").is_some()
    };
    own(v) || v.get("result").is_some_and(own)
}

fn not_a_tool(v: &Value, pointer: String) -> Finding {
    let what = if is_result(v) {
        "a tool's result (a CallToolResult), not a tool definition"
    } else {
        "not a tool definition (an object with a string \"name\" and a description, inputSchema, outputSchema or annotations), perhaps a tool's result"
    };
    Finding {
        severity: Severity::Error,
        code: "not_a_tool",
        tool: String::new(),
        pointer,
        message: format!("{what}; lint reads one tool definition, an array of them, or a tools/list result"),
    }
}

fn lint_tool(tool: &Value, at: &str, out: &mut Findings) {
    if out.cut {
        return;
    }
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("").to_string();
    let mut add = |severity, code, pointer: String, message: String| {
        out.push(Finding { severity, code, tool: name.clone(), pointer: format!("{at}{pointer}"), message })
    };
    if let Err(e) = CompiledTool::from_value(tool, &Limits::default()) {
        let code = match (e.code, e.fault) {
            (ErrorCode::RemoteRef, _) => "remote_ref",
            (ErrorCode::RefLimit, _) => "ref_limit",
            (_, Some(SchemaFault::InvalidMark)) => "invalid_x_sensitive",
            (_, Some(SchemaFault::DanglingRef)) => "dangling_ref",
            _ => "schema_invalid",
        };
        add(Severity::Error, code, e.pointer.clone(), e.detail.clone());
    }
    let model = ToolModel::read(tool);
    for p in &model.problems {
        add(Severity::Error, "unknown_value", p.pointer.clone(), p.detail.clone());
    }
    let source = |h| model.hint_fact(h).and_then(|f| f.claims.first()).map(|c| c.source.clone()).unwrap_or_default();
    if model.hint(Hint::ReadOnly) == Some(true) && model.hint(Hint::Destructive) == Some(true) {
        add(
            Severity::Error,
            "read_only_destructive",
            source(Hint::Destructive),
            "a tool cannot be both read-only and destructive".into(),
        );
    }
    let irreversible = model.outcomes.as_ref().is_some_and(|o| o.value == Outcomes::Irreversible);
    if irreversible && model.hint_fact(Hint::Reversible).is_some_and(|f| f.claims.iter().any(|c| c.value)) {
        add(
            Severity::Error,
            "irreversible_reversible",
            source(Hint::Reversible),
            "Outcomes is Irreversible but reversibleHint is true".into(),
        );
    }
    let has_schema = tool.get("outputSchema").is_some_and(|s| !s.is_null());
    let level = model.level();
    if tool.to_string().contains("secret_reference") && (!has_schema || level.is_none()) {
        let missing = if has_schema { "a sensitivity hint" } else { "an outputSchema" };
        add(
            Severity::Error,
            "reference_without_schema",
            String::new(),
            format!("the tool returns secret_reference items but has no {missing}"),
        );
    }
    if let Some(schema) = tool.get("outputSchema") {
        near_miss::near_misses(schema, "/outputSchema", &mut |pointer, key| {
            add(
                Severity::Error,
                "near_miss_x_sensitive",
                pointer,
                format!(
                    "\"{key}\" is not a JSON Schema keyword, so it marks nothing and these values reach the agent; \
                     write \"x-sensitive\": true (or a class name such as \"credentials\")"
                ),
            )
        });
        near_miss::marks_under_not(schema, "/outputSchema", &mut |pointer| {
            add(
                Severity::Error,
                "mark_under_not",
                pointer,
                "a mark inside \"not\" marks nothing (JSON Schema keeps no annotation from \"not\"), so these values \
                 reach the agent; put \"x-sensitive\" on the schema of the values it is meant for"
                    .into(),
            )
        });
        unmarked_secret_names(schema, "/outputSchema", &mut |pointer, key| {
            add(
                Severity::Warning,
                "unmarked_secret_name",
                pointer,
                format!("property \"{key}\" looks secret but is not marked \"x-sensitive\""),
            )
        });
    }
    let destructive = model.hint(Hint::Destructive) == Some(true)
        || irreversible
        || model.effect.as_ref().is_some_and(|e| e.value == crate::model::Effect::Delete);
    if destructive && model.hint_fact(Hint::RequiresConfirmation).is_none() {
        add(
            Severity::Warning,
            "destructive_without_confirmation",
            String::new(),
            "a destructive tool should say whether it needs confirmation (_meta \"mcp.dev/requiresConfirmation\")"
                .into(),
        );
    }
    if level.is_some_and(|l| l >= Level::High) && !has_schema {
        add(
            Severity::Warning,
            "sensitive_without_schema",
            String::new(),
            "a sensitive tool without an outputSchema has every result withheld whole".into(),
        );
    }
    disagreements(&model, &mut add);
}

/// The same fact said two ways that disagree.
fn disagreements(model: &ToolModel, add: &mut impl FnMut(Severity, &'static str, String, String) -> bool) {
    if let Some(f) = &model.output_level {
        let none = f.claims.iter().find(|c| c.value == Level::None);
        let some = f.claims.iter().find(|c| c.value >= Level::Medium);
        if let (Some(n), Some(s)) = (none, some) {
            add(
                Severity::Warning,
                "disagreeing_claims",
                n.source.clone(),
                format!("says the output is not sensitive, but {} says {}", s.source, s.value.as_str()),
            );
        }
    }
    for (name, f) in &model.hints {
        let t = f.claims.iter().find(|c| c.value);
        let n = f.claims.iter().find(|c| !c.value);
        if let (Some(t), Some(n)) = (t, n) {
            add(
                Severity::Warning,
                "disagreeing_claims",
                n.source.clone(),
                format!("{name}: false here, true at {}", t.source),
            );
        }
    }
}

/// Walks every `properties` map of the schema (iteratively), reporting secret-looking names
/// that no mark covers, until `report` says to stop (the findings cap).
fn unmarked_secret_names(schema: &Value, at: &str, report: &mut impl FnMut(String, &str) -> bool) {
    let mut trail = Trail::new(at);
    let mut stack = vec![(schema, Trail::ROOT, false)];
    while let Some((node, place, covered)) = stack.pop() {
        let Value::Object(obj) = node else { continue };
        let covered = covered || obj.get("x-sensitive").is_some_and(is_mark);
        for (key, value) in obj {
            match (key.as_str(), value) {
                ("properties", Value::Object(props)) => {
                    let here = trail.push(place, Step::Key(key));
                    for (name, sub) in props {
                        let there = trail.push(here, Step::Key(name));
                        let marked = covered || sub.get("x-sensitive").is_some_and(is_mark);
                        if !marked && looks_secret(name) && !report(trail.pointer(there), name) {
                            return;
                        }
                        stack.push((sub, there, covered));
                    }
                }
                ("enum" | "const" | "examples" | "default", _) => {}
                (_, Value::Object(_)) => stack.push((value, trail.push(place, Step::Key(key)), covered)),
                (_, Value::Array(items)) => {
                    let here = trail.push(place, Step::Key(key));
                    for (i, v) in items.iter().enumerate() {
                        stack.push((v, trail.push(here, Step::Index(i)), covered));
                    }
                }
                _ => {}
            }
        }
    }
}

/// Case- and separator-insensitive: `api_key`, `apiKey` and `API-KEY` are one name.
fn looks_secret(name: &str) -> bool {
    const CONTAINS: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "apikey",
        "privatekey",
        "accesskey",
        "clientsecret",
        "cardnumber",
        "creditcard",
        "iban",
        "sessionkey",
        "signingkey",
    ];
    const EXACT: &[&str] = &["ssn", "pan", "cvv", "cvc", "pin", "pwd", "otp"];
    let n: String = name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect();
    EXACT.contains(&n.as_str()) || CONTAINS.iter().any(|w| n.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(doc: Value) -> Vec<(&'static str, String)> {
        lint(&doc).into_iter().map(|f| (f.code, f.pointer)).collect()
    }

    #[test]
    fn schema_errors() {
        let c = codes(json!({ "name": "t", "outputSchema": { "properties": { "a": { "x-sensitive": 2 } } } }));
        assert_eq!(c, [("invalid_x_sensitive", "/outputSchema/properties/a/x-sensitive".to_string())]);
        assert_eq!(codes(json!({ "name": "t", "outputSchema": { "$ref": "https://x.example/s" } }))[0].0, "remote_ref");
        assert_eq!(codes(json!({ "name": "t", "outputSchema": { "$ref": "#/$defs/gone" } }))[0].0, "dangling_ref");
    }

    #[test]
    fn schema_error_codes_come_from_the_error_not_its_pointer() {
        let code = |schema: Value| codes(json!({ "name": "t", "outputSchema": schema }))[0].0;
        assert_eq!(code(json!({ "$dynamicRef": "#nowhere" })), "dangling_ref");
        assert_eq!(code(json!({ "$ref": 5 })), "schema_invalid");
        assert_eq!(code(json!({ "properties": { "x-sensitive": 5 } })), "schema_invalid");
        assert_eq!(code(json!({ "properties": { "$ref": [] } })), "schema_invalid");
        assert_eq!(code(json!({ "properties": { "a": { "x-sensitive": "" } } })), "invalid_x_sensitive");
    }

    #[test]
    fn vocabulary_and_contradictions() {
        let c = codes(
            json!({ "name": "t", "annotations": { "readOnlyHint": true, "destructiveHint": true, "inputMetadata": { "Destination": "Mars" } } }),
        );
        assert!(c.contains(&("unknown_value", "/annotations/inputMetadata/Destination".into())), "{c:?}");
        assert!(c.contains(&("read_only_destructive", "/annotations/destructiveHint".into())), "{c:?}");
        let c = codes(
            json!({ "name": "t", "annotations": { "reversibleHint": true, "inputMetadata": { "Outcomes": "Irreversible" } }, "_meta": { "mcp.dev/requiresConfirmation": true } }),
        );
        assert_eq!(c, [("irreversible_reversible", "/annotations/reversibleHint".to_string())]);
    }

    #[test]
    fn references_need_a_schema_and_a_hint() {
        let c = codes(json!({ "name": "t", "description": "returns a secret_reference" }));
        assert_eq!(c[0].0, "reference_without_schema");
        let ok = codes(
            json!({ "name": "t", "description": "returns a secret_reference", "outputSchema": { "type": "object" }, "annotations": { "sensitiveHint": true } }),
        );
        assert!(ok.iter().all(|(c, _)| *c != "reference_without_schema"), "{ok:?}");
    }

    #[test]
    fn secret_looking_names_unless_marked() {
        let c = codes(json!({ "name": "t", "outputSchema": { "properties": {
            "api_key": { "type": "string" }, "clientSecret": {}, "PAN": {}, "ssn": { "x-sensitive": "pii" }, "panel": {},
            "creds": { "x-sensitive": true, "properties": { "password": {} } },
            "nested": { "items": { "properties": { "refresh-token": {} } } } } } }));
        let pointers: Vec<&str> =
            c.iter().filter(|(c, _)| *c == "unmarked_secret_name").map(|(_, p)| p.as_str()).collect();
        assert_eq!(pointers.len(), 4, "{pointers:?}");
        for p in [
            "/outputSchema/properties/api_key",
            "/outputSchema/properties/clientSecret",
            "/outputSchema/properties/PAN",
            "/outputSchema/properties/nested/items/properties/refresh-token",
        ] {
            assert!(pointers.contains(&p), "{p} in {pointers:?}");
        }
    }

    #[test]
    fn warnings_for_destructive_sensitive_and_disagreeing() {
        let c = codes(json!({ "name": "delete_user", "_meta": { "mcp.dev/effect": "delete" } }));
        assert_eq!(c, [("destructive_without_confirmation", String::new())]);
        let c = codes(json!({ "name": "t", "annotations": { "sensitiveHint": true } }));
        assert_eq!(c, [("sensitive_without_schema", String::new())]);
        let c = codes(
            json!({ "name": "t", "outputSchema": {}, "annotations": { "sensitiveHint": false, "returnMetadata": { "Sensitivity": "Credentials" } } }),
        );
        assert_eq!(c, [("disagreeing_claims", "/annotations/sensitiveHint".to_string())]);
    }

    #[test]
    fn a_result_or_anything_else_that_is_not_a_tool_is_an_error() {
        let result = json!({ "content": [{ "type": "text", "text": "hi" }], "structuredContent": { "name": "x" } });
        let found = lint(&result);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].severity, found[0].code, found[0].pointer.as_str()), (Severity::Error, "not_a_tool", ""));
        assert!(found[0].message.contains("CallToolResult"), "{}", found[0].message);
        // A structured result that happens to have a name, a JSON-RPC response, other values.
        for doc in [
            json!({ "name": "Ada", "structuredContent": {} }),
            json!({ "jsonrpc": "2.0", "id": 1, "result": { "content": [] } }),
            json!({ "id": "key_1", "secret": "sk_live_x" }),
            json!({ "id": "key_1", "name": "production", "secret": "sk_live_x" }),
            json!("generate_api_key"),
            json!(null),
            json!({ "name": 5 }),
        ] {
            assert_eq!(codes(doc.clone()), [("not_a_tool", String::new())], "{doc}");
        }
        let c = codes(json!({ "tools": [{ "name": "ok" }, { "isError": true, "content": [] }, 3] }));
        assert_eq!(c, [("not_a_tool", "/tools/1".to_string()), ("not_a_tool", "/tools/2".to_string())]);
    }

    #[test]
    fn near_miss_spellings_of_the_mark_are_errors() {
        let found = lint(&json!({ "name": "t", "outputSchema": { "properties": {
            "id": { "type": "string" }, "key": { "type": "string", "x-sensitve": true } } } }));
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        assert_eq!((f.severity, f.code), (Severity::Error, "near_miss_x_sensitive"));
        assert_eq!(f.pointer, "/outputSchema/properties/key/x-sensitve");
        assert!(f.message.contains("\"x-sensitve\" is not a JSON Schema keyword"), "{}", f.message);
        // Saying "not sensitive" under another spelling loses nothing.
        assert_eq!(codes(json!({ "name": "t", "outputSchema": { "sensitive": false } })), []);
    }

    #[test]
    fn files_with_many_tools_point_into_the_list() {
        let c =
            codes(json!({ "tools": [{ "name": "ok" }, { "name": "bad", "annotations": { "readOnlyHint": "yes" } }] }));
        assert_eq!(c, [("unknown_value", "/tools/1/annotations/readOnlyHint".to_string())]);
        let c = codes(json!([{ "name": "a", "annotations": { "destructiveHint": 1 } }]));
        assert_eq!(c[0].1, "/0/annotations/destructiveHint");
    }

    #[test]
    fn the_newest_wire_forms_are_known_and_their_bad_values_are_not() {
        let good = json!({ "name": "t", "outputSchema": {}, "annotations": {
            "readOnlyHint": true,
            "attribution": ["crm", { "source": "crm.example" }],
            "io.modelcontextprotocol/action-metadata": {
                "inputMetadata": { "Destination": "Internal", "Sensitivity": [{ "regulated": { "scopes": ["GDPR"] } }] },
                "returnMetadata": { "Source": "System", "Sensitivity": { "regulated": { "scopes": [] } } } } },
            "_meta": { "io.modelcontextprotocol/action-metadata": { "inputMetadata": { "Outcomes": "Benign" } } } });
        assert_eq!(codes(good), []);
        let bad = codes(json!({ "name": "t", "annotations": {
            "attribution": [7],
            "io.modelcontextprotocol/action-metadata": { "inputMetadata": { "Destination": "Moon" }, "extra": 1,
                "returnMetadata": { "Sensitivity": [{ "regulated": { "scopes": "GDPR" } }] } } } }));
        let at = "/annotations/io.modelcontextprotocol~1action-metadata";
        for want in [
            "/annotations/attribution/0".to_string(),
            format!("{at}/inputMetadata/Destination"),
            format!("{at}/extra"),
            format!("{at}/returnMetadata/Sensitivity/0/regulated"),
        ] {
            assert!(bad.contains(&("unknown_value", want.clone())), "{want} in {bad:?}");
        }
    }

    #[test]
    fn a_mark_inside_not_is_an_error() {
        let c = codes(json!({ "name": "t", "outputSchema": { "properties": {
            "s": { "not": { "type": "number", "x-sensitive": true } },
            "t": { "anyOf": [{ "not": { "items": { "x-sensitive": "credentials" } } }] },
            "u": { "x-sensitive": true, "not": { "type": "null", "x-sensitive": false } } } } }));
        assert_eq!(
            c,
            [
                ("mark_under_not", "/outputSchema/properties/s/not/x-sensitive".to_string()),
                ("mark_under_not", "/outputSchema/properties/t/anyOf/0/not/items/x-sensitive".to_string())
            ]
        );
    }
}
