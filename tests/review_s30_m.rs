//! Review s30 (helper M): bounded cost. Work is counted, never timed: units of the work limit,
//! bytes of text the claims reader parses, bytes allocated (a counting allocator, per thread).

// Native only: the module has its own counting allocator on wasm32.
#![cfg(not(target_arch = "wasm32"))]


mod common;


use serde_json::{json, Value};
use webmcp_redact::{Config, Limits};

/// A tool whose `allOf` holds `n` members that do nothing but through others (`{"allOf":
/// [{}]}`, a `$ref` to `{}`, a chain of them) beside `real`, under `extra` keywords of the root.
fn wrapped_idle_members(n: usize, real: Value, extra: &Value, sensitive: bool) -> String {
    let idle = [
        json!({ "allOf": [{}] }),
        json!({ "$ref": "#/$defs/empty" }),
        json!({ "allOf": [{ "$ref": "#/$defs/chain" }, true], "description": "d" }),
        json!({ "$ref": "#/$defs/chain", "allOf": [{ "allOf": [{ "$comment": "c" }] }] }),
    ];
    let mut all: Vec<Value> = (0..n).map(|i| idle[i % idle.len()].clone()).collect();
    all.insert(n / 2, real);
    let defs = json!({ "empty": {}, "chain": { "$ref": "#/$defs/empty", "allOf": [true] } });
    let mut schema = json!({ "type": "object", "allOf": all, "$defs": defs });
    schema.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
    json!({ "name": "idle", "annotations": { "sensitiveHint": sensitive }, "outputSchema": schema }).to_string()
}

/// Review s29 stopped visiting `allOf` members that do nothing per call (`{}`, `true`), but a
/// member that only applies such members (`{"allOf": [{}]}`), or a `$ref` to one, was still
/// visited per call, with every member under it: a cached schema of 20,000 of them ended a
/// small result with `work_limit` under a `maxWork` of 10,000 that a walk of what the schema
/// says decides cheaply. Doing nothing now carries through `allOf` and `$ref` (compiled once),
/// and 20,000 of them redact within the work of 1,000, to the same output. Fails without the
/// fix: `work_limit` at 20,000.
#[test]
fn members_that_only_apply_members_that_do_nothing_cost_nothing_per_call() {
    let limits = Limits { max_work: 10_000, ..Default::default() };
    let raw = r#"{"content":[],"structuredContent":{"s":"hunter2-idle","a":"shown-a","b":"other-b"}}"#;
    let marked = json!({ "properties": { "s": { "x-sensitive": true }, "a": {} } });
    let extras = [json!({}), json!({ "unevaluatedProperties": { "x-sensitive": true } }), json!({ "title": "t" })];
    for (sensitive, extra) in [false, true].into_iter().flat_map(|s| extras.iter().map(move |e| (s, e))) {
        let views: Vec<String> = [1000, 20_000]
            .into_iter()
            .map(|n| {
                let tool = wrapped_idle_members(n, marked.clone(), extra, sensitive);
                let config = Config { limits, ..Config::default() };
                let mut r = webmcp_redact::Redactor::new(config, Box::new(common::Counter(0)));
                let out = (0..3).map(|_| r.redact(&tool, raw, None).agent_json).last().expect("three");
                assert!(out.contains("secret_reference"), "not withheld whole: {n}: {out}");
                assert!(!out.contains("hunter2-idle"), "{n}: {out}");
                out
            })
            .collect();
        assert_eq!(views[0], views[1], "{extra} (sensitive {sensitive})");
    }
}
