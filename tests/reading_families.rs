//! What value matching and the detectors read (`src/scrub/meter.rs`, `Outcome::read`) on each
//! adversarial family of the "worst cases" bench (`src/schema/families.rs`, the same file the
//! bench and the walk's work-count tests use): it grows linearly with the input, and stays
//! below a stated multiple of it. Counts, not times.
#![cfg(not(target_arch = "wasm32"))]

// The products are the walk's (`src/redact/walk.rs`): they end with `work_limit`.
#[allow(dead_code)]
#[path = "../src/schema/families.rs"]
mod families;

mod common;

use common::*;
use serde_json::json;
use webmcp_redact::{Config, Format, Redactor};

/// Bytes read per byte of schema plus result, at most, on any linear family but the nested
/// escapes (whose reading is the views': `READ_SHIFT` in `meter.rs` allows 1,024 a byte).
const PER_BYTE: u64 = 16;

/// The escapes family reads each of its dozens of views near their escapes: at most this (a
/// fifth of the allowance, `READ_SHIFT`). It was 512: with Python's `\xc3\xbc` in the family,
/// the code of stop 36 read 232 a byte; since the text block is not read through its writer's
/// escapes (`Needles::scrub_json_settled`), 190.
const PER_BYTE_ESCAPES: u64 = 224;

/// One family at scale `n`: the bytes read, and the bytes of schema plus result.
fn read(family: fn(usize) -> (serde_json::Value, serde_json::Value), n: usize) -> (u64, u64) {
    let (schema, value) = family(n);
    let tool = json!({ "name": "worst_case", "outputSchema": schema }).to_string();
    let raw = value.to_string();
    let mut r = Redactor::new(Config { format: Format::Webmcp, ..Config::default() }, Box::new(Counter(0)));
    let out = r.redact(&tool, &raw, None);
    assert!(out.error.is_none(), "{:?}", out.error);
    (out.read, (tool.len() + raw.len()) as u64)
}

/// Doubling the input at most doubles what is read (2.2x, for rounding), and what is read
/// stays below `PER_BYTE` bytes per byte of input, on every linear family. From 2,000 on: below
/// about 1,000 the bounded-repetition family's known values (its numbers) are all shorter than
/// 4 characters, matched as tokens only, and its keys are read as base64 only once longer ones
/// come (measured: 115 KB read at 800, 433 KB at 1,600).
#[test]
fn reading_grows_linearly_on_every_adversarial_family() {
    for (name, family) in families::LINEAR {
        let reads: Vec<(u64, u64)> = [2000, 4000, 8000].iter().map(|&n| read(*family, n)).collect();
        eprintln!("{name}: read {reads:?}");
        for pair in reads.windows(2) {
            let ratio = pair[1].0 as f64 / pair[0].0.max(1) as f64;
            assert!(ratio <= 2.2, "{name}: doubling the input multiplied the reading by {ratio:.2} ({reads:?})");
        }
        let limit = if name.contains("escapes") { PER_BYTE_ESCAPES } else { PER_BYTE };
        let (bytes_read, input) = reads[2];
        assert!(bytes_read <= limit * input, "{name}: read {bytes_read} bytes for {input} ({limit} a byte allowed)");
    }
}

/// The text block of a plain structured value is its compact JSON, written from the value that
/// value matching has just scrubbed: where no known value holds a byte JSON writes between
/// tokens and no string needs escaping, it holds what the strings hold, nothing, and is not
/// read again (`Needles::repeats_its_tokens`). With one known value that holds `:` (it occurs
/// nowhere), the same result's text block is read, its bytes at least: before the text was
/// read in both.
#[test]
fn a_dense_result_does_not_read_its_text_block_again() {
    let (schema, value) = families::many_properties(4000); // values like v1021 hold known ones (v102)
    let tool = json!({ "name": "many", "outputSchema": schema }).to_string();
    let raw = value.to_string();
    let read = |known: Option<&str>| {
        let mut r = Redactor::new(Config { format: Format::Webmcp, ..Config::default() }, Box::new(Counter(0)));
        if let Some(k) = known {
            r.redact(MARKED, &json!({ "s": k }).to_string(), None);
        }
        let out = r.redact(&tool, &raw, None);
        assert!(out.error.is_none() && !out.redactions.is_empty());
        out.read
    };
    let (skipped, read_again) = (read(Some("zz_zz")), read(Some("zz:zz")));
    let text = raw.len() as u64; // about the text block's length (a third of it is taken)
    assert!(read_again >= skipped + text / 2, "read {skipped} bytes, {read_again} with the text block, for {text}");
}
