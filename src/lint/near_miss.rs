//! `near_miss_x_sensitive`: a keyword of `outputSchema` that a person would read as
//! `x-sensitive` but that JSON Schema, and so the redactor, ignores. A misspelt mark fails
//! silently and open: the values it was meant to protect reach the agent. So lint flags, at every
//! place the compiler would look for a mark (the same keyword table walks both), each keyword
//! that is not a JSON Schema keyword and, once lower-cased with its separators and any `x`
//! extension prefix dropped, is
//! - within two edits of `sensitive` (a missing, extra, wrong or swapped letter, twice:
//!   `x-sensitve`, `x-senstive`, `isSensitive`); two edits leave at least seven of nine letters in
//!   place, so unrelated words do not come that close;
//! - `sensitiv…` with more after it (`x-sensitive-data`, `sensitivity`, `sensitiveHint`);
//! - or one of a few words people use for the same idea (`x-secret`, `x-pii`, `redacted`, ...).
//!
//! A near miss whose value is `false` says "not sensitive" either way and is not flagged.

use serde_json::Value;

use super::trail::{Step, Trail};
use crate::schema::{is_mark, is_schema_keyword, keyword, MARK};

/// Words that mean "do not show this" as a schema keyword; compared after normalising.
const SYNONYMS: &[&str] = &["secret", "redact", "redacted", "confidential", "private", "pii", "masked"];

/// Reports every near-miss keyword in `schema` as (pointer, keyword), each schema's before
/// those of the subschemas in it, until `report` says to stop (the findings cap).
pub(super) fn near_misses(schema: &Value, at: &str, report: &mut impl FnMut(String, &str) -> bool) {
    let mut trail = Trail::new(at);
    let mut stack = vec![(schema, Trail::ROOT)];
    while let Some((node, place)) = stack.pop() {
        let Value::Object(obj) = node else { continue };
        let mut below = Vec::new();
        for (key, value) in obj {
            match keyword(key) {
                // Where the compiler finds subschemas (a keyword of the wrong shape is the
                // compiler's error, reported as such): map keys there are names, not keywords.
                Some(k) => below.extend(trail.members(place, key, k.kind.members(value).unwrap_or_default())),
                None if *value != Value::Bool(false) && is_near_miss(key) => {
                    let here = trail.push(place, Step::Key(key));
                    if !report(trail.pointer(here), key) {
                        return;
                    }
                }
                None => {}
            }
        }
        stack.extend(below.into_iter().rev());
    }
}

/// Reports every mark under a `not` in `schema` as a pointer, until `report` says to stop (the
/// findings cap). JSON Schema keeps no annotation from `not` (its subschema describes what the
/// value is not), and neither does the compiler, so such a mark marks nothing and the values it
/// was meant for reach the agent (found by review s27: `"s": { "not": { "type": "number",
/// "x-sensitive": true } }` left `s` shown).
pub(super) fn marks_under_not(schema: &Value, at: &str, report: &mut impl FnMut(String) -> bool) {
    let mut trail = Trail::new(at);
    let mut stack = vec![(schema, Trail::ROOT, false)];
    while let Some((node, place, negated)) = stack.pop() {
        let Value::Object(obj) = node else { continue };
        if negated && obj.get(MARK).is_some_and(is_mark) {
            let mark = trail.push(place, Step::Key(MARK));
            if !report(trail.pointer(mark)) {
                return;
            }
        }
        let mut below = Vec::new();
        for (key, value) in obj {
            let Some(k) = keyword(key) else { continue };
            let under = negated || key == "not";
            let members = trail.members(place, key, k.kind.members(value).unwrap_or_default());
            below.extend(members.into_iter().map(|(m, at)| (m, at, under)));
        }
        stack.extend(below.into_iter().rev());
    }
}

/// Would a person read `key` as `x-sensitive`, while JSON Schema does not?
pub(super) fn is_near_miss(key: &str) -> bool {
    if key == MARK || is_schema_keyword(key) {
        return false;
    }
    let word: String = key.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect();
    // The extension prefix: `x-`, `x_`, `x.`, or `x` before a capital (`xSensitive`).
    let bare = match key.as_bytes() {
        [b'x' | b'X', b'-' | b'_' | b'.', ..] => &word[1..],
        [b'x', c, ..] if c.is_ascii_uppercase() => &word[1..],
        _ => word.as_str(),
    };
    let close = |w: &str| {
        edits(w, "sensitive") <= 2 || edits(w, "xsensitive") <= 2 || w.starts_with("sensitiv") || SYNONYMS.contains(&w)
    };
    close(&word) || close(bare)
}

/// The optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbouring letters, each one edit. Linear in `a` for the short `b`s used here.
fn edits(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Three rows: the one before the previous is needed for swaps.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            current[j] = (previous[j] + 1).min(current[j - 1] + 1).min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = current[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn edit_distance() {
        assert_eq!(edits("sensitive", "sensitive"), 0);
        assert_eq!(edits("sensitve", "sensitive"), 1);
        assert_eq!(edits("senstiive", "sensitive"), 1, "a swap is one edit");
        assert_eq!(edits("issensitive", "sensitive"), 2);
        assert_eq!(edits("", "sensitive"), 9);
        assert_eq!(edits("sensible", "sensitive"), 3);
    }

    #[test]
    fn near_misses_of_the_mark() {
        for key in [
            "x-sensitve",
            "x-senstive",
            "x-sensative",
            "x_sensitive",
            "x.sensitive",
            "xSensitive",
            "XSensitive",
            "X-Sensitive",
            "xsensitive",
            "x-sensitive ",
            "sensitive",
            "Sensitive",
            "isSensitive",
            "x-sensitive-data",
            "x-sensitivity",
            "sensitivity",
            "sensitiveHint",
            "x-secret",
            "secret",
            "x-pii",
            "x-redacted",
            "x-confidential",
            "x-private",
        ] {
            assert!(is_near_miss(key), "{key} should be a near miss");
        }
    }

    #[test]
    fn keywords_and_unrelated_words_are_not() {
        for key in [
            "x-sensitive",
            "type",
            "properties",
            "format",
            "readOnly",
            "writeOnly",
            "deprecated",
            "x-order",
            "x-internal",
            "x-secretary-id",
            "sensible",
            "positive",
            "caseInsensitive",
            "xml",
            "x-",
            "",
        ] {
            assert!(!is_near_miss(key), "{key} should not be a near miss");
        }
    }

    #[test]
    fn found_where_the_compiler_looks_for_marks_and_only_there() {
        let schema = json!({
            "type": "object",
            "x-sensitve": true,
            "properties": {
                // A property name is data, not a keyword.
                "sensitive": { "type": "boolean", "description": "whether the item is sensitive" },
                "secret": { "type": "string", "x_sensitive": true },
                "list": { "items": [{ "xSensitive": "pii" }], "enum": [{ "x-secret": true }] }
            },
            "$defs": { "d": { "x-sensitive-data": true } },
            "anyOf": [{ "sensitive": false }],
            "x-vendor": { "x-secret": true }
        });
        let mut pointers = Vec::new();
        near_misses(&schema, "/outputSchema", &mut |p, _| {
            pointers.push(p);
            true
        });
        assert_eq!(
            pointers,
            [
                "/outputSchema/x-sensitve",
                "/outputSchema/properties/secret/x_sensitive",
                "/outputSchema/properties/list/items/0/xSensitive",
                "/outputSchema/$defs/d/x-sensitive-data",
            ]
        );
    }

    #[test]
    fn the_walk_stops_when_told() {
        let schema = json!({ "x-sensitve": true, "properties": { "a": { "x_sensitive": true } } });
        let mut seen = 0;
        near_misses(&schema, "", &mut |_, _| {
            seen += 1;
            false
        });
        assert_eq!(seen, 1);
    }
}
