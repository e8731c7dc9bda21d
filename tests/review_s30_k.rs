//! Review s30, helper K: a ninth adversarial round against the Rust core. Each test states a
//! leak (or a broken promise) that must stay closed; each generated family prints its count
//! and seed.

mod common;

use common::*;
use serde_json::{json, Value};

const SEED: u64 = 0x5eed_0030_c0de_000b;

/// A JSON number text no f64 holds: a nonzero mantissa (spelt in one of JSON's ways) with an
/// exponent past f64's range, up or down, or too long for any integer type.
fn number_past_f64(rng: &mut Rng) -> String {
    let sign = ["", "-"][rng.below(2)];
    let mantissa = match rng.below(4) {
        0 => format!("{}", 1 + rng.below(9)),
        1 => format!("{}.{}", 1 + rng.below(9), rng.below(1000)),
        2 => format!("0.{}{}", "0".repeat(rng.below(5)), 1 + rng.below(9)),
        _ => format!("{}{}", 1 + rng.below(9), "0".repeat(rng.below(3))),
    };
    let e = ["e", "E"][rng.below(2)];
    let exponent = match rng.below(4) {
        0 => format!("{}", 310 + rng.below(2000)),
        1 => format!("+{}", 400 + rng.below(100_000)),
        2 => format!("-{}", 330 + rng.below(2000)),
        _ => "99999999999999999999".to_string(),
    };
    format!("{sign}{mantissa}{e}{exponent}")
}

/// A number read from `text` as written (serde_json keeps its digits).
fn number(text: &str) -> Value {
    serde_json::from_str(text).expect("a JSON number")
}

/// `sensitiveHint` given as a number past f64 (`1e400`, Infinity to JavaScript, so truthy)
/// claims. Found by probing: `json::truthy` read the number through an f64, which has no value
/// for it, and counted it false, so the result reached the agent raw in both formats and both
/// engines, wherever the claim stood. `1e-400` (0 to JavaScript) now claims too: only zero
/// claims nothing. Fails without the digit reading in `truthy` (every case leaked).
#[test]
fn k1_a_hint_past_f64_claims() {
    withheld_family("k1: sensitiveHint past f64", SEED ^ 1, 1_500, |canary, rng| {
        let place = json!({ "sensitiveHint": number(&number_past_f64(rng)) });
        let text = json!({ "type": "text", "text": canary });
        let raw = match rng.below(7) {
            0 => json!({ "content": [text], "_meta": place }),
            1 => json!({ "content": [text], "annotations": place }),
            2 => json!({ "content": [text], "_meta": { "annotations": place } }),
            3 => json!({ "content": [{ "type": "text", "text": canary, "_meta": place }] }),
            4 => {
                json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": canary, "_meta": place } }] })
            }
            5 => json!({ "data": { "_meta": place, "v": canary } }),
            _ => json!({ "structuredContent": { "v": canary }, "_meta": Value::String(place.to_string()) }),
        };
        match rng.below(3) {
            0 => raw,
            1 => json!({ "jsonrpc": "2.0", "id": 1, "result": raw }),
            _ => text_result(&raw.to_string()),
        }
    });
}
