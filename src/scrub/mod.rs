//! Value matching: a redacted string must not come back through another string of the result
//! (a text block, a URI, `_meta`, error text), verbatim or in the encodings it commonly takes.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::json::push_token;

mod forms;
pub mod known;

use forms::{escape_json, escape_unicode, lower_hex, percent, COMPONENT, FORM, URI};

/// Shorter values would match innocent text everywhere.
pub(crate) const MIN_LEN: usize = 4;

/// The redacted strings, in every form we look for, each with the label of its value.
///
/// The index is kept up to date on every `add` and `remove`, so a long-lived set (a redactor's
/// known secrets) costs nothing to keep between calls. Every needle is at least 4 bytes, so one
/// pass over a string finds them all: a bitset of first byte pairs skips most positions, and a
/// map from the first 4 bytes names the candidates. (The aho-corasick crate does this too, but
/// costs 84 KiB of a ~280 KiB module.)
#[derive(Default)]
pub(crate) struct Needles {
    /// Slot per form; a slot whose `refs` fell to 0 is free (listed in `free`).
    forms: Vec<Form>,
    by_text: HashMap<Box<str>, usize>,
    free: Vec<usize>,
    labels: Vec<String>,
    label_index: HashMap<String, usize>,
    pairs: Vec<u64>,
    by_prefix: HashMap<[u8; 4], Vec<usize>>,
}

struct Form {
    text: Box<str>,
    label: usize,
    /// How many added values produced this form; it is matched while this is above 0.
    refs: u32,
}

/// A string that was changed, and the labels of what was found in it.
pub(crate) struct Hit {
    pub pointer: String,
    pub labels: Vec<String>,
}

impl Needles {
    pub fn is_empty(&self) -> bool {
        self.by_text.is_empty()
    }

    /// Adds a redacted string under `label`, with its JSON-escaped and percent-encoded forms.
    pub fn add(&mut self, value: &str, label: &str) {
        let Some(forms) = forms_of(value) else { return };
        let next = self.labels.len();
        let index = *self.label_index.entry(label.to_string()).or_insert(next);
        if index == next {
            self.labels.push(label.to_string());
        }
        for form in forms {
            self.push(form, index);
        }
    }

    /// Takes back one `add` of `value`: a form another added value also produced stays.
    pub fn remove(&mut self, value: &str) {
        for form in forms_of(value).into_iter().flatten() {
            let Some(&slot) = self.by_text.get(form.as_str()) else { continue };
            self.forms[slot].refs -= 1;
            if self.forms[slot].refs > 0 {
                continue;
            }
            self.by_text.remove(form.as_str());
            if let Some(bucket) = self.by_prefix.get_mut(&prefix(form.as_bytes())) {
                bucket.retain(|&i| i != slot);
            }
            self.forms[slot].text = Box::from("");
            self.free.push(slot);
        }
    }

    fn push(&mut self, text: String, label: usize) {
        if let Some(&slot) = self.by_text.get(text.as_str()) {
            self.forms[slot].refs += 1;
            return;
        }
        let b = text.as_bytes();
        let pair = usize::from(b[0]) << 8 | usize::from(b[1]);
        if self.pairs.is_empty() {
            self.pairs = vec![0; 1 << 10];
        }
        self.pairs[pair >> 6] |= 1 << (pair & 63);
        let form = Form { text: text.into_boxed_str(), label, refs: 1 };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.forms[slot] = form;
                slot
            }
            None => {
                self.forms.push(form);
                self.forms.len() - 1
            }
        };
        self.by_prefix.entry(prefix(self.forms[slot].text.as_bytes())).or_default().push(slot);
        self.by_text.insert(self.forms[slot].text.clone(), slot);
    }

    /// Every (start, end, label) match in `s`, overlapping ones included.
    fn find(&self, s: &str) -> Vec<(usize, usize, usize)> {
        let b = s.as_bytes();
        let mut out = Vec::new();
        for at in 0..b.len().saturating_sub(3) {
            let pair = usize::from(b[at]) << 8 | usize::from(b[at + 1]);
            if self.pairs[pair >> 6] & (1 << (pair & 63)) == 0 {
                continue;
            }
            let Some(candidates) = self.by_prefix.get(&prefix(&b[at..])) else { continue };
            for &i in candidates {
                let form = &self.forms[i];
                if b[at..].starts_with(form.text.as_bytes()) {
                    out.push((at, at + form.text.len(), form.label));
                }
            }
        }
        out
    }

    /// Replaces every occurrence in `s` with `[redacted: <label>]`. Overlapping matches are
    /// merged so that no part of a value survives between two replacements.
    pub fn scrub(&self, s: &str) -> Option<(String, Vec<String>)> {
        self.scrub_where(s, |_, _| true)
    }

    /// [`Needles::scrub`] with only the matches `applies(start, end)` accepts.
    pub fn scrub_where(&self, s: &str, applies: impl Fn(usize, usize) -> bool) -> Option<(String, Vec<String>)> {
        if self.is_empty() {
            return None;
        }
        let mut spans = self.find(s);
        spans.retain(|&(start, end, _)| applies(start, end));
        if spans.is_empty() {
            return None;
        }
        spans.sort_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
        let mut merged: Vec<(usize, usize, usize)> = Vec::new();
        for span in spans {
            match merged.last_mut() {
                Some(last) if span.0 < last.1 => last.1 = last.1.max(span.1),
                _ => merged.push(span),
            }
        }
        let mut out = String::with_capacity(s.len());
        let mut labels: Vec<String> = Vec::new();
        let mut at = 0;
        for (start, end, label) in merged {
            let label = &self.labels[label];
            out.push_str(&s[at..start]);
            out.push_str(&format!("[redacted: {label}]"));
            if !labels.contains(label) {
                labels.push(label.clone());
            }
            at = end;
        }
        out.push_str(&s[at..]);
        Some((out, labels))
    }

    /// Scrubs every string in `value`, recording where. `pointer` is its location. A key that
    /// holds a redacted value is renamed, or its member dropped if the new name is taken; the
    /// hit then points at the object, since the old key must not appear in the report.
    pub fn scrub_value(&self, value: &mut Value, pointer: &mut String, hits: &mut Vec<Hit>) {
        match value {
            Value::String(s) => {
                if let Some((clean, labels)) = self.scrub(s) {
                    *s = clean;
                    hits.push(Hit { pointer: pointer.clone(), labels });
                }
            }
            Value::Number(n) => {
                // A known number must not reach the agent as a number either.
                if let Some((clean, labels)) = self.scrub(&n.to_string()) {
                    *value = Value::String(clean);
                    hits.push(Hit { pointer: pointer.clone(), labels });
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let mark = pointer.len();
                    push_token(pointer, &i.to_string());
                    self.scrub_value(item, pointer, hits);
                    pointer.truncate(mark);
                }
            }
            Value::Object(map) => {
                self.scrub_keys(map, pointer, hits);
                for (key, item) in map.iter_mut() {
                    let mark = pointer.len();
                    push_token(pointer, key);
                    self.scrub_value(item, pointer, hits);
                    pointer.truncate(mark);
                }
            }
            _ => {}
        }
    }

    /// Value matching on the keys of one object (not its values): a key holding a known value is
    /// renamed, or its member dropped if the new name is taken.
    pub fn scrub_keys(&self, map: &mut Map<String, Value>, pointer: &str, hits: &mut Vec<Hit>) {
        if !map.keys().any(|k| self.scrub(k).is_some()) {
            return;
        }
        let old = std::mem::take(map);
        let mut labels = Vec::new();
        for (key, item) in old {
            let key = match self.scrub(&key) {
                Some((clean, found)) => {
                    labels.extend(found.into_iter().filter(|l| !labels.contains(l)).collect::<Vec<_>>());
                    if map.contains_key(&clean) {
                        continue;
                    }
                    clean
                }
                None => key,
            };
            map.insert(key, item);
        }
        hits.push(Hit { pointer: pointer.to_string(), labels });
    }
}

fn prefix(b: &[u8]) -> [u8; 4] {
    [b[0], b[1], b[2], b[3]]
}

/// Every form of `value` that value matching looks for, or `None` for a value too short to
/// match safely. `add` and `remove` both use it, so they always agree.
fn forms_of(value: &str) -> Option<Vec<String>> {
    if value.chars().count() < MIN_LEN {
        return None;
    }
    // Letters, digits, '-', '_' and '.' look the same in every encoding: most tokens.
    if value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')) {
        return Some(vec![value.to_string()]);
    }
    let json = escape_json(value);
    let encoded = [percent(value, COMPONENT, false), percent(value, URI, false), percent(value, FORM, true)];
    let mut forms = vec![value.to_string()];
    forms.extend(encoded.iter().map(|f| lower_hex(f)));
    forms.extend(encoded);
    forms.extend([
        escape_json(&json),           // JSON text inside a JSON string
        json.replace('/', "\\/"),     // encoders that escape the solidus
        escape_unicode(&json, false), // Python's ensure_ascii
        escape_unicode(&json, true),  // Go's HTML-safe encoding
        json,
    ]);
    Some(forms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needles(values: &[(&str, &str)]) -> Needles {
        let mut n = Needles::default();
        for (v, l) in values {
            n.add(v, l);
        }
        n
    }

    #[test]
    fn verbatim_json_and_percent_forms() {
        let n = needles(&[("p@ss/w\"rd é", "password")]);
        for text in [
            "x p@ss/w\"rd é y",
            r#"{"v":"p@ss/w\"rd é"}"#,
            r#"{\"v\":\"p@ss/w\\\"rd é\"}"#,
            "p@ss\\/w\\\"rd é",
            "?q=p%40ss%2Fw%22rd%20%C3%A9",
            "?q=p%40ss%2fw%22rd%20%c3%a9",
            "?q=p%40ss%2Fw%22rd+%C3%A9",
            "/p@ss/w%22rd%20%C3%A9",
        ] {
            let (clean, labels) = n.scrub(text).unwrap_or_else(|| panic!("no match in {text}"));
            assert!(clean.contains("[redacted: password]"), "{clean}");
            assert!(!clean.contains("p@ss") && !clean.contains("p%40ss"), "{clean}");
            assert_eq!(labels, ["password"]);
        }
    }

    #[test]
    fn python_and_go_unicode_escapes() {
        let n = needles(&[("<é&😀>", "v")]);
        for text in [r#"{"v":"\u003c\u00e9\u0026\ud83d\ude00\u003e"}"#, r#"{"v":"<\u00e9&\ud83d\ude00>"}"#] {
            assert!(n.scrub(text).is_some(), "{text}");
        }
    }

    #[test]
    fn keys_holding_a_value_are_renamed_or_dropped() {
        let n = needles(&[("sk_live_key1", "API key")]);
        let mut v: Value = serde_json::from_str(r#"{"usage":{"sk_live_key1":3,"other":1}}"#).unwrap();
        let mut hits = Vec::new();
        n.scrub_value(&mut v, &mut String::new(), &mut hits);
        assert_eq!(v.to_string(), r#"{"usage":{"[redacted: API key]":3,"other":1}}"#);
        assert_eq!(hits[0].pointer, "/usage");
    }

    #[test]
    fn short_values_are_not_matched() {
        let n = needles(&[("abc", "pin")]);
        assert!(n.is_empty());
        assert!(n.scrub("abcabc").is_none());
    }

    #[test]
    fn overlapping_values_leave_nothing_between() {
        let n = needles(&[("abcd", "one"), ("cdef", "two")]);
        let (clean, labels) = n.scrub("xxabcdefyy").unwrap();
        assert_eq!(clean, "xx[redacted: one]yy");
        assert_eq!(labels, ["one"]);
    }

    #[test]
    fn replacement_text_is_not_matched_again() {
        let n = needles(&[("secret-value", "redacted"), ("dact", "x")]);
        let (clean, _) = n.scrub("a secret-value b").unwrap();
        assert_eq!(clean, "a [redacted: redacted] b");
    }
}
