//! JSON escapes, decoded for matching: a string holding backslashes is also matched as it reads
//! once its JSON escapes are decoded (`\"`, `\\`, `\/`, `\n`..., `\uXXXX` with surrogate
//! pairs), and again up to [`LEVELS`] times (JSON text inside a JSON string inside a text
//! block). Whatever encoder wrote the escapes (serde_json, Python's `ensure_ascii`, Go, Gson,
//! Newtonsoft, System.Text.Json), and whatever it escaped (even letters, `\u0073`), the value
//! reads plainly there. Decoding is lenient: it needs no valid JSON (repeated keys, nesting past
//! any limit, text that is only partly JSON), an escape it does not know stays as written, and a
//! lone surrogate reads as U+FFFD.
//!
//! Each decoded byte remembers the span of the original text it came from, so that a match in
//! a decoded view replaces exactly what encodes it.

/// Decoding levels tried on one string (each only when the level before still has a backslash).
pub(super) const LEVELS: usize = 3;

/// `s` with its JSON escapes decoded once, with, for each byte of it, the span of `s` it came
/// from (start, end). `None` when `s` has no escape to decode.
pub(super) fn unescape(s: &str) -> Option<(String, Vec<(u32, u32)>)> {
    let b = s.as_bytes();
    if !b.contains(&b'\\') {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut spans: Vec<(u32, u32)> = Vec::with_capacity(s.len());
    let mut i = 0;
    let mut decoded_any = false;
    while i < b.len() {
        let (c, len) = match b[i] {
            b'\\' => match escape(b, i) {
                Some((c, len)) => {
                    decoded_any = true;
                    (c, len)
                }
                None => ('\\', 1),
            },
            _ => {
                let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
                (c, c.len_utf8())
            }
        };
        let span = (i as u32, (i + len) as u32);
        let before = out.len();
        out.push(c);
        spans.extend(std::iter::repeat(span).take(out.len() - before));
        i += len;
    }
    decoded_any.then_some((out, spans))
}

/// The escape at `b[i]` (a backslash): the character and the bytes it takes.
fn escape(b: &[u8], i: usize) -> Option<(char, usize)> {
    let c = match *b.get(i + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex4(b, i + 2)?;
            if (0xD800..0xDC00).contains(&unit) && b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u') {
                if let Some(low) = hex4(b, i + 8).filter(|l| (0xDC00..0xE000).contains(l)) {
                    let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    return Some((char::from_u32(code)?, 12));
                }
            }
            return Some((char::from_u32(unit).unwrap_or('\u{FFFD}'), 6));
        }
        _ => return None,
    };
    Some((c, 2))
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = b.get(at..at + 4)?;
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok().filter(|_| digits.iter().all(u8::is_ascii_hexdigit))
}

/// The decoded views of `s`, each with the span of `s` every one of its bytes came from.
pub(super) fn views(s: &str) -> Vec<(String, Vec<(u32, u32)>)> {
    let mut out: Vec<(String, Vec<(u32, u32)>)> = Vec::new();
    let Some(first) = unescape(s) else { return out };
    out.push(first);
    while out.len() < LEVELS {
        let (last, spans) = out.last().expect("one view at least");
        let Some((text, inner)) = unescape(last) else { break };
        // Compose: a byte of the new view came from a span of the last view, which came from
        // a span of `s`.
        let composed = inner.iter().map(|&(a, b)| (spans[a as usize].0, spans[b as usize - 1].1)).collect();
        out.push((text, composed));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_json_escape_decodes_and_remembers_where_it_came_from() {
        let (text, spans) = unescape(r#"a\u0073\"\\\/\n\ud83d\ude00\ud800x\q"#).unwrap();
        assert_eq!(text, "as\"\\/\n😀\u{FFFD}x\\q");
        assert_eq!(spans[1], (1, 7)); // `\u0073`
        assert_eq!(spans[6..10], [(15, 27); 4]); // the emoji's surrogate pair, four UTF-8 bytes
        assert!(unescape("no escapes").is_none());
        assert!(unescape(r"only \q unknown").is_none());
    }

    #[test]
    fn views_go_down_the_levels_of_json_in_json() {
        let s = r#"{"inner":"{\"k\":\"\\u0073k\"}"}"#;
        let v = views(s);
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].0, r#"{"inner":"{"k":"sk"}"}"#);
        let at = v[1].0.find("sk").unwrap();
        let (start, end) = (v[1].1[at].0 as usize, v[1].1[at + 1].1 as usize);
        assert_eq!(&s[start..end], r"\\u0073k");
    }
}
