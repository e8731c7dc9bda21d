//! Review s32, helper K: an eleventh adversarial round against the Rust core. Each test states a
//! leak (or a broken promise) that must stay closed; each generated family prints its count
//! and seed.

mod common;

use common::*;
use serde_json::json;

const SEED: u64 = 0x5eed_0032_c0de_000b;

/// A claiming result written as text by a chain of one to three encoders, any of which may be
/// `JSON.stringify` (quotes and all), wherever text stands in a result. Found by probing: a
/// JSON string inside a decoded view (`"{&quot;_meta&quot;…}"` written again with numeric
/// references) was read without views, and so was one holding a result whose brackets are
/// escaped (`"%7B%22_meta%22…"`: `JSON.stringify` of a percent-encoded result), so the result
/// reached the agent raw in both formats and both engines. Fails without `claims::Reader::left`
/// (and the escaped brackets asked for in `quoted`).
#[test]
fn k1_a_chain_of_encoders_split_by_json_strings_claims() {
    withheld_family("k1: claims through chains of encoders and JSON strings", SEED ^ 1, 1_500, |canary, rng| {
        let inner = json!({ "content": [{ "type": "text", "text": canary }], "_meta": claim(rng) });
        let mut text = inner.to_string();
        for _ in 0..1 + rng.below(3) {
            text = encode(&text, rng.below(ENCODERS));
        }
        if rng.below(2) == 0 {
            text = encode(&text, 9);
        }
        match rng.below(5) {
            0 => text_result(&text),
            1 => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": text } }] }),
            2 => json!({ "data": { "log": text } }),
            3 => json!({ "content": [{ "type": "text", "text": "ok" }], "_meta": { "relay": text } }),
            _ => json!({ "content": [{ "type": "text", "text": format!("Relayed: {text}") }] }),
        }
    });
}

/// HTML's names of Latin-1 characters as a browser reads them in text: without their `;` (all
/// 96 are legacy names, `J&uumlrgen` reads `Jürgen`), and `&COPY;`, `&REG` in capitals. A
/// known value written so is scrubbed from later results (both formats) and caught by
/// `check()`. Found by probing: only `&name;` in lower case was read, so every such echo
/// reached the agent. Fails without review s32's `scrub::unescape::latin1`.
#[test]
fn k2_latin1_names_without_their_semicolon_and_in_capitals() {
    const LATIN1: &str = "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";
    let names: Vec<&str> = LATIN1.split(' ').collect();
    let mut rng = Rng(SEED ^ 2);
    let (mut bad, cases) = (Vec::new(), 400);
    for _ in 0..cases {
        let (mut value, mut encoded) = (format!("Q{:05x}", rng.next() >> 44), String::new());
        encoded.push_str(&value);
        for at in 0..1 + rng.below(3) {
            let k = rng.below(names.len());
            let c = char::from_u32(0xA0 + k as u32).unwrap();
            let name = match c {
                '©' if rng.below(2) == 0 => "COPY",
                '®' if rng.below(2) == 0 => "REG",
                _ => names[k],
            };
            let tail = format!("{:x}", rng.next() >> 60);
            value.push(c);
            value.push_str(&tail);
            // The first one without its `;`: the form read before is not what this tests.
            let semi = if at > 0 && rng.below(2) == 0 { ";" } else { "" };
            encoded.push_str(&format!("&{name}{semi}{tail}"));
        }
        echo_is_caught(&mut rng, &value, &encoded, &mut bad);
    }
    println!("k2: Latin-1 names without `;` or in capitals: {cases}, seed {:#x}", SEED ^ 2);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}
