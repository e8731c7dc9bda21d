//! JSON a tool writes where rule 5 does not rewrite: a `_meta` string, a `resource_link`'s
//! `name` or `description`, a resource's `uri` (a `data:` URL holding the value's JSON). Found by
//! review s28: `{"apiKey": "…"}` written there reached the agent, since only text blocks and
//! resources' texts were read as the value they stand for. Such JSON is walked aside, as JSON in
//! prose that cannot be written back in place: what it took is known, and value matching then
//! cuts it from the string (and from every other place it is echoed).

use serde_json::Value;

use super::Run;
use crate::json::child;
use crate::Error;

impl Run<'_> {
    /// Walks the JSON in every string of `v` (at `pointer`) but the fields rule 5 reads itself
    /// (`skip`, pointers relative to `v`), for what it takes. Not in a view of ours: its JSON
    /// was walked the first time, and value matching's `[redacted: …]` would be taken again.
    pub(super) fn walk_aside(&mut self, v: &Value, pointer: &str, skip: &[&str]) -> Result<(), Error> {
        if self.own || !self.tool.has_marks() {
            return Ok(());
        }
        self.aside_in(v, pointer, "", skip)
    }

    fn aside_in(&mut self, v: &Value, pointer: &str, rel: &str, skip: &[&str]) -> Result<(), Error> {
        match v {
            Value::Object(o) => {
                for (k, v) in o {
                    self.aside_in(v, &child(pointer, k), &child(rel, k), skip)?;
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    let i = i.to_string();
                    self.aside_in(v, &child(pointer, &i), &child(rel, &i), skip)?;
                }
            }
            Value::String(s) if !skip.contains(&rel) => {
                let text = data_url_text(s);
                let text = text.as_deref().unwrap_or(s);
                if text.contains(['{', '[']) {
                    let mark = self.collect.mark();
                    if let Some(json) = self.text_json(text, (false, true), false, 0)? {
                        // Not written back: value matching cuts what it took.
                        self.rewrite_text(text, json, false, 0)?;
                        self.collect.point_since(mark, pointer);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The text a `data:` URL carries (its payload percent-decoded, then base64-decoded when it
/// says `;base64`, as fetch reads it); `None` for anything else or a payload that is not UTF-8.
fn data_url_text(s: &str) -> Option<String> {
    let rest = s.get(..5).filter(|p| p.eq_ignore_ascii_case("data:")).map(|_| &s[5..])?;
    let (head, payload) = rest.split_once(',')?;
    let bytes = percent_decode(payload.as_bytes());
    let base64 = head.rsplit(';').next().is_some_and(|p| p.trim().eq_ignore_ascii_case("base64"));
    String::from_utf8(if base64 { base64_decode(&bytes)? } else { bytes }).ok()
}

fn percent_decode(b: &[u8]) -> Vec<u8> {
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1).and_then(|&c| hex(c)), b.get(i + 2).and_then(|&c| hex(c))) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, ..) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Base64 in either alphabet, white space and padding ignored.
fn base64_decode(b: &[u8]) -> Option<Vec<u8>> {
    let sextet = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let (mut out, mut acc, mut bits) = (Vec::with_capacity(b.len() * 3 / 4), 0u32, 0);
    for &c in b.iter().filter(|c| !c.is_ascii_whitespace() && **c != b'=') {
        acc = acc << 6 | u32::from(sextet(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
