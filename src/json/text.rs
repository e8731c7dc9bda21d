//! Checks on JSON text before it is parsed: what `JSON.parse` accepts and serde_json does not
//! (lone surrogate escapes), and what serde_json accepts silently but must not pass (duplicate
//! keys: the last one wins in the parsed value while the raw text still holds the others).

use crate::hash::TextSet;
use std::borrow::Cow;

use super::string_end;

/// The text with every lone surrogate escape (`\ud83d` without its pair, as `JSON.stringify`
/// writes a string cut in the middle of an emoji) replaced by `\ufffd`, which has the same
/// length, so byte offsets keep their meaning. Borrowed when there is none.
pub fn without_lone_surrogates(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut lone = Vec::new();
    let mut i = 0;
    let mut in_string = false;
    while i < b.len() {
        match (in_string, b[i]) {
            (false, b'"') => in_string = true,
            (true, b'"') => in_string = false,
            (true, b'\\') if b.get(i + 1) == Some(&b'u') => {
                match surrogate(b, i) {
                    Some(High) if surrogate(b, i + 6) == Some(Low) => i += 6,
                    Some(_) => lone.push(i),
                    None => {}
                }
                i += 6;
                continue;
            }
            (true, b'\\') => i += 1,
            _ => {}
        }
        i += 1;
    }
    if lone.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for at in lone {
        out.replace_range(at..at + 6, "\\ufffd");
    }
    Cow::Owned(out)
}

#[derive(PartialEq)]
enum Half {
    High,
    Low,
}
use Half::{High, Low};

/// Which half of a surrogate pair the `\uXXXX` escape at `at` is, if any.
fn surrogate(b: &[u8], at: usize) -> Option<Half> {
    let esc = b.get(at..at + 6)?;
    if esc[0] != b'\\' || esc[1] != b'u' || !esc[2..].iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let unit = u16::from_str_radix(std::str::from_utf8(&esc[2..]).ok()?, 16).ok()?;
    match unit {
        0xD800..=0xDBFF => Some(High),
        0xDC00..=0xDFFF => Some(Low),
        _ => None,
    }
}

/// The byte offset of the first object that repeats a key (compared after unescaping, so
/// `"a"` and `"\u0061"` are the same key), or `None`. Text that is not JSON is left to the
/// parser to report.
pub fn first_duplicate_key(text: &str) -> Option<usize> {
    enum Frame<'t> {
        Object { start: usize, keys: TextSet<Cow<'t, str>>, expect_key: bool },
        Array,
    }
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = string_end(b, i);
                if let Some(Frame::Object { start, keys, expect_key: expect @ true }) = stack.last_mut() {
                    *expect = false;
                    let raw = text.get(i + 1..end.saturating_sub(1))?;
                    let key = if raw.contains('\\') {
                        Cow::Owned(super::json_string(&text[i..end])?)
                    } else {
                        Cow::Borrowed(raw)
                    };
                    if !keys.insert(key) {
                        return Some(*start);
                    }
                }
                i = end;
                continue;
            }
            b'{' => stack.push(Frame::Object { start: i, keys: TextSet::default(), expect_key: true }),
            b'[' => stack.push(Frame::Array),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Frame::Object { expect_key, .. }) = stack.last_mut() {
                    *expect_key = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters_pairs_stay() {
        let t = r#"{"a":"x\ud83d","b":"\ud83d\ude00","c":"\ude00y","d":"\\ud83d"}"#;
        let fixed = without_lone_surrogates(t);
        assert_eq!(fixed, r#"{"a":"x\ufffd","b":"\ud83d\ude00","c":"\ufffdy","d":"\\ud83d"}"#);
        assert_eq!(fixed.len(), t.len());
        assert!(matches!(without_lone_surrogates(r#"{"ok":"\ud83d\ude00"}"#), Cow::Borrowed(_)));
        assert!(matches!(without_lone_surrogates(r#"["\ud83d"]"#), Cow::Owned(_)));
    }

    #[test]
    fn duplicate_keys_are_found_after_unescaping_at_any_depth() {
        assert_eq!(first_duplicate_key(r#"{"secret":"S","secret":null}"#), Some(0));
        assert_eq!(first_duplicate_key(r#"{"a":{"k":1,"\u006b":2}}"#), Some(5));
        assert_eq!(first_duplicate_key(r#"[{"k":1},{"k":2}]"#), None, "siblings may share keys");
        assert_eq!(first_duplicate_key(r#"{"a":"k","k":{"a":1}}"#), None, "values and nested keys do not count");
        assert_eq!(first_duplicate_key(r#"{"a\"b":1,"a\"b":2}"#), Some(0));
        assert_eq!(first_duplicate_key(r#"{"x":[1,{"y":2}],"y":3}"#), None);
    }
}
