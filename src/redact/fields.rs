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

/// Is `value` of the kind MCP gives `field`?
fn well_typed(field: &str, value: &Value) -> bool {
    match field {
        "annotations" | "_meta" | "resource" => value.is_object(),
        "size" | "priority" => value.is_number(),
        "icons" => value.is_array(),
        "audience" => value.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
        _ => value.is_string(),
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
        let before = map.len();
        map.retain(|k, v| allowed.contains(&k.as_str()) && well_typed(k, v));
        for _ in map.len()..before {
            self.note(pointer.to_string(), Reason::UnknownField, FIELD_LABEL.into());
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
        for p in ["/data", "/resource/blob", "/annotations/lastModified"] {
            data.extend(block.pointer(p).and_then(Value::as_str).map(str::to_string));
        }
        for p in ["/mimeType", "/resource/mimeType"] {
            data.extend(block.pointer(p).and_then(Value::as_str).map(|m| mime_data(m).to_string()));
        }
        data.extend(block.pointer("/annotations/priority").and_then(Value::as_number).map(|n| n.to_string()));
        let roles = block.pointer("/annotations/audience").and_then(Value::as_array).into_iter().flatten();
        data.extend(
            roles.filter_map(Value::as_str).filter(|r| !matches!(*r, "user" | "assistant")).map(str::to_string),
        );
        data.iter().find_map(|s| needles.scrub(s).and_then(|(_, labels)| labels.into_iter().next()))
    }
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
}
