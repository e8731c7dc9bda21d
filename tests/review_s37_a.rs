//! Review s37 (helper A): the held-out review of issue 8, attacked through the public paths
//! (a Redactor's `redact` in both formats and `check()`), with seeded generators.

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::Format;

/// The detectors' fake examples (docs/detectors.md), one token kind each.
const TOKENS: &[&str] = &[
    "AKIAFAKE2EXAMPLE7KEY",
    "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",
    "glpat-FAKEfake0123example0",
    "xoxb-1234567890-1234567890123-FAKEfakeEXAMPLE0123456789",
    "sk_live_FAKEfakeEXAMPLE0123456789",
    "AIzaFAKEfakeEXAMPLE0123456789abcdefghij",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJGQUtFLUVYQU1QTEUifQ.FAKEfakeSignatureNotReal0123456789",
    "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",
    "sk-proj-FAKEfakeEXAMPLE0123T3BlbkFJFAKEfakeEXAMPLE0123",
];

/// Characters a renderer shows as nothing (Unicode's default-ignorable ones).
const UNSEEN: &[char] =
    &['\u{200B}', '\u{2060}', '\u{AD}', '\u{FEFF}', '\u{200D}', '\u{E0041}', '\u{FE0F}', '\u{180E}'];

/// `s` as a model reads it: default-ignorable characters left out, fullwidth ASCII as ASCII.
fn as_read(s: &str) -> String {
    s.chars()
        .filter(|c| !UNSEEN.contains(c) && !matches!(c, '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{206F}'))
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap(),
            c => c,
        })
        .collect()
}

/// Decodes JSON string escapes of a view, so that `\u200b` written by serde reads as the
/// character (the agent's JSON parser reads it so).
fn parsed_text(view: &str) -> String {
    let v: Value = serde_json::from_str(view).unwrap();
    let mut leaves = Vec::new();
    string_leaves(&v, &mut leaves);
    fn keys(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, x)| {
                out.push(k.clone());
                keys(x, out)
            }),
            Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }
    keys(&v, &mut leaves);
    leaves.join("\n")
}

/// Open item (a): a credential the detectors find, split by a character a renderer shows as
/// nothing (or with a character written fullwidth), reads whole to the agent.
#[test]
fn a_credential_split_by_an_unseen_character_is_detected() {
    const SEED: u64 = 0x5eed_0037_a000_0001;
    let mut rng = Rng(SEED);
    let (mut bad, cases) = (Vec::new(), 400);
    for _ in 0..cases {
        let token = TOKENS[rng.below(TOKENS.len())];
        let chars: Vec<char> = token.chars().collect();
        let mut split = String::new();
        let at = 1 + rng.below(chars.len() - 1);
        for (i, &c) in chars.iter().enumerate() {
            if i == at || rng.below(40) == 0 {
                match rng.below(4) {
                    0 if c.is_ascii_graphic() => {
                        split.push(char::from_u32(c as u32 + 0xFEE0).unwrap());
                        continue;
                    }
                    _ => split.push(UNSEEN[rng.below(UNSEEN.len())]),
                }
            }
            split.push(c);
        }
        let text = format!("{}{split}{}", ["", "key: ", "token=\""][rng.below(3)], ["", ".", "\" end"][rng.below(3)]);
        let raw = match rng.below(3) {
            0 => text_result(&text),
            1 => json!({ "page": { "note": text } }),
            _ => json!({ "content": [{ "type": "text", "text": json!({ "v": text }).to_string() }] }),
        };
        for format in FORMATS {
            let mut r = redactor(format);
            let out = r.redact(PLAIN, &raw.to_string(), None);
            if as_read(&parsed_text(&out.agent_json)).contains(token) {
                bad.push(format!("{format:?}: {raw} -> {}", out.agent_json));
            }
        }
    }
    println!("split credentials that reached the agent: {} of {} (seed {SEED:#x})", bad.len(), cases * 2);
    assert!(bad.is_empty(), "{:#?}", &bad[..bad.len().min(5)]);
}

/// Open item (b): a known value past the BMP written with each UTF-16 half as an HTML numeric
/// reference, as an escaper that walks `charCodeAt` writes it (`&#55357;&#56593;`).
#[test]
fn a_surrogate_pair_as_two_html_references_is_read_as_its_character() {
    const SEED: u64 = 0x5eed_0037_a000_0002;
    let mut rng = Rng(SEED);
    let (mut bad, cases) = (Vec::new(), 200);
    let astral = ['\u{1F511}', '\u{1F600}', '\u{10437}', '\u{1D11E}', '\u{20BB7}'];
    for _ in 0..cases {
        let canary = rng.canary();
        let cut = 2 + rng.below(6);
        let c = astral[rng.below(astral.len())];
        let value = format!("{}{c}{}", &canary[..cut], &canary[cut..]);
        let mut units = [0u16; 2];
        c.encode_utf16(&mut units);
        let semi = rng.below(3) != 0;
        let refs: String = units
            .iter()
            .enumerate()
            .map(|(i, &u)| {
                let body = match rng.below(4) {
                    0 => format!("#{u}"),
                    1 => format!("#x{u:x}"),
                    2 => format!("#X{u:X}"),
                    _ => format!("#x{u:X}"),
                };
                // Without `;` only where the next character cannot continue the reference.
                format!("&{body}{}", if semi || i == 1 { ";" } else { "" })
            })
            .collect();
        let encoded = format!("{}{refs}{}", &canary[..cut], &canary[cut..]);
        echo_is_caught(&mut rng, &value, &encoded, &mut bad);
    }
    println!("surrogate pairs as two references that got through: {} of {} (seed {SEED:#x})", bad.len(), cases * 7);
    assert!(bad.is_empty(), "{:#?}", &bad[..bad.len().min(5)]);
}

/// Standard base64 (`pad`: with `=`), or base64url.
fn b64(b: &[u8], url: bool, pad: bool) -> String {
    let t: &[u8] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = c.iter().enumerate().fold(0u32, |n, (i, &x)| n | u32::from(x) << (16 - 8 * i));
        for i in 0..=c.len() {
            out.push(t[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
        if pad {
            out.extend(std::iter::repeat('=').take(3 - c.len()));
        }
    }
    out
}

/// `j` (JSON text) as a tool or template writes it encoded once into text.
fn encoded_json(rng: &mut Rng, j: &str) -> String {
    let pct = |plus: bool| -> String {
        j.bytes()
            .map(|c| match c {
                c if c.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&c) => char::from(c).to_string(),
                b' ' if plus => "+".into(),
                c => format!("%{c:02X}"),
            })
            .collect()
    };
    match rng.below(9) {
        0 => j.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;"),
        1 => j.replace('&', "&#38;").replace('"', "&#34;"),
        2 => j.replace('&', "&#x26;").replace('"', "&#x22;"),
        3 => pct(false),
        4 => pct(true),
        5 => j.replace('\\', "\\\\").replace('"', "\\\""),
        6 => b64(j.as_bytes(), rng.below(2) == 0, rng.below(2) == 0),
        7 => format!("data:application/json;base64,{}", b64(j.as_bytes(), false, true)),
        _ => format!("data:application/json;charset=utf-8,{}", pct(false)),
    }
}

/// A marked value in the tool's JSON, which the result carries only encoded once (HTML-escaped
/// in a `<pre>`, percent-encoded in a link, JSON-escaped in a log line, base64, a `data:` URL):
/// rule 5 walked JSON only as written, so the value reached the agent.
#[test]
fn a_marked_value_in_json_the_text_carries_encoded_is_taken() {
    const SEED: u64 = 0x5eed_0037_a000_0003;
    let def = json!({ "name": "t", "outputSchema": { "type": "object", "properties": {
        "apiKey": { "x-sensitive": true },
        "creds": { "type": "object", "properties": { "token": { "x-sensitive": true } } } } } });
    let mut rng = Rng(SEED);
    let (mut bad, mut leaked, cases) = (Vec::new(), 0, 300);
    for _ in 0..cases {
        let before = bad.len();
        let canary = rng.canary();
        let value = match rng.below(3) {
            0 => json!({ "apiKey": canary, "user": "ann & bob" }),
            1 => json!({ "creds": { "token": canary }, "n": 1 }),
            _ => json!({ "id": 7, "apiKey": canary }),
        };
        let text = encoded_json(&mut rng, &value.to_string());
        let text = [
            text.clone(),
            format!("<pre>{text}</pre>"),
            format!("Result: {text}"),
            format!("<a href=\"https://x.test/?q={text}\">open</a>"),
        ][rng.below(4)]
        .clone();
        let raw = match rng.below(4) {
            0 => text_result(&text),
            1 => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": text } }] }),
            2 => json!({ "content": [{ "type": "text", "text": "ok" }], "_meta": { "log": text } }),
            _ => {
                json!({ "content": [{ "type": "resource_link", "uri": "https://x.test/a", "name": "a", "description": text }] })
            }
        };
        let mut knows = redactor(Format::Webmcp);
        knows.redact(MARKED, &json!({ "s": canary }).to_string(), None);
        for problem in both_engines(&def, &raw.to_string(), &canary) {
            bad.push(problem);
        }
        for format in FORMATS {
            let view = redactor(format).redact(&def.to_string(), &raw.to_string(), None).agent_json;
            let c = knows.check(POST, &json!({ "body": view }).to_string(), None).unwrap();
            if c.reasons.iter().any(|x| x.rule.code() == "secret_egress") {
                bad.push(format!("{format:?}: {raw} -> {view}"));
            }
        }
        leaked += usize::from(bad.len() > before);
    }
    println!("encoded JSON whose marked value reached the agent: {leaked} of {cases} results (seed {SEED:#x})");
    assert!(bad.is_empty(), "{:#?}", &bad[..bad.len().min(5)]);
}
