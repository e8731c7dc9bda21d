//! Issue 11, third adversarial review (core side): how the new features meet. Each test is a
//! problem found and fixed.

mod common;

use common::*;
use serde_json::json;

/// A result that withholds itself (the trust-annotations extension's `sensitive: true`) from a
/// tool whose schema has no marks is withheld whole, without `structuredContent`; but the tool
/// itself is not sensitive, so its `outputSchema` was published, and an MCP server validates
/// the stub against it: the agent got "Output validation error: ... no structured content was
/// provided" instead of the stub and the notice. An `isError` result is not validated.
#[test]
fn a_result_withheld_by_its_own_claim_is_an_error_when_the_tool_publishes_a_schema() {
    let def = json!({ "name": "status", "outputSchema": { "type": "object", "required": ["done"], "properties": { "done": { "type": "boolean" } } } });
    assert!(tool(def.clone()).agent_schema(&def, &Default::default()).unwrap().is_some(), "a schema is published");
    let raw = json!({ "_meta": { "io.modelcontextprotocol/trust-annotations": { "sensitive": true } },
        "structuredContent": { "done": true }, "content": [{ "type": "text", "text": "CANARY-1" }] });
    let o = run(def, raw);
    assert!(o.withheld);
    assert_no_canary(&o, "CANARY-1");
    let view = agent(&o);
    assert_eq!(view.get("structuredContent"), None);
    assert_eq!(view["isError"], true, "{view}");
}

/// A tool that is sensitive by its own definition publishes no schema: its withheld result
/// stays an ordinary result, as before.
#[test]
fn a_sensitive_tools_withheld_result_is_not_made_an_error() {
    let def = json!({ "name": "key", "annotations": { "sensitiveHint": true },
        "outputSchema": { "type": "object", "properties": { "k": { "type": "string" } } } });
    assert!(tool(def.clone()).agent_schema(&def, &Default::default()).unwrap().is_none());
    let o = run(def, json!({ "structuredContent": { "k": "CANARY-2" }, "content": [] }));
    assert!(o.withheld);
    assert_eq!(agent(&o).get("isError"), None);
}
