//! What the MCP SDK's `CallToolResultSchema` (npm `@modelcontextprotocol/sdk` 1.32, zod)
//! accepts, written out for the native tests; the JS properties use the SDK itself.
//! Unknown members are allowed (zod strips them), known ones must have their types.

use serde_json::{Map, Value};

const ROLES: &[&str] = &["user", "assistant"];

/// `Ok` when `v` is a CallToolResult the SDK accepts, else what is wrong and where.
pub fn check_call_tool_result(v: &Value) -> Result<(), String> {
    let r = v.as_object().ok_or("the result is not an object")?;
    if let Some(content) = r.get("content") {
        let blocks = content.as_array().ok_or("content is not an array")?;
        for (i, b) in blocks.iter().enumerate() {
            block(b).map_err(|e| format!("/content/{i}: {e}"))?;
        }
    }
    if let Some(sc) = r.get("structuredContent") {
        sc.as_object().ok_or("structuredContent is not an object")?;
    }
    if let Some(e) = r.get("isError") {
        e.as_bool().ok_or("isError is not a boolean")?;
    }
    if let Some(meta) = r.get("_meta") {
        let m = meta.as_object().ok_or("_meta is not an object")?;
        match m.get("progressToken") {
            None | Some(Value::String(_)) => {}
            Some(Value::Number(n)) if n.as_i64().is_some() || n.as_u64().is_some() => {}
            Some(_) => return Err("_meta.progressToken is not a string or an integer".into()),
        }
        if let Some(t) = m.get("io.modelcontextprotocol/related-task") {
            let t = t.as_object().ok_or("related-task is not an object")?;
            t.get("taskId").and_then(Value::as_str).ok_or("related-task.taskId is not a string")?;
        }
    }
    Ok(())
}

fn string(b: &Map<String, Value>, k: &str) -> Result<(), String> {
    b.get(k).and_then(Value::as_str).map(|_| ()).ok_or_else(|| format!("`{k}` is not a string"))
}

fn opt(b: &Map<String, Value>, k: &str, ok: impl Fn(&Value) -> bool) -> Result<(), String> {
    match b.get(k) {
        Some(v) if !ok(v) => Err(format!("`{k}` has the wrong type: {v}")),
        _ => Ok(()),
    }
}

fn block(v: &Value) -> Result<(), String> {
    let b = v.as_object().ok_or("a block is not an object")?;
    opt(b, "annotations", annotations)?;
    opt(b, "_meta", Value::is_object)?;
    match b.get("type").and_then(Value::as_str) {
        Some("text") => string(b, "text"),
        Some("image" | "audio") => {
            string(b, "mimeType")?;
            b.get("data").and_then(Value::as_str).filter(|d| base64(d)).map(|_| ()).ok_or("`data` is not base64".into())
        }
        Some("resource_link") => {
            string(b, "uri")?;
            string(b, "name")?;
            for k in ["title", "description", "mimeType"] {
                opt(b, k, Value::is_string)?;
            }
            opt(b, "size", Value::is_number)?;
            opt(b, "icons", |v| v.as_array().is_some_and(|a| a.iter().all(icon)))
        }
        Some("resource") => {
            let r = b.get("resource").and_then(Value::as_object).ok_or("`resource` is not an object")?;
            string(r, "uri")?;
            opt(r, "mimeType", Value::is_string)?;
            opt(r, "_meta", Value::is_object)?;
            let text = r.get("text").is_some_and(Value::is_string);
            let blob = r.get("blob").and_then(Value::as_str).is_some_and(base64);
            if text || blob {
                Ok(())
            } else {
                Err("`resource` has neither a text nor a base64 blob".into())
            }
        }
        other => Err(format!("not an MCP block type: {other:?}")),
    }
}

fn icon(v: &Value) -> bool {
    let Some(i) = v.as_object() else { return false };
    i.get("src").is_some_and(Value::is_string)
        && opt(i, "mimeType", Value::is_string).is_ok()
        && opt(i, "sizes", |s| s.as_array().is_some_and(|a| a.iter().all(Value::is_string))).is_ok()
        && opt(i, "theme", |t| t == "light" || t == "dark").is_ok()
}

fn annotations(v: &Value) -> bool {
    let Some(a) = v.as_object() else { return false };
    let audience =
        |v: &Value| v.as_array().is_some_and(|a| a.iter().all(|r| r.as_str().is_some_and(|r| ROLES.contains(&r))));
    let priority = |v: &Value| v.as_f64().is_some_and(|p| (0.0..=1.0).contains(&p));
    let date = |v: &Value| v.as_str().is_some_and(iso_datetime);
    opt(a, "audience", audience).is_ok() && opt(a, "priority", priority).is_ok() && opt(a, "lastModified", date).is_ok()
}

/// `atob` accepts it (the WHATWG forgiving-base64 decode).
fn base64(s: &str) -> bool {
    let mut t: Vec<u8> = s.bytes().filter(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r')).collect();
    if t.len() % 4 == 0 {
        for _ in 0..2 {
            if t.last() == Some(&b'=') {
                t.pop();
            }
        }
    }
    t.len() % 4 != 1 && t.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

/// zod's `z.iso.datetime({ offset: true })`, closely enough for the values the tests write:
/// `YYYY-MM-DDTHH:MM[:SS[.fff]]` then `Z` or `±HH:MM`.
fn iso_datetime(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if !(digits(0..4) && b.get(4) == Some(&b'-') && digits(5..7) && b.get(7) == Some(&b'-') && digits(8..10)) {
        return false;
    }
    if !(b.get(10) == Some(&b'T') && digits(11..13) && b.get(13) == Some(&b':') && digits(14..16)) {
        return false;
    }
    let mut i = 16;
    if b.get(i) == Some(&b':') {
        if !digits(i + 1..i + 3) {
            return false;
        }
        i += 3;
        if b.get(i) == Some(&b'.') {
            let n = b[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
            if n == 0 {
                return false;
            }
            i += 1 + n;
        }
    }
    match &b[i..] {
        [b'Z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_validator_agrees_with_the_sdk_on_simple_cases() {
        assert!(check_call_tool_result(&json!({ "content": [] })).is_ok());
        assert!(check_call_tool_result(&json!({})).is_ok(), "content defaults to []");
        assert!(check_call_tool_result(&json!({ "content": [{ "type": "secret_reference" }] })).is_err());
        assert!(check_call_tool_result(&json!({ "content": [{ "type": "image", "data": "a!", "mimeType": "x" }] }))
            .is_err());
        assert!(check_call_tool_result(&json!({ "content": [], "structuredContent": [1] })).is_err());
        assert!(iso_datetime("2025-06-01T12:00:00Z") && iso_datetime("2025-06-01T12:00+02:00"));
        assert!(!iso_datetime("yesterday"));
    }
}
