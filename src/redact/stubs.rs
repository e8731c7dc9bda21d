//! What the library adds to a result (secret stubs, the notice, `webmcp-redact/*` `_meta`
//! keys) and how it recognises them again, so that a second pass leaves them alone.

use serde_json::{json, Map, Value};

use crate::Format;

pub(crate) const META_PREFIX: &str = "webmcp-redact/";
pub(crate) const REPORT_KEY: &str = "webmcp-redact/redactions";
pub(crate) const SECRET_KEY: &str = "webmcp-redact/secret";
pub(crate) const NOTICE_KEY: &str = "webmcp-redact/notice";

/// Past this many stubs, one more stands for all the rest.
pub(crate) const MAX_STUBS: usize = 32;

/// Source of the 128 random bits behind each handle (the browser's `crypto` in wasm).
pub trait HandleSource {
    fn fill(&mut self, bytes: &mut [u8; 16]);
}

/// A new handle: 32 lowercase hex digits, whatever the value it stands for.
pub(crate) fn new_handle(source: &mut dyn HandleSource) -> String {
    let mut bytes = [0u8; 16];
    source.fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn is_handle(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The agent's view of a withheld value.
pub(crate) fn stub(format: Format, label: &str, handle: &str) -> Value {
    match format {
        Format::Webmcp => json!({ "type": "secret_reference", "label": label, "handle": handle }),
        Format::Mcp => json!({
            "type": "text",
            "text": format!("[secret withheld: {label}]"),
            "_meta": { SECRET_KEY: { "label": label, "handle": handle } },
        }),
    }
}

/// The last text block of a redacted result: what was withheld (the user can reveal it) and
/// what was only removed or masked (nothing to reveal).
pub(crate) fn notice(withheld: &[&str], other: &[&str]) -> Value {
    let mut parts = Vec::new();
    if !withheld.is_empty() {
        let (n, it) = if withheld.len() == 1 {
            ("1 value was".to_string(), "it")
        } else {
            (format!("{} values were", withheld.len()), "them")
        };
        parts.push(format!(
            "{n} withheld from this result by webmcp-redact ({}). The user can reveal {it} in the page; do not ask for {it}.",
            names(withheld)
        ));
    }
    if !other.is_empty() {
        let n =
            if other.len() == 1 { "1 other item was".to_string() } else { format!("{} other items were", other.len()) };
        parts.push(format!("{n} removed or masked by webmcp-redact ({}).", names(other)));
    }
    json!({ "type": "text", "text": parts.join(" "), "_meta": { NOTICE_KEY: true } })
}

/// Distinct labels, the first ten of them.
fn names(labels: &[&str]) -> String {
    const SHOWN: usize = 10;
    let mut distinct: Vec<&str> = Vec::new();
    for l in labels {
        if !distinct.contains(l) {
            distinct.push(l);
        }
    }
    let mut out = distinct.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
    if distinct.len() > SHOWN {
        out.push_str(&format!(" and {} more", distinct.len() - SHOWN));
    }
    out
}

/// A webmcp stub rewritten in the "mcp" format, same label and handle.
pub(crate) fn as_mcp_stub(block: &Value) -> Option<Value> {
    let label = block.get("label")?.as_str()?;
    let handle = block.get("handle")?.as_str()?;
    (block.get("type")? == "secret_reference").then(|| stub(Format::Mcp, label, handle))
}

/// Is `block` one of our stubs or our notice, exactly as we write them?
pub(crate) fn is_library_block(block: &Value) -> bool {
    let Value::Object(b) = block else { return false };
    let str_of = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let is_stub_meta = |m: &Map<String, Value>| {
        m.len() == 2 && str_of(m, "label").is_some() && str_of(m, "handle").is_some_and(|h| is_handle(&h))
    };
    match b.get("type").and_then(Value::as_str) {
        Some("secret_reference") => is_stub_meta(b) || (b.len() == 3 && is_stub_meta(&without_type(b))),
        Some("text") if b.len() == 3 && str_of(b, "text").is_some() => match b.get("_meta") {
            Some(Value::Object(meta)) if meta.len() == 1 => match meta.iter().next() {
                Some((k, Value::Object(s))) if k == SECRET_KEY => is_stub_meta(s),
                Some((k, Value::Bool(true))) => k == NOTICE_KEY,
                _ => false,
            },
            _ => false,
        },
        _ => false,
    }
}

fn without_type(b: &Map<String, Value>) -> Map<String, Value> {
    b.iter().filter(|(k, _)| *k != "type").map(|(k, v)| (k.clone(), v.clone())).collect()
}

pub(crate) fn is_library_key(key: &str) -> bool {
    key.starts_with(META_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter(u8);
    impl HandleSource for Counter {
        fn fill(&mut self, bytes: &mut [u8; 16]) {
            self.0 += 1;
            *bytes = [self.0; 16];
        }
    }

    #[test]
    fn handles_are_32_hex_digits() {
        let h = new_handle(&mut Counter(0xfe));
        assert_eq!(h, "ff".repeat(16));
        assert!(is_handle(&h));
    }

    #[test]
    fn stubs_and_notices_are_recognised_in_both_formats() {
        let h = "0a".repeat(16);
        for format in [Format::Webmcp, Format::Mcp] {
            assert!(is_library_block(&stub(format, "API key", &h)));
        }
        assert!(is_library_block(&notice(&["a", "b"], &["c"])));
        assert!(!is_library_block(&stub(Format::Webmcp, "x", "not-a-handle")));
        let mut forged = stub(Format::Webmcp, "x", &h);
        forged["id"] = json!("k1");
        assert!(!is_library_block(&forged), "a reference with an id is the tool's, not ours");
    }
}
