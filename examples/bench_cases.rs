//! The ratio bench's cases (bench/cases.mjs), natively and without the JS boundary: where the
//! core's own time goes (`perf record` this), not a contender in the ratios.
//!
//! ```sh
//! cargo run --release --example bench_cases [all|pass|2kb|tree|call|call2kb|late|content|contentjson] [bytes] [reps]
//! ```
//!
//! It also prints the peak of the bytes live on the heap during a call (redaction and side
//! record), over the input's size: what a call grows the module's memory by, at least.

#[cfg(not(target_arch = "wasm32"))]
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use serde_json::{json, Value};
use webmcp_redact::{wire, Config, HandleSource, Redactor};

/// Counts the bytes live on the heap, and their peak since `PEAK` was last reset. (Natively:
/// the module has its own allocator on wasm32.)
#[cfg(not(target_arch = "wasm32"))]
struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[cfg(not(target_arch = "wasm32"))]
fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe sizes.
#[cfg(not(target_arch = "wasm32"))]
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(p, layout)
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The old block and the new one are both live while it is copied.
        grew(new_size);
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.realloc(p, layout, new_size)
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static HEAP: Peak = Peak;

struct Counter(u64);

impl HandleSource for Counter {
    fn fill(&mut self, bytes: &mut [u8; 16]) {
        self.0 += 1;
        bytes[..8].copy_from_slice(&self.0.to_le_bytes());
    }
}

fn keys_tool(marked: bool) -> Value {
    if !marked {
        return json!({ "name": "list_keys_plain", "outputSchema": { "type": "object" } });
    }
    json!({ "name": "list_keys", "outputSchema": { "type": "object", "properties": { "keys": { "type": "array", "items": {
        "type": "object", "properties": { "id": { "type": "string" }, "name": { "type": "string" },
        "created": { "type": "integer" }, "secret": { "type": "string", "x-sensitive": true } } } } } } })
}

fn keys(bytes: usize) -> String {
    let mut out = String::from("{\"keys\":[");
    let mut i = 0u64;
    while out.len() < bytes {
        if i > 0 {
            out.push(',');
        }
        let secret = format!("sk_live_{:x>24}", radix36(i));
        out.push_str(&format!(
            "{{\"id\":\"key_{i}\",\"name\":\"key number {i}\",\"created\":{},\"secret\":\"{secret}\"}}",
            1_700_000_000 + i
        ));
        i += 1;
    }
    out.push_str("]}");
    out
}

fn radix36(mut n: u64) -> String {
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut s = Vec::new();
    loop {
        s.push(digits[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap()
}

fn tree_tool() -> Value {
    json!({ "name": "get_tree", "outputSchema": { "$defs": { "node": { "type": "object", "properties": {
        "name": { "type": "string" }, "token": { "type": "string", "x-sensitive": true },
        "children": { "type": "array", "items": { "$ref": "#/$defs/node" } } } } }, "$ref": "#/$defs/node" } })
}

fn tree(bytes: usize) -> String {
    let node =
        |i: u64| json!({ "name": format!("node {i}"), "token": format!("tok_{:x>12}", radix36(i)), "children": [] });
    let mut nodes = vec![node(0)];
    let mut size = nodes[0].to_string().len();
    let mut i = 1;
    while size < bytes {
        let n = node(i);
        size += n.to_string().len() + 1;
        nodes.push(n);
        i += 1;
    }
    for i in (1..nodes.len()).rev() {
        let n = nodes[i].take();
        nodes[(i - 1) >> 2]["children"].as_array_mut().unwrap().insert(0, n);
    }
    nodes[0].to_string()
}

fn account_tool() -> Value {
    let s = json!({ "type": "string", "x-sensitive": true });
    json!({ "name": "get_account", "outputSchema": { "type": "object", "properties": { "account": { "type": "object", "properties": {
        "api_key": s, "webhook": { "type": "object", "properties": { "signing_secret": s } },
        "billing": { "type": "object", "properties": { "card_token": s } },
        "oauth": { "type": "object", "properties": { "refresh_token": s } } } } } } })
}

fn account() -> String {
    let mut events = Vec::new();
    for i in 0..14 {
        events.push(
            json!({ "id": format!("evt_{}", 1000 + i), "type": if i % 2 == 1 { "invoice.paid" } else { "key.used" },
            "at": format!("2025-06-0{}T10:{}:00Z", 1 + i % 9, 10 + i), "ip": format!("203.0.113.{i}") }),
        );
    }
    json!({ "account": { "id": "acct_1Hh1YZ2eZvKYlo2C", "email": "ada@example.com", "name": "Ada Lovelace",
        "plan": { "id": "pro", "seats": 12, "renews": "2026-01-31T00:00:00Z", "price": { "amount": 4900, "currency": "usd" } },
        "created": 1700000000, "api_key": "sk_live_51Hh1YZ2eZvKYlo2CsecretKey0001",
        "webhook": { "url": "https://hooks.example.com/ada", "events": ["invoice.paid", "key.rotated"], "signing_secret": "whsec_5f2b8c1e9d7a4b3c2f1e0d9c8b7a6f5e" },
        "billing": { "card_brand": "visa", "card_last4": "4242", "card_token": "tok_1Hh1YZ2eZvKYlo2Cvisa4242", "address": { "line1": "12 Analytical Row", "city": "London", "postal_code": "W1 1AA", "country": "GB" } },
        "oauth": { "provider": "github", "scopes": ["read:user", "repo"], "refresh_token": "ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B" } },
        "events": events }).to_string()
}

/// A CallToolResult around `value` (JSON text), with the duplicate text block.
fn call_result(value: &str) -> String {
    format!(r#"{{"content":[{{"type":"text","text":{}}}],"structuredContent":{value}}}"#, Value::from(value))
}

/// A content-only CallToolResult of about `bytes`, as a tool that answers in text writes it:
/// one text block of prose lines about key records (no brackets, nothing marked in it).
fn content_only(bytes: usize) -> String {
    let mut text = String::new();
    let mut i = 0u64;
    while text.len() < bytes {
        text.push_str(&format!("Key key_{i} (key number {i}) was created at {} and is active.\n", 1_700_000_000 + i));
        i += 1;
    }
    json!({ "content": [{ "type": "text", "text": text }] }).to_string()
}

/// One call, out of line so that callgrind can count it alone:
/// `valgrind --tool=callgrind --toggle-collect='bench_cases::redact_once' --toggle-collect='bench_cases::side_once'`.
#[inline(never)]
fn redact_once(core: &mut Redactor, tool: &str, text: &str) -> webmcp_redact::Outcome {
    core.redact(tool, text, None)
}

#[inline(never)]
fn side_once(outcome: &webmcp_redact::Outcome) -> String {
    wire::side_json(outcome, None, None)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map_or("all", String::as_str);
    let bytes: usize = args.get(2).and_then(|b| b.parse().ok()).unwrap_or(1_000_000);
    let reps: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let (tool, text) = match case {
        "all" => (keys_tool(true), keys(bytes)),
        "pass" => (keys_tool(false), keys(bytes)),
        "2kb" => (account_tool(), account()),
        "tree" => (tree_tool(), tree(bytes)),
        // As WebMCP tools return them: the value as structuredContent, its JSON as a text block.
        "call" => (keys_tool(true), call_result(&keys(bytes))),
        "call2kb" => (account_tool(), call_result(&account())),
        // The same with a `_meta` after it: the streaming engine declines it late.
        "late" => {
            let call = call_result(&keys(bytes));
            (keys_tool(true), format!(r#"{},"_meta":{{"x":1}}}}"#, &call[..call.len() - 1]))
        }
        // Only text: `content` without `structuredContent`, from a tool with marks.
        "content" => (keys_tool(true), content_only(bytes)),
        // A tool without outputSchema answering with its value's JSON as the text (no
        // credentials in it: the detectors' finds are the DOM engine's).
        "contentjson" => (
            json!({ "name": "list_keys" }),
            json!({ "content": [{ "type": "text", "text": keys(bytes).replace("sk_live_", "id_") }] }).to_string(),
        ),
        other => panic!("unknown case {other}"),
    };
    let tool = tool.to_string();
    let mut times = Vec::new();
    let mut side_times = Vec::new();
    let mut peaks = Vec::new();
    // One redactor, its tool compiled once (as a page's); the known set is cleared before each
    // call, as the bench's vault.clear() does.
    let mut core = Redactor::new(Config::default(), Box::new(Counter(0)));
    core.compile(&tool).unwrap();
    // KNOWN=n: n values known before the calls (issue 8: a 1 KB redaction with 100,000 known
    // values), kept across the calls instead of cleared.
    let known: usize = std::env::var("KNOWN").ok().and_then(|n| n.parse().ok()).unwrap_or(0);
    for i in 0..known {
        core.learn(&format!("h{i}"), "secret", &format!("known_value_{i:08}_{}", radix36(i as u64 * 7919)));
    }
    for _ in 0..reps {
        if known == 0 {
            core.forget_all();
        }
        let live = LIVE.load(Relaxed);
        PEAK.store(live, Relaxed);
        let start = Instant::now();
        let outcome = redact_once(&mut core, &tool, &text);
        let mid = Instant::now();
        let side = side_once(&outcome);
        times.push((mid - start).as_secs_f64() * 1e3);
        side_times.push(mid.elapsed().as_secs_f64() * 1e3);
        assert!(outcome.error.is_none(), "{:?}", outcome.error);
        peaks.push(PEAK.load(Relaxed) - live);
        std::hint::black_box(side);
    }
    times.sort_by(f64::total_cmp);
    side_times.sort_by(f64::total_cmp);
    peaks.sort_unstable();
    println!(
        "{case} {} bytes: redact {:.3} ms, side record {:.3} ms (medians of {reps}); peak heap {} bytes ({:.2}x the input)",
        text.len(),
        times[reps / 2],
        side_times[reps / 2],
        peaks[reps / 2],
        peaks[reps / 2] as f64 / text.len() as f64
    );
}
