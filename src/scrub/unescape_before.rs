//! Decoded views as they were before issue 9's speed-up, kept for tests only: every byte of a
//! view carried its own span, and every decoding went char by char. The property test in
//! `unescape.rs` compares the views the faster code makes with these.

use super::unescape::{escape, has_utf8_bytes, reference, undecoded_where_not_utf8, utf8_bytes, LEVELS};

/// `s` with its JSON escapes decoded once, with, for each byte of it, the span of `s` it came
/// from (start, end). `None` when `s` has no escape to decode.
fn unescape(s: &str) -> Decoded {
    if !s.contains('\\') {
        return None;
    }
    decode(s, |b, i| if b[i] == b'\\' { escape(b, i) } else { None })
}

/// One decoding: the text decoded, and each decoded byte's span in the text. `None` when it
/// changes nothing.
type Decoded = Option<(String, Vec<(u32, u32)>)>;

/// `s` with its escapes decoded, a run of `\xHH` that is UTF-8 read as its character (Python's
/// bytes repr, stop 36). `None` when `s` holds no such run.
fn unescape_bytes(s: &str) -> Decoded {
    if !has_utf8_bytes(s.as_bytes()) {
        return None;
    }
    decode(s, |b, i| if b[i] == b'\\' { utf8_bytes(b, i).or_else(|| escape(b, i)) } else { None })
}

/// `s` with its HTML character references decoded (the five specials by name, `&apos;`, and
/// numeric ones), with spans.
fn unreference(s: &str) -> Decoded {
    if !s.contains('&') {
        return None;
    }
    decode(s, |b, i| if b[i] == b'&' { reference(b, i) } else { None })
}

/// `s` with its percent-escapes decoded, `+` kept (as `encodeURI` and RFC 3986 leave it), with
/// spans. An escape whose byte does not form UTF-8 with its neighbours (a Latin-1 `%E9`, a
/// stray `%FF`) stays as written: one such escape must not hide the rest of the string.
fn unpercent(s: &str) -> Decoded {
    if !s.contains('%') {
        return None;
    }
    percent_decoded(s, false)
}

/// The same, `+` read as a space (form encoding, Python's `quote_plus`, Go's `QueryEscape`).
fn unform(s: &str) -> Decoded {
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
/// at most 6 + 36 + 216 views, each made and scanned in linear time.
pub(super) fn for_each_view(s: &str, visit: &mut Visit) {
    views_deep(s, LEVELS, visit);
}

fn views_deep(s: &str, levels: usize, visit: &mut Visit) {
    // One pass to rule out most strings, which hold no escape at all.
    if s.bytes().any(|b| matches!(b, b'\\' | b'&' | b'%' | b'+')) || s.chars().any(|c| unfolded(c).is_some()) {
        descend(s, None, levels, visit);
    }
}

/// What sees each view: the decoded text, and each of its bytes' span in the original.
type Visit<'a> = dyn FnMut(&str, &[(u32, u32)]) + 'a;

const DECODERS: [fn(&str) -> Decoded; 6] = [unescape, unreference, unpercent, unform, unfold, unescape_bytes];

/// What a reader sees of `c`: `Some(None)` nothing, `Some(Some(a))` the ASCII `a` of a
/// fullwidth form.
fn unfolded(c: char) -> Option<Option<char>> {
    match c {
        // Unicode's default-ignorable characters (stop 36; review s34 read the first line's).
        '\u{AD}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' => Some(None),
        '\u{34F}' | '\u{61C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}' => {
            Some(None)
        }
        '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2061}'..='\u{206F}' | '\u{3164}' => Some(None),
        '\u{FE00}'..='\u{FE0F}' | '\u{FFA0}' | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' => Some(None),
        '\u{E0000}'..='\u{E0FFF}' => Some(None),
        '\u{FF01}'..='\u{FF5E}' => Some(char::from_u32(c as u32 - 0xFEE0)),
        _ => None,
    }
}

/// Characters unseen are read with the one after them, as it; fullwidth ASCII as ASCII.
fn unfold(s: &str) -> Decoded {
    let (mut out, mut spans, mut changed) = (String::new(), Vec::new(), false);
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (i, mut c) = chars[k];
        let mut j = k;
        while j < chars.len() && unfolded(chars[j].1) == Some(None) {
            j += 1;
        }
        if j == chars.len() {
            j = k; // unseen at the end: as written
        } else if j > k || unfolded(c).is_some() {
            c = unfolded(chars[j].1).flatten().unwrap_or(chars[j].1);
            changed = true;
        }
        let end = chars[j].0 + chars[j].1.len_utf8();
        let before = out.len();
        out.push(c);
        spans.extend(std::iter::repeat((i as u32, end as u32)).take(out.len() - before));
        k = j + 1;
    }
    changed.then_some((out, spans))
}

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
