//! JSON text to `Value`, read as serde_json's parser reads it (with `arbitrary_precision`), its
//! errors included (offset and text), but written here: serde_json's deserializer, through
//! serde's type-error formatting, pulled float printing and std's I/O error texts into the
//! module. The tests below hold the two parsers to the same values and the same errors on
//! generated text.
//!
//! One difference, on purpose: serde_json reads an object whose first key is
//! `"$serde_json::private::Number"` as a number (its own private encoding); this reads it as
//! the object it is, as `JSON.parse` and the streaming engine do.
//!
//! Iterative, with its own stack: nesting costs heap, never the call stack.

use serde_json::{Map, Number, Value};

/// Why the text is not JSON: serde_json's `ErrorCode`s that its parser can report on a `&str`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Code {
    EofList,
    EofObject,
    EofString,
    EofValue,
    Colon,
    ListCommaOrEnd,
    ObjectCommaOrEnd,
    Ident,
    Value,
    Escape,
    Number,
    Control,
    Key,
    LoneSurrogate,
    TrailingComma,
    TrailingCharacters,
    EndOfHexEscape,
    Recursion,
}

/// A syntax error: its code, and the byte offset at which serde_json reports it (past the byte
/// it read, or past the byte it looked at: one past the offending byte, or the end).
#[derive(Debug, PartialEq)]
pub struct Syntax {
    pub code: Code,
    pub at: usize,
}

// Only the binding (`setSessionLabels`) and the tests write the message.
#[cfg_attr(not(any(target_arch = "wasm32", test)), allow(dead_code))]
impl Syntax {
    /// The error as serde_json's `Display` writes it: `<what> at line <l> column <c>`.
    pub fn message(&self, text: &str) -> String {
        let what = match self.code {
            Code::EofList => "EOF while parsing a list",
            Code::EofObject => "EOF while parsing an object",
            Code::EofString => "EOF while parsing a string",
            Code::EofValue => "EOF while parsing a value",
            Code::Colon => "expected `:`",
            Code::ListCommaOrEnd => "expected `,` or `]`",
            Code::ObjectCommaOrEnd => "expected `,` or `}`",
            Code::Ident => "expected ident",
            Code::Value => "expected value",
            Code::Escape => "invalid escape",
            Code::Number => "invalid number",
            Code::Control => "control character (\\u0000-\\u001F) found while parsing a string",
            Code::Key => "key must be a string",
            Code::LoneSurrogate => "lone leading surrogate in hex escape",
            Code::TrailingComma => "trailing comma",
            Code::TrailingCharacters => "trailing characters",
            Code::EndOfHexEscape => "unexpected end of hex escape",
            Code::Recursion => "recursion limit exceeded",
        };
        let (line, column) = line_and_column(text, self.at);
        format!("{what} at line {line} column {column}")
    }
}

/// Where byte `at` is, as serde_json counts it: lines from 1, columns in bytes from the line's
/// start.
pub fn line_and_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..at];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
    (1 + before[..line_start].iter().filter(|&&b| b == b'\n').count(), at - line_start)
}

/// A container being read, with the key its next member's value goes under.
enum Open {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

struct Reader<'t> {
    b: &'t [u8],
    i: usize,
}

/// The value of `text`, or where and why serde_json fails on it. `max_depth` bounds nesting as
/// serde_json's default recursion limit does (`Some(128)`: 127 levels).
pub fn parse(text: &str, max_depth: Option<usize>) -> Result<Value, Syntax> {
    let mut r = Reader { b: text.as_bytes(), i: 0 };
    let mut stack: Vec<Open> = Vec::new();
    'value: loop {
        let mut value = match r.ws() {
            Some(c @ (b'[' | b'{')) => {
                if max_depth.is_some_and(|max| stack.len() + 1 >= max) {
                    return Err(r.peeked(Code::Recursion));
                }
                r.i += 1;
                match (c, r.ws()) {
                    (b'[', Some(b']')) => {
                        r.i += 1;
                        Value::Array(Vec::new())
                    }
                    (b'[', Some(_)) => {
                        stack.push(Open::Array(Vec::new()));
                        continue 'value;
                    }
                    (b'[', None) => return Err(r.peeked(Code::EofList)),
                    (_, Some(b'}')) => {
                        r.i += 1;
                        Value::Object(Map::new())
                    }
                    (_, Some(b'"')) => {
                        let key = r.key()?;
                        stack.push(Open::Object(Map::new(), key));
                        continue 'value;
                    }
                    (_, Some(_)) => return Err(r.peeked(Code::Key)),
                    (_, None) => return Err(r.peeked(Code::EofObject)),
                }
            }
            _ => r.scalar()?,
        };
        // A value is complete: it goes into the container it closes, or ends the text.
        loop {
            let Some(open) = stack.last_mut() else {
                return match r.ws() {
                    None => Ok(value),
                    Some(_) => Err(r.peeked(Code::TrailingCharacters)),
                };
            };
            let (close, eof, comma_or_end) = match open {
                Open::Array(items) => {
                    items.push(value);
                    (b']', Code::EofList, Code::ListCommaOrEnd)
                }
                Open::Object(map, key) => {
                    map.insert(std::mem::take(key), value);
                    (b'}', Code::EofObject, Code::ObjectCommaOrEnd)
                }
            };
            match r.ws() {
                Some(b',') => {
                    r.i += 1;
                    match (r.ws(), &mut *open) {
                        (None, _) => return Err(r.peeked(Code::EofValue)),
                        (Some(c), _) if c == close => return Err(r.peeked(Code::TrailingComma)),
                        (Some(b'"'), Open::Object(_, key)) => *key = r.key()?,
                        (Some(_), Open::Object(..)) => return Err(r.peeked(Code::Key)),
                        (Some(_), Open::Array(_)) => {}
                    }
                    continue 'value;
                }
                Some(c) if c == close => {
                    r.i += 1;
                    value = match stack.pop() {
                        Some(Open::Array(items)) => Value::Array(items),
                        Some(Open::Object(map, _)) => Value::Object(map),
                        None => unreachable!("a container was open"),
                    };
                }
                Some(_) => return Err(r.peeked(comma_or_end)),
                None => return Err(r.peeked(eof)),
            }
        }
    }
}

impl Reader<'_> {
    /// The next byte that is not JSON whitespace, not consumed.
    fn ws(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
        self.b.get(self.i).copied()
    }

    /// An error at the byte at `i`, looked at: one past it, or the end.
    fn peeked(&self, code: Code) -> Syntax {
        Syntax { code, at: (self.i + 1).min(self.b.len()) }
    }

    /// An error at `i`: just past the byte read last, or the end.
    fn here(&self, code: Code) -> Syntax {
        Syntax { code, at: self.i }
    }

    /// The byte at `i`, consumed; at the end, the error `eof`.
    fn next(&mut self, eof: Code) -> Result<u8, Syntax> {
        let c = *self.b.get(self.i).ok_or(self.here(eof))?;
        self.i += 1;
        Ok(c)
    }

    /// A member's key at `i` (which holds `"`), and the colon after it.
    fn key(&mut self) -> Result<String, Syntax> {
        self.i += 1;
        let key = self.string()?;
        match self.ws() {
            Some(b':') => {
                self.i += 1;
                Ok(key)
            }
            Some(_) => Err(self.peeked(Code::Colon)),
            None => Err(self.peeked(Code::EofObject)),
        }
    }

    fn scalar(&mut self) -> Result<Value, Syntax> {
        let (word, value): (&[u8], Value) = match self.b.get(self.i) {
            None => return Err(self.here(Code::EofValue)),
            Some(b'"') => {
                self.i += 1;
                return self.string().map(Value::String);
            }
            Some(b'-' | b'0'..=b'9') => return self.number().map(Value::Number),
            Some(b'n') => (b"null", Value::Null),
            Some(b't') => (b"true", Value::Bool(true)),
            Some(b'f') => (b"false", Value::Bool(false)),
            Some(_) => return Err(self.peeked(Code::Value)),
        };
        for &want in word {
            if self.next(Code::EofValue)? != want {
                return Err(self.here(Code::Ident));
            }
        }
        Ok(value)
    }

    /// A number, its text as serde_json keeps it: as written, except that an exponent is
    /// written `e` with its sign (`1E5` is `1e+5`).
    fn number(&mut self) -> Result<Number, Syntax> {
        let b = self.b;
        let mut out = String::new();
        if b[self.i] == b'-' {
            self.i += 1;
            out.push('-');
        }
        let digits = |r: &mut Self, out: &mut String| {
            while let Some(&c @ b'0'..=b'9') = r.b.get(r.i) {
                out.push(char::from(c));
                r.i += 1;
            }
        };
        match self.next(Code::EofValue)? {
            b'0' if matches!(b.get(self.i), Some(b'0'..=b'9')) => return Err(self.peeked(Code::Number)),
            b'0' => out.push('0'),
            c @ b'1'..=b'9' => {
                out.push(char::from(c));
                digits(self, &mut out);
            }
            _ => return Err(self.here(Code::Number)),
        }
        if b.get(self.i) == Some(&b'.') {
            self.i += 1;
            out.push('.');
            let before = out.len();
            digits(self, &mut out);
            if out.len() == before {
                let eof = self.i == b.len();
                return Err(self.peeked(if eof { Code::EofValue } else { Code::Number }));
            }
        }
        if let Some(b'e' | b'E') = b.get(self.i) {
            self.i += 1;
            out.push('e');
            match b.get(self.i) {
                Some(&c @ (b'+' | b'-')) => {
                    self.i += 1;
                    out.push(char::from(c));
                }
                _ => out.push('+'),
            }
            if !self.next(Code::EofValue)?.is_ascii_digit() {
                return Err(self.here(Code::Number));
            }
            out.push(char::from(b[self.i - 1]));
            digits(self, &mut out);
        }
        Ok(Number::from_string_unchecked(out))
    }

    /// A string's characters, from just past its opening quote to past its closing one.
    fn string(&mut self) -> Result<String, Syntax> {
        let mut out = Vec::new();
        loop {
            let start = self.i;
            while let Some(&c) = self.b.get(self.i) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.extend_from_slice(&self.b[start..self.i]);
            match self.next(Code::EofString)? {
                b'"' => break,
                b'\\' => self.escape(&mut out)?,
                _ => return Err(self.here(Code::Control)),
            }
        }
        // Runs of valid UTF-8 and whole characters from escapes: valid UTF-8.
        String::from_utf8(out).map_err(|_| self.here(Code::Escape))
    }

    /// One escape, past its backslash.
    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), Syntax> {
        let c = match self.next(Code::EofString)? {
            c @ (b'"' | b'\\' | b'/') => c,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => return self.unicode(out),
            _ => return Err(self.here(Code::Escape)),
        };
        out.push(c);
        Ok(())
    }

    /// A `\u` escape past its `u`; a surrogate must be the high half of a pair.
    fn unicode(&mut self, out: &mut Vec<u8>) -> Result<(), Syntax> {
        let high = self.hex4()?;
        let code = match high {
            0xDC00..=0xDFFF => return Err(self.here(Code::LoneSurrogate)),
            0xD800..=0xDBFF => {
                for want in [b'\\', b'u'] {
                    if self.next(Code::EofString)? != want {
                        return Err(self.here(Code::EndOfHexEscape));
                    }
                }
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.here(Code::LoneSurrogate));
                }
                0x1_0000 + (((u32::from(high) - 0xD800) << 10) | (u32::from(low) - 0xDC00))
            }
            _ => u32::from(high),
        };
        let c = char::from_u32(code).ok_or(self.here(Code::Escape))?;
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        Ok(())
    }

    fn hex4(&mut self) -> Result<u16, Syntax> {
        let Some(digits) = self.b.get(self.i..self.i + 4) else {
            self.i = self.b.len();
            return Err(self.here(Code::EofString));
        };
        self.i += 4;
        let n = digits.iter().try_fold(0u16, |n, &d| Some((n << 4) | char::from(d).to_digit(16)? as u16));
        n.ok_or(self.here(Code::Escape))
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::json::generated;
    use serde::Deserialize;
    use serde_json::Value;

    /// serde_json's reading, as the core read JSON before `parse` (no recursion limit), with
    /// the offset of its error: `position_of_index` turned back into a byte offset.
    fn oracle(text: &str) -> Result<Value, (usize, String)> {
        let mut de = serde_json::Deserializer::from_str(text);
        de.disable_recursion_limit();
        let value = Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
        value.map_err(|e| {
            let newline = e.line().checked_sub(2).map(|n| text.match_indices('\n').nth(n).unwrap().0);
            (newline.map_or(0, |i| i + 1) + e.column(), e.to_string())
        })
    }

    fn same(text: &str) -> bool {
        let ours = parse(text, None).map_err(|e| (e.at, e.message(text)));
        let theirs = oracle(text);
        assert_eq!(ours, theirs, "{text:?}");
        // Numbers keep serde_json's text, not only an equal value.
        if let (Ok(a), Ok(b)) = (&ours, &theirs) {
            assert_eq!(a.to_string(), b.to_string(), "{text:?}");
        }
        ours.is_ok()
    }

    #[test]
    fn reads_what_serde_json_reads_and_fails_where_it_fails() {
        for t in [
            "",
            " ",
            "1",
            "-",
            "-0",
            "01",
            "1.",
            "1.5",
            "1e",
            "1E+",
            "1e-7",
            "1E5",
            "-12.50E-3",
            "18446744073709551616",
            "-9223372036854775809",
            "nul",
            "nulx",
            "true ",
            "tru",
            "fals",
            "[",
            "[1",
            "[1,",
            "[1,]",
            "[,1]",
            "[1 2]",
            "{",
            "{\"a\"",
            "{\"a\":",
            "{\"a\":1",
            "{\"a\":1,",
            "{\"a\":1,}",
            "{1:2}",
            "{\"a\" 1}",
            "{\"a\":1 \"b\":2}",
            "\"",
            "\"a",
            "\"\\",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"\\ud800\"",
            "\"\\ud800\\n\"",
            "\"\\ud800x\"",
            "\"\\ud800\\u0041\"",
            "\"\\udc00\"",
            "\"\\ud83d\\ude00\"",
            "\"a\tb\"",
            "\"\u{1}\"",
            "\"é\\u00e9\"",
            "[]]",
            "{} x",
            "1\n\n 2",
            "\n[\n1,\n]",
            "{\"a\":{\"b\":[1,{\"c\":null}]},\"a\":2}",
            "\u{feff}1",
            "[1e999]",
        ] {
            same(t);
        }
    }

    /// Random texts from JSON-ish pieces (fixed seed): the same value or the same error offset.
    #[test]
    fn agrees_with_serde_json_on_generated_text() {
        let pieces = [
            "{", "}", "[", "]", "\"", "\"k\"", ":", ",", " ", "\n", "\t", "1", "-", "0", "01", ".", "5", "e", "E", "+",
            "-0.5e3", "1.", "tru", "true", "null", "false", "n", "\\", "\\u00e9", "\\ud800", "\\udc00", "\\u12", "\\n",
            "\\x", "\u{1}", "\u{7f}", "é", "x", "\r",
        ];
        let mut next = generated::draws(0x5eed_0029);
        let scalars = [
            "1",
            "-0",
            "0.5",
            "-12.50E-3",
            "1e5",
            "18446744073709551616",
            "\"a\"",
            "\"\\u00e9\\ud83d\\ude00\\n\"",
            "\"é\"",
            "true",
            "false",
            "null",
            "[]",
            "{}",
        ];
        let ws = [" ", "", "\n", "\t\r"];
        let (mut valid, mut cases) = (0, 0);
        for case in 0..200_000 {
            let mut t: String = (0..1 + next(16)).map(|_| pieces[next(pieces.len())]).collect();
            if case % 2 == 0 {
                // A well-formed value, half of them with one piece put in somewhere.
                t = generated::value(&mut next, 0, &scalars, &ws);
                if case % 4 == 0 {
                    let at = (0..=next(t.len() + 1)).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0).min(t.len());
                    t.insert_str(at, pieces[next(pieces.len())]);
                }
            }
            valid += usize::from(same(&t));
            cases += 1;
        }
        assert!(valid > 50_000 && cases - valid > 50_000, "too one-sided: {valid} of {cases} valid");
    }

    #[test]
    fn nesting_past_the_limit_fails_and_deep_text_does_not_use_the_stack() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep(127), Some(128)).is_ok());
        assert!(serde_json::from_str::<Value>(&deep(127)).is_ok());
        for t in [deep(128), format!("{{\"a\":\n{}", deep(140))] {
            let theirs = serde_json::from_str::<Value>(&t).unwrap_err().to_string();
            assert_eq!(parse(&t, Some(128)).unwrap_err().message(&t), theirs);
        }
        let value = parse(&deep(200_000), None).unwrap();
        std::mem::forget(value); // dropping it would recurse (serde_json's `Drop`)
    }

    /// serde_json's private number key is data here (see the module's comment).
    #[test]
    fn the_private_number_key_is_an_object() {
        let t = r#"{"$serde_json::private::Number":"12"}"#;
        assert!(oracle(t).unwrap().is_number());
        assert!(parse(t, None).unwrap().is_object());
    }
}
