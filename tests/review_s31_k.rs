//! Review s31, helper K: a tenth adversarial round against the Rust core. Each test states a
//! leak (or a broken promise) that must stay closed; each generated family prints its count
//! and seed.

mod common;

use common::*;
use serde_json::json;

const SEED: u64 = 0x5eed_0031_c0de_000b;

/// The encoders of this review (`htmlspecialchars`, numeric references of every punctuation
/// character, `encodeURIComponent`, percent-escapes of every byte but letters and digits, a JSON
/// string's content), as [`encode`] numbers them.
const S31_ENCODERS: [usize; 5] = [0, 1, 5, 6, 8];

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
            text = encode(&text, S31_ENCODERS[rng.below(5)]);
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

/// `s` as `he.encode(s, { encodeEverything: true, useNamedReferences: true })` writes ASCII:
/// every punctuation character by its HTML name where it has one, else numerically.
fn html5_names(s: &str) -> String {
    const NAMES: &[(char, &str)] = &[
        ('!', "excl"),
        ('"', "quot"),
        ('#', "num"),
        ('$', "dollar"),
        ('%', "percnt"),
        ('&', "amp"),
        ('\'', "apos"),
        ('(', "lpar"),
        (')', "rpar"),
        ('*', "ast"),
        ('+', "plus"),
        (',', "comma"),
        ('.', "period"),
        ('/', "sol"),
        (':', "colon"),
        (';', "semi"),
        ('<', "lt"),
        ('=', "equals"),
        ('>', "gt"),
        ('?', "quest"),
        ('@', "commat"),
        ('[', "lsqb"),
        ('\\', "bsol"),
        (']', "rsqb"),
        ('^', "Hat"),
        ('_', "lowbar"),
        ('`', "grave"),
        ('{', "lcub"),
        ('|', "verbar"),
        ('}', "rcub"),
    ];
    s.chars()
        .map(|c| match NAMES.iter().find(|(k, _)| *k == c) {
            Some((_, name)) => format!("&{name};"),
            None if c.is_ascii_punctuation() => format!("&#{};", c as u32),
            None => c.to_string(),
        })
        .collect()
}

/// HTML's names for ASCII characters (`&lowbar;`, `&commat;`, `&lcub;`), as `he.encode` writes
/// punctuation with `useNamedReferences`: a claiming result written so (or only its place name,
/// `&lowbar;meta`, named open by review s30) makes its claims, and a known value with
/// punctuation written so is scrubbed from later results and caught by `check()`. Found by
/// probing: only the legacy names and the Latin-1 ones were decoded, so both reached the agent
/// (600 of 600 claiming results, and every value). Fails without `scrub::unescape::ascii` (and
/// its names in `claims`).
#[test]
fn k2_html_names_of_ascii_characters_are_read() {
    withheld_family("k2: claims written with HTML's ASCII names", SEED ^ 2, 600, |canary, rng| {
        let inner = json!({ "content": [{ "type": "text", "text": canary }], "_meta": claim(rng) }).to_string();
        let text = match rng.below(3) {
            0 => html5_names(&inner),
            1 => inner.replace('"', "&quot;").replace("_meta", "&lowbar;meta"),
            _ => encode(&html5_names(&inner), [0, 5][rng.below(2)]),
        };
        match rng.below(3) {
            0 => text_result(&text),
            1 => json!({ "data": { "log": text } }),
            _ => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": text } }] }),
        }
    });
    let mut rng = Rng(SEED ^ 0x22);
    let (mut bad, cases) = (Vec::new(), 400);
    let punctuation: Vec<char> = "!#$%()*+,./:;=?@[\\]^_`{|}~-".chars().collect();
    for _ in 0..cases {
        let mut value = format!("Q{:06x}", rng.next() >> 40);
        for _ in 0..1 + rng.below(3) {
            let at = 1 + rng.below(value.len() - 1);
            value.insert(at, punctuation[rng.below(punctuation.len())]);
        }
        let encoded = html5_names(&value);
        if encoded == value {
            continue;
        }
        echo_is_caught(&mut rng, &value, &encoded, &mut bad);
    }
    println!("k2: values with HTML's ASCII names: {cases}, seed {:#x}", SEED ^ 0x22);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// The crate's public parser is held to the default limits, as the product's paths are: text
/// nested 100,000 deep is `depth_limit`, never a value whose drop overflows the stack (named
/// open by review s30: `parse_json` had no limit, and a Rust caller handing it such text
/// crashed). Fails on the code before (it returned the value; dropping it aborts the test).
#[test]
fn k3_the_crates_parser_is_held_to_the_depth_limit() {
    use webmcp_redact::{parse_json, parse_json_with, ErrorCode, Limits};
    let n = 100_000;
    let deep = [format!("{}{}", "[".repeat(n), "]".repeat(n)), format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n))];
    for text in &deep {
        assert_eq!(parse_json(text).expect_err("deeper than maxDepth").code, ErrorCode::DepthLimit);
        let wide = Limits { max_depth: usize::MAX, ..Limits::default() };
        assert_eq!(parse_json_with(text, &wide).expect_err("past the ceiling").code, ErrorCode::DepthLimit);
    }
    let within = format!("{}{}", "[".repeat(128), "]".repeat(128));
    assert!(parse_json(&within).is_ok());
    assert_eq!(parse_json(r#"{"a":1,"a":2}"#).expect_err("repeated").code, ErrorCode::DuplicateKey);
}
