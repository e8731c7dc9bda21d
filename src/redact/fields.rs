//! Every field of a kept block is one MCP (2025-11-25) defines for its type, or it goes: an
//! extra field (a `note` on a text block, a `handle` on anything but our own stubs) can carry
//! data, and so can the fields value matching never rewrites.

use serde_json::{Map, Value};

use super::Run;
use crate::json::child;
use crate::Reason;

/// The fields of each block type.
fn block_fields(block_type: &str) -> &'static [&'static str] {
    match block_type {
        "text" => &["type", "text", "annotations", "_meta"],
        "image" | "audio" => &["type", "data", "mimeType", "annotations", "_meta"],
        "resource_link" => {
            &["type", "uri", "name", "title", "description", "mimeType", "size", "icons", "annotations", "_meta"]
        }
        "resource" => &["type", "resource", "annotations", "_meta"],
        _ => &[],
    }
}

/// The fields of `resource` (text or blob resource contents) and of `annotations`.
const RESOURCE: &[&str] = &["uri", "mimeType", "text", "blob", "_meta"];
const ANNOTATIONS: &[&str] = &["audience", "priority", "lastModified"];

/// Is `value` what MCP's schema allows in `field`, as the MCP SDK checks it? A field that
/// is not goes, so that the mcp view is a CallToolResult every client accepts.
fn well_typed(field: &str, value: &Value) -> bool {
    match field {
        "annotations" | "_meta" | "resource" => value.is_object(),
        // A number JavaScript reads as a finite one (not `1e400`, which is Infinity).
        "size" => crate::json::float::of(value).is_some_and(f64::is_finite),
        "priority" => crate::json::float::of(value).is_some_and(|p| (0.0..=1.0).contains(&p)),
        "icons" => value.as_array().is_some_and(|a| a.iter().all(icon)),
        "audience" => value.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
        "data" | "blob" => value.as_str().is_some_and(is_base64),
        "lastModified" => value.as_str().is_some_and(is_datetime),
        _ => value.is_string(),
    }
}

/// An icon: a `src`, and optional `mimeType`, `sizes` and `theme`. Unknown keys are allowed
/// by MCP's schema and dropped by its SDK, so an icon holding one is not kept.
fn icon(v: &Value) -> bool {
    let Some(i) = v.as_object() else { return false };
    i.iter().all(|(k, v)| match k.as_str() {
        "src" | "mimeType" => v.is_string(),
        "sizes" => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
        "theme" => v == "light" || v == "dark",
        _ => false,
    }) && i.get("src").is_some()
}

/// What `atob` accepts (WHATWG forgiving-base64 decode), which is how MCP's SDK checks
/// `data` and `blob`.
pub(super) fn is_base64(s: &str) -> bool {
    let mut t: Vec<u8> = s.bytes().filter(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r')).collect();
    if t.len() % 4 == 0 {
        for _ in 0..2 {
            if t.last() == Some(&b'=') {
                t.pop();
            }
        }
    }
    t.len() % 4 != 1 && t.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
}

/// An RFC 3339 date-time with seconds and an offset, as MCP's SDK checks `lastModified`
/// (zod 4 `iso.datetime({ offset: true })`): a real calendar date, `T`, `HH:MM:SS[.f+]`,
/// then `Z` or `±HH:MM`.
fn is_datetime(s: &str) -> bool {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let d = b.get(r)?;
        d.iter().all(u8::is_ascii_digit).then(|| d.iter().fold(0, |n, c| n * 10 + u32::from(c - b'0')))
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else { return false };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if !(at(4, b'-') && at(7, b'-') && (1..=days).contains(&d) && at(10, b'T')) {
        return false;
    }
    let clock = |i: usize| {
        num(i..i + 2).is_some_and(|h| h < 24) && at(i + 2, b':') && num(i + 3..i + 5).is_some_and(|m| m < 60)
    };
    if !(clock(11) && at(16, b':') && num(17..19).is_some_and(|s| s < 60)) {
        return false;
    }
    let mut i = 19;
    if at(i, b'.') {
        let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    match &b[i..] {
        [b'Z'] => true,
        [b'+' | b'-', ..] => b.len() == i + 6 && clock(i + 1),
        _ => false,
    }
}

/// The label of a field that went: its name is tool data, so it never reaches the agent.
const FIELD_LABEL: &str = "unknown field";

impl Run<'_> {
    /// Drops what MCP does not define for the block's type, in the block, its `resource` and its
    /// `annotations`, and fields of the wrong kind; each is noted (`unknown_field`) at the
    /// object that held it.
    pub(super) fn known_fields(&mut self, block: &mut Value, pointer: &str) {
        let Value::Object(b) = block else { return };
        let allowed = block_fields(b.get("type").and_then(Value::as_str).unwrap_or(""));
        self.keep_fields(b, allowed, pointer);
        for (key, allowed) in [("resource", RESOURCE), ("annotations", ANNOTATIONS)] {
            if let Some(Value::Object(inner)) = b.get_mut(key) {
                self.keep_fields(inner, allowed, &child(pointer, key));
            }
        }
    }

    fn keep_fields(&mut self, map: &mut Map<String, Value>, allowed: &[&str], pointer: &str) {
        let mut gone = Vec::new();
        map.retain(|k, v| {
            let known = allowed.contains(&k.as_str());
            let keep = known && well_typed(k, v);
            if !keep {
                // A name MCP defines is vocabulary; any other is tool data.
                gone.push(if known { k.clone() } else { FIELD_LABEL.to_string() });
            }
            keep
        });
        for label in gone {
            self.note(pointer.to_string(), Reason::UnknownField, label);
        }
    }

    /// The label of a known value held by a field value matching never rewrites (`mimeType`,
    /// `annotations`, `data`, `blob`, the resource's `mimeType`): such a block is removed. The
    /// words these fields are made of are vocabulary, not data: an audience role, and the
    /// registered top-level type of a MIME type (so a known everyday word such as "image" does
    /// not remove every image).
    pub(super) fn known_in_fixed_fields(&self, block: &Value) -> Option<String> {
        let needles = self.known.needles();
        if needles.is_empty() {
            return None;
        }
        let mut data: Vec<String> = Vec::new();
        for p in ["/data", "/resource/blob"] {
            data.extend(block.pointer(p).and_then(Value::as_str).map(str::to_string));
        }
        data.extend(fixed_texts(block).into_iter().map(|(_, text)| text));
        data.extend(block.pointer("/annotations/priority").and_then(Value::as_number).map(|n| n.to_string()));
        data.iter().find_map(|s| needles.scrub(s).and_then(|(_, labels)| labels.into_iter().next()))
    }
}

/// The text a kept block's never-rewritten fields could carry, with where it stands: the data
/// part of each MIME type, `lastModified`, and audience roles other than MCP's two. Value
/// matching and the detectors both read these (not the base64 payloads, which only value
/// matching reads: a credential's format is text, not media).
pub(super) fn fixed_texts(block: &Value) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for p in ["/mimeType", "/resource/mimeType"] {
        out.extend(block.pointer(p).and_then(Value::as_str).map(|m| (p, mime_data(m).to_string())));
    }
    let modified = "/annotations/lastModified";
    out.extend(block.pointer(modified).and_then(Value::as_str).map(|t| (modified, t.to_string())));
    let roles = block.pointer("/annotations/audience").and_then(Value::as_array).into_iter().flatten();
    let other = roles.filter_map(Value::as_str).filter(|r| !matches!(*r, "user" | "assistant"));
    out.extend(other.map(|r| ("/annotations/audience", r.to_string())));
    out
}

/// The part of a MIME type that could carry data: after a registered top-level type, the
/// subtype and parameters; anything else whole.
fn mime_data(mime: &str) -> &str {
    const TOP: &[&str] = &["application", "audio", "font", "image", "message", "model", "multipart", "text", "video"];
    match mime.split_once('/') {
        Some((top, rest)) if TOP.contains(&top.to_ascii_lowercase().as_str()) => rest,
        _ => mime,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_block_type_keeps_exactly_its_fields() {
        for (t, extra) in [("text", "note"), ("image", "handle"), ("resource_link", "secret"), ("resource", "x")] {
            let allowed = block_fields(t);
            assert!(allowed.contains(&"type") && allowed.contains(&"_meta") && !allowed.contains(&extra), "{t}");
        }
        assert!(well_typed("audience", &json!(["user"])) && !well_typed("audience", &json!("user")));
        assert!(!well_typed("title", &json!({ "nested": "data" })));
        assert_eq!(mime_data("image/png"), "png");
        assert_eq!(mime_data("sk_live_1/png"), "sk_live_1/png");
        assert_eq!(mime_data("application/x-sk_live_1"), "x-sk_live_1");
    }

    #[test]
    fn fields_are_typed_as_the_mcp_sdk_checks_them() {
        for ok in ["", "AA==", "AA", "QUJD", "QU JD\n", "+/8="] {
            assert!(is_base64(ok), "{ok}");
        }
        for bad in ["A", "AAAAA", "not base64!", "A===", "-_8", "no%20canary"] {
            assert!(!is_base64(bad), "{bad}");
        }
        for ok in ["2025-06-01T12:00:00Z", "2024-02-29T23:59:59.123+02:00", "2000-02-29T00:00:00-23:59"] {
            assert!(is_datetime(ok), "{ok}");
        }
        for bad in [
            "yesterday",
            "2025-06-01T12:00Z",
            "2025-06-01T12:00:00",
            "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2025-13-01T00:00:00Z",
            "2025-06-01T24:00:00Z",
            "2025-06-01T12:00:00.Z",
            "2025-06-01T12:00:00+0200",
            "2025-06-01T12:00:00+24:00",
            "2025-06-01 12:00:00Z",
        ] {
            assert!(!is_datetime(bad), "{bad}");
        }
        assert!(well_typed("priority", &json!(0.5)) && !well_typed("priority", &json!(5)));
        assert!(well_typed("icons", &json!([{ "src": "a.png", "theme": "dark", "sizes": ["48x48"] }])));
        for bad in [json!([{ "src": 1 }]), json!([{ "theme": "dark" }]), json!([{ "src": "a", "theme": "sepia" }])] {
            assert!(!well_typed("icons", &bad), "{bad}");
        }
    }
}
