//! Value matching on text that is JSON, decoded: a value the tool had escaped already (or
//! escaped in a way no common encoder writes, `\u0073` for `s`) sits deeper in the raw text
//! than the encoded forms reach, but plainly in the strings the JSON holds; and a string that
//! is itself JSON text holds strings too.

use serde_json::Value;

use super::Needles;
use crate::json::parse_embedded;
use crate::Limits;

/// Levels of JSON text inside a JSON string that are decoded (a text block holding JSON whose
/// member holds JSON...). Each level parses each string at most once more.
const NESTED: usize = 3;

impl Needles {
    /// Matches `text`, and, when it is JSON text (an object, an array or a string), the strings
    /// it holds, decoded. A match inside the JSON writes the text again as compact JSON.
    /// Returns the labels matched (with repeats).
    pub(crate) fn scrub_text(&self, text: &mut String, limits: &Limits) -> Vec<String> {
        let mut labels = Vec::new();
        if self.is_empty() {
            return labels;
        }
        if let Some(rewritten) = self.scrub_json(text, NESTED, limits, &mut labels) {
            *text = rewritten;
        }
        if let Some((clean, found)) = self.scrub(text) {
            *text = clean;
            labels.extend(found);
        }
        labels
    }

    /// `text` as JSON with its strings matched, when it is JSON and something matched.
    fn scrub_json(&self, text: &str, depth: usize, limits: &Limits, labels: &mut Vec<String>) -> Option<String> {
        let first = text.trim_start().as_bytes().first()?;
        if !matches!(first, b'{' | b'[' | b'"') {
            return None;
        }
        let mut value = parse_embedded(text, limits).ok()??;
        self.scrub_decoded(&mut value, depth - 1, limits, labels).then(|| value.to_string())
    }

    fn scrub_decoded(&self, value: &mut Value, depth: usize, limits: &Limits, labels: &mut Vec<String>) -> bool {
        match value {
            Value::String(s) => {
                let mut changed = false;
                if depth > 0 {
                    if let Some(rewritten) = self.scrub_json(s, depth, limits, labels) {
                        *s = rewritten;
                        changed = true;
                    }
                }
                if let Some((clean, found)) = self.scrub(s) {
                    *s = clean;
                    labels.extend(found);
                    changed = true;
                }
                changed
            }
            Value::Array(items) => {
                items.iter_mut().fold(false, |changed, item| self.scrub_decoded(item, depth, limits, labels) | changed)
            }
            Value::Object(map) => {
                let mut hits = Vec::new();
                self.scrub_keys(map, "", &mut hits);
                let mut changed = !hits.is_empty();
                labels.extend(hits.into_iter().flat_map(|h| h.labels));
                for item in map.values_mut() {
                    changed |= self.scrub_decoded(item, depth, limits, labels);
                }
                changed
            }
            Value::Number(_) => {
                let mut hits = Vec::new();
                self.scrub_value(value, &mut String::new(), &mut hits);
                labels.extend(hits.iter().flat_map(|h| h.labels.iter().cloned()));
                !hits.is_empty()
            }
            Value::Bool(_) | Value::Null => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needles() -> Needles {
        let mut n = Needles::default();
        n.add("sk_live_abc123", "key", false);
        n
    }

    #[test]
    fn json_text_is_matched_decoded_at_every_level() {
        let n = needles();
        let limits = Limits::default();
        for (text, want) in [
            (r#""\u0073k_live_abc123""#, r#""[redacted: key]""#),
            (r#"{"k":"\u0073k_live_abc123"}"#, r#"{"k":"[redacted: key]"}"#),
            (r#"{"inner":"{\"key\":\"\\u0073k_live_abc123\"}"}"#, r#"{"inner":"{\"key\":\"[redacted: key]\"}"}"#),
            (r#"[{"\u0073k_live_abc123":1}]"#, r#"[{"[redacted: key]":1}]"#),
            ("prose sk_live_abc123", "prose [redacted: key]"),
        ] {
            let mut t = text.to_string();
            assert_eq!(n.scrub_text(&mut t, &limits), ["key"], "{text}");
            assert_eq!(t, want);
            let mut again = t.clone();
            assert!(n.scrub_text(&mut again, &limits).is_empty() && again == t, "a second pass changes nothing");
        }
        // Untouched JSON keeps its bytes; four levels deep is past what is decoded.
        let mut t = r#"{ "a": "x" }"#.to_string();
        assert!(n.scrub_text(&mut t, &limits).is_empty() && t == r#"{ "a": "x" }"#);
    }
}
