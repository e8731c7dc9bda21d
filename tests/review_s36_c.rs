//! Stop 36, helper C: core leak classes left open by review s34 (issue 8), each a seeded family
//! run through both engines, both formats and `check()`. Each test says what reached the agent
//! before its fix.

mod common;

use common::*;
use serde_json::json;

const SEED: u64 = 0x5eed_0036_c0de_000c;

/// A later result holding `text`: a text block, a value's string, a key, or a resource's text.
fn later_holding(text: &str, rng: &mut Rng) -> serde_json::Value {
    match rng.below(4) {
        0 => text_result(text),
        1 => json!({ "data": { "note": text } }),
        2 => json!({ "data": { text: 1 } }),
        _ => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": text } }] }),
    }
}

/// Every string and key of an agent view (JSON text).
fn leaves(out: &str) -> Vec<String> {
    let mut v = Vec::new();
    string_leaves(&serde_json::from_str(out).unwrap(), &mut v);
    v
}

/// Characters a renderer shows as nothing that review s34's unfolding did not read through:
/// bidi marks, embeddings and isolates, the Arabic letter mark, variation selectors (both
/// blocks), tag characters, the combining grapheme joiner, the Mongolian vowel separator and
/// free variation selectors, the invisible operators, the other default-ignorable format
/// characters, Hangul fillers.
const UNSEEN_NEW: &[char] = &[
    '\u{200E}',
    '\u{200F}',
    '\u{202A}',
    '\u{202B}',
    '\u{202C}',
    '\u{202D}',
    '\u{202E}',
    '\u{2066}',
    '\u{2067}',
    '\u{2068}',
    '\u{2069}',
    '\u{061C}',
    '\u{FE00}',
    '\u{FE0F}',
    '\u{FE07}',
    '\u{E0100}',
    '\u{E01EF}',
    '\u{E0000}',
    '\u{E0001}',
    '\u{E0041}',
    '\u{E007F}',
    '\u{034F}',
    '\u{180E}',
    '\u{180B}',
    '\u{180F}',
    '\u{2061}',
    '\u{2062}',
    '\u{2063}',
    '\u{2064}',
    '\u{2065}',
    '\u{206A}',
    '\u{206F}',
    '\u{115F}',
    '\u{1160}',
    '\u{3164}',
    '\u{FFA0}',
    '\u{17B4}',
    '\u{17B5}',
    '\u{1BCA0}',
    '\u{1BCA3}',
    '\u{1D173}',
    '\u{1D17A}',
    '\u{E0FFF}',
];
/// Those review s34 folded.
const UNSEEN_OLD: &[char] = &['\u{AD}', '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'];

fn unseen(c: char) -> bool {
    UNSEEN_NEW.contains(&c) || UNSEEN_OLD.contains(&c)
}

/// What a model reads of `s`: without the characters it does not see.
fn as_read(s: &str) -> String {
    s.chars().filter(|&c| !unseen(c)).collect()
}

/// `c` as a hostile tool writes it: as it is, or escaped as JSON (a surrogate pair past the
/// BMP), HTML or a URL writes it.
fn written(c: char, how: usize) -> String {
    match how {
        1 => {
            let mut units = [0u16; 2];
            c.encode_utf16(&mut units).iter().map(|u| format!("\\u{u:04x}")).collect()
        }
        2 => format!("&#x{:X};", c as u32),
        3 => c.to_string().bytes().map(|b| format!("%{b:02X}")).collect(),
        _ => c.to_string(),
    }
}

/// A known value split by characters a renderer shows as nothing (bidi marks and isolates,
/// variation selectors, tag characters, U+034F, U+180E, U+2061 to U+2064...), as they are or
/// escaped: a model reads straight through them. Before: 960 of 960 cases leaked (every
/// format, engine and `check()`), since `unfold` read only the soft hyphen, U+200B to U+200D,
/// U+2060 and U+FEFF.
#[test]
fn c1_a_known_value_split_by_bidi_marks_selectors_and_tags() {
    let mut rng = Rng(SEED ^ 1);
    let mut bad = Vec::new();
    let cases = 240;
    for _ in 0..cases {
        let value = match rng.below(3) {
            0 => rng.canary(),
            1 => format!("sk_live_{:016x}", rng.next()),
            _ => format!("pässwörd-{:x}", rng.next() >> 36),
        };
        let how = rng.below(4);
        let mut echo = String::new();
        for (i, c) in value.chars().enumerate() {
            if i > 0 && (rng.below(3) == 0 || i == 2) {
                for _ in 0..1 + rng.below(2) {
                    echo.push_str(&written(UNSEEN_NEW[rng.below(UNSEEN_NEW.len())], how));
                }
            }
            echo.push(c);
        }
        let text = format!("{}{echo}{}", ["", "Key: ", "<td>"][rng.below(3)], ["", " now", "</td>"][rng.below(3)]);
        let later = later_holding(&text, &mut rng);
        let read = |out: &str| shows(out, &echo) || leaves(out).iter().any(|s| as_read(s).contains(&value));
        caught_everywhere(&json!(value).to_string(), &later, &text, &read, &mut bad);
    }
    println!("c1: {cases} known values split by unseen characters, seed {:#x}", SEED ^ 1);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// A known value that itself holds characters a renderer shows as nothing, echoed without
/// them (or with others): what the user saw of it. Before: every case of a value holding one
/// leaked (the needle was the value verbatim).
#[test]
fn c2_a_known_value_holding_unseen_characters_echoed_without_them() {
    let mut rng = Rng(SEED ^ 2);
    let mut bad = Vec::new();
    let cases = 240;
    let all: Vec<char> = UNSEEN_NEW.iter().chain(UNSEEN_OLD).copied().collect();
    for _ in 0..cases {
        let plain = match rng.below(2) {
            0 => rng.canary(),
            _ => format!("tok-{:012x}", rng.next() >> 16),
        };
        let mut value = String::new();
        for (i, c) in plain.chars().enumerate() {
            if i > 0 && (rng.below(4) == 0 || i == 3) {
                value.push(all[rng.below(all.len())]);
            }
            value.push(c);
        }
        // Echoed without them, or with other unseen characters in other places.
        let echo = match rng.below(2) {
            0 => plain.clone(),
            _ => {
                let (a, b) = plain.split_at(1 + rng.below(plain.len() - 1));
                format!("{a}{}{b}", all[rng.below(all.len())])
            }
        };
        let text = format!("{}{echo}{}", ["", "token ", "\""][rng.below(3)], ["", ".", "\""][rng.below(3)]);
        let later = later_holding(&text, &mut rng);
        let read = |out: &str| shows(out, &echo) || leaves(out).iter().any(|s| as_read(s).contains(&plain));
        caught_everywhere(&json!(value).to_string(), &later, &text, &read, &mut bad);
    }
    println!("c2: {cases} known values holding unseen characters, seed {:#x}", SEED ^ 2);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// A value with characters past the BMP written as JavaScript's escapes of its UTF-16 code
/// units: `\u{D83D}\u{DE00}`, or one unit in braces and one as `\uDE00` (either order, any
/// case, leading zeros): JavaScript reads the pair as the character. Before: the units read
/// as two U+FFFD, and every case leaked.
#[test]
fn c3_a_surrogate_pair_across_two_javascript_escapes() {
    let mut rng = Rng(SEED ^ 3);
    let mut bad = Vec::new();
    let cases = 200;
    const WIDE: [char; 6] = ['😀', '🔑', '𝔘', '𠀋', '🇩', '\u{10FFFD}'];
    for _ in 0..cases {
        let mut chars: Vec<char> = format!("k{:06x}", rng.next() >> 40).chars().collect();
        for _ in 0..1 + rng.below(3) {
            chars.insert(1 + rng.below(chars.len() - 1), WIDE[rng.below(WIDE.len())]);
        }
        let value: String = chars.into_iter().collect();
        let unit = |u: u16, rng: &mut Rng| {
            let hex = format!("{u:x}");
            let hex = if rng.below(2) == 0 { hex.to_uppercase() } else { hex };
            match rng.below(3) {
                0 => format!("\\u{hex}"),
                _ => format!("\\u{{{}{hex}}}", "0".repeat(rng.below(3))),
            }
        };
        let mut echo = String::new();
        for c in value.chars() {
            if (c as u32) < 0x10000 {
                echo.push(c);
                continue;
            }
            let mut units = [0u16; 2];
            let units = c.encode_utf16(&mut units);
            let (a, b) = (unit(units[0], &mut rng), unit(units[1], &mut rng));
            if !a.contains('{') && !b.contains('{') {
                echo.push_str(&format!("\\u{{{:x}}}{b}", units[0]));
            } else {
                echo.push_str(&format!("{a}{b}"));
            }
        }
        let text = format!("{}{echo}{}", ["", "const k = \"", "'"][rng.below(3)], ["", "\";", "'"][rng.below(3)]);
        let later = later_holding(&text, &mut rng);
        let read = |out: &str| out.contains(&value) || shows(out, &echo);
        caught_everywhere(&json!(value).to_string(), &later, &text, &read, &mut bad);
    }
    println!("c3: {cases} surrogate pairs across two escapes, seed {:#x}", SEED ^ 3);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// `value` as Python's `repr` of its UTF-8 bytes writes it: `b'caf\xc3\xa9'` (ASCII as it is,
/// `\\`, `\'`, `\t`, `\n`, `\r` escaped, other bytes as `\xhh`).
fn python_bytes(value: &str) -> String {
    let mut out = String::from("b'");
    for b in value.bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            0x20..=0x7E => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}

/// A known value with non-ASCII characters as Python's bytes repr writes its UTF-8
/// (`b'J\xc3\xbcrgen'`), and some of its ASCII as JavaScript's `\x41` beside: a Python tool
/// logging bytes. Before: `\xc3\xbc` read as `Ã¼`, and every case leaked. And a value that
/// is JavaScript's reading of such bytes (`Ã©`) is still caught written so.
#[test]
fn c4_a_known_value_in_pythons_bytes_repr() {
    let mut rng = Rng(SEED ^ 4);
    let mut bad = Vec::new();
    let cases = 200;
    const WIDE: [&str; 8] = ["é", "ü", "ß", "€", "日本", "😀", "Ω", "ñ"];
    for i in 0..cases {
        let mut value = format!("p@ss-{:x}", rng.next() >> 40);
        for _ in 0..1 + rng.below(3) {
            let at = 1 + rng.below(value.len() - 1);
            if value.is_char_boundary(at) {
                value.insert_str(at, WIDE[rng.below(WIDE.len())]);
            }
        }
        if i % 10 == 9 {
            value = format!("Ã©{}", rng.canary()); // JavaScript's reading of `\xc3\xa9`
        }
        let mut echo = python_bytes(&value);
        if rng.below(2) == 0 {
            echo = echo.replacen("p@", "p\\x40", 1).replacen('s', "\\x73", 1);
        }
        let echo =
            if i % 10 == 9 {
                value
                    .chars()
                    .map(|c| {
                        if (c as u32) < 0x100 && !c.is_ascii() {
                            format!("\\x{:02x}", c as u32)
                        } else {
                            c.to_string()
                        }
                    })
                    .collect()
            } else {
                echo
            };
        let text = format!("{}{echo}{}", ["", "DEBUG body=", "value: "][rng.below(3)], ["", " ok", ")"][rng.below(3)]);
        let later = later_holding(&text, &mut rng);
        let read = |out: &str| out.contains(&value) || shows(out, &echo);
        caught_everywhere(&json!(value).to_string(), &later, &text, &read, &mut bad);
    }
    println!("c4: {cases} known values in Python's bytes repr, seed {:#x}", SEED ^ 4);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// A JWE in compact form (RFC 7516: a protected header with `alg` and `enc`, an encrypted key,
/// empty for direct encryption, an IV, a ciphertext, a tag), undeclared: an encrypted token
/// is still a bearer credential. Whatever stands around it. Before: no part of it was a
/// JSON payload, so the JWT detector let every case through.
#[test]
fn c5_a_jwe_in_compact_form() {
    let mut rng = Rng(SEED ^ 5);
    let mut bad = Vec::new();
    let cases = 300;
    let random = |n: usize, rng: &mut Rng| base64url(&(0..n).map(|_| rng.next() as u8).collect::<Vec<_>>());
    for _ in 0..cases {
        let (alg, key) = match rng.below(4) {
            0 => ("dir", 0),
            1 => ("RSA-OAEP-256", 256),
            2 => ("A256KW", 40),
            _ => ("ECDH-ES+A128KW", 24),
        };
        let enc = ["A256GCM", "A128CBC-HS256", "A128GCM"][rng.below(3)];
        let mut header = json!({ "alg": alg, "enc": enc });
        if rng.below(2) == 0 {
            header["kid"] = json!(rng.canary());
        }
        let (iv, tag) = if enc.contains("CBC") { (16, 16) } else { (12, 16) };
        let token = format!(
            "{}.{}.{}.{}.{}",
            base64url(header.to_string().as_bytes()),
            random(key, &mut rng),
            random(iv, &mut rng),
            random(1 + rng.below(300), &mut rng),
            random(tag, &mut rng)
        );
        let before = ["", "x.", "Bearer ", "token=", "\""][rng.below(5)];
        let after = [".", "", " now", ".json", "\""][rng.below(5)];
        let text = format!("see {before}{token}{after}");
        let raw = if rng.below(2) == 0 { text_result(&text) } else { json!({ "data": { "note": text } }) };
        bad.extend(both_engines(&json!({ "name": "plain" }), &raw.to_string(), &token));
    }
    println!("c5: {cases} JWEs, seed {:#x}", SEED ^ 5);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// A known value with characters past ASCII as Go's `strconv.QuoteToASCII` and Python's
/// `ascii()` write them: `\u00e9` in the BMP, `\U0001f511` past it (eight digits), ASCII as
/// it is. Before: `\U` was no escape the decoder knew, and every value with a character past
/// the BMP leaked.
#[test]
fn c6_a_known_value_as_go_and_python_quote_it_to_ascii() {
    let mut rng = Rng(SEED ^ 6);
    let mut bad = Vec::new();
    let cases = 200;
    const WIDE: [char; 6] = ['🔑', '😀', '𝔘', '𠀋', 'é', '€'];
    for _ in 0..cases {
        let mut chars: Vec<char> = format!("tok{:06x}", rng.next() >> 40).chars().collect();
        for _ in 0..1 + rng.below(3) {
            chars.insert(1 + rng.below(chars.len() - 1), WIDE[rng.below(WIDE.len())]);
        }
        if !chars.iter().any(|&c| (c as u32) > 0xFFFF) {
            chars.insert(2, '🔑');
        }
        let value: String = chars.into_iter().collect();
        let upper = rng.below(2) == 0;
        let echo: String = value
            .chars()
            .map(|c| match c as u32 {
                0..=0x7F => c.to_string(),
                n @ 0x80..=0xFFFF => format!("\\u{n:04x}"),
                n if upper => format!("\\U{n:08X}"),
                n => format!("\\U{n:08x}"),
            })
            .collect();
        let text = format!("{}{echo}{}", ["", "token=\"", "'"][rng.below(3)], ["", "\"", "'"][rng.below(3)]);
        let later = later_holding(&text, &mut rng);
        let read = |out: &str| out.contains(&value) || shows(out, &echo);
        caught_everywhere(&json!(value).to_string(), &later, &text, &read, &mut bad);
    }
    println!("c6: {cases} known values quoted to ASCII by Go or Python, seed {:#x}", SEED ^ 6);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}
