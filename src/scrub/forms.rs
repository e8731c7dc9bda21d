//! The encodings a value takes on its way into another string: JSON escaping (and JSON inside
//! JSON), the `\uXXXX` forms Python and Go write, and percent-encoding.

use serde_json::Value;

pub(super) fn escape_json(s: &str) -> String {
    let quoted = Value::String(s.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

/// JSON string content with every non-ASCII character as `\\uXXXX` (lowercase hex, as Python
/// writes it); `html` also escapes `<`, `>` and `&` (as Go does, in lowercase hex too).
pub(super) fn escape_unicode(json: &str, html: bool) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() && !(html && matches!(c, '<' | '>' | '&')) {
            out.push(c);
            continue;
        }
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            out.push_str(&format!("\\u{unit:04x}"));
        }
    }
    out
}

/// Bytes left as they are by encodeURIComponent, encodeURI and form encoding.
pub(super) const COMPONENT: &[u8] = b"-_.!~*'()";
pub(super) const URI: &[u8] = b"-_.!~*'();/?:@&=+$,#";
pub(super) const FORM: &[u8] = b"*-._";

pub(super) fn percent(s: &str, keep: &[u8], plus_for_space: bool) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(b as char);
        } else if b == b' ' && plus_for_space {
            out.push('+');
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.extend(['%', char::from(HEX[usize::from(b >> 4)]), char::from(HEX[usize::from(b & 15)])]);
        }
    }
    out
}

/// `%2F` -> `%2f`, leaving everything else alone.
pub(super) fn lower_hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' {
            out.extend(chars.by_ref().take(2).map(|h| h.to_ascii_lowercase()));
        }
    }
    out
}
