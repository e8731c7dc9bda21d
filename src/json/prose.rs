//! Where JSON objects and arrays are written inside prose (rule 5): every `{` or `[` that
//! starts a JSON value, wherever it stands, in one pass.
//!
//! Reading JSON from one opening bracket is deterministic: from there each byte is either in a
//! string or not, and the grammar says what may come next. A reading that fails says nothing
//! about a bracket inside it that it read as string text (`[note: {"s":1}]`, `["a {"s":1}`),
//! so every bracket starts a reading of its own. Two readings that stand at the same byte on
//! the same side of a quote read the same tokens from there on, so a bracket where a reading
//! takes a value is a child of it, and there are only ever two readings to carry: one outside
//! a string and one inside. Each byte is read by each of them once, and each bracket is pushed
//! and popped once: linear in the text, however the brackets nest or fail.

use super::scan;

/// What a reading takes next in the container it is in.
#[derive(Clone, Copy, PartialEq)]
enum Next {
    /// After `[`.
    ValueOrClose,
    /// After `,` in an array, `:` in an object.
    Value,
    /// After `{`.
    KeyOrClose,
    /// After `,` in an object.
    Key,
    Colon,
    CommaOrClose,
}

/// One reading from an opening bracket: the brackets it has open (start, is an object, how
/// many spans were `done` when it opened), what comes next, and the JSON values that closed
/// inside it while it is still open (a container that closes valid replaces them: they are in
/// it). Empty: no reading, prose.
#[derive(Default)]
struct Reading {
    open: Vec<(usize, bool, usize)>,
    done: Vec<(usize, usize)>,
    next: Option<Next>,
    /// A number or literal is being read up to here.
    busy: usize,
}

impl Reading {
    /// Starts reading at the bracket at `i`, the brackets of the reading before it failed.
    fn restart(&mut self, out: &mut Vec<(usize, usize)>, i: usize, object: bool) {
        self.fail(out);
        self.push(i, object);
    }

    fn push(&mut self, i: usize, object: bool) {
        #[cfg(test)]
        tests::WORK.with(|w| w.set(w.get() + 1));
        self.open.push((i, object, self.done.len()));
        self.next = Some(if object { Next::KeyOrClose } else { Next::ValueOrClose });
    }

    /// The reading failed: its open brackets are no JSON, the values that closed in it are.
    fn fail(&mut self, out: &mut Vec<(usize, usize)>) {
        #[cfg(test)]
        tests::WORK.with(|w| w.set(w.get() + (self.open.len() + self.done.len()) as u64));
        self.open.clear();
        out.append(&mut self.done);
        self.next = None;
    }

    fn takes_value(&self) -> bool {
        matches!(self.next, Some(Next::Value | Next::ValueOrClose))
    }

    /// The bracket `c` at `i` closes the innermost one open, if the grammar allows it here.
    fn close(&mut self, out: &mut Vec<(usize, usize)>, i: usize, object: bool) {
        let fits = match self.next {
            Some(Next::CommaOrClose) => true,
            Some(Next::KeyOrClose) => object,
            Some(Next::ValueOrClose) => !object,
            _ => false,
        };
        match self.open.last() {
            Some(&(start, kind, before)) if fits && kind == object => {
                self.open.pop();
                self.done.truncate(before);
                self.done.push((start, i + 1));
                self.next = Some(Next::CommaOrClose);
                if self.open.is_empty() {
                    self.fail(out); // a whole value: nothing more to read
                }
            }
            _ => self.fail(out),
        }
    }

    /// Byte `c` at `i`, read outside a string. True when it opens a string.
    fn outside(&mut self, out: &mut Vec<(usize, usize)>, b: &[u8], i: usize) -> bool {
        if i < self.busy {
            return false;
        }
        let in_object = self.open.last().is_some_and(|o| o.1);
        match (b[i], self.next) {
            (b' ' | b'\t' | b'\n' | b'\r', _) | (_, None) => {}
            (c @ (b'{' | b'['), _) if self.takes_value() => self.push(i, c == b'{'),
            (c @ (b'}' | b']'), _) => self.close(out, i, c == b'}'),
            (b'"', Some(Next::Key | Next::KeyOrClose)) => {
                self.next = Some(Next::Colon);
                return true;
            }
            (b'"', _) if self.takes_value() => {
                self.next = Some(Next::CommaOrClose);
                return true;
            }
            (b',', Some(Next::CommaOrClose)) => self.next = Some(if in_object { Next::Key } else { Next::Value }),
            (b':', Some(Next::Colon)) => self.next = Some(Next::Value),
            _ if self.takes_value() => match scan::number(b, i).map(|(end, _)| end).or_else(|| scan::literal(b, i)) {
                Some(end) => (self.busy, self.next) = (end, Some(Next::CommaOrClose)),
                None => self.fail(out),
            },
            _ => self.fail(out),
        }
        false
    }
}

/// The reading inside a string, and where it is in an escape: 1 after a backslash, 2 to 5 the
/// hex digits of `\u` still to come, plus one.
struct InString {
    reading: Reading,
    escape: u8,
}

impl InString {
    /// Byte `c`, read inside a string. True when it closes the string.
    fn read(&mut self, c: u8) -> Option<bool> {
        match (self.escape, c) {
            (1, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.escape = 0,
            (1, b'u') => self.escape = 5,
            (2..=5, c) if c.is_ascii_hexdigit() => self.escape = if self.escape == 2 { 0 } else { self.escape - 1 },
            (0, b'"') => return Some(true),
            (0, b'\\') => self.escape = 1,
            (0, c) if c >= 0x20 => {}
            _ => return None,
        }
        Some(false)
    }
}

/// The JSON objects and arrays written in `text`, as spans sorted by where they start: each one
/// that parses and is not a value inside another (read from the same bracket), wherever it
/// stands: in prose, inside a bracketed span that is no JSON (`[see {...}]`), after a stray
/// quote or a bracket that never closes. Two of them may overlap, where one starts inside a
/// string of the other: at most two cover any byte (see the module's comment).
pub fn embedded_spans(text: &str) -> Vec<(usize, usize)> {
    spans_of(text, true)
}

/// [`embedded_spans`]; without `skip`, every byte is read one by one (tests hold both alike).
fn spans_of(text: &str, skip: bool) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut outside = Reading::default();
    let mut inside: Option<InString> = None;
    let mut at = 0;
    while at < b.len() {
        // With no reading under way, only a bracket starts one: the bytes before the next are
        // not read one by one (a 1 MB text with a bracket that opens no JSON in every unit
        // was read at about 35 instructions a byte, in each of its views, callgrind).
        if skip && inside.is_none() && outside.next.is_none() {
            match b[at..].iter().position(|&c| matches!(c, b'{' | b'[')) {
                Some(k) => at += k,
                None => break,
            }
        }
        let (i, c) = (at, b[at]);
        at += 1;
        #[cfg(test)]
        tests::WORK.with(|w| w.set(w.get() + 1 + u64::from(inside.is_some())));
        let mut closed = false;
        if let Some(s) = inside.as_mut() {
            match s.read(c) {
                Some(end) => closed = end,
                None => {
                    s.reading.fail(&mut out);
                    inside = None;
                }
            }
        }
        let opened = match c {
            b'{' | b'[' if !outside.takes_value() => {
                outside.restart(&mut out, i, c == b'{');
                false
            }
            _ => outside.outside(&mut out, b, i),
        };
        // The quote swaps sides: the reading outside goes in, the one inside comes out.
        if opened || closed {
            let came_out = closed.then(|| inside.take().map(|s| s.reading)).flatten();
            if opened {
                inside = Some(InString { reading: std::mem::take(&mut outside), escape: 0 });
            } else {
                outside.fail(&mut out);
            }
            if let Some(r) = came_out {
                outside = r;
            }
        }
    }
    outside.fail(&mut out);
    if let Some(mut s) = inside {
        s.reading.fail(&mut out);
    }
    crate::sort::sort(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Bytes read by each reading, brackets pushed, and brackets and spans let go.
        pub(super) static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// The spans of `t`, and the work it took per byte.
    fn work(t: &str) -> f64 {
        WORK.with(|w| w.set(0));
        embedded_spans(t);
        WORK.with(std::cell::Cell::get) as f64 / t.len() as f64
    }

    fn spans(t: &str) -> Vec<&str> {
        embedded_spans(t).into_iter().map(|(s, e)| &t[s..e]).collect()
    }

    #[test]
    fn every_value_that_parses_wherever_it_stands() {
        assert_eq!(spans(r#"a {"a":"}"} b [1,[2]] c"#), [r#"{"a":"}"}"#, "[1,[2]]"]);
        assert_eq!(spans(r#"{see: {"p":"x"}}"#), [r#"{"p":"x"}"#]);
        assert_eq!(spans(r#"[note: {"s":1}] (x [2])"#), [r#"{"s":1}"#, "[2]"]);
        assert_eq!(spans(r#"[0, 10) 5" tall {"s":1}"#), [r#"{"s":1}"#]);
        assert_eq!(spans(r#"["a {"s":1}"#), [r#"{"s":1}"#]);
        assert_eq!(spans(r#"["\" {"s":1}"#), [r#"{"s":1}"#]);
        assert_eq!(spans(r#"[1, {"a":[tru]}, {"b":{}}"#), [r#"{"b":{}}"#]);
        // `[1]` inside the string parses too, read from its own bracket.
        let t = r#"{"a":"\u00e9\"[1]"} [01] [-] [1e5, null]"#;
        assert_eq!(spans(t), [r#"{"a":"\u00e9\"[1]"}"#, "[1]", "[1e5, null]"]);
        assert_eq!(spans("[\"a\nb\"] [\"\\x\"] {\"k\"}"), Vec::<&str>::new());
        // One starts inside a string of the other: both parse, both are found.
        assert_eq!(spans(r#"["{",":","}"]"#), [r#"["{",":","}"]"#, r#"{",":","}"#]);
    }

    /// Seeded texts of brackets, quotes, escapes, numbers, literals and prose: the spans are
    /// those of every byte read one by one, and bytes outside any reading are not read (they
    /// were, one unit each: 1 a byte of prose).
    #[test]
    fn prose_between_readings_is_skipped_with_the_same_spans() {
        const BYTES: &[u8] = b"{}[]\",:\\ 1a-.etrunlx";
        let mut seed = 0x5eed_u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..20_000 {
            let len = next(40) as usize;
            let t: String = (0..len).map(|_| BYTES[next(BYTES.len() as u64) as usize] as char).collect();
            assert_eq!(embedded_spans(&t), spans_of(&t, false), "{t:?}");
            let spans = embedded_spans(&t);
            assert_eq!(crate::json::quoted_spans(&t, &spans), crate::json::quoted_spans_before(&t, &spans), "{t:?}");
        }
        assert_eq!(work(&"no bracket here, \"nor JSON\" 12 ".repeat(1000)), 0.0);
        assert!(work(&"_meta{ %2525 &amp; ".repeat(1000)) < 0.4);
    }

    #[test]
    fn linear_in_pathological_text() {
        // Each byte is read at most twice, and each bracket pushed and let go once: at most 4
        // units a byte whatever the text (a reading restarted at each bracket would be n²).
        let cases = [
            "[".repeat(50_000),
            "{see: ".repeat(50_000),
            "[\"{\"".repeat(50_000),
            format!("{}{}", "[1,".repeat(50_000), "]".repeat(50_000)),
            format!("{}x", "[\"a\",{\"b\":[".repeat(20_000)),
            r#"["{",":","}"] "#.repeat(20_000),
        ];
        for t in &cases {
            assert!(work(t) <= 4.0, "{} units a byte", work(t));
        }
        // Openers that never close, then one object: found, one push per bracket.
        let t = format!("{}{}", "[{".repeat(50_000), r#"{"s":1}"#);
        assert_eq!(embedded_spans(&t), [(100_000, t.len())]);
        let t = format!("{}{}{}", "{see: ".repeat(50_000), r#"{"s":1}"#, "}".repeat(50_000));
        assert_eq!(embedded_spans(&t), [(300_000, 300_007)]);
        let t = format!("{}{}", "[\"{\"".repeat(50_000), r#"{"s":1}"#);
        assert_eq!(spans(&t).last(), Some(&r#"{"s":1}"#));
    }
}
