//! A direct JSON writer: the records that go back to JS (small, fixed shapes read once by
//! `JSON.parse`; by hand instead of serde derives keeps ~3 KiB gzip of monomorphized serializer
//! code out of the module), and what a redaction adds to the agent view (stubs, the notice, the
//! report), written once as text instead of built as `Value`s and serialized (measured: about
//! a third of a dense redaction went there).

use serde_json::Value;

/// An object being written into `out`; members are separated as they come.
pub struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

/// Writes one JSON object, its members written by `members`.
pub fn object(out: &mut String, members: impl FnOnce(&mut Obj)) {
    out.push('{');
    members(&mut Obj { out, first: true });
    out.push('}');
}

/// Writes a JSON array of `items`, each written by `item`.
pub fn array<T>(out: &mut String, items: impl IntoIterator<Item = T>, mut item: impl FnMut(&mut String, T)) {
    out.push('[');
    for (i, t) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item(out, t);
    }
    out.push(']');
}

/// A JSON string literal, escaped byte for byte as serde_json escapes it (the agent view mixes
/// this writer's text with serde_json's, and a second pass compares them): `\"`, `\\`, the
/// short forms `\b \f \n \r \t`, other control characters as `\u00xx`. Runs of plain bytes
/// are copied whole: the text is scanned once.
pub fn string(out: &mut String, s: &str) {
    // No reserve for `s` here: growing by doubling alone leaves the buffer at a power of two,
    // and a reserve of one long string's length made it grow twice past that (measured: wasm
    // memory peak of a dense 1 MB redaction).
    out.push('"');
    body(out, s);
    out.push('"');
}

/// The length of [`string`]'s literal of `s`, its quotes included, without writing it: a
/// text that holds a long string reserves this, so that it never grows by doubling past what
/// it needs (the agent view of a dense 1 MB result, its JSON text block written escaped, grew
/// from 1.85 MB to a 3.7 MB buffer for 1.95 MB of text).
pub fn string_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let (mut len, mut i) = (bytes.len() + 2, next_escape(bytes, 0));
    while i < bytes.len() {
        // A short form, or `\u00xx`.
        len += if escape(bytes[i]).is_empty() { 5 } else { 1 };
        i = next_escape(bytes, i + 1);
    }
    len
}

/// The inside of [`string`]'s literal. Every write is one `push_str`: at opt-level "z"
/// `String::push` is not inlined, and each char it pushes is a call, a reserve and a UTF-8
/// encoding (measured: a fifth of the time `string` took on a result of escaped JSON text).
fn body(out: &mut String, s: &str) {
    if s.len() > LONG {
        return long_body(out, s);
    }
    let bytes = s.as_bytes();
    let (mut start, mut i) = (0, next_escape(bytes, 0));
    if i == bytes.len() {
        return out.push_str(s); // most: nothing to escape, and no range of `s` to take
    }
    while i < bytes.len() {
        // Every escaped byte is ASCII, so `i` and `i + 1` are character boundaries.
        out.push_str(&s[start..i]);
        let b = bytes[i];
        match escape(b) {
            "" => flush(out, &unicode_escape(b)),
            short => out.push_str(short),
        }
        start = i + 1;
        i = next_escape(bytes, start);
    }
    out.push_str(&s[start..]);
}

/// Past this many bytes, [`body`] goes through [`long_body`].
const LONG: usize = 64;

/// [`body`] of a long string: its runs between escapes found eight bytes at a time, and the
/// short runs and the escapes gathered in a buffer on the stack, written out a few hundred bytes
/// at a time. JSON text written as a string (the text block that stands for a structured value)
/// has a quote every few bytes, and the two `push_str` calls per quote were most of what writing
/// it cost (callgrind, stop 37: 40 instructions a byte of a dense result's text block); a long
/// run (a deep pointer, prose) is still copied whole. A run ends before an escaped byte, which
/// is ASCII, so the buffer holds whole characters only.
fn long_body(out: &mut String, s: &str) {
    const ROOM: usize = 512;
    /// Longer runs are copied straight from `s`.
    const SHORT_RUN: usize = 32;
    let (bytes, mut buf, mut n, mut i) = (s.as_bytes(), [0u8; ROOM], 0, 0);
    // Through indexes only: at opt-level "z" a range of a slice, a copy between slices and a
    // slice iterator's step are each a call.
    loop {
        let end = next_escape(bytes, i);
        if end - i > SHORT_RUN || n + (end - i) + 6 > ROOM {
            flush(out, &buf[..n]);
            n = 0;
            out.push_str(&s[i..end]);
        } else {
            while i < end {
                buf[n] = bytes[i];
                (n, i) = (n + 1, i + 1);
            }
        }
        if end == bytes.len() {
            break;
        }
        let b = bytes[end];
        let unicode = unicode_escape(b);
        let e = match escape(b) {
            "" => &unicode[..],
            short => short.as_bytes(),
        };
        let mut k = 0;
        while k < e.len() {
            buf[n] = e[k];
            (n, k) = (n + 1, k + 1);
        }
        i = end + 1;
    }
    flush(out, &buf[..n]);
}

/// Writes out what [`body`] gathered: whole characters only, so always UTF-8.
fn flush(out: &mut String, piece: &[u8]) {
    let Ok(piece) = std::str::from_utf8(piece) else { unreachable!("whole characters are written out") };
    out.push_str(piece);
}

/// `\u00xx` for a control character without a short form.
fn unicode_escape(b: u8) -> [u8; 6] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    [b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]
}

/// Does a literal escape this byte? (`"`, `\`, and the control characters.)
#[inline(always)]
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Where the first byte from `i` on that a literal escapes is (`bytes.len()` for none): eight
/// bytes at a time past those that need no escape (most of a long text), and straight to the
/// one that does. An indexed loop: at opt-level "z" the slice iterator's steps are not inlined
/// (perf).
fn next_escape(bytes: &[u8], mut i: usize) -> usize {
    while let Some(word) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let k = super::scan::first_special(u64::from_le_bytes(*word));
        if k < 8 {
            return i + k;
        }
        i += 8;
    }
    // The last few bytes one at a time, without asking for a word again at each (most strings
    // written are short: keys, labels, handles, pointer tokens).
    while i < bytes.len() {
        if needs_escape(bytes[i]) {
            return i;
        }
        i += 1;
    }
    bytes.len()
}

/// How a byte [`next_escape`] stops at is written: its short form, or "" for `\u00xx` (six
/// bytes).
fn escape(b: u8) -> &'static str {
    match b {
        0x08 => "\\b",
        0x0c => "\\f",
        b'\n' => "\\n",
        b'\r' => "\\r",
        b'\t' => "\\t",
        b'"' => "\\\"",
        b'\\' => "\\\\",
        _ => "",
    }
}

/// Any JSON value, written as `serde_json::to_string` writes it (compact, keys in their
/// order, numbers as they were read): byte for byte, without serde's serializer in between.
pub fn value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(n.as_str()),
        Value::String(s) => string(out, s),
        Value::Array(items) => array(out, items, value),
        Value::Object(map) => members(out, map.iter()),
    }
}

/// The bytes [`value`] writes for `v` when none of its strings needs an escape (fewer than it
/// writes otherwise): what a record that holds many values reserves for them.
pub fn size_hint(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => n.as_str().len(),
        Value::String(s) => s.len() + 2,
        // A comma after each, but for the last: one for the brackets of an empty one.
        Value::Array(items) => items.iter().map(|v| size_hint(v) + 1).sum::<usize>().max(1) + 1,
        Value::Object(map) => map.iter().map(|(k, v)| k.len() + 4 + size_hint(v)).sum::<usize>().max(1) + 1,
    }
}

/// `v` as JSON text, as `v.to_string()` writes it: the module's one JSON writer (serde's
/// serializer, its float and integer printing and its error formatting stay out of it).
pub fn text(v: &Value) -> String {
    let mut out = String::new();
    value(&mut out, v);
    out
}

/// A `Value::Object` of `members` in their order: `json!` without serde's `to_value`, whose
/// every interpolation is a serializer instantiated for its type and an `unwrap` that formats
/// serde_json's errors (measured: the module's serde_json serializer code came from there).
pub fn obj(members: Vec<(&str, Value)>) -> Value {
    Value::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// A JSON object of already-held members, values written by [`value`].
pub fn members<'a>(out: &mut String, items: impl IntoIterator<Item = (&'a String, &'a Value)>) {
    object(out, |o| {
        for (k, v) in items {
            value(o.key(k), v);
        }
    });
}

impl Obj<'_> {
    /// Starts a member; its value is written next, into the returned text.
    pub fn key(&mut self, key: &str) -> &mut String {
        self.open(key);
        self.out.push_str("\":");
        self.out
    }

    /// A member's key up to its closing quote, the comma before it included.
    fn open(&mut self, key: &str) {
        // The punctuation around a key in two copies, not four pushes (see `body`).
        self.out.push_str(if self.first { "\"" } else { ",\"" });
        self.first = false;
        body(self.out, key);
    }

    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        // The key's closing quote, the colon and the value's opening quote in one copy: the
        // side record and the report write several such members per taken value.
        self.open(key);
        self.out.push_str("\":\"");
        body(self.out, value);
        self.out.push('"');
        self
    }

    pub fn opt_str(&mut self, key: &str, value: Option<&str>) -> &mut Self {
        if let Some(v) = value {
            self.str(key, v);
        }
        self
    }

    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key).push_str(if value { "true" } else { "false" });
        self
    }

    /// A number or other literal already in JSON form.
    pub fn raw(&mut self, key: &str, json: &str) -> &mut Self {
        self.key(key).push_str(json);
        self
    }

    pub fn value(&mut self, key: &str, v: &Value) -> &mut Self {
        value(self.key(key), v);
        self
    }

    pub fn strs<S: AsRef<str>>(&mut self, key: &str, items: &[S]) -> &mut Self {
        array(self.key(key), items, |out, s| string(out, s.as_ref()));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_it_writes_reads_back_as_the_same_data() {
        let tricky = "q\"b\\s/\n\r\t\u{1}\u{1f}é😀\u{2028}";
        let mut out = String::new();
        object(&mut out, |o| {
            o.str("s", tricky).opt_str("none", None).bool("t", true).raw("n", "12.5").strs("l", &["a", tricky]);
            o.value("v", &serde_json::json!({ "x": [1, null] }));
        });
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            back,
            serde_json::json!({ "s": tricky, "t": true, "n": 12.5, "l": ["a", tricky], "v": { "x": [1, null] } })
        );
    }

    /// Short and long strings (the long ones through a buffer written out in pieces) are
    /// written as serde_json writes them, byte for byte: generated from characters of every
    /// width, the escaped ones and JSON punctuation, at lengths around the buffer's size.
    #[test]
    fn a_string_is_written_as_serde_json_writes_it() {
        let pool = ["a", "\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}", "é", "€", "😀", "\u{2028}", "{", ":", " "];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..600 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = [(seed % 80) as usize, 490 + (seed % 40) as usize, (seed % 3000) as usize][round % 3];
            let mut text = String::new();
            let mut k = seed;
            for _ in 0..len {
                k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                text.push_str(pool[(k >> 33) as usize % pool.len()]);
            }
            let mut out = String::new();
            string(&mut out, &text);
            assert_eq!(out, serde_json::to_string(&text).unwrap(), "{text:?}");
            assert_eq!(string_len(&text), out.len());
        }
    }

    /// Word at a time, the last few bytes padded: the same answer as reading byte by byte, at
    /// every offset of strings of every short length (seeded).
    #[test]
    fn the_next_escape_is_the_first_byte_that_needs_one() {
        let pool = [b'a', b' ', b'"', b'\\', 0x00, 0x1f, 0x7f, 0xc3, 0xa9, b'~'];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..4000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 24) as usize;
            let bytes: Vec<u8> = (0..len).map(|k| pool[((seed >> (k * 2 % 60)) % 10) as usize]).collect();
            for i in 0..=len {
                let naive = (i..len).find(|&j| bytes[j] < 0x20 || bytes[j] == b'"' || bytes[j] == b'\\').unwrap_or(len);
                assert_eq!(next_escape(&bytes, i), naive, "{bytes:?} from {i}");
            }
        }
    }

    #[test]
    fn a_value_without_escapes_is_as_long_as_its_size_hint() {
        let v = serde_json::json!({ "a": [1, -2.5e3, true, false, null, "x"], "b": {}, "c": [], "d": { "e": [[]] } });
        assert_eq!(size_hint(&v), text(&v).len());
        let escaped = serde_json::json!(["q\"", { "k\n": "\u{1}" }]);
        assert!(size_hint(&escaped) < text(&escaped).len());
    }

    #[test]
    fn the_length_of_a_literal_is_known_before_it_is_written() {
        let tricky = "q\"b\\s/\n\r\t\u{1}\u{8}\u{c}\u{1f}\u{7f}é😀\u{2028}";
        let mut texts: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        texts.extend(["", tricky, &tricky.repeat(9), &format!("{}\"", "a".repeat(17))].map(String::from));
        for s in &texts {
            let mut out = String::new();
            string(&mut out, s);
            assert_eq!(string_len(s), out.len(), "{s:?}");
        }
    }

    #[test]
    fn strings_are_escaped_byte_for_byte_as_serde_json_escapes_them() {
        // Every ASCII byte alone, between text, and in runs longer than the eight-byte skip.
        for b in 0u8..0x80 {
            let c = char::from(b);
            for s in [
                c.to_string(),
                format!("ab{c}cd"),
                format!("{c}{c}0123456789abcdefé{c}"),
                "é".repeat(9) + &c.to_string(),
            ] {
                let mut out = String::new();
                string(&mut out, &s);
                assert_eq!(out, serde_json::to_string(&s).unwrap(), "{b:#x}");
                let mut keyed = String::new();
                object(&mut keyed, |o| {
                    o.str(&s, &s).str("key", "v");
                });
                assert_eq!(keyed, serde_json::json!({ s.clone(): s, "key": "v" }).to_string(), "{b:#x}");
            }
        }
    }
}
