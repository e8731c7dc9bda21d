//! Review s37 (helper B): the settled reading of a scrubbed value's text block
//! (`Needles::scrub_json_settled`) held against the full reading (`Needles::scrub_json`) on
//! seeded values built to put a known value in the views it skips: strings ending in escapes
//! joined to the quote, keys, values split across adjacent strings, surrogate escapes, control
//! characters the writer escapes, and known values holding backslashes and quotes' neighbours.

use super::Needles;
use serde_json::{Map, Value};

/// xorshift64*: the cases are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// Characters of known values: no JSON seam byte (so the text can be settled), but backslashes,
/// escape letters and digits, reference and percent bytes, unseen and fullwidth characters.
const VALUE_CHARS: &[&str] = &[
    "\\", "u", "x", "0", "5", "c", "C", "a", "&", "#", "%", ";", "'", "n", "t", "\u{AD}", "\u{200B}", "Ａ", "é", "9",
    "2", "b", "s", "+", " ",
];

/// What a string's piece may end or start with: escapes an escape decoded joins to the quote.
const JOINED: &[&str] = &[
    "",
    "\\",
    "\\\\",
    "&#92;",
    "&#92",
    "%5C",
    "%5c",
    "&bsol;",
    "\\u00",
    "\\u005",
    "\\x",
    "\\x5",
    "\u{AD}",
    "\u{200B}",
    "&#x5c;",
    "%255C",
    "&amp;#92;",
    "\\ud83d",
    "\\ude00",
    "&#xd83d;",
    "\u{1}",
    "\n",
    "\u{1f}",
    "\u{7f}",
    "&",
    "%",
    "&#",
    "\\\"",
    "＼",
];

/// A known value written in one of the forms the matcher reads (some left as they are).
fn encoded(rng: &mut Rng, v: &str) -> String {
    let mut out = String::new();
    for c in v.chars() {
        out.push_str(&match rng.below(9) {
            0 => format!("\\u{:04x}", c as u32),
            1 => format!("&#{};", c as u32),
            2 if c.is_ascii() => format!("%{:02X}", c as u32),
            3 if c == '\\' => "\\\\".to_string(),
            4 => format!("&#x{:x}", c as u32),
            _ => c.to_string(),
        });
    }
    out
}

/// A string of the result: pieces of known values (whole, encoded, or split where the next
/// string of the value goes on), with joined escapes around them.
fn string(rng: &mut Rng, values: &[String]) -> String {
    let mut s = String::new();
    for _ in 0..1 + rng.below(3) {
        s.push_str(rng.pick(JOINED));
        let v = &values[rng.below(values.len())];
        let chars: Vec<char> = v.chars().collect();
        let (a, b) = match rng.below(3) {
            0 => (0, chars.len()),
            1 => (0, rng.below(chars.len() + 1)),
            _ => (rng.below(chars.len() + 1), chars.len()),
        };
        let piece: String = chars[a..b].iter().collect();
        s.push_str(&if rng.below(2) == 0 { encoded(rng, &piece) } else { piece });
        s.push_str(rng.pick(JOINED));
    }
    s
}

fn value(rng: &mut Rng, values: &[String], depth: usize) -> Value {
    match if depth == 0 { 0 } else { rng.below(4) } {
        0 | 1 => Value::String(string(rng, values)),
        2 => Value::Array((0..1 + rng.below(4)).map(|_| value(rng, values, depth - 1)).collect()),
        _ => {
            let mut map = Map::new();
            for _ in 0..1 + rng.below(3) {
                map.insert(string(rng, values), value(rng, values, depth - 1));
            }
            Value::Object(map)
        }
    }
}

/// `scrub_json_settled` finds what `scrub_json` finds on every settled text with backslashes.
#[test]
fn a_settled_text_reads_as_every_view_on_seeded_values() {
    let (mut cases, mut settled, mut found, mut differ) = (0u32, 0u32, 0u32, Vec::new());
    for seed in 1..=3000u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let values: Vec<String> = (0..1 + rng.below(3))
            .map(|_| (0..4 + rng.below(6)).map(|_| rng.pick(VALUE_CHARS)).collect::<String>())
            .collect();
        let mut n = Needles::default();
        for (i, v) in values.iter().enumerate() {
            n.add(v, ["token", "pin", "card"][i % 3]);
        }
        let mut v = value(&mut rng, &values, 3);
        let unsettled = n.unsettled();
        n.scrub_value(&mut v, &mut String::new(), &mut Vec::new());
        let text = crate::json::write::text(&v);
        cases += 1;
        if !(n.settled(unsettled) && text.contains('\\')) {
            continue;
        }
        settled += 1;
        let (all, part) = (n.scrub_json(&text), n.scrub_json_settled(&text));
        found += u32::from(all.is_some());
        if all != part {
            differ.push(format!("{values:?} {text:?}: {all:?} / {part:?}"));
        }
    }
    eprintln!(
        "{cases} cases, {settled} settled with backslashes, {found} finding something, {} read otherwise",
        differ.len()
    );
    assert!(settled * 4 >= cases, "settled in {settled} of {cases}");
    // Where the text finds what its strings alone did not (a percent-escape decoded first
    // joins a writer's `\\`): reading fewer views there is what this test would catch.
    assert!(found >= 10, "found something in {found} of {settled}");
    assert!(differ.is_empty(), "{} of {settled}:\n{}", differ.len(), differ[..differ.len().min(5)].join("\n"));
}

/// The JSON writer's long strings (`json::write`: past 64 bytes, through a 512-byte buffer
/// flushed before a run or an escape would overflow it, runs over 32 bytes copied straight)
/// are written as serde_json writes them: runs of every width of character at lengths around
/// 32, followed by every escape class, in strings whose lengths cross 64 and 512 bytes.
#[test]
fn long_strings_are_written_as_serde_json_writes_them() {
    const RUN: &[&str] = &["a", "é", "€", "😀", "\u{7f}", "\u{2028}"];
    const ESCAPED: &[&str] = &["\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{0}", "\u{1}", "\u{1f}"];
    let mut rng = Rng(0x5EED_0037_B000_0001);
    let mut checked = 0u32;
    for target in (56..72).chain(500..530).chain(1010..1040) {
        for _ in 0..20 {
            let mut s = String::new();
            while s.len() < target {
                let run = [0, 1, 5, 26, 31, 32, 33, 34, 40, 64, 65][rng.below(11)];
                let c = rng.pick(RUN);
                for _ in 0..run {
                    s.push_str(c);
                }
                for _ in 0..1 + rng.below(3) {
                    s.push_str(rng.pick(ESCAPED));
                }
            }
            let mut out = String::new();
            crate::json::write::string(&mut out, &s);
            assert_eq!(out, serde_json::to_string(&s).unwrap(), "{s:?}");
            assert_eq!(crate::json::write::string_len(&s), out.len(), "{s:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 76 * 20);
}
