//! Review s31, helper K: a tenth adversarial round against the Rust core. Each test states a
//! leak (or a broken promise) that must stay closed; each generated family prints its count
//! and seed.

mod common;

use common::*;
use serde_json::{json, Value};

const SEED: u64 = 0x5eed_0031_c0de_000b;

/// A claim of high sensitivity, as one of the vocabularies writes it in a place.
fn claim(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => json!({ "sensitiveHint": true }),
        1 => json!({ "io.modelcontextprotocol/trust-annotations": { "sensitive": true } }),
        2 => json!({ "mcp.dev/resultSensitivity": "restricted" }),
        _ => json!({ "sensitive_hint": "high" }),
    }
}

/// `s` written by one of the encoders a tool or bridge applies to text: `htmlspecialchars`,
/// numeric references of every punctuation character, `encodeURIComponent`, percent-escapes of
/// every byte but letters and digits, or a JSON string's content.
fn encode(s: &str, how: usize) -> String {
    let each = |f: &dyn Fn(char) -> Option<String>| -> String {
        s.chars().map(|c| f(c).unwrap_or_else(|| c.to_string())).collect()
    };
    match how {
        0 => each(&|c| match c {
            '&' => Some("&amp;".into()),
            '"' => Some("&quot;".into()),
            '<' => Some("&lt;".into()),
            '>' => Some("&gt;".into()),
            _ => None,
        }),
        1 => each(&|c| (c.is_ascii_punctuation()).then(|| format!("&#{};", c as u32))),
        2 => each(&|c| (!c.is_ascii_alphanumeric() && !"-_.!~*'()".contains(c)).then(|| format!("%{:02X}", c as u32))),
        3 => each(&|c| (!c.is_ascii_alphanumeric()).then(|| format!("%{:02x}", c as u32))),
        _ => {
            let q = serde_json::to_string(s).unwrap();
            q[1..q.len() - 1].to_string()
        }
    }
}

/// A claiming result written as text by a chain of one to three encoders (an HTML page that
/// escapes a URL's query, a bridge that escapes what another escaped), wherever text stands in
/// a result. Found by probing: the claims reader read each decoded view one decoding deep, and
/// asked for a place name or a bracket as written or escaped once, so a result escaped twice
/// (`{&amp;quot;_meta&amp;quot;:…}`, `%257B%2522_meta…`) reached the agent raw in both formats
/// and both engines. Fails without the chained views in `claims::Reader::views` and the
/// escapes of escapes in `names_a_place` and `may_claim`.
#[test]
fn k1_a_result_escaped_by_a_chain_of_encoders_claims() {
    withheld_family("k1: claims through chains of encoders", SEED ^ 1, 1_500, |canary, rng| {
        let inner = json!({ "content": [{ "type": "text", "text": canary }], "_meta": claim(rng) });
        let mut text = inner.to_string();
        for _ in 0..1 + rng.below(3) {
            text = encode(&text, rng.below(5));
        }
        let text = format!("{}{text}", ["", "Relayed: ", "out="][rng.below(3)]);
        match rng.below(5) {
            0 => text_result(&text),
            1 => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": text } }] }),
            2 => json!({ "data": { "log": text } }),
            3 => json!({ "content": [{ "type": "text", "text": "ok" }], "_meta": { "relay": text } }),
            _ => json!({ "content": [{ "type": "text", "text": text }], "isError": true }),
        }
    });
}
