//! Times each adversarial (schema, result) family at about 1 MB of schema plus result, through
//! the public API (compile the tool, then redact one result), natively:
//!
//! ```sh
//! cargo run --release --example worst_cases
//! cargo run --release --example worst_cases -- regex       # only families whose name holds "regex"
//! cargo run --release --example worst_cases -- --emit FILE
//! ```
//!
//! With `--emit FILE` it times nothing: it writes the families at the same scale to FILE as one
//! JSON array of `{ name, product, tool, raw }` (`raw` the result's JSON text), for the bench
//! that times them in Node through the package (`bench/worst.bench.mjs`), so that both run the
//! same inputs.
//!
//! The families are those of `src/schema/families.rs` (the work-count tests use the same file).
//! The linear ones used to take seconds to minutes; the last ones are products no index or
//! memo avoids (`families::PRODUCTS`), expected to end with `work_limit` in bounded time.

#[path = "../src/schema/families.rs"]
mod families;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use webmcp_redact::{redact, CompiledTool, HandleSource, Limits, Options};

struct Counter(u64);

impl HandleSource for Counter {
    fn fill(&mut self, bytes: &mut [u8; 16]) {
        self.0 += 1;
        bytes[..8].copy_from_slice(&self.0.to_le_bytes());
    }
}

const TARGET: usize = 1 << 20;

fn size(family: fn(usize) -> (Value, Value), n: usize) -> usize {
    let (schema, value) = family(n);
    schema.to_string().len() + value.to_string().len()
}

/// The scale at which the family is about 1 MB.
fn scale(family: fn(usize) -> (Value, Value)) -> usize {
    let mut n = 64;
    for _ in 0..4 {
        n = (n as f64 * TARGET as f64 / size(family, n) as f64).round().max(1.0) as usize;
    }
    n
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Writes every family at about 1 MB to `path` (see the module documentation).
fn emit(path: &str) {
    let products: Vec<&str> = families::PRODUCTS.iter().map(|(name, _)| *name).collect();
    let all = families::LINEAR.iter().chain(families::PRODUCTS);
    let list: Vec<Value> = all
        .map(|&(name, family)| {
            let (schema, value) = family(scale(family));
            json!({ "name": name, "product": products.contains(&name),
                "tool": { "name": "worst_case", "outputSchema": schema }, "raw": value.to_string() })
        })
        .collect();
    std::fs::write(path, Value::Array(list).to_string()).expect("write the families");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, path] = args.as_slice() {
        if flag == "--emit" {
            return emit(path);
        }
    }
    // An argument other than --emit: time only the families whose name holds it.
    let only = args.get(1).filter(|a| *a != "--emit");
    let limits = Limits::default();
    let options = Options { limits, ..Options::default() };
    let all = families::LINEAR.iter().chain(families::PRODUCTS).copied();
    println!("max_work {} units; each family at about {} KiB of schema plus result\n", limits.max_work, TARGET / 1024);
    println!(
        "{:<56} {:>7} {:>9} {:>9} {:>10} {:>10}  outcome",
        "family", "n", "schema B", "result B", "compile ms", "redact ms"
    );
    for (name, family) in all.filter(|(name, _)| only.map_or(true, |o| name.contains(o.as_str()))) {
        let n = scale(family);
        let (schema, value) = family(n);
        let tool = json!({ "name": "worst_case", "outputSchema": schema }).to_string();
        let raw = value.to_string();
        let start = Instant::now();
        let compiled = CompiledTool::compile(&tool, &limits);
        let compiled_at = start.elapsed();
        let (redacted, outcome) = match &compiled {
            Ok(tool) => {
                let out = redact(tool, &raw, &options, &mut Counter(0), &[]);
                let outcome = match &out.error {
                    Some(e) => format!("error {}", e.code),
                    None => format!("{} redactions", out.redactions.len()),
                };
                (start.elapsed() - compiled_at, outcome)
            }
            Err(e) => (Duration::ZERO, format!("compile error {}", e.code)),
        };
        println!(
            "{name:<56} {n:>7} {:>9} {:>9} {:>10.1} {:>10.1}  {outcome}",
            tool.len(),
            raw.len(),
            ms(compiled_at),
            ms(redacted)
        );
    }
}
