//! Review s34, helper K: a twelfth adversarial round against the Rust core. Each test states a
//! leak that must stay closed; each generated family prints its count and seed.

mod common;

use common::*;
use serde_json::json;

const SEED: u64 = 0x5eed_0034_c0de_000b;

/// Learns `value` (a JSON text) through `MARKED`, then redacts `later` (a result of `PLAIN`) in
/// both engines and both formats and checks a post of `text`: what shows `echo` or passes
/// `check()` is pushed onto `bad`.
fn echo_is_caught_everywhere(value: &str, later: &serde_json::Value, text: &str, echo: &str, bad: &mut Vec<String>) {
    caught_everywhere(value, later, text, &|out| out.contains(echo), bad);
}

/// A number text drawn from `rng`: integers past 2^53, tiny and huge values, trailing zeros,
/// exponents in either case, with or without a sign, leading zeros in the exponent.
pub fn number_text(rng: &mut Rng) -> String {
    let digits: String = (0..1 + rng.below(24))
        .map(|i| char::from(b'0' + (i == 0) as u8 + rng.below(9 + (i > 0) as usize) as u8))
        .collect();
    let zeros = "0".repeat(rng.below(6));
    let sign = ["", "-"][rng.below(2)];
    let exp = format!(
        "{}{}{}{}",
        ["e", "E"][rng.below(2)],
        ["", "+", "-"][rng.below(3)],
        ["", "0", "00"][rng.below(3)],
        rng.below(330)
    );
    let (a, b) = digits.split_at(1 + rng.below(digits.len()));
    let b = if b.is_empty() { "0" } else { b };
    match rng.below(6) {
        0 => format!("{sign}{digits}{zeros}"),
        1 => format!("{sign}0.{zeros}{digits}"),
        2 => format!("{sign}{a}.{b}{zeros}"),
        3 => format!("{sign}{a}.{b}{zeros}{}", exp),
        4 => format!("{sign}{digits}{}", exp),
        _ => format!("{sign}0.{zeros}{digits}{}", exp),
    }
}

/// A marked number echoed as JavaScript writes it once read (`String(Number(t))`,
/// `JSON.stringify(JSON.parse(t))`): past 2^53 its digits change (`12345678901234567890` is
/// `12345678901234567000`), below 1e-6 and from 1e21 it takes an exponent (`1.234567e-7`,
/// `1e+21`). Found by review s32: the number's other forms were known (its text, its plain value,
/// exponent spellings), not this one, so a JavaScript tool's echo reached the agent (both
/// formats, both engines) and passed `check()`. The first pairs are Node's own output; the rest
/// are drawn from a seed and written by an oracle (Rust's shortest digits, `{:e}`, laid out by
/// ECMAScript's rule). Fails without review s34's `known::js_number`.
#[test]
fn k1_a_marked_number_as_javascript_writes_it() {
    let mut pairs: Vec<(String, String)> = [
        ("12345678901234567890", "12345678901234567000"),
        ("0.0000001234567", "1.234567e-7"),
        ("123456789012345678901234", "1.2345678901234569e+23"),
        ("-98765432109876543210.5", "-98765432109876540000"),
        ("0.00000099", "9.9e-7"),
        ("9007199254740993", "9007199254740992"),
        ("1E+21", "1e+21"),
        ("4.5e-0007", "4.5e-7"),
        ("777777777777777777777.0", "777777777777777800000"),
        // Python's repr of the same double: that plain value with an exponent.
        ("12345678901234567890", "1.2345678901234567e+19"),
    ]
    .map(|(n, js)| (n.to_string(), js.to_string()))
    .into();
    let mut rng = Rng(SEED ^ 1);
    while pairs.len() < 300 {
        let n = number_text(&mut rng);
        let Some(js) = oracle::js(&n) else { continue };
        // Only forms of four characters and more are known inside a value: `1.5` would scrub
        // every later `1.5`.
        if js != n && js.len() >= 4 {
            pairs.push((n, js));
        }
    }
    let mut bad = Vec::new();
    for (n, js) in &pairs {
        let text = format!("balance {js} due");
        let later = match rng.below(3) {
            0 => text_result(&text),
            1 => json!({ "data": { "note": text } }),
            _ => serde_json::from_str(&format!(r#"{{ "data": {{ "amount": {js} }} }}"#)).unwrap(),
        };
        echo_is_caught_everywhere(n, &later, &text, js, &mut bad);
    }
    println!("k1: {} marked numbers as JavaScript writes them, seed {:#x}", pairs.len(), SEED ^ 1);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// An oracle of ECMAScript's `Number::toString` for finite numbers, from Rust's shortest digits
/// (`format!("{:e}")`), laid out by comparing the value against 1e-6 and 1e21.
pub mod oracle {
    pub fn js(text: &str) -> Option<String> {
        let f: f64 = text.parse().ok().filter(|f: &f64| f.is_finite())?;
        if f == 0.0 {
            return Some("0".into());
        }
        if (1e-6..1e21).contains(&f.abs()) {
            return Some(format!("{f}")); // Rust's Display: shortest digits, never an exponent
        }
        let e = format!("{f:e}");
        Some(if e.contains("e-") { e } else { e.replacen('e', "e+", 1) })
    }
}

/// What a model reads of `s`: without soft hyphens and zero-width characters, fullwidth ASCII
/// as ASCII.
fn as_read(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '\u{AD}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}'))
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap(),
            c => c,
        })
        .collect()
}

/// `value` as a hostile tool hides it from a matcher and not from a model: characters a reader
/// does not see (a soft hyphen, U+200B to U+200D, U+2060, U+FEFF) between its characters, some
/// of them fullwidth, the unseen ones written as is or escaped as JSON, HTML or a URL writes them.
fn hidden(value: &str, rng: &mut Rng) -> String {
    const UNSEEN: [char; 6] = ['\u{AD}', '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'];
    let how = rng.below(4);
    let unseen = |c: char| match how {
        1 => format!("\\u{:04x}", c as u32),
        2 => format!("&#{};", c as u32),
        3 => c.to_string().bytes().map(|b| format!("%{b:02X}")).collect(),
        _ => c.to_string(),
    };
    let (mut out, mut changed) = (String::new(), false);
    while !changed {
        out.clear();
        for (i, c) in value.chars().enumerate() {
            if i > 0 && rng.below(3) == 0 {
                for _ in 0..1 + rng.below(2) {
                    out.push_str(&unseen(UNSEEN[rng.below(UNSEEN.len())]));
                }
                changed = true;
            }
            if how == 0 && c.is_ascii_graphic() && rng.below(4) == 0 {
                out.push(char::from_u32(c as u32 + 0xFEE0).unwrap());
                changed = true;
            } else {
                out.push(c);
            }
        }
    }
    out
}

/// A known value split by characters a model does not see, or written in fullwidth ASCII: a
/// model reads straight through both, a matcher did not (review s34: reached the agent in both
/// engines and formats, and passed `check()`). The unseen characters are also written as JSON,
/// HTML and URLs escape them (`\u200b`, `&#173;`, `%C2%AD`): one chained decoding more. Fails
/// without review s34's `unescape::unfold`.
#[test]
fn k2_a_known_value_split_by_unseen_characters_or_in_fullwidth() {
    let mut rng = Rng(SEED ^ 2);
    let mut bad = Vec::new();
    let cases = 240;
    for _ in 0..cases {
        let value = match rng.below(3) {
            0 => rng.canary(),
            1 => format!("sk_live_{:016x}", rng.next()),
            _ => format!("ghp-{:x}/{:x}", rng.next() >> 20, rng.next() >> 40),
        };
        let echo = hidden(&value, &mut rng);
        let text = format!("{}{echo}{}", ["", "Key: ", "<td>"][rng.below(3)], ["", " now", "</td>"][rng.below(3)]);
        let later = match rng.below(4) {
            0 => text_result(&text),
            1 => json!({ "data": { "note": text } }),
            2 => json!({ "data": { text.clone(): 1 } }),
            _ => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": text } }] }),
        };
        let read = |out: &str| {
            as_read(out).contains(&value) || shows(out, &echo) || {
                let mut leaves = Vec::new();
                string_leaves(&serde_json::from_str(out).unwrap(), &mut leaves);
                leaves.iter().any(|s| shows(&as_read(s), &value) || s.contains(&echo))
            }
        };
        caught_everywhere(&json!(value).to_string(), &later, &text, &read, &mut bad);
    }
    println!("k2: {cases} known values split by unseen characters or in fullwidth, seed {:#x}", SEED ^ 2);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// A value of 3 characters standing as a token is read unfolded too: `CVV ７３７`,
/// `CVV 7\u{AD}37`.
#[test]
fn k2_a_short_value_standing_as_a_token_unfolded() {
    let mut bad = Vec::new();
    for echo in ["CVV ７３７", "CVV 7\u{AD}37", "CVV\u{200B} 737", "CVV:７\u{FEFF}3７."] {
        let read = |out: &str| {
            let mut leaves = Vec::new();
            string_leaves(&serde_json::from_str(out).unwrap(), &mut leaves);
            leaves.iter().any(|s| as_read(s).contains("737"))
        };
        caught_everywhere("\"737\"", &text_result(echo), echo, &read, &mut bad);
    }
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad.join("\n"));
}

/// A known value written with JavaScript's escapes, `\x41` and `\u{41}` (any number of leading
/// zeros, either case), some characters of it or all: a JavaScript tool or page writes them,
/// a model reads them as the characters (review s34: reached the agent in both engines and
/// formats, and passed `check()`). Fails without review s34's `\x` and `\u{}` in
/// `unescape::escape`.
#[test]
fn k3_a_known_value_in_javascript_escapes() {
    let mut rng = Rng(SEED ^ 3);
    let mut bad = Vec::new();
    let cases = 200;
    for _ in 0..cases {
        let value = match rng.below(3) {
            0 => rng.canary(),
            1 => format!("sk_live_{:016x}", rng.next()),
            _ => format!("p@ss-{:x}é{:x}", rng.next() >> 40, rng.next() >> 44),
        };
        let all = rng.below(3) == 0;
        let mut echo = String::new();
        for c in value.chars() {
            if !all && rng.below(3) > 0 {
                echo.push(c);
                continue;
            }
            let hex = format!("{:x}", c as u32);
            let hex = if rng.below(2) == 0 { hex.to_uppercase() } else { hex };
            match rng.below(2) {
                0 if (c as u32) < 0x100 => echo.push_str(&format!("\\x{hex:0>2}")),
                _ => echo.push_str(&format!("\\u{{{}{hex}}}", "0".repeat(rng.below(4)))),
            }
        }
        if echo == value {
            continue;
        }
        let text = format!("{}{echo}{}", ["", "const key = \"", "'"][rng.below(3)], ["", "\";", "'"][rng.below(3)]);
        let later = match rng.below(3) {
            0 => text_result(&text),
            1 => json!({ "data": { "note": text } }),
            _ => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": text } }] }),
        };
        let read = |out: &str| out.contains(&value) || shows(out, &echo);
        caught_everywhere(&json!(value).to_string(), &later, &text, &read, &mut bad);
    }
    println!("k3: {cases} known values in JavaScript escapes, seed {:#x}", SEED ^ 3);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// A JWT (undeclared: no tool marks it) with whatever a text puts around it: a dot and a word
/// (`….sig.json`, a sentence's `.Thanks`), a dot before it (`session.eyJ…`), another JWT
/// after a dot. The detector took three parts followed by a fourth for something else and a
/// JWT after a dot for part of one, so these reached the agent (review s34). A JSON payload
/// makes three parts a JWT wherever they stand (a JWE's second part is an encrypted key).
/// Fails without review s34's change to `detect::jwt`.
#[test]
fn k4_a_jwt_whatever_stands_around_it() {
    let mut rng = Rng(SEED ^ 4);
    let mut bad = Vec::new();
    let cases = 300;
    let jwt = |rng: &mut Rng| {
        let alg = ["HS256", "RS256", "ES384", "none"][rng.below(4)];
        let header = base64url(json!({ "alg": alg, "typ": "JWT" }).to_string().as_bytes());
        let payload = base64url(json!({ "sub": rng.canary(), "iat": rng.below(1 << 30) }).to_string().as_bytes());
        let sig: Vec<u8> = (0..16 + rng.below(48)).map(|_| rng.next() as u8).collect();
        format!("{header}.{payload}.{}", base64url(&sig))
    };
    for _ in 0..cases {
        let token = jwt(&mut rng);
        let before = ["", "x.", "session.", "a.b.", "Bearer ", "token="][rng.below(6)];
        let after = match rng.below(5) {
            0 => ".json".to_string(),
            1 => ".Thanks".to_string(),
            2 => ".eyJhbGciOiJIUzI1NiJ9".to_string(),
            3 => format!(".{}", jwt(&mut rng)),
            _ => ".".to_string(),
        };
        let text = format!("see {before}{token}{after} now");
        let raw = if rng.below(2) == 0 { text_result(&text) } else { json!({ "data": { "note": text } }) };
        bad.extend(both_engines(&json!({ "name": "plain" }), &raw.to_string(), &token));
    }
    println!("k4: {cases} JWTs with a word around them, seed {:#x}", SEED ^ 4);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// A CallToolResult whose text block is its `structuredContent` written again, but not as the
/// engine writes it: other whitespace, another key order, escapes of the value's letters, a
/// number in another form, a value that is a key. Whether or not an engine takes the text for
/// the duplicate, the marked value must not reach the agent, and the engines must agree
/// (review s34, attacking stop 32's streaming CallToolResult reading from the leak side).
#[test]
fn k5_a_duplicate_text_written_otherwise() {
    let mut rng = Rng(SEED ^ 5);
    let mut bad = Vec::new();
    let cases = 300;
    let def = json!({ "name": "t", "outputSchema": { "type": "object", "properties": {
        "s": { "type": "string", "x-sensitive": true }, "n": { "type": "number", "x-sensitive": true },
        "note": { "type": "string" } } } });
    for _ in 0..cases {
        let canary = rng.canary();
        let number = ["12345678901234567890", "1.50", "1e3", "0.0000001234567", "4111111111111111"][rng.below(5)];
        let structured = format!(r#"{{"s":"{canary}","n":{number},"note":"ok"}}"#);
        let escaped: String = canary
            .chars()
            .map(|c| if rng.below(3) == 0 { format!("\\u{:04x}", c as u32) } else { c.to_string() })
            .collect();
        let other_number =
            ["1.2345678901234567e19", "1.5", "1000", "1.234567e-7", "4.111111111111111e15"][rng.below(5)];
        let space = ["", " ", "\n  ", "\t"][rng.below(4)];
        let (s, n) = (format!(r#""s":{space}"{escaped}""#), format!(r#""n":{space}{other_number}"#));
        let note = format!(r#""note":{space}"ok""#);
        let body = match rng.below(4) {
            0 => format!("{{{s},{space}{n},{note}}}"),
            1 => format!("{{{note},{n},{s}}}"),
            2 => format!("{{{s},{n},{note},{s}}}"), // a repeated key
            _ => format!(r#"{{"{escaped}":1,{n},{note}}}"#),
        };
        let raw =
            format!(r#"{{"content":[{{"type":"text","text":{}}}],"structuredContent":{structured}}}"#, json!(body));
        bad.extend(both_engines(&def, &raw, &canary));
        // The value's escaped form, and the number's other form where it is long enough to be
        // known inside text (`1.5` is not: it would scrub every later `1.5`).
        for echo in [&escaped, &other_number.to_string()] {
            if echo != &canary && echo.len() >= 4 {
                bad.extend(both_engines(&def, &raw, echo).into_iter().filter(|x| x.contains("leaked")));
            }
        }
    }
    println!("k5: {cases} duplicate texts written otherwise, seed {:#x}", SEED ^ 5);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// A claiming result written as text through a chain of encoders, its `_meta` stringified
/// once or twice on the way (as bridges write nested objects), and JavaScript's `\x22` and
/// `\u{22}` among the encoders (review s34: read with JSON's since this review). Wherever
/// the text stands, the result must not reach the agent raw.
#[test]
fn k6_claims_through_stringified_places_and_javascript_escapes() {
    let js = |s: &str, rng: &mut Rng| -> String {
        let braces = rng.below(2) == 0;
        s.chars()
            .map(|c| match c {
                '\\' => "\\\\".to_string(),
                '"' | '{' | '}' | ':' | '_' if braces => format!("\\u{{{:x}}}", c as u32),
                '"' | '{' | '}' | ':' | '_' => format!("\\x{:02x}", c as u32),
                c => c.to_string(),
            })
            .collect()
    };
    withheld_family("k6: claims through stringified places and JavaScript escapes", SEED ^ 6, 600, |canary, rng| {
        let mut meta = claim(rng);
        for _ in 0..rng.below(3) {
            meta = json!(meta.to_string());
        }
        let inner = json!({ "content": [{ "type": "text", "text": canary }], "_meta": meta });
        let mut text = inner.to_string();
        for _ in 0..1 + rng.below(2) {
            text = if rng.below(3) == 0 { js(&text, rng) } else { encode(&text, rng.below(ENCODERS)) };
        }
        match rng.below(3) {
            0 => text_result(&text),
            1 => json!({ "data": { "log": text } }),
            _ => json!({ "content": [{ "type": "text", "text": format!("Relayed: {text}") }] }),
        }
    });
}
