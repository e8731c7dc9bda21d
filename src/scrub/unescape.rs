//! Escapes, decoded for matching: a string holding a backslash, an ampersand or a percent sign
//! is also matched as it reads once decoded: JSON escapes (`\"`, `\\`, `\/`, `\n`...,
//! `\uXXXX` with surrogate pairs), HTML references (`&amp;`, `&lt;`, `&gt;`, `&quot;`,
//! `&apos;`, decimal and hexadecimal numeric ones), percent-escapes (`%2F` or `%2f`, `+` for a
//! space). Views chain, up to [`LEVELS`] decodings deep: JSON inside a JSON string inside a text
//! block, JSON in an HTML attribute, a value percent-encoded twice. Whatever encoder wrote the
//! escapes, and whatever it escaped (even letters, `\u0073`), and however it mixed styles, the
//! value reads plainly in one of the views, so value matching keeps each value only verbatim
//! (and in base64). Decoding is lenient: it needs no valid JSON (repeated keys, nesting past any
//! limit, text that is only partly JSON); an escape it does not know stays as written; a lone
//! surrogate reads as U+FFFD; a percent view that is not UTF-8 is not made.
//!
//! Each decoded byte remembers the span of the original text it came from, so that a match in
//! a view replaces exactly what encodes it.

/// Decodings chained on one string at most.
pub(super) const LEVELS: usize = 3;

/// `s` with its JSON escapes decoded once, with, for each byte of it, the span of `s` it came
/// from (start, end). `None` when `s` has no escape to decode.
pub(super) fn unescape(s: &str) -> Decoded {
    if !s.contains('\\') {
        return None;
    }
    decode(s, |b, i| if b[i] == b'\\' { escape(b, i) } else { None })
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

/// One decoding: the text decoded, and each decoded byte's span in the text. `None` when it
/// changes nothing.
type Decoded = Option<(String, Vec<(u32, u32)>)>;

/// `s` with its HTML character references decoded (the five specials by name, `&apos;`, and
/// numeric ones), with spans.
pub(super) fn unreference(s: &str) -> Decoded {
    if !s.contains('&') {
        return None;
    }
    decode(s, |b, i| {
        if b[i] != b'&' {
            return None;
        }
        let end = i + b[i..].iter().take(12).position(|&c| c == b';')?;
        let name = &b[i + 1..end];
        let c = match name {
            b"amp" => '&',
            b"lt" => '<',
            b"gt" => '>',
            b"quot" => '"',
            b"apos" => '\'',
            [b'#', b'x' | b'X', hex @ ..] if !hex.is_empty() => {
                char::from_u32(u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?)?
            }
            [b'#', dec @ ..] if !dec.is_empty() && dec.iter().all(u8::is_ascii_digit) => {
                char::from_u32(std::str::from_utf8(dec).ok()?.parse().ok()?)?
            }
            _ => return None,
        };
        Some((c, end + 1 - i))
    })
}

/// `s` with its percent-escapes decoded, `+` kept (as `encodeURI` and RFC 3986 leave it), with
/// spans. An escape whose byte does not form UTF-8 with its neighbours (a Latin-1 `%E9`, a
/// stray `%FF`) stays as written: one such escape must not hide the rest of the string.
pub(super) fn unpercent(s: &str) -> Decoded {
    if !s.contains('%') {
        return None;
    }
    percent_decoded(s, false)
}

/// The same, `+` read as a space (form encoding, Python's `quote_plus`, Go's `QueryEscape`).
pub(super) fn unform(s: &str) -> Decoded {
    if !s.contains('+') {
        return None;
    }
    percent_decoded(s, true)
}

fn percent_decoded(s: &str, plus: bool) -> Decoded {
    let b = s.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    let mut spans = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut changed = false;
    while i < b.len() {
        let hex = b.get(i + 1..i + 3).filter(|h| b[i] == b'%' && h.iter().all(u8::is_ascii_hexdigit));
        let (byte, len) = match hex {
            Some(h) => (u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()?, 3),
            None if plus && b[i] == b'+' => (b' ', 1),
            None => (b[i], 1),
        };
        changed |= len == 3 || (plus && b[i] == b'+');
        bytes.push(byte);
        spans.push((i as u32, (i + len) as u32));
        i += len;
    }
    if !changed {
        return None;
    }
    match String::from_utf8(bytes) {
        Ok(text) => Some((text, spans)),
        // Nothing decoded but escapes kept as written: no view (a view changes something).
        Err(e) => Some(undecoded_where_not_utf8(s, &e.into_bytes(), &spans)).filter(|(text, _)| text != s),
    }
}

/// The decoded `bytes` (with their `spans` in `s`) as text: the runs that are UTF-8 as they
/// are, each byte that is not as the escape `s` wrote for it.
fn undecoded_where_not_utf8(s: &str, bytes: &[u8], spans: &[(u32, u32)]) -> (String, Vec<(u32, u32)>) {
    let mut text = String::with_capacity(bytes.len() + 8);
    let mut out = Vec::with_capacity(spans.len() + 8);
    let mut at = 0;
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        out.extend_from_slice(&spans[at..at + chunk.valid().len()]);
        at += chunk.valid().len();
        for &(start, end) in &spans[at..at + chunk.invalid().len()] {
            // Only an escape's byte can fail to form UTF-8: a character `s` holds as written
            // brings its whole sequence, which is valid on its own.
            let written = &s[start as usize..end as usize];
            text.push_str(written);
            out.extend((start..end).map(|i| (i, i + 1)));
        }
        at += chunk.invalid().len();
    }
    (text, out)
}

/// Decodes `s` char by char: `at(bytes, i)` gives the character an escape at `i` stands for
/// and its length, or `None` to keep the character as written.
fn decode(s: &str, at: impl Fn(&[u8], usize) -> Option<(char, usize)>) -> Decoded {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut spans: Vec<(u32, u32)> = Vec::with_capacity(s.len());
    let mut i = 0;
    let mut changed = false;
    while i < b.len() {
        let (c, len) = match at(b, i) {
            Some(found) => {
                changed = true;
                found
            }
            None => {
                let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
                (c, c.len_utf8())
            }
        };
        let before = out.len();
        out.push(c);
        spans.extend(std::iter::repeat((i as u32, (i + len) as u32)).take(out.len() - before));
        i += len;
    }
    changed.then_some((out, spans))
}

/// Calls `visit` with each decoded view of `s` and the span of `s` every byte of it came
/// from: every chain of up to [`LEVELS`] decodings that each change something. Depth first, so
/// that at most `LEVELS` views (each about nine bytes per byte of `s`) are alive at once;
/// at most 4 + 16 + 64 views, each made and scanned in linear time.
pub(super) fn for_each_view(s: &str, visit: &mut Visit) {
    views_deep(s, LEVELS, visit);
}

/// [`for_each_view`], one decoding deep: each decoder once (base64 that was decoded already).
pub(super) fn for_each_view_once(s: &str, visit: &mut Visit) {
    views_deep(s, 1, visit);
}

fn views_deep(s: &str, levels: usize, visit: &mut Visit) {
    // One pass to rule out most strings, which hold no escape at all.
    if s.bytes().any(|b| matches!(b, b'\\' | b'&' | b'%' | b'+')) {
        descend(s, None, levels, visit);
    }
}

/// What sees each view: the decoded text, and each of its bytes' span in the original.
pub(super) type Visit<'a> = dyn FnMut(&str, &[(u32, u32)]) + 'a;

const DECODERS: [fn(&str) -> Decoded; 4] = [unescape, unreference, unpercent, unform];

fn descend(text: &str, outer: Option<&[(u32, u32)]>, levels: usize, visit: &mut Visit) {
    if levels == 0 {
        return;
    }
    for decode in DECODERS {
        let Some((view, inner)) = decode(text) else { continue };
        // Compose: a byte of the view came from a span of `text`, which (below the first
        // level) came from a span of the original.
        let spans: Vec<(u32, u32)> = match outer {
            None => inner,
            Some(o) => inner.iter().map(|&(a, b)| (o[a as usize].0, o[b as usize - 1].1)).collect(),
        };
        visit(&view, &spans);
        descend(&view, Some(&spans), levels - 1, visit);
    }
}

/// The views, collected (for tests).
#[cfg(test)]
pub(super) fn views(s: &str) -> Vec<(String, Vec<(u32, u32)>)> {
    let mut out = Vec::new();
    for_each_view(s, &mut |v, spans| out.push((v.to_string(), spans.to_vec())));
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

    /// An escape that is not UTF-8 (Latin-1 `%E9`, a stray `%FF`) stays as written, and the
    /// others are still decoded: before, one such escape dropped the string's percent view.
    #[test]
    fn an_escape_that_is_not_utf8_stays_as_written() {
        let s = "name=Jos%E9&pw=p%40ss%2F%C3%A9%FF";
        let (text, spans) = unpercent(s).unwrap();
        assert_eq!(text, "name=Jos%E9&pw=p@ss/é%FF");
        assert_eq!(spans.len(), text.len());
        let at = text.find('@').unwrap();
        assert_eq!(&s[spans[at].0 as usize..spans[at].1 as usize], "%40");
        let e9 = text.find("%E9").unwrap();
        assert_eq!(spans[e9..e9 + 3], [(8, 9), (9, 10), (10, 11)]);
        assert_eq!(unform("a+b%E9").unwrap().0, "a b%E9");
        // A lead byte cut short by a character written as it is: the escape stays, é reads.
        assert_eq!(unpercent("%E2%41é").unwrap().0, "%E2Aé");
        // Only escapes kept as written: nothing reads otherwise, so there is no view to scan.
        assert!(unpercent("Jos%E9 %FF").is_none() && unpercent("%E2é").is_none());
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
