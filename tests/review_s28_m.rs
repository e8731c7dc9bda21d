//! Review s28 (helper M): bounded cost. Work is counted, never timed: here, compiles (the heap
//! meter the redactor reads around each one).

use std::cell::Cell;

mod common;

use webmcp_redact::{Config, Redactor};

thread_local! {
    /// Reads of the heap meter: the redactor reads it before each compile and after it.
    static METER_READS: Cell<usize> = const { Cell::new(0) };
}

/// Each read finds 100 MiB more live: every compile seems to leave 100 MiB, over the tool
/// cache's whole budget (64 MiB), as a 1 MB `allOf` of 340,000 `{}` does in the module.
fn growing() -> usize {
    METER_READS.with(|n| {
        n.set(n.get() + 1);
        n.get() * (100 << 20)
    })
}

fn compiles_of(f: impl FnOnce()) -> usize {
    METER_READS.with(|n| n.set(0));
    f();
    METER_READS.with(Cell::get) / 2
}

/// A tool whose compiled form was larger than the cache's budget was compiled and dropped, so
/// every call compiled it again: a 1 MB definition cost 3.5 s a call in Node, 2 s natively,
/// each call. Compiling it had that much live already, so it is now kept (alone): one compile.
#[test]
fn a_tool_over_the_cache_budget_is_compiled_once() {
    let mut r = Redactor::new(Config::default(), Box::new(common::Counter(0)));
    r.set_heap_meter(growing);
    let big = r#"{"name":"big","outputSchema":{"properties":{"s":{"x-sensitive":true}}}}"#;
    let other = r#"{"name":"other"}"#;
    let raw = r#"{"content":[],"structuredContent":{"s":"hunter2-over-budget"}}"#;
    let compiles = compiles_of(|| {
        for _ in 0..20 {
            let out = r.redact(big, raw, None);
            assert!(!out.agent_json.contains("hunter2-over"), "{}", out.agent_json);
            r.check(big, "{}", None).expect("checks");
            r.describe(big).expect("describes");
        }
    });
    assert_eq!(compiles, 1, "compiled once, not once a call");
    // The next tool takes its place: the cache holds one tool over the budget, never two.
    assert_eq!(compiles_of(|| r.compile(other).map(|_| ()).expect("compiles")), 1);
    assert_eq!(compiles_of(|| r.compile(big).map(|_| ()).expect("compiles")), 1, "evicted by the next");
    assert_eq!(compiles_of(|| r.compile(big).map(|_| ()).expect("compiles")), 0);
}
