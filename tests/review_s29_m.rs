//! Review s29 (helper M): bounded cost. Work is counted, never timed: here, the bytes of text
//! the claims reader parses, and the bytes a redaction allocates (a counting allocator, per
//! thread).

// Native only: the module has its own counting allocator on wasm32.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::Cell;

mod common;
mod counting;

use counting::allocated;

use serde_json::{json, Value};
use webmcp_redact::model::Level;
use webmcp_redact::policy::claims::of_result;
use webmcp_redact::Config;

/// A fixed-seed xorshift: its high bits, so that small ranges are not periodic.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 32) as usize) % n
    }
}

const SEED: u64 = 0x5eed_0029_c0de_000d;

/// The ways a result is written as text into another (each one level of `MAX_EMBEDDED`), or
/// nested as a value around it.
const WRAPS: [&str; 9] = ["text", "resource", "member", "output", "meta", "link", "prose", "array", "rpc"];

fn wrap(kind: &str, inner: Value) -> Value {
    let t = inner.to_string();
    match kind {
        "text" => json!({ "content": [{ "type": "text", "text": t }] }),
        "resource" => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": t } }] }),
        "member" => json!({ "content": [], "structuredContent": { "output": t } }),
        "output" => json!({ "output": t }),
        "meta" => json!({ "content": [{ "type": "text", "text": "hi", "_meta": { "x": t } }] }),
        "link" => json!({ "content": [{ "type": "resource_link", "uri": "x:y", "name": t }] }),
        "prose" => json!({ "content": [{ "type": "text", "text": format!("Result: {t} done") }] }),
        "array" => json!({ "content": [{ "type": "text", "text": format!("[{t}]") }] }),
        "rpc" => json!({ "jsonrpc": "2.0", "id": 1, "result": inner }),
        _ => unreachable!("{kind}"),
    }
}

/// A result claiming sensitivity, with `payload` bytes of data, written inside `depth`
/// wrappings drawn from [`WRAPS`] (at most eight of them text, the reader's bound).
fn nested(rng: &mut Rng, depth: usize, payload: usize) -> Value {
    let mut raw = json!({ "content": [], "_meta": { "sensitiveHint": true }, "p": "a".repeat(payload) });
    for _ in 0..depth {
        raw = wrap(WRAPS[rng.below(WRAPS.len())], raw);
    }
    raw
}

/// The claims reader read a result's block texts, then walked all of the result again (to find
/// results nested as values), reading each block text a second time: each result written as
/// text inside another doubled the work, so the innermost of eight was parsed 256 times (a
/// 200 KB result took 3 s to redact, 1 MB 15 s). Each text is now read once per level it is
/// written in. Fails without the fix: the innermost payload is read up to 2^depth times.
#[test]
fn a_result_written_as_text_is_read_once_per_level() {
    let mut rng = Rng(SEED);
    let mut n = 0;
    for depth in 1..=8 {
        for _ in 0..12 {
            let raw = nested(&mut rng, depth, 20_000);
            let len = raw.to_string().len();
            let read = Cell::new(0usize);
            let claims = of_result(&raw, &mut |t: &str| {
                read.set(read.get() + t.len());
                Ok(serde_json::from_str(t).ok())
            })
            .expect("reads");
            assert_eq!(claims.labels.sensitivity, Level::High, "{depth}: the innermost claim is read");
            // Each level's text is a part of the input, read once (twice for prose: the text,
            // then the JSON in it), and no level is read more than once.
            assert!(read.get() <= 2 * depth * len, "depth {depth}: {} B read of {len} B", read.get());
            n += 1;
        }
    }
    println!("a_result_written_as_text_is_read_once_per_level: {n} results, seed {SEED:#x}");
}

/// The same through a whole redaction: what it allocates grows with the depth, not 2^depth
/// (before the fix: 256 MB for a 207 KB result written eight times in text blocks).
#[test]
fn a_redaction_of_results_written_inside_one_another_is_linear_in_their_depth() {
    let tools = [common::MARKED, r#"{"name":"plain"}"#];
    for depth in [1, 4, 8] {
        let mut raw = json!({ "content": [], "_meta": { "x": 1 }, "structuredContent": { "p": "a".repeat(100_000) } });
        for _ in 0..depth {
            raw = wrap("text", raw);
        }
        let raw = raw.to_string();
        for tool in tools {
            let mut r = common::redactor(Config::default().format);
            r.compile(tool).expect("compiles");
            let (bytes, out) = allocated(|| r.redact(tool, &raw, None));
            assert!(out.agent_json.contains("aaaa"), "redacted, not withheld: {}", &out.agent_json[..80]);
            let per_byte = bytes / raw.len() as u64;
            assert!(per_byte <= 16 * (depth as u64 + 1), "depth {depth}: {per_byte} B allocated per byte");
        }
    }
}

/// A tool whose `allOf` holds `n` members that do nothing (`{}`, `true`, annotations) beside
/// `real`, under `extra` keywords of the root.
fn idle_members(n: usize, real: Value, extra: Value, sensitive: bool) -> String {
    let idle = [json!({}), json!(true), json!({ "description": "d", "$comment": "c", "examples": [1] })];
    let mut all: Vec<Value> = (0..n).map(|i| idle[i % idle.len()].clone()).collect();
    all.insert(n / 2, real);
    let mut schema = json!({ "type": "object", "allOf": all });
    schema.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
    json!({ "name": "idle", "annotations": { "sensitiveHint": sensitive }, "outputSchema": schema }).to_string()
}

/// Open since stop 28: a redaction cost time in proportion to the schema whatever the result,
/// each `allOf` member visited per call (a cached 1 MB `allOf` of 340,000 `{}`: 370 to 440 ms
/// per call), so a small `maxWork` withheld a small result (`work_limit`) that a walk of what
/// the schema says would decide cheaply. Members that do nothing are no longer visited: 20,000
/// of them are redacted within the work of 1,000, to the same output (marks, allowlist mode and
/// `unevaluatedProperties` alike). Fails without the fix: `work_limit` at 20,000 (each member
/// a unit of work).
#[test]
fn allof_members_that_do_nothing_cost_nothing_per_call() {
    common::idle_parts_cost_nothing(|n, real, extra, sensitive| idle_members(n, real, extra.clone(), sensitive));
}
