//! Times each adversarial (schema, result) family at about 1 MB of schema plus result, through
//! the public API (compile the tool, then redact one result), natively:
//!
//! ```sh
//! cargo run --release --example worst_cases [FILTER [RUNS]]
//! cargo run --release --example worst_cases -- --emit FILE
//! ```
//!
//! `FILTER`, if given, keeps only the families whose name contains it; `RUNS` (default 1)
//! compiles and redacts that many times and prints the fastest (for profiling one family
//! without its generation dominating, and for steadier numbers).
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

/// Not inlined, so that a profile can collect compiling alone (`--toggle-collect='*compile_tool*'`).
#[inline(never)]
fn compile_tool(tool: &str, limits: &Limits) -> Result<CompiledTool, webmcp_redact::Error> {
    CompiledTool::compile(tool, limits)
}

/// Not inlined either, for the same reason (`--toggle-collect='*redact_once*'`).
#[inline(never)]
fn redact_once(tool: &CompiledTool, raw: &str, options: &Options) -> webmcp_redact::Outcome {
    redact(tool, raw, options, &mut Counter(0), &[])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, path] = args.as_slice() {
        if flag == "--emit" {
            return emit(path);
        }
    }
    let limits = Limits::default();
    let options = Options { limits, ..Options::default() };
    let filter = args.get(1).cloned().unwrap_or_default();
    let runs: usize = args.get(2).map_or(1, |r| r.parse().expect("RUNS is a number"));
    let all = families::LINEAR.iter().chain(families::PRODUCTS).copied().filter(|(name, _)| name.contains(&filter));
    println!("max_work {} units; each family at about {} KiB of schema plus result\n", limits.max_work, TARGET / 1024);
    println!(
        "{:<56} {:>7} {:>9} {:>9} {:>10} {:>10}  outcome",
        "family", "n", "schema B", "result B", "compile ms", "redact ms"
    );
    for (name, family) in all {
        let n = scale(family);
        let (schema, value) = family(n);
        let tool = json!({ "name": "worst_case", "outputSchema": schema }).to_string();
        let raw = value.to_string();
        let (mut compiled_at, mut redacted, mut outcome) = (Duration::MAX, Duration::MAX, String::new());
        for _ in 0..runs {
            let start = Instant::now();
            let compiled = compile_tool(&tool, &limits);
            compiled_at = compiled_at.min(start.elapsed());
            let start = Instant::now();
            let out = compiled.as_ref().map(|tool| redact_once(tool, &raw, &options));
            redacted = redacted.min(start.elapsed());
            outcome = match out {
                Ok(out) => match out.error {
                    Some(e) => format!("error {}", e.code),
                    None => format!("{} redactions, read {} B", out.redactions.len(), out.read),
                },
                Err(e) => format!("compile error {}", e.code),
            };
        }
        println!(
            "{name:<56} {n:>7} {:>9} {:>9} {:>10.1} {:>10.1}  {outcome}",
            tool.len(),
            raw.len(),
            ms(compiled_at),
            ms(redacted)
        );
    }
}
