//! JSON Pointers (RFC 6901): how every report and error names a place in a document.

/// Appends one reference token to a JSON Pointer (RFC 6901 escaping).
pub fn push_token(pointer: &mut String, token: &str) {
    // Runs between escapes copied whole: a char-by-char `push` is a call and a UTF-8 encoding
    // per character at opt-level "z" (measured in the module's profile).
    pointer.push('/');
    let mut rest = token;
    while let Some(k) = rest.bytes().position(|b| b == b'~' || b == b'/') {
        pointer.push_str(&rest[..k]);
        pointer.push_str(if rest.as_bytes()[k] == b'~' { "~0" } else { "~1" });
        rest = &rest[k + 1..];
    }
    pointer.push_str(rest);
}

/// `pointer` with an array index as one more token: its digits written directly, not through
/// `fmt` (a formatter set up per element of every array a scan reads).
pub fn push_index(pointer: &mut String, index: usize) {
    let (mut digits, mut at, mut n) = ([0u8; 20], 20, index);
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    pointer.push('/');
    pointer.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// `pointer` with one more token.
pub fn child(pointer: &str, token: &str) -> String {
    let mut p = pointer.to_string();
    push_token(&mut p, token);
    p
}

/// The part of a pointer into a tool's result that names none of the tool's data: array
/// positions and the names MCP itself gives members and block fields, up to the first other
/// key. An error travels to pages, logs and CLIs that may pass it on, and a key of tool data
/// can be the secret itself (`/tokens/sk_live_…`), so the pointer stops at that key's parent.
pub fn without_data_keys(pointer: &str) -> &str {
    let mut end = 0;
    for token in pointer.split('/').skip(1) {
        if !(is_index(token) || is_mcp_name(token)) {
            break;
        }
        end += 1 + token.len();
    }
    &pointer[..end]
}

/// An array position as a pointer writes it. Longer runs of digits are not kept: no result
/// under the size limit has that many items, while a key of digits (a card number) is data.
fn is_index(token: &str) -> bool {
    (1..=7).contains(&token.len())
        && token.bytes().all(|b| b.is_ascii_digit())
        && (token == "0" || !token.starts_with('0'))
}

/// A member of a CallToolResult or a field of a content block (MCP 2025-11-25).
fn is_mcp_name(token: &str) -> bool {
    super::is_mcp_member(token)
        || matches!(
            token,
            "type"
                | "text"
                | "data"
                | "mimeType"
                | "annotations"
                | "audience"
                | "priority"
                | "lastModified"
                | "resource"
                | "uri"
                | "blob"
                | "name"
                | "title"
                | "description"
                | "size"
                | "icons"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pointer_into_a_result_stops_before_the_first_key_of_tool_data() {
        let cases = [
            ("", ""),
            ("/content/0/text", "/content/0/text"),
            ("/structuredContent/tokens/sk_live_abc/id", "/structuredContent"),
            ("/structuredContent/items/12/secret", "/structuredContent"),
            ("/content/1/resource/text", "/content/1/resource/text"),
            ("/4111111111111111/a", ""),
            ("/items/0", ""),
            ("/0/01", "/0"),
            ("/_meta/x~1y", "/_meta"),
            ("/content/9999999/type", "/content/9999999/type"),
        ];
        for (pointer, kept) in cases {
            assert_eq!(without_data_keys(pointer), kept, "{pointer}");
        }
    }

    #[test]
    fn tokens_are_escaped_as_rfc_6901_says() {
        let mut p = String::from("/a");
        push_token(&mut p, "x~/y//é~");
        assert_eq!(p, "/a/x~0~1y~1~1é~0");
        push_token(&mut p, "");
        assert_eq!(p, "/a/x~0~1y~1~1é~0/");
    }
}
