//! JSON Pointers (RFC 6901): how every report and error names a place in a document.

/// Appends one reference token to a JSON Pointer (RFC 6901 escaping).
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// `pointer` with one more token.
pub fn child(pointer: &str, token: &str) -> String {
    let mut p = pointer.to_string();
    push_token(&mut p, token);
    p
}
