//! Content blocks: what each kind is, and what reaches the agent.

use serde_json::{Map, Number, Value};

use crate::json::push_token;
use crate::redact::fields::is_base64;
use crate::redact::stubs::is_library_block;
use crate::scrub::known::secret_strings;

/// What a content block is, for the rules of the contract (rule 5).
pub(crate) enum Block {
    /// Our own stub or notice: left as it is.
    Library,
    /// `annotations.audience` present without `"assistant"` (a list without it, or anything
    /// else but the string itself).
    UserOnly,
    /// A well-formed `secret_reference` from the tool.
    Reference(Reference),
    /// A `secret_reference` that is not well formed.
    BadReference,
    Text,
    /// image, audio, resource_link, resource.
    Media,
    /// A known type without the fields that type requires.
    Malformed,
    Unknown,
}

/// The parts of a tool's `secret_reference` that go to the vault.
pub(crate) struct Reference {
    pub id: String,
    pub label: String,
    pub redeem_url: String,
    pub ttl: Option<Number>,
}

/// `own`: the result is one this redactor returned, so a block shaped like its stubs or
/// notice is its own; otherwise such a block is classified as the tool data it is.
pub(crate) fn classify(block: &Value, own: bool) -> Block {
    let Value::Object(b) = block else { return Block::Unknown };
    if own && is_library_block(block) {
        return Block::Library;
    }
    if user_only(b) {
        return Block::UserOnly;
    }
    let has_str = |k: &str| b.get(k).is_some_and(Value::is_string);
    let base64 = |k: &str| b.get(k).and_then(Value::as_str).is_some_and(is_base64);
    match b.get("type").and_then(Value::as_str) {
        Some("secret_reference") => reference(b),
        Some("text") if has_str("text") => Block::Text,
        Some("image" | "audio") if base64("data") && has_str("mimeType") => Block::Media,
        Some("resource_link") if has_str("uri") && has_str("name") => Block::Media,
        Some("resource") if resource_ok(b.get("resource")) => Block::Media,
        Some("text" | "image" | "audio" | "resource_link" | "resource") => Block::Malformed,
        _ => Block::Unknown,
    }
}

/// Fail closed: an audience that is not a list (`"user"`, an object) still says the block is
/// not for the agent, unless it is the role itself (`"assistant"`); `null` is no audience.
fn user_only(b: &Map<String, Value>) -> bool {
    match b.get("annotations").and_then(|a| a.get("audience")) {
        None | Some(Value::Null) => false,
        Some(Value::Array(audience)) => !audience.iter().any(|a| a == "assistant"),
        Some(other) => other != "assistant",
    }
}

/// Where the first block for the user only is among the messages inside `value`, or None. A
/// message (a prompt's, a sampling request's: an object with a string `role` and a `content`
/// block or list of blocks) is judged by the rule for a result's blocks (`user_only`): MCP-B's
/// bridge withholds such a message rather than give the agent what is not for it
/// (js/install.js; review s37: a prompt's one-time code reached the agent as written).
pub(crate) fn user_only_in_messages(value: &Value) -> Option<String> {
    let mut at = String::new();
    find_user_only(value, &mut at).then_some(at)
}

/// Depth first, in document order; `at` is `value`'s pointer, and the block's once found.
fn find_user_only(value: &Value, at: &mut String) -> bool {
    let len = at.len();
    let found = |v: &Value, token: &str, at: &mut String| {
        push_token(at, token);
        find_user_only(v, at) || {
            at.truncate(len);
            false
        }
    };
    match value {
        Value::Object(o) => {
            if o.get("role").is_some_and(Value::is_string) {
                let user = |b: &Value| b.as_object().is_some_and(user_only);
                match o.get("content") {
                    Some(b @ Value::Object(_)) if user(b) => {
                        push_token(at, "content");
                        return true;
                    }
                    Some(Value::Array(blocks)) => {
                        if let Some(i) = blocks.iter().position(user) {
                            push_token(at, "content");
                            push_token(at, &i.to_string());
                            return true;
                        }
                    }
                    _ => {}
                }
            }
            o.iter().any(|(k, v)| found(v, k, at))
        }
        Value::Array(a) => a.iter().enumerate().any(|(i, v)| found(v, &i.to_string(), at)),
        _ => false,
    }
}

fn resource_ok(r: Option<&Value>) -> bool {
    let Some(Value::Object(r)) = r else { return false };
    let s = |k: &str| r.get(k).is_some_and(Value::is_string);
    s("uri") && (s("text") || r.get("blob").and_then(Value::as_str).is_some_and(is_base64))
}

fn reference(b: &Map<String, Value>) -> Block {
    let s = |k: &str| b.get(k).and_then(Value::as_str).filter(|v| !v.is_empty()).map(str::to_string);
    let ttl = match b.get("ttl") {
        None => Ok(None),
        Some(Value::Number(n)) if crate::json::float::finite(n).is_some_and(|t| t.is_finite() && t >= 0.0) => {
            Ok(Some(n.clone()))
        }
        Some(_) => Err(()),
    };
    match (s("id"), s("label"), s("redeemUrl"), ttl) {
        (Some(id), Some(label), Some(redeem_url), Ok(ttl)) => {
            Block::Reference(Reference { id, label, redeem_url, ttl })
        }
        _ => Block::BadReference,
    }
}

/// The id and URL of anything shaped like a reference, valid or not, user-only or not: they
/// must never reach the agent through another string.
pub(crate) fn reference_strings(block: &Value) -> Vec<String> {
    let is_reference = block.get("type").and_then(Value::as_str) == Some("secret_reference");
    let s = |k: &str| block.get(k).and_then(Value::as_str).map(str::to_string);
    if is_reference {
        s("id").into_iter().chain(s("redeemUrl")).collect()
    } else {
        Vec::new()
    }
}

/// Block fields that carry structure, not content: value matching leaves them alone, so that
/// a redacted "image" or "user" cannot turn a block into another type or audience.
pub(crate) const STRUCTURAL: &[&str] = &["type", "mimeType", "annotations", "data", "blob", "handle"];

/// The label of a block for the user only, as the agent and the page see it.
pub(crate) fn user_only_label(block: &Value) -> String {
    format!("{} for the user", block_label(block))
}

/// What of a block for the user only joins the known-secret set: its strings, as for any value
/// taken (not its `type`, `mimeType` or `annotations`), but not the base64 `data` or `blob` of
/// media: a binary payload is no text an agent could echo, and large ones would only fill the
/// known set (and its work budget). A reference's `label` is a label, as everywhere.
pub(crate) fn user_only_strings(block: &Value) -> Vec<String> {
    let mut b = block.clone();
    if let Some(o) = b.as_object_mut() {
        if o.get("type").and_then(Value::as_str) == Some("secret_reference") {
            o.shift_remove("label");
        }
        o.shift_remove("data");
        if let Some(Value::Object(r)) = o.get_mut("resource") {
            r.shift_remove("blob");
        }
    }
    secret_strings(&b, false)
}

/// The label of a block that is withheld whole.
pub(crate) fn block_label(block: &Value) -> String {
    block.get("type").and_then(Value::as_str).unwrap_or("block").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn audience_without_assistant_is_user_only() {
        for (audience, user_only) in [
            (json!(["user"]), true),
            (json!([]), true),
            (json!(["user", "assistant"]), false),
            (json!(["assistant"]), false),
            (json!("user"), true),
            (json!({}), true),
            (json!("assistant"), false),
            (json!(null), false),
        ] {
            let b = json!({ "type": "text", "text": "x", "annotations": { "audience": audience } });
            assert_eq!(matches!(classify(&b, false), Block::UserOnly), user_only, "{audience}");
        }
    }

    #[test]
    fn a_message_s_block_for_the_user_only_is_found_where_it_is() {
        let user = json!({ "type": "text", "text": "code", "annotations": { "audience": ["user"] } });
        let both = json!({ "type": "text", "text": "hi", "annotations": { "audience": ["user", "assistant"] } });
        let prompt =
            json!({ "messages": [{ "role": "user", "content": both }, { "role": "assistant", "content": user }] });
        assert_eq!(user_only_in_messages(&prompt).as_deref(), Some("/messages/1/content"));
        let sampling = json!({ "params": { "messages": [{ "role": "user", "content": [both, user] }] } });
        assert_eq!(user_only_in_messages(&sampling).as_deref(), Some("/params/messages/0/content/1"));
        let escaped = json!({ "a/b~": { "role": "user", "content": user } });
        assert_eq!(user_only_in_messages(&escaped).as_deref(), Some("/a~1b~0/content"));
        // Only a message's blocks: no string role, or a block not under `content`, is none.
        for none in [
            json!({ "messages": [{ "role": "user", "content": both }] }),
            json!({ "role": 1, "content": user }),
            json!({ "content": user }),
            json!({ "role": "user", "content": "text", "other": { "annotations": { "audience": ["user"] } } }),
            json!({ "role": "user", "content": [[user]] }),
        ] {
            assert_eq!(user_only_in_messages(&none), None, "{none}");
        }
    }

    #[test]
    fn a_user_only_block_makes_its_content_known_not_its_payload_or_label() {
        let text = json!({ "type": "text", "text": "code 4821-77", "annotations": { "audience": ["user"] } });
        assert_eq!(user_only_strings(&text), ["code 4821-77"]);
        let image = json!({ "type": "image", "data": "QUJDREVG", "mimeType": "image/png" });
        assert_eq!(user_only_strings(&image), Vec::<String>::new());
        let blob = json!({ "type": "resource", "resource": { "uri": "file:///k.bin", "blob": "QUJDREVG" } });
        assert_eq!(user_only_strings(&blob), ["file:///k.bin"]);
        let r = json!({ "type": "secret_reference", "id": "tok_1", "label": "Deploy token", "redeemUrl": "/r/tok_1" });
        let mut s = user_only_strings(&r);
        s.sort();
        assert_eq!(s, ["/r/tok_1", "tok_1"]);
        assert_eq!(user_only_label(&r), "secret_reference for the user");
    }

    #[test]
    fn references_need_id_label_url_and_a_sane_ttl() {
        let good = json!({ "type": "secret_reference", "id": "k1", "label": "Key", "redeemUrl": "/r/k1", "ttl": 60 });
        assert!(
            matches!(classify(&good, false), Block::Reference(Reference { ttl: Some(t), .. }) if t.to_string() == "60")
        );
        for bad in [json!({ "ttl": -1 }), json!({ "ttl": "60" }), json!({ "id": "" }), json!({ "redeemUrl": 7 })] {
            let mut b = good.clone();
            for (k, v) in bad.as_object().unwrap() {
                b[k] = v.clone();
            }
            assert!(matches!(classify(&b, false), Block::BadReference), "{b}");
        }
    }

    #[test]
    fn known_types_without_their_fields_are_malformed() {
        assert!(matches!(classify(&json!({ "type": "image", "data": "AA==" }), false), Block::Malformed));
        let image = |data: &str| json!({ "type": "image", "data": data, "mimeType": "image/png" });
        assert!(matches!(classify(&image("AA=="), false), Block::Media));
        assert!(matches!(classify(&image("not base64!"), false), Block::Malformed));
        let blob = |b: &str| json!({ "type": "resource", "resource": { "uri": "x", "blob": b } });
        assert!(matches!(classify(&blob("AA=="), false), Block::Media));
        assert!(matches!(classify(&blob("sk_live 1"), false), Block::Malformed));
        assert!(matches!(
            classify(&json!({ "type": "resource", "resource": { "uri": "x" } }), false),
            Block::Malformed
        ));
        assert!(matches!(classify(&json!({ "type": "video", "url": "x" }), false), Block::Unknown));
        assert!(matches!(classify(&json!("text"), false), Block::Unknown));
    }
}
