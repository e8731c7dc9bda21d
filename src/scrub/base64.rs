//! Base64, decoded for matching: every run of base64 characters in a string is also matched as
//! it reads decoded, so a value is kept once, verbatim, and caught in base64 and base64url,
//! padded or not, on its own or at any byte alignment inside a longer encoded text (a `data:`
//! URL, a Basic auth header, a JWT part, a `blob`). Keeping base64 needles instead cost 14
//! forms per value, most of the time and memory of learning one (measured: 40% of a redaction
//! of 10,000 marked values).
//!
//! A run is decoded from each of its first four characters, since the encoded text may start
//! at any of them. The two alphabets decode together (`+` and `-` are 62, `/` and `_` are 63).
//! Each decoded byte maps back to the characters that carry its bits.

/// A match inside a longer decoded run must cover this many bytes: 48 bits, so that random
/// base64 (an image, a blob) decodes to one needle at one place with odds of 2^-48. A shorter
/// value counts where its encoding starts a group of four characters, as when it was encoded
/// on its own (and glued to other text or base64): the 4-byte value's own encoding, 32 bits,
/// was what a needle of it matched anywhere.
pub(super) const MIN_INSIDE: usize = 6;

/// The shortest run worth decoding: 4 bytes, the shortest value matched anywhere.
const MIN_RUN: usize = 6;

const NO: u8 = 0xFF;

/// The value of each base64 character, in either alphabet; `NO` for the others.
const DECODE: [u8; 256] = {
    let mut t = [NO; 256];
    let mut i = 0;
    while i < 26 {
        t[b'A' as usize + i] = i as u8;
        t[b'a' as usize + i] = 26 + i as u8;
        i += 1;
    }
    let mut d = 0;
    while d < 10 {
        t[b'0' as usize + d] = 52 + d as u8;
        d += 1;
    }
    t[b'+' as usize] = 62;
    t[b'-' as usize] = 62;
    t[b'/' as usize] = 63;
    t[b'_' as usize] = 63;
    t
};

/// One decoding of a run: its bytes, and where each of its characters is in the text.
pub(super) struct View<'a> {
    pub bytes: &'a [u8],
    /// Where each character is, for a run wrapped at line breaks; empty for a run all in one
    /// piece (most of them), whose characters are at `start`, `start + 1`...
    at: &'a [u32],
    start: usize,
}

impl View<'_> {
    /// The span of the text that carries the decoded bytes `a..b`: the characters holding any
    /// of their bits (the first and last may also hold bits of the bytes beside them), and the
    /// line breaks between them.
    pub fn span(&self, a: usize, b: usize) -> (usize, usize) {
        let char_of = |byte: usize| 4 * (byte / 3) + byte % 3;
        (self.char_at(char_of(a)), self.char_at(char_of(b - 1) + 1) + 1)
    }

    fn char_at(&self, k: usize) -> usize {
        match self.at {
            [] => self.start + k,
            at => at[k] as usize,
        }
    }

    /// Is a match of `a..b` one to act on: long enough to be no accident, or encoded on its own
    /// (its first byte starts a group)?
    pub fn counts(&self, a: usize, b: usize) -> bool {
        b - a >= MIN_INSIDE || a % 3 == 0
    }
}

/// Is `text[i..]` a line break (`\n` or `\r\n`) with a base64 character after it? Its length.
fn wrap_at(text: &[u8], i: usize) -> Option<usize> {
    let len = match text.get(i..)? {
        [b'\n', ..] => 1,
        [b'\r', b'\n', ..] => 2,
        _ => return None,
    };
    text.get(i + len).filter(|&&c| DECODE[c as usize] != NO).map(|_| len)
}

/// The base64 run that starts at `start` (a base64 character), across line breaks: where it
/// ends, and how many base64 characters it holds.
fn run_from(text: &[u8], start: usize) -> (usize, usize) {
    let (mut i, mut count) = (start, 0);
    loop {
        if i < text.len() && DECODE[text[i] as usize] != NO {
            count += 1;
            i += 1;
        } else if let Some(len) = wrap_at(text, i) {
            i += len;
        } else {
            return (i, count);
        }
    }
}

/// Calls `f` with each decoded view of `text` that holds at least `min_bytes`: every run of at
/// least `MIN_RUN` base64 characters, decoded from each of its first four characters. A run
/// goes on across line breaks, as MIME (76 characters), PEM (64) and `base64` (76) wrap it and
/// `atob` and `Buffer` read it. Linear: each character is decoded at most four times (the
/// caller counts the decoded bytes it scans). Only the runs `start..end` that `wanted` takes
/// are decoded.
pub(super) fn for_each_view(
    text: &[u8],
    min_bytes: usize,
    wanted: &dyn Fn(usize, usize) -> bool,
    f: &mut dyn FnMut(&View),
) {
    let (mut buf, mut chars, mut at) = (Vec::new(), Vec::new(), Vec::new());
    let mut i = 0;
    while i < text.len() {
        if DECODE[text[i] as usize] == NO {
            i += 1;
            continue;
        }
        // Measure the run first: most runs (words, ids) are too short to be decoded at all.
        let start = i;
        let count;
        (i, count) = run_from(text, start);
        if count < MIN_RUN || count * 3 / 4 < min_bytes || !wanted(start, i) {
            continue;
        }
        // A run in one piece is decoded where it stands; a wrapped one is gathered first.
        let whole = count == i - start;
        if !whole {
            chars.clear();
            at.clear();
            for (j, &c) in (start..).zip(&text[start..i]) {
                if DECODE[c as usize] != NO {
                    chars.push(c);
                    at.push(j as u32);
                }
            }
        }
        let run: &[u8] = if whole { &text[start..i] } else { &chars };
        for from in 0..4.min(run.len()) {
            let left = run.len() - from;
            if left < MIN_RUN || left * 3 / 4 < min_bytes {
                break;
            }
            decode(&run[from..], &mut buf);
            let at: &[u32] = if whole { &[] } else { &at[from..] };
            f(&View { bytes: &buf, at, start: start + from });
        }
    }
}

/// The text each run of base64 characters in `text` decodes to, for a run that starts as the
/// base64 of JSON does (`e` for `{`, `W` for `[`) and whose bytes are UTF-8 holding a bracket:
/// JSON a tool wrote in base64 (`payload eyJhcGlLZXki…`, a `data:` URL's payload), which rule 5
/// walks as JSON in prose (stop 37). Linear: each character is decoded once.
pub(crate) fn json_runs(text: &str, visit: &mut dyn FnMut(&str)) {
    let b = text.as_bytes();
    let (mut i, mut out) = (0, Vec::new());
    while i < b.len() {
        let end = b[i..].iter().position(|&c| DECODE[usize::from(c)] == NO).map_or(b.len(), |e| i + e);
        if end - i >= 8 && matches!(b[i], b'e' | b'W') {
            decode(&b[i..end], &mut out);
            if let Some(t) = std::str::from_utf8(&out).ok().filter(|t| t.contains(['{', '['])) {
                visit(t);
            }
        }
        i = end + 1;
    }
}

/// The text a `data:` URL carries (its payload percent-decoded, then base64-decoded when it
/// says `;base64`, as fetch reads it); `None` for anything else or a payload that is not UTF-8.
/// Rule 5 reads the value's JSON there (`redact/aside.rs`).
pub(crate) fn data_url_text(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let comma = b.iter().position(|&c| c == b',')?;
    if comma < 5 || !b[..5].eq_ignore_ascii_case(b"data:") {
        return None;
    }
    let payload = &s[comma + 1..];
    let payload = super::unescape::unpercent(payload, false).map_or_else(|| payload.to_string(), |d| d.text);
    if !(comma >= 12 && b[comma - 7..comma].eq_ignore_ascii_case(b";base64")) {
        return Some(payload);
    }
    // White space and padding go; a character that is no base64 gives bytes of no meaning
    // (mostly not UTF-8: `None`), which hide nothing, since only JSON in the text is read.
    let chars: Vec<u8> = payload.bytes().filter(|&c| !c.is_ascii_whitespace() && c != b'=').collect();
    let mut out = Vec::new();
    decode(&chars, &mut out);
    String::from_utf8(out).ok()
}

#[cfg(test)]
pub(super) fn decode_for_tests(chars: &[u8], out: &mut Vec<u8>) {
    decode(chars, out);
}

/// Decodes base64 characters (all valid) into `out`: 6 bits per character, a byte per 8 bits
/// (whole groups, then 2 or 3 characters of a last partial one; a lone last character carries
/// no whole byte and is left out). Into a slice sized first, a group of four characters at a
/// time: the decoding of every long run (four views of each) goes through here, and a push per
/// byte, then a shift per character, cost most of it (callgrind: about a tenth of value
/// matching keys that read as base64).
fn decode(chars: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.resize(chars.len() * 6 / 8, 0);
    let sextet = |c: &u8| u32::from(DECODE[usize::from(*c)]);
    let groups = chars.chunks_exact(4);
    let rest = groups.remainder();
    let mut bytes = out.chunks_exact_mut(3);
    for (group, three) in groups.zip(&mut bytes) {
        let bits = group.iter().fold(0, |bits, c| bits << 6 | sextet(c));
        three.copy_from_slice(&bits.to_be_bytes()[1..]);
    }
    // 2 characters hold 1 byte, 3 hold 2 (and 1 none, so `bytes` has no remainder then).
    let rest_bits = rest.iter().fold(0, |bits, c| bits << 6 | sextet(c)) << (6 * (4 - rest.len()));
    for (byte, from) in bytes.into_remainder().iter_mut().zip(rest_bits.to_be_bytes()[1..].iter()) {
        *byte = *from;
    }
}

/// `decode` before issue 9, byte by byte: the oracle of the property test below.
#[cfg(all(test, not(target_arch = "wasm32")))]
fn decode_before(chars: &[u8], out: &mut Vec<u8>) {
    out.clear();
    for group in chars.chunks(4) {
        let n = group.iter().enumerate().fold(0u32, |n, (k, &c)| n | u32::from(DECODE[c as usize]) << (18 - 6 * k));
        let bytes = (group.len() * 6) / 8;
        out.extend((0..bytes).map(|k| (n >> (16 - 8 * k)) as u8));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn views(text: &str) -> Vec<(Vec<u8>, usize)> {
        views_of(text, 0)
    }

    fn views_of(text: &str, min_bytes: usize) -> Vec<(Vec<u8>, usize)> {
        let mut out = Vec::new();
        for_each_view(text.as_bytes(), min_bytes, &|_, _| true, &mut |v| out.push((v.bytes.to_vec(), v.char_at(0))));
        out
    }

    #[test]
    fn data_urls_give_their_text() {
        let j = r#"{"apiKey":"k"}"#;
        assert_eq!(data_url_text("data:application/json,%7B%22apiKey%22%3A%22k%22%7D").as_deref(), Some(j));
        assert_eq!(data_url_text("DATA:application/json;base64,eyJhcGlLZXkiOiJrIn0=").as_deref(), Some(j));
        assert_eq!(data_url_text("data:;base64,eyJhcGlLZXkiOiJrIn0").as_deref(), Some(j));
        assert_eq!(data_url_text("data:text/plain;charset=utf-8;base64,eyJh%63GlLZXkiOiJrIn0=").as_deref(), Some(j));
        assert_eq!(data_url_text("data:,a%20b").as_deref(), Some("a b"));
        for no in ["https://x.test/{}", "data:no-comma", "data:;base64,@@@@", "data:;base64,/w=="] {
            assert_eq!(data_url_text(no), None, "{no}");
        }
    }

    #[test]
    fn rfc_4648_known_answers_decode() {
        for (plain, encoded) in [("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")] {
            let mut out = Vec::new();
            decode(encoded.as_bytes(), &mut out);
            assert_eq!(out, plain.as_bytes());
        }
        let mut out = Vec::new();
        decode(b"-_8", &mut out);
        assert_eq!(out, [0xfb, 0xff]);
        decode(b"+/8", &mut out);
        assert_eq!(out, [0xfb, 0xff]);
    }

    #[test]
    fn each_run_is_decoded_from_its_first_four_characters() {
        let v = views("x Zm9vYmFy=, abc");
        assert_eq!(v.iter().map(|(_, at)| *at).collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(v[0].0, b"foobar");
        // Only views that can hold the shortest needle are made.
        assert_eq!(views_of("x Zm9vYmFy=, abc", 6).len(), 1);
        assert!(views_of("x Zm9vYmFy=, abc", 7).is_empty());
        // Spans map back to the characters carrying each byte.
        let at: Vec<u32> = (2..10).collect();
        let view = View { bytes: b"foobar", at: &at, start: 0 };
        assert_eq!(view.span(0, 6), (2, 10));
        assert_eq!(view.span(1, 2), (3, 5));
        assert_eq!(view.span(3, 5), (6, 9));
        assert!(view.counts(0, 6) && view.counts(3, 5) && !view.counts(1, 5));
    }

    #[test]
    fn a_run_goes_on_across_line_breaks() {
        // "foobarfoobar" wrapped after 4 and 8 characters, with LF and CRLF.
        let text = "x Zm9v\nYmFy\r\nZm9vYmFy\n\n y";
        let v = views(text);
        assert_eq!(v[0].0, b"foobarfoobar");
        let at: Vec<u32> = vec![2, 3, 4, 5, 7, 8, 9, 10, 13, 14, 15, 16, 17, 18, 19, 20];
        let view = View { bytes: b"foobarfoobar", at: &at, start: 0 };
        assert_eq!(view.span(0, 12), (2, 21), "the line breaks inside go with the value");
        assert_eq!(view.span(3, 4), (7, 9));
        // A blank line ends the run.
        assert_eq!(views("Zm9vYmFy\n\nZm9vYmFy").iter().filter(|(b, _)| b == b"foobar").count(), 2);
    }

    #[test]
    fn decoding_is_linear() {
        let text = "QUJD".repeat(10_000) + " " + &"a".repeat(5);
        let mut decoded = 0;
        for_each_view(text.as_bytes(), 0, &|_, _| true, &mut |v| decoded += v.bytes.len());
        assert!(decoded <= 3 * text.len(), "{decoded}");
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use proptest::prelude::*;

    use super::*;

    /// `for_each_view` before issue 9: every run gathered into a copy with a table of
    /// positions, then decoded byte by byte. Each view as (bytes, position of each character).
    fn views_before(text: &[u8], min_bytes: usize) -> Vec<(Vec<u8>, Vec<u32>)> {
        let (mut out, mut buf, mut chars, mut at) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut i = 0;
        while i < text.len() {
            if DECODE[text[i] as usize] == NO {
                i += 1;
                continue;
            }
            let start = i;
            let count;
            (i, count) = run_from(text, start);
            if count < MIN_RUN || count * 3 / 4 < min_bytes {
                continue;
            }
            chars.clear();
            at.clear();
            for (j, &c) in (start..).zip(&text[start..i]) {
                if DECODE[c as usize] != NO {
                    chars.push(c);
                    at.push(j as u32);
                }
            }
            for from in 0..4.min(chars.len()) {
                let left = chars.len() - from;
                if left < MIN_RUN || left * 3 / 4 < min_bytes {
                    break;
                }
                decode_before(&chars[from..], &mut buf);
                out.push((buf.clone(), at[from..].to_vec()));
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

        /// Runs decoded in place and the faster decoding give the views, and the positions of
        /// their characters, that the code before them gave: runs of every length, in one
        /// piece or wrapped at `\n` and `\r\n`, between other characters.
        #[test]
        fn views_are_what_they_were(
            pieces in prop::collection::vec(prop::sample::select(&["A", "z", "9", "+", "/", "-", "_", "=", " ", "\n", "\r\n", "\n\n", "é", "%"][..]), 0..80),
            min_bytes in 0..12usize,
        ) {
            let text: String = pieces.concat();
            let before = views_before(text.as_bytes(), min_bytes);
            let mut now = Vec::new();
            for_each_view(text.as_bytes(), min_bytes, &|_, _| true, &mut |v| {
                let chars = before.get(now.len()).map_or(0, |(_, at)| at.len());
                now.push((v.bytes.to_vec(), (0..chars).map(|k| v.char_at(k) as u32).collect::<Vec<_>>()));
            });
            prop_assert_eq!(now, before);
        }
    }
}
