//! Review s36 (helper A): the text block of a plain structured value is not read again where
//! `Needles::repeats_its_tokens` says it repeats the scrubbed value's tokens (9ba25f6). Oracle:
//! the text block the agent gets, read again as a text block by a redactor that knows the same
//! value, is left as it is; a difference is something the skipped reading would have caught.

mod common;

use common::{redactor, Rng, MARKED, PLAIN};
use serde_json::{json, Map, Value};
use webmcp_redact::Format;

const ATOMS: &[&str] = &[
    "a", "b", "k", "z", "Q", "x", "0", "1", "2", "5", "9", "-", ".", "+", "/", "=", "_", "&", "#", ";", "%", "e", "E",
    " ", "é", "Ａ", "\u{200b}", "\u{ad}", "1", "7", "3", ":", ",", "\"", "[", "}", "\\", "\n",
];

fn secret(rng: &mut Rng) -> String {
    if rng.below(16) == 0 {
        return ["true", "false", "null", "nul", "ull", "rue"][rng.below(6)].to_string();
    }
    if rng.below(3) == 0 {
        let n = 2 + rng.below(14);
        return (0..n).map(|_| ["1", "2", "0", "7", "3", ".", "-"][rng.below(7)]).collect();
    }
    let top = if rng.below(2) == 0 { 2 } else { 9 };
    let n = 2 + rng.below(top);
    (0..n).map(|_| ATOMS[rng.below(ATOMS.len())]).collect()
}

fn base64(b: &[u8], url: bool) -> String {
    let t: &[u8] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for c in b.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..=c.len() {
            out.push(t[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
        if !url {
            out.extend(std::iter::repeat('=').take(3 - c.len()));
        }
    }
    out
}

/// An encoding of `s` the matcher reads.
fn encoded(rng: &mut Rng, s: &str) -> String {
    match rng.below(11) {
        0 | 1 => s.to_string(),
        9 => {
            // A number written with an exponent whose plain value is `s`.
            let k = rng.below(4);
            let d: String = s.chars().filter(char::is_ascii_digit).collect();
            if d.len() > k {
                format!("{}.{}e{}", &d[..1], &d[1..], d.len() - 1 - k)
            } else {
                s.to_string()
            }
        }
        10 => format!("[redacted: s]{s}"),
        2 => {
            let pre = ["", "a", "ab"][rng.below(3)];
            base64(format!("{pre}{s}").as_bytes(), rng.below(2) == 0)
        }
        3 => s.bytes().map(|b| format!("%{b:02X}")).collect(),
        4 => s
            .chars()
            .map(|c| {
                [format!("&#{};", c as u32), format!("&#{}", c as u32), format!("&#x{:x}", c as u32)][rng.below(3)]
                    .clone()
            })
            .collect(),
        5 => {
            s.chars()
                .map(|c| {
                    if c.is_ascii_graphic() && rng.below(2) == 0 {
                        char::from_u32(c as u32 + 0xFEE0).unwrap()
                    } else {
                        c
                    }
                })
                .collect()
        }
        6 => s
            .chars()
            .flat_map(|c| {
                [c].into_iter().chain(
                    (rng.below(2) == 0)
                        .then_some(['\u{200b}', '\u{ad}', '\u{2060}', '\u{fe0f}', '\u{e0041}'][rng.below(5)]),
                )
            })
            .collect(),
        7 => {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() && rng.below(3) == 0 {
                        format!("&#{}", c as u32)
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        }
        _ => s
            .bytes()
            .map(|b| if rng.below(2) == 0 { format!("%{b:02x}") } else { (b as char).to_string() })
            .collect::<String>(),
    }
}

/// A token of the value: a number where the piece reads as one, else a string.
fn token(rng: &mut Rng, piece: &str) -> Value {
    if rng.below(3) > 0 {
        if let Ok(v) = serde_json::from_str::<Value>(piece) {
            if !v.is_string() && !v.is_object() && !v.is_array() {
                return v;
            }
        }
    }
    Value::String(piece.to_string())
}

/// `e` cut in pieces, laid out as neighbouring tokens of a value.
fn value(rng: &mut Rng, e: &str) -> Value {
    let chars: Vec<char> = e.chars().collect();
    let mut cuts: Vec<usize> = (0..rng.below(3)).map(|_| rng.below(chars.len() + 1)).collect();
    cuts.push(0);
    cuts.push(chars.len());
    cuts.sort_unstable();
    let mut pieces: Vec<String> = cuts.windows(2).map(|w| chars[w[0]..w[1]].iter().collect()).collect();
    for p in pieces.iter_mut() {
        if rng.below(4) == 0 {
            *p = format!("{}{p}", ["x", "1", " ", "-", "Ａ", "[redacted: s]", "e", "&#49"][rng.below(8)]);
        }
        if rng.below(4) == 0 {
            *p = format!("{p}{}", ["x", "1", " ", "-", "Ａ", "[redacted: s]", "e5", "&", "%3"][rng.below(9)]);
        }
    }
    if rng.below(2) == 0 {
        let mut m = Map::new();
        let mut it = pieces.into_iter();
        while let Some(k) = it.next() {
            let v = it.next().map_or(Value::Null, |p| token(rng, &p));
            m.insert(k, v);
        }
        Value::Object(m)
    } else {
        json!({ "v": pieces.iter().map(|p| token(rng, p)).collect::<Vec<_>>() })
    }
}

fn text_block(view: &str) -> Option<String> {
    let v: Value = serde_json::from_str(view).ok()?;
    Some(v["content"][0]["text"].as_str()?.to_string())
}

#[test]
fn the_skipped_text_block_holds_nothing_a_reading_would_catch() {
    let mut rng = Rng(0x5eed_0036_a001);
    let mut bad = Vec::new();
    let cases = 20_000;
    for _ in 0..cases {
        let s = secret(&mut rng);
        let e = encoded(&mut rng, &s);
        let extra = secret(&mut rng);
        let later = value(&mut rng, &e);
        let schema = rng.below(2) == 0;
        let tool = if schema { r#"{"name":"echo2","outputSchema":{"type":"object"}}"# } else { PLAIN };
        for format in [Format::Webmcp, Format::Mcp] {
            let mut r = redactor(format);
            r.redact(MARKED, &json!({ "s": s }).to_string(), None);
            if extra.len() > 1 {
                r.redact(MARKED, &json!({ "s": extra }).to_string(), None);
            }
            let o = r.redact(tool, &later.to_string(), None);
            let Some(text) = text_block(&o.agent_json) else { continue };
            let again = r.redact(PLAIN, &common::text_result(&text).to_string(), None);
            if text_block(&again.agent_json).as_deref() != Some(text.as_str()) {
                bad.push(format!("{s:?} as {e:?} in {later} -> {text:?} -> {}", again.agent_json));
            }
        }
    }
    assert!(bad.is_empty(), "{} of {cases}: {:#?}", bad.len(), &bad[..bad.len().min(8)]);
}

/// A string inside a taken value enters the set only at 4 characters or more (`20` or `ann`
/// would scrub every later such token), as the reader sees it: one padded to 4 with characters
/// a renderer shows as nothing entered in its folded form, a short value matched as a token in
/// every later result. The taken value itself, short as seen, is still caught.
#[test]
fn a_nested_string_short_as_seen_does_not_enter() {
    const UNSEEN: &[&str] =
        &["\u{200b}", "\u{200d}", "\u{fe0f}", "\u{feff}", "\u{ad}", "\u{2060}", "\u{e0041}", "\u{202e}"];
    const SHORT: &[&str] = &["20", "ann", "OK", "ＯＫ", "737", "Ｎｏ", "id"];
    let mut rng = Rng(0x5eed_0036_a002);
    let (mut bad, cases) = (Vec::new(), 600);
    for _ in 0..cases {
        let short = SHORT[rng.below(SHORT.len())];
        let mut padded: Vec<String> = short.chars().map(String::from).collect();
        while padded.len() < 4 + rng.below(3) {
            let at = rng.below(padded.len() + 1);
            padded.insert(at, UNSEEN[rng.below(UNSEEN.len())].to_string());
        }
        let padded = padded.concat();
        let seen: String = short
            .chars()
            .map(|c| if ('Ａ'..='ｚ').contains(&c) { char::from_u32(c as u32 - 0xFEE0).unwrap() } else { c })
            .collect();
        let text = format!("Total: {seen} of them");
        let mut r = redactor(Format::Webmcp);
        r.redact(MARKED, &json!({ "s": { "card": "4111111111111111", "note": padded } }).to_string(), None);
        let view = r.redact(PLAIN, &common::text_result(&text).to_string(), None).agent_json;
        if !view.contains(&text) {
            bad.push(format!("nested {padded:?}: {view}"));
        }
        let mut r = redactor(Format::Webmcp);
        r.redact(MARKED, &json!({ "s": padded }).to_string(), None);
        let view = r.redact(PLAIN, &common::text_result(&text).to_string(), None).agent_json;
        if view.contains(&text) {
            bad.push(format!("taken {padded:?} reached the agent as {seen:?}: {view}"));
        }
    }
    assert!(bad.is_empty(), "{} of {cases}: {:#?}", bad.len(), &bad[..bad.len().min(4)]);
}

/// A short known value stands alone before a character a renderer shows as nothing at the end
/// of a string or a text: the Hangul fillers are letters (`char::is_alphanumeric`), so `737`
/// and one read as a token of four, and the view that leaves unseen characters out keeps those
/// at the end of its text. In a structured value's string, a text block's text and a resource.
#[test]
fn a_short_value_before_an_unseen_letter_is_caught() {
    const FILLERS: &[char] = &['\u{115f}', '\u{1160}', '\u{3164}', '\u{ffa0}'];
    const UNSEEN: &[char] = &['\u{200b}', '\u{fe0f}', '\u{ad}', '\u{e0041}'];
    const SHORT: &[&str] = &["737", "42", "Ab9", "pin"];
    let mut rng = Rng(0x5eed_0036_a003);
    let (mut bad, cases) = (Vec::new(), 600);
    for _ in 0..cases {
        let short = SHORT[rng.below(SHORT.len())];
        let mut tail = String::from(FILLERS[rng.below(FILLERS.len())]);
        for _ in 0..rng.below(3) {
            let c = if rng.below(2) == 0 { FILLERS[rng.below(FILLERS.len())] } else { UNSEEN[rng.below(UNSEEN.len())] };
            tail.insert(0, c); // right after the value: an unseen one first ends its token
        }
        let shown = format!("{}{short}{tail}", ["", "CVV ", "code: "][rng.below(3)]);
        let later = match rng.below(3) {
            0 => json!({ "cvv": shown }),
            1 => common::text_result(&shown),
            _ => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": shown } }] }),
        };
        for view in common::later_views(json!(short), &later) {
            if view.contains(&format!("{short}{tail}")) {
                bad.push(format!("{shown:?}: {view}"));
            }
        }
    }
    assert!(bad.is_empty(), "{} of {}: {:#?}", bad.len(), 2 * cases, &bad[..bad.len().min(4)]);
}
