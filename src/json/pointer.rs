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

/// `pointer` with one more token.
pub fn child(pointer: &str, token: &str) -> String {
    let mut p = pointer.to_string();
    push_token(&mut p, token);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_escaped_as_rfc_6901_says() {
        let mut p = String::from("/a");
        push_token(&mut p, "x~/y//é~");
        assert_eq!(p, "/a/x~0~1y~1~1é~0");
        push_token(&mut p, "");
        assert_eq!(p, "/a/x~0~1y~1~1é~0/");
    }
}
