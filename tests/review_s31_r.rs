//! Stop 31 (helper R): what an all-redacted result costs in memory and work (issue 9). Counted,
//! never timed: the peak of the bytes a call holds live (a counting allocator, per thread),
//! and the capacity of what it returns.

// Native only: the module has its own counting allocator on wasm32.
#![cfg(not(target_arch = "wasm32"))]

mod counting;

use counting::peak;

use webmcp_redact::{wire, Config, HandleSource, KnownSecrets, Redactor};

struct Counter(u64);

impl HandleSource for Counter {
    fn fill(&mut self, bytes: &mut [u8; 16]) {
        self.0 += 1;
        bytes[..8].copy_from_slice(&self.0.to_le_bytes());
    }
}

/// The ratio bench's "all redacted" case (bench/cases.mjs): API-key records, about 100 bytes
/// each, of about `bytes` of JSON text, each losing its marked `secret`.
const KEYS_TOOL: &str = r#"{"name":"list_keys","outputSchema":{"type":"object","properties":{"keys":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"},"created":{"type":"integer"},"secret":{"type":"string","x-sensitive":true}}}}}}}"#;

fn keys(bytes: usize) -> String {
    let record = |i: usize| {
        let created = 1_700_000_000 + i;
        format!(r#"{{"id":"key_{i}","name":"key number {i}","created":{created},"secret":"sk_live_{i:x>24}"}}"#)
    };
    format!(r#"{{"keys":[{}]}}"#, (0..bytes / 100).map(record).collect::<Vec<_>>().join(","))
}

/// One all-redacted call as the module's door makes it (the redaction, then its side record),
/// on a redactor whose tool is compiled and whose known set is empty: the peak of the bytes it
/// held live over the input's size, and the capacities of the agent view and the side record
/// over their lengths.
fn all_redacted(bytes: usize) -> (f64, f64, f64) {
    let text = keys(bytes);
    let mut r = Redactor::new(Config::default(), Box::new(Counter(0)));
    r.compile(KEYS_TOOL).expect("compiles");
    let (held, (outcome, side)) = peak(|| {
        let outcome = r.redact(KEYS_TOOL, &text, None);
        let side = wire::side_json(&outcome, None, None);
        (outcome, side)
    });
    assert!(outcome.error.is_none() && outcome.redactions.len() > 1000, "{:?}", outcome.error);
    let over = |s: &String| s.capacity() as f64 / s.len() as f64;
    (held as f64 / text.len() as f64, over(&outcome.agent_json), over(&side))
}

/// The agent view of a dense result was written into a buffer sized for its value twice,
/// but its text block is the value's JSON escaped (a backslash per quote): it outgrew the
/// buffer and doubled it (3.7 MB for 1.95 MB of text at 1 MB of input). The side record grew
/// from nothing by doubling (4 MiB for 2.1 MB). And the overflow stub's values kept the buffer
/// of the values pending their handles (3.0 MB for what 1.1 MB holds). Each is now sized to
/// what it holds: at 256 KB, the call's peak was 20.8 times the input before, 14.8 after.
/// Sharing the known set's texts (`the_known_set_keeps_each_value_label_and_handle_once`)
/// took it to 13.0; sizing the report, the known set's records of the run and the report's
/// entries in the agent view to what the streaming engine took (each grew by doubling), and
/// letting the value's copy go of the room reserved for the whole input, to 11.0.
#[test]
fn an_all_redacted_call_holds_what_it_writes_not_twice_that() {
    let (held, agent, side) = all_redacted(256_000);
    assert!(agent < 1.01, "the agent view's buffer is {agent:.2} times its text");
    assert!(side < 1.25, "the side record's buffer is {side:.2} times its text");
    assert!(held < 11.5, "a call held {held:.2} times its input at its peak");
}

/// The most bytes the known set held per value while it learned `n` values of 32 bytes from a
/// dense result, under one handle and one label (the overflow stub's), settled and drained as
/// a call ends: what it keeps, and the call's records of what it learned.
fn learning_bytes_per_value(n: usize) -> f64 {
    let mut k = KnownSecrets::default();
    let (bytes, ()) = peak(|| {
        for i in 0..n {
            let value = format!("sk_live_{i:x>24}");
            k.note(&value, "secret");
            k.own("0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a", &value, "secret");
        }
        k.settle();
        drop(k.drain());
    });
    bytes as f64 / n as f64
}

/// Each value a result took was held by the known set as the value four times over (the
/// set's own text, its record of values noted in the run, its log for JS, the matcher's
/// needle) and its handle and label once per value (the log, the holdings of the run): at
/// its peak 602 bytes per value of 32 before, 419 now, each text once, shared (`Learned`
/// holds the set's texts). Fails on the old code.
#[test]
fn the_known_set_keeps_each_value_label_and_handle_once() {
    let per_value = learning_bytes_per_value(4_000);
    assert!(per_value < 480.0, "{per_value:.1} bytes per value of 32");
}
