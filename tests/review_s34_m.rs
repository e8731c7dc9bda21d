//! Stop 34 (helper M): what ordinary large results cost against the work limit (issue 8's
//! bounded cost), counted, never timed.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::Counter;
use serde_json::json;
use webmcp_redact::{redact_with, CompiledTool, KnownSecrets, Limits, Options};

/// Ordinary results of about `bytes`: (what they are, tool, raw). API-key records through a
/// tool that marks their secret and through one that marks nothing; a tree whose marks recur
/// through `$ref`; and records of many small declared fields (the most keys per byte).
fn ordinary(bytes: usize) -> Vec<(&'static str, String, String)> {
    let records = |make: &dyn Fn(usize) -> serde_json::Value| {
        let (mut list, mut size, mut i) = (Vec::new(), 0, 0);
        while size < bytes {
            let r = make(i);
            size += r.to_string().len() + 1;
            list.push(r);
            i += 1;
        }
        list
    };
    let key = |i: usize| json!({ "id": format!("key_{i}"), "name": format!("key number {i}"), "created": 1_700_000_000 + i, "secret": format!("sk_live_{i:0>24}") });
    let keys = json!({ "keys": records(&key) }).to_string();
    let marked = json!({ "name": "list_keys", "outputSchema": { "type": "object", "properties": { "keys": { "type": "array", "items": { "type": "object", "properties": {
        "id": { "type": "string" }, "name": { "type": "string" }, "created": { "type": "integer" }, "secret": { "type": "string", "x-sensitive": true } } } } } } });
    let plain = json!({ "name": "list_plain", "outputSchema": { "type": "object" } });
    let node = |i: usize| json!({ "name": format!("n{i}"), "token": format!("tok_{i:0>12}"), "children": [{ "name": format!("c{i}"), "token": format!("ctok_{i:0>12}"), "children": [] }] });
    let tree = json!({ "name": "root", "token": "tok_root_000000", "children": records(&node) }).to_string();
    let tree_tool = json!({ "name": "get_tree", "outputSchema": { "$defs": { "node": { "type": "object", "properties": {
        "name": { "type": "string" }, "token": { "type": "string", "x-sensitive": true }, "children": { "type": "array", "items": { "$ref": "#/$defs/node" } } } } },
        "$ref": "#/$defs/node" } });
    let fields: serde_json::Map<String, serde_json::Value> =
        (0..12).map(|f| (format!("f{f}"), json!({ "type": "integer", "x-sensitive": f == 11 }))).collect();
    // The marked field's values are distinct from the others' (a known value equal to another
    // field's value takes that value too: a different measure).
    let small = |i: usize| {
        let field = |f: usize| if f == 11 { json!(1_000_000 + i) } else { json!(i % 97 + f) };
        serde_json::Value::Object((0..12).map(|f| (format!("f{f}"), field(f))).collect())
    };
    let rows = json!({ "rows": records(&small) }).to_string();
    let rows_tool = json!({ "name": "get_rows", "outputSchema": { "type": "object", "properties": { "rows": { "type": "array", "items": { "type": "object", "properties": fields } } } } });
    vec![
        ("marked key records", marked.to_string(), keys.clone()),
        ("unmarked key records", plain.to_string(), keys),
        ("a tree marked through $ref", tree_tool.to_string(), tree),
        ("rows of twelve small fields", rows_tool.to_string(), rows),
    ]
}

/// Does `raw` pass `tool` under `max_work`, in `format`?
fn passes(tool: &str, raw: &str, format: webmcp_redact::Format, max_work: usize) -> bool {
    let limits = Limits { max_work, ..Limits::default() };
    let tool = CompiledTool::compile(tool, &limits).expect("compiles");
    let options = Options { limits, format, ..Options::default() };
    let out = redact_with(&tool, raw, &options, &mut Counter(0), &mut KnownSecrets::default());
    out.error.is_none()
}

/// Task 2's guard: ordinary large results, marked and unmarked, in both formats, stay far below
/// the default work limit (walking and reading). Measured (binary search to 1/16): 1 MB needs at
/// most 327,680 units (key records; a `$ref` tree 311,296; rows of small fields 73,728;
/// unmarked 8,704), 0.31 per byte, 51 times under the default 2^24; 10 MB at most 3,145,728,
/// 5.3 times under it. The test holds 1 MB to a 32nd of the default and 10 MB to a quarter.
#[test]
fn ordinary_large_results_stay_far_below_the_work_limit() {
    use webmcp_redact::Format;
    for (mb, share) in [(1, 32), (10, 4)] {
        for (name, tool, raw) in ordinary(mb << 20) {
            for format in [Format::Webmcp, Format::Mcp] {
                let max_work = Limits::DEFAULT_MAX_WORK / share;
                assert!(passes(&tool, &raw, format, max_work), "{name}, {mb} MB, {format:?}: work_limit at {max_work}");
            }
        }
    }
}
