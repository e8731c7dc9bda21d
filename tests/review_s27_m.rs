//! Review s27 (helper M): bounded cost. Work is counted, never timed: bytes allocated (a
//! counting allocator, per thread), compiles (the heap meter the redactor reads around each
//! one), or the work counters of the code itself.

// Native only: the module has its own counting allocator on wasm32.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::Cell;

mod common;
mod counting;

use counting::allocated;

use common::deep_secret_names;
use serde_json::{json, Value};
use webmcp_redact::lint::MAX_FINDINGS_BYTES;
use webmcp_redact::{Config, Redactor};

fn redactor() -> Redactor {
    common::redactor(Config::default().format)
}

thread_local! {
    /// Reads of the heap meter: the redactor reads it before each compile, and after one
    /// whose outcome it keeps.
    static METER_READS: Cell<usize> = const { Cell::new(0) };
}

fn meter() -> usize {
    METER_READS.with(|n| n.set(n.get() + 1));
    0
}

/// A tool with `n` plain properties and, last, a mark that is not one: it fails to compile,
/// after the whole schema is read.
fn failing_tool(n: usize) -> String {
    let mut props = serde_json::Map::new();
    for i in 0..n {
        props.insert(format!("p{i}"), json!({ "type": "string" }));
    }
    props.insert("bad".into(), json!({ "x-sensitive": 5 }));
    json!({ "name": "broken", "outputSchema": { "type": "object", "properties": props } }).to_string()
}

/// A tool whose schema fails to compile was compiled again on every call (160 to 250 ms per
/// call per MB of schema). The failure is remembered like a success: one compile, and every
/// call (redact, check, agentSchema, describe) still fails closed with the same code.
#[test]
fn a_tool_that_fails_to_compile_is_compiled_once() {
    let tool = failing_tool(2000);
    let mut r = redactor();
    r.set_heap_meter(meter);
    METER_READS.with(|n| n.set(0));
    let first = r.compile(&tool).err().expect("fails");
    assert_eq!((first.code.as_str(), first.tool.as_str()), ("schema_invalid", "broken"));
    for _ in 0..20 {
        let out = r.redact(&tool, r#"{"content":[],"structuredContent":{"bad":"hunter2"}}"#, None);
        assert!(!out.agent_json.contains("hunter2"), "{}", out.agent_json);
        assert!(out.agent_json.contains("withheld: schema_invalid"), "{}", out.agent_json);
        assert_eq!(r.check(&tool, "{}", None).expect_err("fails"), first);
        assert_eq!(r.agent_schema(&tool).expect_err("fails"), first);
        assert_eq!(r.describe(&tool).expect_err("fails"), first);
        assert_eq!(r.compile(&tool).err().expect("fails"), first);
    }
    assert!(METER_READS.with(Cell::get) <= 2, "compiled once: {}", METER_READS.with(Cell::get));
    // A definition too large or too deep to read is remembered the same way.
    let deep = format!(r#"{{"name":"deep","outputSchema":{}{}}}"#, "[".repeat(600), "]".repeat(600));
    METER_READS.with(|n| n.set(0));
    for _ in 0..5 {
        assert_eq!(r.compile(&deep).err().expect("fails").code.as_str(), "depth_limit");
    }
    assert!(METER_READS.with(Cell::get) <= 2, "compiled once: {}", METER_READS.with(Cell::get));
}

/// The same, with nothing to report: every name is marked, and no mark is misspelt.
fn deep_marked_names(depth: usize, width: usize) -> Value {
    let key = format!("password{}", "x".repeat(width));
    let mut schema = json!({ "type": "string", "x-sensitive": true });
    for _ in 0..depth {
        schema = json!({ "type": "object", "properties": { key.clone(): schema } });
    }
    json!({ "name": "t", "outputSchema": schema })
}

/// Lint built a pointer for every node it walked, each repeating every key above it, and
/// kept walking (building findings it threw away) after its findings cap: a deep schema of
/// long names allocated about its depth times its size. It now builds a pointer only for a
/// finding it reports, and stops at the cap.
#[test]
fn lint_builds_pointers_only_for_what_it_reports() {
    for (depth, width) in [(60, 16_000), (60, 4000), (30, 32_000)] {
        for doc in [deep_secret_names(depth, width), deep_marked_names(depth, width)] {
            let input = doc.to_string().len() as u64;
            let (bytes, found) = allocated(|| webmcp_redact::lint::lint(&doc));
            assert!(found.iter().any(|f| f.code == "findings_limit"), "the cap is reached");
            // The schema compiled, read and walked, and the findings up to the cap (each
            // pointer built by doubling a buffer: twice its length).
            let cap = MAX_FINDINGS_BYTES as u64;
            assert!(bytes <= 8 * input + 4 * cap, "{depth}x{width}: {input} B in, {bytes} B allocated");
        }
    }
}
