//! The byte-level pieces of the streaming engine (`redact::stream`): each reads one JSON token
//! of the text where it starts, checks it against the grammar, and says where it ends; and the
//! writer of a number exactly as serde_json writes it back (strings: `json::write::string`),
//! so that both engines give the same agent view byte for byte.
//!
//! The text is a `&str`, so it is valid UTF-8 already; what is left to check is JSON's own
//! grammar. Every reader returns `None` for text that is not JSON: the streaming engine then
//! leaves the result to the DOM engine, which reports the error.

use std::borrow::Cow;

/// A string token: `start` is its opening quote, `end` just past its closing one.
#[derive(Clone, Copy)]
pub struct Str {
    pub start: usize,
    pub end: usize,
    /// It holds a backslash escape: read it with [`decode`], write it with `json::write::string`.
    pub escaped: bool,
}

impl Str {
    /// The characters between the quotes, as written.
    pub fn raw<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start + 1..self.end - 1]
    }

    /// The characters it stands for, decoded only when it holds an escape (else borrowed from
    /// the text: most strings have none, and a copy of each would be the scan's largest cost).
    pub fn chars<'t>(&self, text: &'t str) -> Cow<'t, str> {
        match self.escaped {
            true => Cow::Owned(decode(self.raw(text))),
            false => Cow::Borrowed(self.raw(text)),
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Where the first byte of `w` (read little-endian: the first in the text) that ends or
/// escapes a string (`"`, `\`, or a control character) is, or 8 for none. Eight bytes at a
/// time (a string's body is most of a result's bytes), and straight to the one that matters
/// instead of a byte at a time (JSON text inside a string has a quote every few bytes).
#[inline(always)]
pub(crate) fn first_special(w: u64) -> usize {
    // A flag can be wrong only above a byte that is truly flagged (a borrow carries upward),
    // so the lowest one is exact.
    (special_bits(w).trailing_zeros() / 8) as usize
}

#[inline(always)]
fn special_bits(w: u64) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let quote = zero(w ^ (ONES * b'"' as u64));
    let backslash = zero(w ^ (ONES * b'\\' as u64));
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    quote | backslash | control
}

/// The string token at `i` (which holds `"`).
pub fn string(b: &[u8], i: usize) -> Option<Str> {
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        while let Some(word) = b.get(j..j + 8) {
            let k = first_special(u64::from_le_bytes(word.try_into().ok()?));
            j += k;
            if k < 8 {
                break;
            }
        }
        match *b.get(j)? {
            b'"' => return Some(Str { start: i, end: j + 1, escaped }),
            b'\\' => {
                escaped = true;
                j += match *b.get(j + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                    b'u' if b.get(j + 2..j + 6)?.iter().all(u8::is_ascii_hexdigit) => 6,
                    _ => return None,
                };
            }
            c if c < 0x20 => return None,
            _ => j += 1,
        }
    }
}

/// The number token at `i`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`; returns its end
/// and whether it has an exponent.
pub fn number(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let digits = |j: usize| j + b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut j = i + usize::from(b.get(i) == Some(&b'-'));
    match b.get(j) {
        Some(b'0') => j += 1,
        Some(b'1'..=b'9') => j = digits(j),
        _ => return None,
    }
    if b.get(j) == Some(&b'.') {
        let end = digits(j + 1);
        if end == j + 1 {
            return None;
        }
        j = end;
    }
    let exponent = matches!(b.get(j), Some(b'e' | b'E'));
    if exponent {
        j += 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let end = digits(j);
        if end == j {
            return None;
        }
        j = end;
    }
    Some((j, exponent))
}

/// `true`, `false` or `null` at `i`: its end.
pub fn literal(b: &[u8], i: usize) -> Option<usize> {
    let word: &[u8] = match b.get(i)? {
        b't' => b"true",
        b'f' => b"false",
        b'n' => b"null",
        _ => return None,
    };
    (b.get(i..i + word.len())? == word).then_some(i + word.len())
}

/// The first byte at or after `i` that is not JSON whitespace.
pub fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// The characters of an escaped string (its raw body): what `JSON.parse` reads, except that a
/// lone surrogate reads as U+FFFD, as the DOM engine's parser has it (`text.rs`). Written out
/// rather than through serde_json (`json_string`), which refuses a lone surrogate and would need
/// the whole text rewritten first; [`string`] has checked the escapes already.
pub fn decode(raw: &str) -> String {
    let b = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < b.len() {
        let next = raw[i..].find('\\').map_or(b.len(), |k| i + k);
        out.push_str(&raw[i..next]);
        if next == b.len() {
            break;
        }
        let (c, len) = match b[next + 1] {
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => unicode(b, next),
            other => (other as char, 2),
        };
        out.push(c);
        i = next + len;
    }
    out
}

/// The `\uXXXX` escape at `at` (and its low half, for a high surrogate followed by one).
fn unicode(b: &[u8], at: usize) -> (char, usize) {
    let unit = |k: usize| {
        b.get(k..k + 6)
            .filter(|e| e[0] == b'\\' && e[1] == b'u')
            .and_then(|e| std::str::from_utf8(&e[2..]).ok())
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let Some(hi) = unit(at) else { return ('\u{fffd}', 6) };
    match hi {
        0xD800..=0xDBFF => match unit(at + 6) {
            Some(lo @ 0xDC00..=0xDFFF) => {
                let c = 0x10000 + ((u32::from(hi) - 0xD800) << 10) + (u32::from(lo) - 0xDC00);
                (char::from_u32(c).unwrap_or('\u{fffd}'), 12)
            }
            _ => ('\u{fffd}', 6),
        },
        0xDC00..=0xDFFF => ('\u{fffd}', 6),
        c => (char::from_u32(u32::from(c)).unwrap_or('\u{fffd}'), 6),
    }
}

/// A number with an exponent as serde_json (`arbitrary_precision`) writes it back: the marker
/// as `e`, and a `+` where the sign was left out (`1E5` is `1e+5`). Other numbers come back
/// as written.
pub fn write_exponent_number(out: &mut String, number: &str) {
    let at = number.find(['e', 'E']).unwrap_or(number.len());
    out.push_str(&number[..at]);
    out.push('e');
    let rest = number.get(at + 1..).unwrap_or("");
    if !rest.starts_with(['+', '-']) {
        out.push('+');
    }
    out.push_str(rest);
}

/// Is the number as written the way serde_json writes it back?
pub fn exponent_is_canonical(number: &str) -> bool {
    number.find('e').is_some_and(|at| number[at + 1..].starts_with(['+', '-']))
}

/// Is this JSON number's text already its [`plain_decimal`] form? (Most numbers are: this
/// spares them the copy.)
pub fn is_plain_decimal(number: &str) -> bool {
    // Bytes, not `contains(['e', 'E'])`: that pattern's searcher was a thousand instructions
    // a number, half of reading a dense result's text for known values (callgrind, stop 37).
    let b = number.as_bytes();
    let exponent = (0..b.len()).any(|i| b[i] | 0x20 == b'e');
    let trailing_zero = number.ends_with('0') && b.contains(&b'.');
    !exponent && !trailing_zero && number != "-0"
}

/// The longest plain form of a number [`plain_decimal`] writes: past it (`1e300`), a number is
/// matched as written only.
const PLAIN_MAX: usize = 64;

/// A JSON number's value written without an exponent, as few characters as it takes: no
/// leading zeros but one before a point, no trailing zeros after it, no point when it is whole
/// (`4.111111111111111e15`, `4111111111111111.0` and `41111111111111110E-1` are all
/// `4111111111111111`; `10E-2` is `0.1`). A known number is the same number however a tool
/// writes it, so this is one form it is learned in and every number is read in. `None` for
/// text that is not a JSON number, and past `PLAIN_MAX` characters.
pub fn plain_decimal(number: &str) -> Option<String> {
    let b = number.as_bytes();
    let (end, _) = self::number(b, 0)?;
    if end != b.len() {
        return None;
    }
    let negative = number.starts_with('-');
    let body = &number[usize::from(negative)..];
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The digits, and where the point stands among them.
    let digits: String = [int, frac].concat();
    let (Some(first), Some(last)) = (digits.find(|c| c != '0'), digits.rfind(|c| c != '0')) else {
        return Some("0".into()); // zero, however written (and `-0` is 0)
    };
    // An exponent past a bound puts the point further than `PLAIN_MAX` characters from any
    // digit of a text the core reads (found by review: near `i64::MIN` the lengths below
    // overflowed, and the core asked for exabytes).
    const EXP_MAX: u64 = 1 << 40;
    let exp = match exp {
        Some(e) => e.trim_start_matches('+').parse::<i64>().ok().filter(|e| e.unsigned_abs() <= EXP_MAX)?,
        None => 0,
    };
    let point = i64::try_from(int.len()).ok()?.checked_add(exp)?;
    let (first, last) = (first as i64, last as i64 + 1);
    // Whole digits from `min(first, point)` to `point`, fraction digits from `point` to `last`.
    let int_len = (point - first).max(1);
    let frac_len = (last - point).max(0);
    if int_len + frac_len + 2 > PLAIN_MAX as i64 {
        return None;
    }
    let digit =
        |k: i64| if (0..digits.len() as i64).contains(&k) { digits.as_bytes()[k as usize] as char } else { '0' };
    let mut out = String::with_capacity(PLAIN_MAX);
    if negative {
        out.push('-');
    }
    if point <= first {
        out.push('0');
    } else {
        out.extend((first..point).map(digit));
    }
    if frac_len > 0 {
        out.push('.');
        out.extend((point..last).map(digit));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn round_trip(text: &str) -> String {
        let v: Value = serde_json::from_str(text).unwrap();
        v.to_string()
    }

    #[test]
    fn a_number_has_one_plain_form_however_it_is_written() {
        for (written, plain) in [
            ("4.111111111111111e15", "4111111111111111"),
            ("4.111111111111111E+15", "4111111111111111"),
            ("4111111111111111", "4111111111111111"),
            ("4111111111111111.000", "4111111111111111"),
            ("41111111111111110E-1", "4111111111111111"),
            ("0.4111111111111111e16", "4111111111111111"),
            ("4.8213e4", "48213"),
            ("1E5", "100000"),
            ("10E-2", "0.1"),
            ("0.1e1", "1"),
            ("-1.50", "-1.5"),
            ("-0.0", "0"),
            ("0e9", "0"),
            ("1.5e-3", "0.0015"),
            ("007", "0"), // not a number: `0` then digits
        ] {
            let got = plain_decimal(written);
            if written == "007" {
                assert_eq!(got, None);
                continue;
            }
            assert_eq!(got.as_deref(), Some(plain), "{written}");
            // The plain form is itself a JSON number, of the same value.
            let (a, b): (f64, f64) = (written.parse().unwrap(), plain.parse().unwrap());
            assert_eq!(a, b, "{written}");
        }
        for plain in ["0", "1", "-1", "10", "1.5", "-0.25", "-0.5", "4111111111111111"] {
            assert!(is_plain_decimal(plain) && plain_decimal(plain).as_deref() == Some(plain), "{plain}");
        }
        for other in ["1e5", "1.50", "-0", "0.0", "10E-2"] {
            assert!(!is_plain_decimal(other), "{other}");
        }
        assert_eq!(plain_decimal("1e300"), None, "too long to write plainly");
        assert_eq!(plain_decimal("1e-300"), None);
        assert_eq!(plain_decimal("1e99999999999999999999"), None);
        assert_eq!(plain_decimal("1x"), None);
        for huge in ["1e-9223372036854775807", "1e-9223372036854775808", "1e9223372036854775807", "1.5e-1099511627776"]
        {
            assert_eq!(plain_decimal(huge), None, "{huge}");
        }
        assert_eq!(plain_decimal("0e-9223372036854775807").as_deref(), Some("0"));
    }

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        for text in [
            r#""plain""#,
            r#""\u00e9\/\u001f\u007f\ud83d\ude00\u2028""#,
            r#""\"\\\b\f\n\r\t\u0000\u001F""#,
            r#""caf\u00E9 \uD83D\uDE00""#,
        ] {
            let s = string(text.as_bytes(), 0).unwrap();
            assert_eq!(s.end, text.len());
            let mut out = String::new();
            crate::json::write::string(&mut out, &decode(s.raw(text)));
            assert_eq!(out, round_trip(text), "{text}");
        }
    }

    #[test]
    fn every_special_character_at_every_place_of_a_long_string_is_escaped_as_serde_json_does() {
        let specials = ["\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}", "é", "😀", "\t"];
        for special in specials {
            for at in 0..20 {
                let s = format!("{}{special}{}", &"abcdefghijklmnopqrst"[..at], "x".repeat(20 - at));
                let mut out = String::new();
                crate::json::write::string(&mut out, &s);
                assert_eq!(out, serde_json::to_string(&s).unwrap(), "{s:?}");
            }
        }
    }

    /// Jumping to the first special byte of a word (`first_special`) reads and writes what a
    /// byte at a time did: strings dense with quotes, backslashes, control and multi-byte
    /// characters, at every alignment, written as serde_json writes them and read back whole.
    #[cfg(not(target_arch = "wasm32"))]
    mod dense {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4096))]
            #[test]
            fn dense_specials_are_written_and_read_as_serde_json_does(s in "[\"\\\\\n\u{1}\u{1f}a-d\u{e9}\u{1f600} ]{0,40}", pad in 0usize..9) {
                let mut out = String::new();
                crate::json::write::string(&mut out, &s);
                prop_assert_eq!(&out, &serde_json::to_string(&s).unwrap());
                let text = format!("{}{out}{}", " ".repeat(pad), "\"x\"");
                let token = string(text.as_bytes(), pad).expect("a string");
                prop_assert_eq!(token.end, pad + out.len());
                prop_assert_eq!(decode(token.raw(&text)), s);
            }
        }
    }

    #[test]
    fn lone_surrogates_read_as_the_replacement_character() {
        assert_eq!(decode(r"a\ud83db"), "a\u{fffd}b");
        assert_eq!(decode(r"\ude00\ud83d"), "\u{fffd}\u{fffd}");
    }

    #[test]
    fn numbers_follow_the_grammar_and_are_written_back_as_serde_json_writes_them() {
        for text in [
            "0",
            "-0",
            "1.50",
            "1E5",
            "1e5",
            "1.5E-3",
            "2e05",
            "2E+05",
            "-1e-0",
            "1e400",
            "0.1e1",
            "12345678901234567890123",
        ] {
            let (end, exponent) = number(text.as_bytes(), 0).unwrap();
            assert_eq!(end, text.len());
            let mut out = String::new();
            if exponent && !exponent_is_canonical(text) {
                write_exponent_number(&mut out, text);
            } else {
                out.push_str(text);
            }
            assert_eq!(out, round_trip(text), "{text}");
        }
        for bad in ["01", "-", "1.", ".5", "1e", "1e+", "+1", "-a"] {
            assert!(number(bad.as_bytes(), 0).is_none_or(|(end, _)| end != bad.len()), "{bad}");
        }
    }

    #[test]
    fn strings_that_are_not_json_are_refused() {
        for bad in ["\"abc", "\"a\\x\"", "\"\\u12\"", "\"a\u{1}b\"", "\"long enough to use words \\q\""] {
            assert!(string(bad.as_bytes(), 0).is_none(), "{bad:?}");
        }
        let long = format!("\"{}\"", "x".repeat(100));
        assert_eq!(string(long.as_bytes(), 0).map(|s| s.end), Some(long.len()));
    }
}
