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

/// `name` with one of its characters written as an escape the decoded view reads: an HTML
/// numeric reference (`html`) or a percent-escape.
fn one_escaped(name: &str, html: bool, rng: &mut Rng) -> String {
    let at = rng.below(name.len());
    let b = name.as_bytes()[at];
    let escaped = match (html, rng.below(4)) {
        (true, 0) => format!("&#{b};"),
        (true, 1) => format!("&#x{b:x};"),
        (true, 2) => format!("&#X{b:02X};"),
        (true, _) => format!("&#00{b};"),
        (false, 0) => format!("%{b:02x}"),
        (false, _) => format!("%{b:02X}"),
    };
    format!("{}{escaped}{}", &name[..at], &name[at + 1..])
}

/// A claiming result written as text, HTML- or percent-escaped as a whole, with one character
/// of its place's name (`_meta`, `annotations`) escaped too, as an encoder that escapes more
/// than it must (or a hostile tool) writes it. Found by probing 72b9a6f: the claims reader
/// asked for `_meta` or `annotations` as written before it read the decoded views, so the
/// result reached the agent raw in both formats and both engines. Fails without the escapes in
/// `claims::names_a_place`.
#[test]
fn k2_a_place_named_through_an_escape_claims() {
    withheld_family("k2: place names escaped in escaped results", SEED ^ 2, 1_500, |canary, rng| {
        let html = rng.below(2) == 0;
        let place = ["_meta", "annotations"][rng.below(2)];
        let inner = json!({ "content": [{ "type": "text", "text": canary }], "@PLACE@": claim(rng) });
        let written = inner.to_string();
        let text = if html {
            let quote = ["&quot;", "&#34;", "&#x22;"][rng.below(3)];
            written.replace('"', quote)
        } else {
            let keep = |b: u8| b.is_ascii_alphanumeric() || b"_-.~@".contains(&b);
            written.bytes().map(|b| if keep(b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
        };
        let text = text.replace("@PLACE@", &one_escaped(place, html, rng));
        let text = format!("{}{text}", ["", "Relayed: ", "out="][rng.below(3)]);
        match rng.below(4) {
            0 => text_result(&text),
            1 => json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": text } }] }),
            2 => json!({ "data": { "log": text } }),
            _ => json!({ "content": [{ "type": "text", "text": text }], "isError": true }),
        }
    });
}

/// Texts the parser must read as JSON.parse does (or refuse, failing the result closed): keys
/// equal only after unescaping are duplicates, lone surrogates, BOMs, NULs and whitespace JSON
/// does not allow, numbers JSON does not allow or past any f64. Guard (found nothing): the
/// marked `s` never reaches the agent, and the engines agree.
#[test]
fn k3_the_parser_holds_at_its_edges() {
    let def = json!({ "name": "t", "outputSchema": { "type": "object", "properties": {
        "s": { "x-sensitive": true }, "a/b": { "x-sensitive": true }, "n": { "anyOf": [{ "type": "integer", "x-sensitive": true }, { "type": "string" }] } } } });
    let c = "CzSECRETQx";
    let cases = [
        format!(r#"{{"s":"{c}","\u0073":null}}"#),
        format!(r#"{{"\u0073":null,"s":"{c}"}}"#),
        format!(r#"{{"\u0073":"{c}"}}"#),
        format!(r#"{{"\u0073":"{c}","s":"{c}"}}"#),
        format!(r#"{{"a\/b":"{c}"}}"#),
        format!(r#"{{"a\u002fb":"{c}"}}"#),
        format!(r#"{{"a/b":"{c}","a\/b":1}}"#),
        format!("\u{feff}{{\"s\":\"{c}\"}}"),
        format!("{{\"s\":\"{c}\"}}\u{0}"),
        format!("{{\"s\":\"{c}\"}}\u{a0}"),
        format!("{{\"s\":\"{c}\"}}\u{c}"),
        format!("{{\"s\"\u{b}:\"{c}\"}}"),
        format!("{{\"x\":\"{c}\u{0}\"}}"),
        format!(r#"{{"x":"{c}","x":"{c}"}}"#),
        format!(r#"{{"s":"{c}\udfff","s\ud800":1}}"#),
        format!(r#"{{"\ud800":"{c}","\udc00":"{c}"}}"#),
        format!(r#"{{"s":"\ud83d{c}"}}"#),
        format!(r#"{{"s":"{c}"  ,  "t":01}}"#),
        format!(r#"{{"s":"{c}","t":1.}}"#),
        format!(r#"{{"s":"{c}","t":-}}"#),
        format!(r#"{{"s":"{c}","t":.5}}"#),
        format!(r#"{{"s":"{c}","t":+1}}"#),
        format!(r#"{{"s":"{c}","t":NaN}}"#),
        format!(r#"{{"s":"{c}","t":1e}}"#),
        format!(r#"{{"s":"{c}","t":{}}}"#, "9".repeat(5000)),
        format!(r#"{{"s":"{c}","t":1e{}}}"#, "9".repeat(5000)),
        format!(r#"{{"s":"{c}",}}"#),
        format!(r#"{{"s":"{c}"}}{{}}"#),
        format!(r#"{{"s":'{c}'}}"#),
        format!(r#"{{s:"{c}"}}"#),
        format!(r#"{{"s":"{c}"/*x*/}}"#),
        format!(r#"{{"s":"\x41{c}"}}"#),
        format!(r#"{{"s":"{c}\u00"}}"#),
        format!(r#"{{"s":"{c}\uD800\u"}}"#),
    ];
    let mut bad = Vec::new();
    for raw in &cases {
        bad.extend(both_engines(&def, raw, c));
    }
    println!("k3: {} texts", cases.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `s` as PHP's `htmlentities` (and Java's `escapeHtml4`) write it: the specials and every
/// Latin-1 character by name.
fn htmlentities(s: &str) -> String {
    const LATIN1: &str = "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";
    let names: Vec<&str> = LATIN1.split(' ').collect();
    s.chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\u{a0}'..='\u{ff}' => format!("&{};", names[c as usize - 0xA0]),
            c => c.to_string(),
        })
        .collect()
}

/// A known value with Latin-1 letters (a name, an address, a password), taken by an earlier
/// call, comes back written by PHP's `htmlentities` or Java's `escapeHtml4` (`J&uuml;rgen`):
/// it is scrubbed from a later result and caught by `check()`. Fails without the Latin-1 names
/// in `scrub::unescape::reference` (every case reached the agent: README listed the form as not
/// caught until review s30).
#[test]
fn k4_a_known_value_written_with_latin1_names_is_scrubbed() {
    let mut rng = Rng(SEED ^ 4);
    let (mut bad, cases) = (Vec::new(), 400);
    let letters: Vec<char> = "abcxyzABC019-_ ".chars().chain((0xC0..=0xFF).filter_map(char::from_u32)).collect();
    for _ in 0..cases {
        // At least one Latin-1 letter, so that the encoded form differs from the value.
        let mut value: String = (0..6 + rng.below(10)).map(|_| letters[rng.below(letters.len())]).collect();
        value.push(char::from_u32(0xC0 + rng.below(64) as u32).unwrap());
        let value = format!("Q{}Z", value.trim());
        let encoded = htmlentities(&value);
        echo_is_caught(&mut rng, &value, &encoded, &mut bad);
    }
    println!("k4: Latin-1 names: {cases} values, seed {:#x}", SEED ^ 4);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}

/// The sibling keywords of the integer leak: a number past f64 (or equal to a schema's number
/// only mathematically) meets every marked branch an `anyOf`, `oneOf`, `if`/`then` or
/// `dependentSchemas` offers it, whatever `minimum`, `exclusiveMaximum`, `multipleOf`, `enum`
/// or `const` say, and whatever the spelling of a count keyword (`2.0`, `1e400`). Guard (found
/// nothing): branches apply when their type fits, so no numeric keyword but `type` decides one.
#[test]
fn k5_numeric_keywords_decide_no_branch() {
    let mut rng = Rng(SEED ^ 5);
    let (mut bad, cases) = (Vec::new(), 600);
    for _ in 0..cases {
        let n = number_past_f64(&mut rng);
        let keyword = match rng.below(8) {
            0 => json!({ "minimum": number(&n) }),
            1 => json!({ "maximum": number("1e308") }),
            2 => json!({ "exclusiveMinimum": number("-1e400") }),
            3 => json!({ "multipleOf": number("1e-400") }),
            4 => json!({ "enum": [number("1e401"), number("-0"), number("1.0")] }),
            5 => json!({ "const": number(&n.replace('e', "0e").replace('E', "0E")) }),
            6 => json!({ "minLength": number("1e400"), "maxItems": number("2.0") }),
            _ => json!({ "type": ["integer", "number"], "minimum": number("0.0") }),
        };
        let mut marked = keyword.clone();
        marked["x-sensitive"] = json!(true);
        let schema = match rng.below(4) {
            0 => json!({ "anyOf": [marked, { "type": "string" }] }),
            1 => json!({ "oneOf": [{ "type": "string" }, marked] }),
            2 => json!({ "if": keyword, "then": { "x-sensitive": true } }),
            _ => json!({ "anyOf": [{ "type": "number", "x-sensitive": true }, keyword] }),
        };
        let def = json!({ "name": "t", "outputSchema": { "type": "object", "properties": { "n": schema } } });
        bad.extend(both_engines(&def, &format!(r#"{{"n":{n},"note":"ok"}}"#), &n));
    }
    println!("k5: numeric keywords: {cases} schemas, seed {:#x}", SEED ^ 5);
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad[..bad.len().min(6)].join("\n"));
}
