//! Stop 32 (helper M): what strings of escapes nested in each other cost (issue 8's bounded
//! cost). Counted, never timed: the peak of the bytes a call holds live (a counting allocator,
//! per thread). The instructions each reference by name costs are counted beside the code
//! (`scrub::unescape`'s `a_reference_by_name_costs_a_binary_search`).

// Native only: the module has its own counting allocator on wasm32.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod counting;

use common::Counter;
use counting::peak;

use webmcp_redact::{Config, Redactor};

const TOOL: &str = r#"{"name":"nested","outputSchema":{"type":"object","properties":{"s":{"x-sensitive":true}}}}"#;

/// Escapes of every kind, each escaping an escape, around the names of places of claims: every
/// chain of up to three decodings changes something, in value matching and in the claims
/// reader (`src/schema/families.rs`, `nested_escapes`, the same run).
const RUN: &str = r"_meta{ %25252525 &amp;amp;amp; \\\\ &amp;percnt;25 &bsol;&bsol; &nope; %255Fmeta%257B ";

/// A result whose marked value is then matched in `strings` strings of `runs` runs each (as a
/// text block too): the peak of the bytes the call held live, over the input's size.
fn held_per_input_byte(runs: usize, strings: usize) -> f64 {
    let text = RUN.repeat(runs);
    let values: Vec<&str> = (0..strings).map(|_| text.as_str()).collect();
    let raw = serde_json::json!({
        "content": [{ "type": "text", "text": text }],
        "structuredContent": { "s": "Zq9Xw7Lm-secret", "v": values },
    })
    .to_string();
    let mut r = Redactor::new(Config::default(), Box::new(Counter(0)));
    r.compile(TOOL).expect("compiles");
    let (held, outcome) = peak(|| r.redact(TOOL, &raw, None));
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert_eq!(outcome.redactions.len(), 1);
    held as f64 / raw.len() as f64
}

/// Views are made depth first (at most three alive at once), whatever the number of chains:
/// what a call holds grows with its input, not with the views of its strings, in one long
/// string or in many short ones. Found nothing: a guard (measured 12.6 times the input at
/// 130 KB and at 520 KB in one string, the text block and the value; 4.2 in 1,000 and in 4,000
/// short strings; an all-redacted result holds 11, `review_s31_r.rs`).
#[test]
fn nested_escapes_hold_what_the_input_holds() {
    for (runs, strings, most) in [(800, 1, 14.0), (3200, 1, 14.0), (4, 1000, 5.0), (4, 4000, 5.0)] {
        let held = held_per_input_byte(runs, strings);
        assert!(held < most, "{runs} runs x {strings} strings: the call held {held:.2} times its input");
    }
}
