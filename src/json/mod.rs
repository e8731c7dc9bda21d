//! JSON text in, `Value` out, under the size and depth limits; JSON text out, written directly
//! (`write.rs`); and JSON Pointer helpers.

use serde_json::Value;

pub(crate) mod float;
pub(crate) mod parse;
mod pointer;
mod prose;
pub(crate) mod scan;
mod text;
pub(crate) mod write;

pub use pointer::{child, push_index, push_token, without_data_keys};
pub use prose::embedded_spans;

use crate::{Error, ErrorCode, Limits};

/// Parses JSON text after checking size and nesting depth.
///
/// Depth is checked by a byte scan before parsing, so a hostile document can never drive the
/// (recursive) parser past `max_depth`, and the limit can be set above serde_json's own 128.
pub fn parse_limited(text: &str, limits: &Limits) -> Result<Value, Error> {
    let max_depth = check_size(text, limits)?;
    if let (Some(at), _) = too_deep(text, max_depth) {
        return Err(depth_error(text, at, max_depth));
    }
    parse_unchecked(text)
}

/// Parses a tool result. A CallToolResult may be one level deeper than `max_depth`: that level
/// is the envelope this library itself adds around a structured value, so that redacting its
/// own output again stays within the limit.
pub fn parse_result(text: &str, limits: &Limits) -> Result<Value, Error> {
    let max_depth = check_size(text, limits)?;
    let (past_max, past_envelope) = too_deep(text, max_depth);
    if let Some(at) = past_envelope {
        return Err(depth_error(text, at, max_depth + 1));
    }
    let value = parse_unchecked(text)?;
    let is_call_result = is_call_result(&value);
    match past_max {
        Some(at) if !is_call_result => Err(depth_error(text, at, max_depth)),
        _ => Ok(value),
    }
}

/// Refuses text over the size limit; returns the depth limit in force.
fn check_size(text: &str, limits: &Limits) -> Result<usize, Error> {
    if text.len() > limits.max_input_bytes {
        let detail = format!("{} bytes is over the limit of {} bytes", text.len(), limits.max_input_bytes);
        return Err(Error::new(ErrorCode::SizeLimit, "", detail));
    }
    Ok(limits.max_depth.min(Limits::DEPTH_CEILING))
}

fn depth_error(text: &str, at: usize, max_depth: usize) -> Error {
    Error::new(ErrorCode::DepthLimit, pointer_at(text, at), format!("nesting is deeper than the limit of {max_depth}"))
}

/// Is `value` shaped like a CallToolResult: an array `content` whose every item is an object
/// with a string `type`? (A structured value that merely has an array `content`, such as
/// `{ title, content: ["p1"] }`, is not, so the tool's schema applies to it.) An empty
/// `content` counts when `structuredContent` or `isError` stands beside it, or nothing but
/// MCP's own members: otherwise `{ title, content: [], authorToken }` would escape its schema,
/// and the other way round `{ content: [], structuredContent, debug }` would. With no `content`
/// (MCP requires one, but a page's tool may leave it out), an object `structuredContent`
/// counts: the schema describes what is inside it, and `{ structuredContent: { password },
/// requestId }` read as a structured value would escape it (found by review).
/// (Members beside MCP's own in a CallToolResult are walked with the schema too: see
/// `Run::call_result`.)
pub fn is_call_result(value: &Value) -> bool {
    let Some(o) = value.as_object() else { return false };
    match o.get("content") {
        Some(Value::Array(content)) if content.is_empty() => {
            o.contains_key("structuredContent") || o.contains_key("isError") || o.keys().all(|k| is_mcp_member(k))
        }
        Some(Value::Array(content)) => content.iter().all(|b| b.get("type").is_some_and(Value::is_string)),
        Some(_) => false,
        None => o.get("structuredContent").is_some_and(Value::is_object),
    }
}

/// The members MCP's CallToolResult defines.
pub fn is_mcp_member(key: &str) -> bool {
    matches!(key, "content" | "structuredContent" | "isError" | "_meta")
}

/// JSON in a string of the result (a text block that may stand for a structured value):
/// `Ok(None)` when it is not JSON at all (prose), the value when it is, and an error when it
/// is JSON the core must not give up on: nested past the limit, or with duplicate keys.
pub fn parse_embedded(text: &str, limits: &Limits) -> Result<Option<Value>, Error> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with(['{', '[']) {
        return Ok(parse::parse(text, None).ok());
    }
    let max_depth = check_size(text, limits)?;
    if let (Some(at), _) = too_deep(text, max_depth) {
        // Past the limit the parser cannot tell JSON from prose; the reading of `prose.rs`,
        // which has none, can. Text it does not read as one JSON value is prose, as it is
        // within the limit (found by review s27: `[[[…` 129 deep, then words, was withheld);
        // JSON inside it is read on its own and held to the limit there.
        if !is_one_value(text) {
            return Ok(None);
        }
        return Err(depth_error(text, at, max_depth));
    }
    match parse_unchecked(text) {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.code == ErrorCode::DuplicateKey => Err(e),
        Err(_) => Ok(None),
    }
}

/// JSON text as the core reads it, without limits: what `JSON.parse` accepts (lone surrogate
/// escapes come back as U+FFFD), except that a repeated key is an error (`duplicate_key`).
/// For the core's own texts, already held to the limits (the crate exports [`parse_limited`]:
/// dropping a value some 20,000 levels deep recurses past the stack, named open by review s30).
pub fn parse_json(text: &str) -> Result<Value, Error> {
    parse_unchecked(text)
}

fn parse_unchecked(text: &str) -> Result<Value, Error> {
    let text = &*text::without_lone_surrogates(text);
    if let Some(at) = text::first_duplicate_key(text) {
        let detail = "an object repeats a key, so its text and its value disagree";
        return Err(Error::new(ErrorCode::DuplicateKey, pointer_at(text, at), detail));
    }
    parse::parse(text, None).map_err(|e| {
        let (line, column) = parse::line_and_column(text, e.at);
        Error::new(ErrorCode::InvalidJson, "", format!("not valid JSON (line {line}, column {column})"))
    })
}

/// Is `text` one JSON object or array, with nothing but JSON whitespace around it, as the
/// grammar reads it at any depth?
fn is_one_value(text: &str) -> bool {
    let ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    let start = text.len() - text.trim_start_matches(ws).len();
    let end = text.trim_end_matches(ws).len();
    embedded_spans(text).contains(&(start, end))
}

/// One scan for both depth checks: the byte offsets of the first container nested deeper than
/// `max`, and of the first deeper than `max + 1` (where the scan stops). Malformed text is
/// left to the parser to report.
fn too_deep(text: &str, max: usize) -> (Option<usize>, Option<usize>) {
    let mut past_max = None;
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max + 1 {
                    return (past_max, Some(i));
                }
                if depth > max && past_max.is_none() {
                    past_max = Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (past_max, None)
}

/// Error path only: the pointer of the container that starts at byte `at`.
fn pointer_at(text: &str, at: usize) -> String {
    enum Frame {
        Object(Option<String>),
        Array(usize),
    }
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    let mut expect_key = false;
    while i < at {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i);
                if expect_key {
                    let key = json_string(&text[i..end]).unwrap_or_default();
                    if let Some(Frame::Object(k)) = stack.last_mut() {
                        *k = Some(key);
                    }
                    expect_key = false;
                }
                i = end;
                continue;
            }
            b'{' => {
                stack.push(Frame::Object(None));
                expect_key = true;
            }
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(n)) => *n += 1,
                Some(Frame::Object(_)) => expect_key = true,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    let mut out = String::new();
    for frame in &stack {
        match frame {
            Frame::Object(Some(k)) => push_token(&mut out, k),
            Frame::Object(None) => {}
            Frame::Array(n) => push_token(&mut out, &n.to_string()),
        }
    }
    out
}

/// Index just past the closing quote of the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The string value of `key` among the top-level members of a JSON object text, read without
/// parsing the other members (they may be too large or too deep to parse). `None` when the
/// text is not an object, has no such member, or that member is not a string.
pub fn top_level_string(text: &str, key: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(b, i);
        let key_end = string_end(b, i);
        let name = json_string(text.get(i..key_end)?)?;
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(b, i + 1);
        let end = value_end(b, start)?;
        if name == key {
            return json_string(&text[start..end]);
        }
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The JSON strings that may be written in prose outside `spans` (the bracketed spans
/// `embedded_spans` gives, in order): a value stringified twice, `Result: "{\"id\":1}"`. Each
/// `"` to the next `"` not escaped, and each closing `"` opens the next candidate too, since a
/// stray quote in prose (`5" tall`) would pair with the wrong one; the caller takes those that
/// hold JSON, apart. A string that would run into a bracketed span is not one: what it covers
/// stays prose. Linear: each byte is read at most twice, and a string that never closes ends
/// the search (every later `"` lies inside it).
pub fn quoted_spans(text: &str, spans: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let (mut out, mut i, mut next) = (Vec::new(), 0, 0);
    while i < b.len() {
        if let Some(&(_, end)) = spans.get(next).filter(|&&(start, _)| i >= start) {
            (i, next) = (i.max(end), next + 1);
            continue;
        }
        if b[i] != b'"' {
            // To the next quote, or to the next span (which starts past `i`), in one search.
            let stop = spans.get(next).map_or(b.len(), |&(start, _)| start.min(b.len()));
            i = b[i..stop].iter().position(|&c| c == b'"').map_or(stop, |k| i + k);
            continue;
        }
        let end = string_end(b, i);
        if end - i < 2 || b[end - 1] != b'"' {
            break;
        }
        if !matches!(spans.get(next), Some(&(start, _)) if end > start) {
            out.push((i, end));
        }
        i = end - 1;
    }
    out
}

/// [`quoted_spans`] as it was, a byte at a time (tests hold both alike).
#[cfg(test)]
pub(crate) fn quoted_spans_before(text: &str, spans: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let (mut out, mut i, mut next) = (Vec::new(), 0, 0);
    while i < b.len() {
        if let Some(&(_, end)) = spans.get(next).filter(|&&(start, _)| i >= start) {
            (i, next) = (i.max(end), next + 1);
            continue;
        }
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let end = string_end(b, i);
        if end - i < 2 || b[end - 1] != b'"' {
            break;
        }
        if !matches!(spans.get(next), Some(&(start, _)) if end > start) {
            out.push((i, end));
        }
        i = end - 1;
    }
    out
}

/// Where the JSON value starting at `start` ends, by bracket counting (strings skipped whole).
fn value_end(b: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = string_end(b, i);
                if depth == 0 {
                    return Some(i);
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth == 0 => return Some(i),
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b',' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    (depth == 0).then_some(i)
}

/// The string a JSON string literal stands for, or `None` for anything else.
fn json_string(literal: &str) -> Option<String> {
    match parse::parse(literal, None).ok()? {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// JavaScript truthiness of a JSON value, as `if (x)` would see it, save that a number is read
/// by its exact value, from its digits: only zero is falsy. Through an f64, `1e400` (Infinity
/// to JavaScript, so truthy) was no number at all and counted as false, so
/// `"sensitiveHint": 1e400` in a result's `_meta` claimed nothing and the result reached the
/// agent (found by review s30); `1e-400`, which JavaScript rounds to 0, counts (fail closed).
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => {
            let mantissa = n.as_str().split(['e', 'E']).next().unwrap_or_default();
            mantissa.bytes().any(|d| matches!(d, b'1'..=b'9'))
        }
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Seeded draws and small random JSON texts, for the tests that hold a reader to a parser.
#[cfg(test)]
pub(crate) mod generated {
    /// Draws below `n` from a fixed-seed generator (the same numbers on every run).
    pub fn draws(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        }
    }

    /// A JSON value of up to 4 levels built of `scalars`, with whitespace drawn from `ws`.
    pub fn value(next: &mut dyn FnMut(usize) -> usize, depth: usize, scalars: &[&str], ws: &[&str]) -> String {
        let w = |next: &mut dyn FnMut(usize) -> usize| ws[next(ws.len())];
        match if depth > 3 { 0 } else { next(3) } {
            0 => scalars[next(scalars.len())].to_string(),
            1 => {
                let items: Vec<String> =
                    (0..next(4)).map(|_| format!("{}{}", w(next), value(next, depth + 1, scalars, ws))).collect();
                format!("[{}{}]", items.join(","), w(next))
            }
            _ => {
                let members: Vec<String> = (0..next(4))
                    .map(|i| format!("\"k{i}\"{}:{}", w(next), value(next, depth + 1, scalars, ws)))
                    .collect();
                format!("{{{}{}}}", members.join(","), w(next))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_string_reads_one_member_wherever_it_stands() {
        let t = r#" { "a" : [1, {"name": "inner"}, "]"], "n\u0061me": "outer \"q\"", "z": {} } "#;
        assert_eq!(top_level_string(t, "name").as_deref(), Some("outer \"q\""));
        assert_eq!(top_level_string(r#"{"name":42}"#, "name"), None);
        assert_eq!(top_level_string(r#"{"x":{"name":"no"}}"#, "name"), None, "only top-level members");
        assert_eq!(top_level_string("[1]", "name"), None);
        assert_eq!(top_level_string("{}", "name"), None);
        assert_eq!(top_level_string(r#"{"x":1,"name":"t"#, "name"), None, "truncated");
    }

    fn limits(depth: usize) -> Limits {
        Limits { max_depth: depth, ..Limits::default() }
    }

    /// Past the depth limit, text that is not one JSON value is prose; JSON is an error.
    #[test]
    fn deep_text_is_prose_unless_it_is_one_json_value() {
        let (open, close) = ("[".repeat(200), "]".repeat(200));
        for prose in [format!("{open} words"), format!("{open}1{close} tail"), format!("{}x", "{".repeat(200))] {
            assert_eq!(parse_embedded(&prose, &Limits::default()).unwrap(), None, "{prose}");
        }
        for json in [format!("{open}1{close}"), format!(" \n{open}{close}\t")] {
            assert_eq!(parse_embedded(&json, &Limits::default()).unwrap_err().code, ErrorCode::DepthLimit);
        }
    }

    /// `is_one_value` reads JSON as the parser does: on every text of a few JSON-ish pieces
    /// (fixed seed), within the limit, they agree on whether it is one object or array.
    #[test]
    fn is_one_value_agrees_with_the_parser() {
        let pieces = [
            "{", "}", "[", "]", "\"", "\"a\"", ":", ",", " ", "1", "-0.5e3", "01", "tru", "true", "null", "\\",
            "\\u00e9", "\\ud800", "\n", "\u{7f}", "x", "\u{1}",
        ];
        let mut next = generated::draws(0x5eed_0027);
        let scalars = ["1", "-0.5e3", "\"a\"", "\"\\u00e9\\ud800\"", "true", "null", "[]", "{}"];
        let mut agreed_json = 0;
        for case in 0..60_000 {
            let mut t: String = (0..1 + next(12)).map(|_| pieces[next(pieces.len())]).collect();
            if case % 2 == 0 {
                t = format!("[{}]", generated::value(&mut next, 0, &scalars, &[" "]));
                if case % 4 == 0 {
                    // One piece put in at a random place, or one byte taken out.
                    let at = (0..=next(t.len() + 1)).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0).min(t.len());
                    if next(2) == 0 {
                        t.insert_str(at, pieces[next(pieces.len())]);
                    } else if at < t.len() && t.is_char_boundary(at + 1) {
                        t.remove(at);
                    }
                }
            }
            // A repeated key is an error of its own: the text is JSON all the same.
            let lenient = serde_json::from_str::<Value>(&text::without_lone_surrogates(&t));
            let parsed = matches!(lenient, Ok(Value::Object(_) | Value::Array(_)));
            assert_eq!(is_one_value(&t), parsed, "{t:?}");
            agreed_json += usize::from(parsed);
        }
        assert!(agreed_json > 15_000, "too few JSON texts generated: {agreed_json}");
    }

    #[test]
    fn depth_limit_names_the_pointer() {
        let e = parse_limited(r#"{"a":[1,{"b~/":[[]]}]}"#, &limits(3)).unwrap_err();
        assert_eq!(e.code, ErrorCode::DepthLimit);
        assert_eq!(e.pointer, "/a/1/b~0~1");
    }

    #[test]
    fn quoted_spans_are_each_pair_of_quotes_outside_brackets_and_linear() {
        let t = r#"a "b" 5" x {"c":"d"} "e\"f" "#;
        let spans = embedded_spans(t);
        let quoted: Vec<&str> = quoted_spans(t, &spans).into_iter().map(|(s, e)| &t[s..e]).collect();
        // Each closing quote opens the next candidate; none runs into the bracketed span.
        assert_eq!(quoted, [r#""b""#, r#"" 5""#, r#""e\"f""#]);
        assert!(quoted_spans(r#"x "never closes \" "#, &[]).is_empty());
        // Many quotes and spans: every candidate is between two quotes in a row.
        let big = format!("{}{}", r#"\"{"a":1} "#.repeat(20_000), "\"".repeat(20_000));
        let spans = embedded_spans(&big);
        assert_eq!(spans.len(), 20_000);
        assert!(quoted_spans(&big, &spans).len() <= 40_000);
    }

    #[test]
    fn brackets_inside_strings_do_not_count() {
        let v = parse_limited(r#"{"a":"[[[[{{{{\"[["}"#, &limits(1)).unwrap();
        assert_eq!(v["a"], "[[[[{{{{\"[[");
    }

    #[test]
    fn depth_above_serde_default_is_allowed_when_configured() {
        let text = format!("{}{}", "[".repeat(300), "]".repeat(300));
        assert!(parse_limited(&text, &limits(300)).is_ok());
        assert_eq!(parse_limited(&text, &limits(299)).unwrap_err().code, ErrorCode::DepthLimit);
    }

    #[test]
    fn depth_is_capped_at_the_ceiling() {
        let n = Limits::DEPTH_CEILING + 1;
        let text = format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(parse_limited(&text, &limits(usize::MAX)).unwrap_err().code, ErrorCode::DepthLimit);
    }

    #[test]
    fn a_call_tool_result_may_use_one_envelope_level() {
        let plain = r#"{"a":{"b":[1]}}"#;
        let wrapped = r#"{"content":[],"structuredContent":{"a":{"b":[1]}}}"#;
        assert!(parse_result(plain, &limits(3)).is_ok());
        assert!(parse_result(wrapped, &limits(3)).is_ok());
        assert_eq!(parse_result(r#"{"a":{"b":[[1]]}}"#, &limits(3)).unwrap_err().pointer, "/a/b/0");
        assert_eq!(
            parse_result(r#"{"content":[],"s":{"a":{"b":[[1]]}}}"#, &limits(3)).unwrap_err().code,
            ErrorCode::DepthLimit
        );
    }

    #[test]
    fn size_limit() {
        let l = Limits { max_input_bytes: 4, ..Limits::default() };
        assert_eq!(parse_limited("[1,2]", &l).unwrap_err().code, ErrorCode::SizeLimit);
        assert!(parse_limited("[12]", &l).is_ok());
    }

    #[test]
    fn invalid_json_and_trailing_garbage() {
        assert_eq!(parse_limited("{", &limits(8)).unwrap_err().code, ErrorCode::InvalidJson);
        assert_eq!(parse_limited("{} x", &limits(8)).unwrap_err().code, ErrorCode::InvalidJson);
    }

    #[test]
    fn numbers_and_key_order_are_kept() {
        let text = r#"{"z":1.10,"a":123456789012345678901234567890}"#;
        assert_eq!(parse_limited(text, &limits(8)).unwrap().to_string(), text);
    }

    #[test]
    fn js_truthiness() {
        for (t, want) in [
            ("true", true),
            ("\"low\"", true),
            ("1", true),
            ("{}", true),
            ("[]", true),
            ("false", false),
            ("null", false),
            ("0", false),
            ("\"\"", false),
            ("0.0", false),
            ("-0", false),
            ("0e400", false),
            ("-0.000E-99999999999999999999", false),
            // Infinity to JavaScript; through an f64 it was no number and claimed nothing.
            ("1e400", true),
            ("-1.5E999", true),
            ("1e99999999999999999999", true),
            // Zero to JavaScript, but not zero: counted, fail closed.
            ("1e-400", true),
            ("0.0000001e-400", true),
        ] {
            assert_eq!(truthy(&serde_json::from_str(t).unwrap()), want, "{t}");
        }
    }

    /// Every number form JSON allows, drawn from a seed, against JavaScript's
    /// `Boolean(JSON.parse(n))`: a correctly rounded f64 (as Rust's `parse` and JavaScript's both
    /// are; past the range it is infinite, truthy) that is not zero. They differ only where a
    /// number that is not zero rounds to 0, and there `truthy` counts it (fail closed).
    #[test]
    fn truthy_as_javascript_reads_every_number_form() {
        let mut next = generated::draws(0x5eed_0032_7e57);
        let digits = |next: &mut dyn FnMut(usize) -> usize, n: usize, from: u8| -> String {
            (0..n)
                .map(|i| {
                    char::from(if i == 0 { from } else { b'0' } + next(10 - usize::from(i == 0 && from > b'0')) as u8)
                })
                .collect()
        };
        let (mut differ, cases) = (0, 20_000);
        for _ in 0..cases {
            let mut n = String::from(["", "-"][next(2)]);
            let (int, fraction, exponent) = (1 + next(4), 1 + next(4), 1 + next(4));
            n += &if next(3) == 0 { "0".to_string() } else { digits(&mut next, int, b'1') };
            if next(2) == 0 {
                n += &format!(".{}", digits(&mut next, fraction, b'0'));
            }
            if next(3) > 0 {
                let e = digits(&mut next, exponent, b'0');
                n += &format!("{}{}{e}", ["e", "E"][next(2)], ["", "+", "-"][next(3)]);
            }
            let js = n.parse::<f64>().unwrap() != 0.0;
            let ours = truthy(&serde_json::from_str(&n).unwrap());
            assert!(ours == js || (ours && !js), "{n}: ours {ours}, JavaScript {js}");
            differ += usize::from(ours != js);
        }
        println!("truthy: {cases} number forms, {differ} not zero yet 0 to JavaScript");
        // Zeros written every way, and numbers that round to 0, both drawn.
        assert!(differ > 100 && differ < cases / 4, "{differ}");
    }
}
