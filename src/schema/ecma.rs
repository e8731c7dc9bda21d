//! ECMA-262 regular expressions, the dialect of `patternProperties`, parsed into a tree in which
//! every class is spelled out as code point ranges (run by `regex.rs`), so that no engine's own
//! meanings of `.`, `\s`, `\w` or `\d` decide a match. The tree is also written out in
//! regex-lite syntax, which the tests run as an independent oracle. JSON Schema patterns have no flags
//! and use Unicode semantics (the `u` flag: code points, not UTF-16 units), so that is the mode
//! read here. A construct that cannot be evaluated with exactly ECMA-262's meaning (look-around,
//! backreferences, `\p{…}`) or that is a syntax error in Unicode mode is refused with a reason,
//! never approximated.
//!
//! The size of the program is estimated from the parse (NFA states plus class ranges, the two
//! things a step of the matcher touches per input character), so that a pattern such
//! as `(a{1,1000}){1,1000}` is refused before anything is built. Patterns that are a few
//! literals with anchors (`^x-`, `_secret$`, `^(id|key)$`, `token`) are also reported as such:
//! the compiler looks those up by hash, trie or Aho-Corasick instead of running a regex.

#[cfg(any(test, fuzzing))]
use std::fmt::Write;

use crate::hash::TextSet;

/// Largest program one pattern may compile to: NFA states plus class ranges (see [`Ast::size`]).
/// Each key a regex is run on costs at most this much work per character.
pub(crate) const MAX_PATTERN_SIZE: usize = 10_000;
/// Deepest nesting of groups: the parser and the passes over its tree recurse.
const MAX_NEST: usize = 100;
/// At most this many strings in the literal form of one pattern.
const MAX_LITERALS: usize = 64;
/// A class of at most this many code points may stand for literal alternatives.
const MAX_CLASS_LITERALS: u32 = 8;

const MAX_SCALAR: u32 = 0x10_FFFF;
const SURROGATES: (u32, u32) = (0xD800, 0xDFFF);

/// A pattern, translated.
#[derive(Debug)]
pub(crate) struct Translated {
    /// regex-lite syntax with the same meaning (the tests' oracle).
    #[cfg(any(test, fuzzing))]
    pub source: String,
    /// The parse, for `regex.rs`.
    pub ast: Ast,
    /// A literal every matching key starts or ends with (`Prefix` or `Suffix`), or an empty
    /// `Contains` when there is none.
    pub required: Literal,
    /// The estimated program size, at most [`MAX_PATTERN_SIZE`].
    pub size: usize,
    /// When the pattern is a few literal strings with anchors: those strings. A key matches the
    /// pattern exactly when it matches one of them.
    pub literals: Option<Vec<Literal>>,
}

/// Where a literal must sit in a key for the pattern to match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// `^text$`: the whole key.
    Exact,
    /// `^text`: the start of the key.
    Prefix,
    /// `text$`: the end of the key.
    Suffix,
    /// `text`: anywhere in the key.
    Contains,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Literal {
    pub anchor: Anchor,
    pub text: String,
}

/// Translates one ECMA-262 pattern, or says why it cannot be evaluated exactly.
pub(crate) fn translate(pattern: &str) -> Result<Translated, String> {
    let mut p = Parser { chars: pattern.chars().collect(), pos: 0, depth: 0, names: TextSet::default() };
    let ast = p.disjunction()?;
    if p.pos < p.chars.len() {
        return Err("unmatched `)`".into());
    }
    let size = ast.size().saturating_add(4); // the implicit capture group around it, and the match state
    if size > MAX_PATTERN_SIZE {
        return Err(format!(
            "the compiled pattern would have about {size} states and class ranges, over the limit of {MAX_PATTERN_SIZE} per pattern; bound the repetitions"
        ));
    }
    #[cfg(any(test, fuzzing))]
    let source = {
        let mut source = String::new();
        ast.emit(&mut source);
        source
    };
    Ok(Translated {
        #[cfg(any(test, fuzzing))]
        source,
        size,
        literals: literals(&ast),
        required: required(&ast),
        ast,
    })
}

/// A parsed pattern. A single character is a one-point `Set`; sets never hold surrogates.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ast {
    Empty,
    Set(Vec<(u32, u32)>),
    Start,
    End,
    WordBoundary,
    NotWordBoundary,
    Concat(Vec<Ast>),
    Alt(Vec<Ast>),
    Repeat(Box<Ast>, u32, Option<u32>),
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
    names: TextSet<String>,
}

/// What one class atom stands for.
enum ClassAtom {
    Char(u32),
    Class(Vec<(u32, u32)>),
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let yes = self.peek() == Some(c);
        self.pos += usize::from(yes);
        yes
    }

    fn next(&mut self) -> Result<char, String> {
        let c = self.peek().ok_or("the pattern ends too early")?;
        self.pos += 1;
        Ok(c)
    }

    fn disjunction(&mut self) -> Result<Ast, String> {
        let mut alternatives = vec![self.alternative()?];
        while self.eat('|') {
            alternatives.push(self.alternative()?);
        }
        Ok(if alternatives.len() == 1 { alternatives.pop().unwrap_or(Ast::Empty) } else { Ast::Alt(alternatives) })
    }

    fn alternative(&mut self) -> Result<Ast, String> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            terms.push(self.term()?);
        }
        Ok(match terms.len() {
            0 => Ast::Empty,
            1 => terms.pop().unwrap_or(Ast::Empty),
            _ => Ast::Concat(terms),
        })
    }

    fn term(&mut self) -> Result<Ast, String> {
        let c = self.next()?;
        let atom = match c {
            '^' => return self.assertion(Ast::Start),
            '$' => return self.assertion(Ast::End),
            '\\' if self.eat('b') => return self.assertion(Ast::WordBoundary),
            '\\' if self.eat('B') => return self.assertion(Ast::NotWordBoundary),
            '\\' => self.atom_escape()?,
            '(' => self.group()?,
            '[' => self.class()?,
            '.' => Ast::Set(dot()),
            '*' | '+' | '?' => return Err(format!("`{c}` has nothing to repeat")),
            '{' => return Err("`{` has nothing to repeat (write `\\{` for the character)".into()),
            ']' | '}' => return Err(format!("a lone `{c}` is a syntax error in Unicode mode (write `\\{c}`)")),
            c => Ast::Set(exact(point(c as u32))?),
        };
        self.quantified(atom)
    }

    /// An assertion stands alone: Unicode mode does not allow repeating it.
    fn assertion(&mut self, a: Ast) -> Result<Ast, String> {
        let at = self.pos;
        if self.quantifier()?.is_some() {
            self.pos = at;
            return Err("an assertion (`^`, `$`, `\\b`, `\\B`) cannot be repeated".into());
        }
        Ok(a)
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe followed by `?` (lazy, the same for
    /// whether a key matches). A `{` that does not start one is a syntax error in Unicode mode.
    fn quantifier(&mut self) -> Result<Option<(u32, Option<u32>)>, String> {
        let bounds = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.pos += 1;
                let min = self.number().ok_or("`{` must start a quantifier such as `{2}` or `{1,3}` (write `\\{`)")?;
                let max = if self.eat(',') {
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(self.number().ok_or("a quantifier `{n,m}` needs a number after the comma")?)
                    }
                } else {
                    Some(min)
                };
                if !self.eat('}') {
                    return Err("a quantifier `{…}` is missing its `}`".into());
                }
                self.pos -= 1;
                (min, max)
            }
            _ => return Ok(None),
        };
        self.pos += 1;
        self.eat('?');
        if bounds.1.is_some_and(|max| max < bounds.0) {
            return Err("the numbers of a `{n,m}` quantifier are out of order".into());
        }
        Ok(Some(bounds))
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.pos;
        let mut n: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d);
            self.pos += 1;
        }
        (self.pos > start).then_some(n)
    }

    fn quantified(&mut self, atom: Ast) -> Result<Ast, String> {
        Ok(match self.quantifier()? {
            None => atom,
            Some((_, Some(0))) => Ast::Empty,
            Some((1, Some(1))) => atom,
            Some(_) if atom == Ast::Empty => Ast::Empty,
            Some((min, max)) => Ast::Repeat(Box::new(atom), min, max),
        })
    }

    fn group(&mut self) -> Result<Ast, String> {
        if self.eat('?') {
            match self.next()? {
                ':' => {}
                '=' | '!' => return Err("look-ahead (`(?=…)`, `(?!…)`) cannot be evaluated by this engine".into()),
                '<' if matches!(self.peek(), Some('=' | '!')) => {
                    return Err("look-behind (`(?<=…)`, `(?<!…)`) cannot be evaluated by this engine".into())
                }
                '<' => self.group_name()?,
                _ => return Err("`(?` must start `(?:`, a look-around or a named group `(?<name>`".into()),
            }
        }
        self.depth += 1;
        if self.depth > MAX_NEST {
            return Err(format!("groups are nested deeper than {MAX_NEST}"));
        }
        let inner = self.disjunction()?;
        self.depth -= 1;
        if !self.eat(')') {
            return Err("a group is missing its `)`".into());
        }
        Ok(inner)
    }

    /// `name>` of a named group: a capture group like any other here (no backreferences).
    fn group_name(&mut self) -> Result<(), String> {
        let mut name = String::new();
        loop {
            match self.next()? {
                '>' => break,
                c if c.is_ascii_alphabetic() || c == '_' || c == '$' || (c.is_ascii_digit() && !name.is_empty()) => {
                    name.push(c)
                }
                _ => return Err("a group name must be an ASCII identifier".into()),
            }
        }
        #[cfg(test)]
        tests::LOOKED.with(|c| c.set(c.get() + 1));
        // A set: a list searched per name was quadratic (40,000 groups, 430 KB, took 2.6 s).
        if name.is_empty() || self.names.contains(&name) {
            return Err(format!("the group name `{name}` is empty or used twice"));
        }
        self.names.insert(name);
        Ok(())
    }

    /// After a `\` outside a class (`\b` and `\B` were taken before).
    fn atom_escape(&mut self) -> Result<Ast, String> {
        let c = self.next().map_err(|_| "the pattern ends with a lone `\\`".to_string())?;
        Ok(match c {
            '1'..='9' => return Err("backreferences (`\\1`) cannot be evaluated by this engine".into()),
            'k' => return Err("named backreferences (`\\k<name>`) cannot be evaluated by this engine".into()),
            _ => match self.class_escape(c)? {
                ClassAtom::Char(c) => Ast::Set(exact(point(c))?),
                ClassAtom::Class(set) => Ast::Set(set),
            },
        })
    }

    /// A class escape or a character escape, after its `\` (and its letter `c`).
    fn class_escape(&mut self, c: char) -> Result<ClassAtom, String> {
        Ok(ClassAtom::Class(match c {
            'd' => digit(),
            'D' => negate(&digit()),
            's' => space(),
            'S' => negate(&space()),
            'w' => word(),
            'W' => negate(&word()),
            'p' | 'P' => return Err("Unicode property escapes (`\\p{…}`) are not supported".into()),
            _ => return self.char_escape(c).map(ClassAtom::Char),
        }))
    }

    /// A character escape after its `\`: the code point it stands for (maybe a lone surrogate).
    fn char_escape(&mut self, c: char) -> Result<u32, String> {
        Ok(match c {
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'v' => 0x0B,
            'c' => match self.next() {
                Ok(l) if l.is_ascii_alphabetic() => l as u32 % 32,
                _ => return Err("`\\c` must be followed by a letter".into()),
            },
            '0' if self.peek().is_some_and(|d| d.is_ascii_digit()) => {
                return Err("octal escapes (`\\0` followed by a digit) are a syntax error in Unicode mode".into())
            }
            '0' => 0,
            'x' => self.hex(2).ok_or("`\\x` must be followed by two hex digits")?,
            'u' => self.unicode_escape()?,
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '/' => c as u32,
            c => return Err(format!("`\\{c}` is not an escape in ECMA-262 Unicode mode")),
        })
    }

    fn hex(&mut self, digits: usize) -> Option<u32> {
        let mut n = 0;
        for _ in 0..digits {
            n = n * 16 + self.peek()?.to_digit(16)?;
            self.pos += 1;
        }
        Some(n)
    }

    /// `\u{…}`, `\uXXXX`, or a surrogate pair `\uD83D\uDE00` (one code point in Unicode mode).
    fn unicode_escape(&mut self) -> Result<u32, String> {
        if self.eat('{') {
            let start = self.pos;
            let mut n: u32 = 0;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                n = n.saturating_mul(16).saturating_add(d);
                self.pos += 1;
            }
            if self.pos == start || !self.eat('}') || n > MAX_SCALAR {
                return Err("`\\u{…}` must hold a code point of at most 10FFFF".into());
            }
            return Ok(n);
        }
        let lead = self.hex(4).ok_or("`\\u` must be followed by four hex digits or `{…}`")?;
        if (0xD800..0xDC00).contains(&lead) && self.peek() == Some('\\') && self.peek_at(1) == Some('u') {
            let at = self.pos;
            self.pos += 2;
            match self.hex(4) {
                Some(trail) if (0xDC00..0xE000).contains(&trail) => {
                    return Ok(0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00))
                }
                _ => self.pos = at,
            }
        }
        Ok(lead)
    }

    fn class(&mut self) -> Result<Ast, String> {
        let negated = self.eat('^');
        let mut set = Vec::new();
        loop {
            match self.peek() {
                None => return Err("a class `[…]` is missing its `]`".into()),
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {}
            }
            let first = self.class_atom()?;
            let is_range = self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']');
            if !is_range {
                match first {
                    ClassAtom::Char(c) => set.push((c, c)),
                    ClassAtom::Class(ranges) => set.extend(ranges),
                }
                continue;
            }
            self.pos += 1;
            match (first, self.class_atom()?) {
                (ClassAtom::Char(a), ClassAtom::Char(b)) if a <= b => set.push((a, b)),
                (ClassAtom::Char(_), ClassAtom::Char(_)) => return Err("a class range is out of order".into()),
                _ => return Err("a class escape (`\\d`, `\\s`, `\\w`…) cannot end a range in Unicode mode".into()),
            }
        }
        let set = exact(set)?;
        Ok(Ast::Set(if negated { negate(&set) } else { set }))
    }

    fn class_atom(&mut self) -> Result<ClassAtom, String> {
        match self.next()? {
            '\\' => match self.next().map_err(|_| "a class ends with a lone `\\`".to_string())? {
                'b' => Ok(ClassAtom::Char(0x08)),
                '-' => Ok(ClassAtom::Char('-' as u32)),
                '1'..='9' => Err("`\\1`… inside a class is a syntax error in Unicode mode".into()),
                c => self.class_escape(c),
            },
            c => Ok(ClassAtom::Char(c as u32)),
        }
    }
}

/// A single code point, not yet normalized (see [`exact`]).
fn point(c: u32) -> Vec<(u32, u32)> {
    vec![(c, c)]
}

/// A set of the pattern as written, checked: the core reads a key's lone surrogate escape as
/// U+FFFD (a Rust string cannot hold one), so a set that holds U+FFFD or some surrogate but
/// not all of them would decide such a key differently from ECMA-262 (`^\ud800$`,
/// `[^\ufffd]`, `[\ue000-\uffff]`): the pattern cannot be evaluated exactly. Every other set,
/// `.`, `\W` and `[^a]` among them, holds all of them or none.
fn exact(set: Vec<(u32, u32)>) -> Result<Vec<(u32, u32)>, String> {
    // Most sets are one character of a literal: a scalar value other than U+FFFD is already
    // normalized, and checking it as a set (a vector of its own) was half of parsing a pattern.
    if let [(lo, hi)] = set[..] {
        if lo == hi && lo != 0xFFFD && !(SURROGATES.0..=SURROGATES.1).contains(&lo) && lo <= 0x10FFFF {
            return Ok(set);
        }
    }
    exact_checked(set)
}

/// [`exact`] for any set.
fn exact_checked(set: Vec<(u32, u32)>) -> Result<Vec<(u32, u32)>, String> {
    let fffd = set.iter().any(|&(lo, hi)| lo <= 0xFFFD && 0xFFFD <= hi);
    let some = set.iter().any(|&(lo, hi)| lo <= SURROGATES.1 && hi >= SURROGATES.0);
    // All of them: the ranges meeting the surrogates, sorted, leave no gap in them.
    let mut meeting: Vec<(u32, u32)> =
        set.iter().copied().filter(|&(lo, hi)| lo <= SURROGATES.1 && hi >= SURROGATES.0).collect();
    crate::sort::sort(&mut meeting);
    let mut next = SURROGATES.0;
    for (lo, hi) in meeting {
        if lo <= next {
            next = next.max(hi.saturating_add(1));
        }
    }
    let all = next > SURROGATES.1;
    if (fffd && all) || (!fffd && !some) {
        Ok(normalize(set))
    } else {
        Err("the pattern tells U+FFFD and lone surrogates apart, which this library reads alike in a key (a lone surrogate escape reads as U+FFFD)".into())
    }
}

fn digit() -> Vec<(u32, u32)> {
    vec![(0x30, 0x39)]
}

fn word() -> Vec<(u32, u32)> {
    vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
}

/// ECMA-262 WhiteSpace and LineTerminator: tab, LF, VT, FF, CR, space, NBSP, BOM, the Zs
/// category (U+1680, U+2000–U+200A, U+202F, U+205F, U+3000), LS and PS.
fn space() -> Vec<(u32, u32)> {
    normalize(vec![
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ])
}

/// `.` without the `s` flag: every code point but the four line terminators.
fn dot() -> Vec<(u32, u32)> {
    negate(&[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])
}

/// Sorted, merged ranges of Unicode scalar values (surrogates cut out: they never occur in a key).
fn normalize(mut set: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    crate::sort::sort(&mut set);
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(set.len());
    for (lo, hi) in set {
        for (lo, hi) in [(lo, hi.min(SURROGATES.0 - 1)), (lo.max(SURROGATES.1 + 1), hi)] {
            if lo > hi {
                continue;
            }
            match out.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
    }
    crate::sort::sort(&mut out);
    out
}

fn negate(set: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(lo, hi) in set {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi + 1;
    }
    if next <= MAX_SCALAR {
        out.push((next, MAX_SCALAR));
    }
    normalize(out)
}

fn set_len(set: &[(u32, u32)]) -> u32 {
    set.iter().map(|(lo, hi)| hi - lo + 1).sum()
}

impl Ast {
    /// An upper bound of the states plus class ranges of regex-lite's program for this tree,
    /// following its compiler: a bounded repetition is unrolled, one copy per count.
    fn size(&self) -> usize {
        match self {
            Ast::Empty => 1,
            Ast::Set(set) => 1 + set.len(),
            Ast::Start | Ast::End | Ast::WordBoundary | Ast::NotWordBoundary => 1,
            Ast::Concat(v) => v.iter().fold(0usize, |n, a| n.saturating_add(a.size())),
            Ast::Alt(v) => v.iter().fold(2 + v.len(), |n, a| n.saturating_add(a.size())),
            Ast::Repeat(a, min, max) => {
                let one = a.size();
                let (min, max) = (*min as usize, max.map(|m| m as usize));
                match max {
                    Some(max) => {
                        one.saturating_mul(min.max(1)).saturating_add((max - min).saturating_mul(one.saturating_add(3)))
                    }
                    None => one.saturating_mul(min.saturating_add(1)).saturating_add(3),
                }
            }
        }
    }

    #[cfg(any(test, fuzzing))]
    fn emit(&self, out: &mut String) {
        match self {
            Ast::Empty => {}
            Ast::Set(set) => emit_set(set, out),
            Ast::Start => out.push('^'),
            Ast::End => out.push('$'),
            Ast::WordBoundary => out.push_str("(?:\\b)"),
            Ast::NotWordBoundary => out.push_str("(?:\\B)"),
            Ast::Concat(v) => v.iter().for_each(|a| a.emit(out)),
            Ast::Alt(v) => {
                out.push_str("(?:");
                for (i, a) in v.iter().enumerate() {
                    if i > 0 {
                        out.push('|');
                    }
                    a.emit(out);
                }
                out.push(')');
            }
            Ast::Repeat(a, min, max) => {
                out.push_str("(?:");
                a.emit(out);
                out.push(')');
                let _ = match max {
                    Some(max) => write!(out, "{{{min},{max}}}"),
                    None => write!(out, "{{{min},}}"),
                };
            }
        }
    }
}

/// One code point as regex-lite syntax: ASCII letters and digits as they are, the rest as `\x{…}`.
#[cfg(any(test, fuzzing))]
fn emit_char(c: u32, out: &mut String) {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii_alphanumeric() => out.push(ch),
        _ => {
            let _ = write!(out, "\\x{{{c:X}}}");
        }
    }
}

#[cfg(any(test, fuzzing))]
fn emit_set(set: &[(u32, u32)], out: &mut String) {
    match set {
        [] => out.push_str("(?:\\b\\B)"), // matches nothing, as an empty class should
        [(lo, hi)] if lo == hi => emit_char(*lo, out),
        _ => {
            out.push('[');
            for &(lo, hi) in set {
                emit_char(lo, out);
                if hi > lo {
                    out.push('-');
                    emit_char(hi, out);
                }
            }
            out.push(']');
        }
    }
}

/// A literal every matching key starts with (the characters after a leading `^`) or ends with
/// (those before a trailing `$`), whichever is longer; an empty `Contains` when there is none.
/// Nested concatenations are read through; the first construct that is not one character ends it.
fn required(ast: &Ast) -> Literal {
    fn walk<'a>(items: impl DoubleEndedIterator<Item = &'a Ast>, back: bool, out: &mut Vec<char>) -> bool {
        for item in items {
            let more = match item {
                Ast::Set(set) if set.len() == 1 && set[0].0 == set[0].1 => {
                    char::from_u32(set[0].0).map(|c| out.push(c)).is_some()
                }
                Ast::Concat(v) if back => walk(v.iter().rev(), back, out),
                Ast::Concat(v) => walk(v.iter(), back, out),
                Ast::Empty => true,
                _ => false,
            };
            if !more {
                return false;
            }
        }
        true
    }
    let (mut prefix, mut suffix) = (Vec::new(), Vec::new());
    if let Ast::Concat(v) = ast {
        if v.first() == Some(&Ast::Start) {
            walk(v[1..].iter(), false, &mut prefix);
        }
        if v.last() == Some(&Ast::End) {
            walk(v[..v.len() - 1].iter().rev(), true, &mut suffix);
        }
    }
    match (prefix.len(), suffix.len()) {
        (0, 0) => Literal { anchor: Anchor::Contains, text: String::new() },
        (p, s) if p >= s => Literal { anchor: Anchor::Prefix, text: prefix.into_iter().collect() },
        _ => Literal { anchor: Anchor::Suffix, text: suffix.into_iter().rev().collect() },
    }
}

/// The literal form of a pattern: each top-level alternative an optional `^`, a finite set of
/// strings, an optional `$`.
fn literals(ast: &Ast) -> Option<Vec<Literal>> {
    let alternatives = match ast {
        Ast::Alt(v) => v.as_slice(),
        a => std::slice::from_ref(a),
    };
    let mut out = Vec::new();
    for alternative in alternatives {
        let mut items: &[Ast] = match alternative {
            Ast::Concat(v) => v,
            a => std::slice::from_ref(a),
        };
        let start = items.first() == Some(&Ast::Start);
        if start {
            items = &items[1..];
        }
        let end = items.last() == Some(&Ast::End);
        if end {
            items = &items[..items.len() - 1];
        }
        let anchor = match (start, end) {
            (true, true) => Anchor::Exact,
            (true, false) => Anchor::Prefix,
            (false, true) => Anchor::Suffix,
            (false, false) => Anchor::Contains,
        };
        // Most general patterns have an item with no finite form (`[a-z]*`): found before
        // any string is built (the products of the items before it were a sixth of
        // compiling many such patterns).
        if !items.iter().all(finite_shape) {
            return None;
        }
        let mut texts = vec![String::new()];
        for item in items {
            texts = times(texts, item)?;
        }
        out.extend(texts.into_iter().map(|text| Literal { anchor, text }));
        if out.len() > MAX_LITERALS {
            return None;
        }
    }
    Some(out)
}

/// The strings a tree without assertions or unbounded repetition matches, if they are few.
fn finite(ast: &Ast) -> Option<Vec<String>> {
    match ast {
        Ast::Empty => Some(vec![String::new()]),
        Ast::Set(set) if set_len(set) <= MAX_CLASS_LITERALS => {
            Some(set.iter().flat_map(|&(lo, hi)| lo..=hi).filter_map(char::from_u32).map(String::from).collect())
        }
        Ast::Concat(v) => v.iter().try_fold(vec![String::new()], times),
        Ast::Alt(v) => {
            let mut all = Vec::new();
            for a in v {
                all.extend(finite(a)?);
                if all.len() > MAX_LITERALS {
                    return None;
                }
            }
            Some(all)
        }
        Ast::Repeat(a, 0, Some(1)) => {
            let mut all = finite(a)?;
            all.push(String::new());
            Some(all)
        }
        _ => None,
    }
}

/// Could `finite` give strings for this tree? False exactly where its shape alone makes it
/// `None` (an assertion, an unbounded or long repetition, a large class), whatever the counts.
fn finite_shape(ast: &Ast) -> bool {
    match ast {
        Ast::Empty => true,
        Ast::Set(set) => set_len(set) <= MAX_CLASS_LITERALS,
        Ast::Concat(v) | Ast::Alt(v) => v.iter().all(finite_shape),
        Ast::Repeat(a, 0, Some(1)) => finite_shape(a),
        _ => false,
    }
}

/// `product(texts, finite(item))`, with a single character pushed onto each text in place: most
/// items of a literal pattern are one (`^o12_`), and a new string per character and per text
/// was a sixth of compiling many such patterns.
fn times(mut texts: Vec<String>, item: &Ast) -> Option<Vec<String>> {
    if let Ast::Set(set) = item {
        if let ([(lo, hi)], true) = (set.as_slice(), texts.len() <= MAX_LITERALS) {
            if let Some(c) = char::from_u32(*lo).filter(|_| lo == hi) {
                texts.iter_mut().for_each(|t| t.push(c));
                return Some(texts);
            }
        }
    }
    product(&texts, &finite(item)?)
}

fn product(left: &[String], right: &[String]) -> Option<Vec<String>> {
    if left.len().saturating_mul(right.len()) > MAX_LITERALS {
        return None;
    }
    Some(left.iter().flat_map(|l| right.iter().map(move |r| format!("{l}{r}"))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::apply::Budget;
    use regex_lite::Regex;

    thread_local! {
        /// Group names looked at to tell whether a name is used twice.
        pub(super) static LOOKED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// A pattern of `n` named groups: each name was compared with every one before it, n²/2
    /// looks (40,000 groups, 430 KB, took 2.6 s to compile). Now one each; a name used twice
    /// is still refused.
    #[test]
    fn named_groups_cost_one_look_each() {
        let n = 3000;
        let pattern: String = (0..n).map(|i| format!("(?<g{i}>a)")).collect();
        LOOKED.with(|l| l.set(0));
        let _ = translate(&pattern);
        let looked = LOOKED.with(|l| l.get());
        assert!(looked <= n, "{looked} looks for {n} names");
        assert!(refused("(?<g1>a)(?<g2>b)(?<g1>c)").contains("used twice"));
        re("(?<g1>a)(?<g2>b)").is_match("ab");
    }

    /// Our matcher and regex-lite on the translated source, which must agree on every key.
    struct Both(Regex, crate::schema::regex::Regex, String);

    impl Both {
        fn is_match(&self, key: &str) -> bool {
            let ours = self.1.is_match(key, &mut Budget::new(u64::MAX)).unwrap();
            assert_eq!(ours, self.0.is_match(key), "{} on {key:?}", self.2);
            ours
        }
    }

    fn re(pattern: &str) -> Both {
        let t = translate(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        let lite = Regex::new(&t.source).unwrap_or_else(|e| panic!("{pattern} -> {}: {e}", t.source));
        Both(lite, crate::schema::regex::Regex::new(&t.ast), pattern.to_string())
    }

    fn refused(pattern: &str) -> String {
        translate(pattern).err().unwrap_or_else(|| panic!("{pattern} was accepted"))
    }

    #[test]
    fn whitespace_is_ecma_whitespace() {
        let s = re(r"^\s$");
        for c in ['\t', '\n', '\u{0B}', '\u{0C}', '\r', ' ', '\u{A0}', '\u{1680}', '\u{2000}', '\u{200A}'] {
            assert!(s.is_match(&c.to_string()), "{c:?}");
        }
        for c in ['\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}', '\u{3000}', '\u{FEFF}'] {
            assert!(s.is_match(&c.to_string()), "{c:?}");
        }
        for c in ['\u{85}', '\u{200B}', '\u{180E}', 'a'] {
            assert!(!s.is_match(&c.to_string()), "{c:?}");
        }
        let not = re(r"^\S$");
        assert!(!not.is_match("\u{A0}") && !not.is_match("\u{FEFF}") && not.is_match("\u{85}"));
        assert!(re(r"^[^\s]$").is_match("x") && !re(r"^[^\s]$").is_match("\u{3000}"));
    }

    #[test]
    fn word_digit_and_boundary_are_ascii() {
        let w = re(r"^\w+$");
        assert!(w.is_match("abc_XYZ_019"));
        for s in ["clé", "ǅ", "٣", "ß", "\u{212A}"] {
            assert!(!w.is_match(s), "{s}");
        }
        assert!(!re(r"^\d$").is_match("٣") && re(r"^\d$").is_match("7") && re(r"^\D$").is_match("٣"));
        assert!(re(r"^\W$").is_match("é"));
        let b = re(r"\bx");
        assert!(b.is_match("éx"), "é is not a word character, so there is a boundary before x");
        assert!(!b.is_match("ax") && b.is_match("x"));
        assert!(re(r"a\B").is_match("ab") && !re(r"a\B").is_match("a-"));
    }

    #[test]
    fn dot_stops_at_line_terminators_only_and_takes_whole_code_points() {
        let dot = re(r"^a.b$");
        for c in ['\n', '\r', '\u{2028}', '\u{2029}'] {
            assert!(!dot.is_match(&format!("a{c}b")), "{c:?}");
        }
        for c in ['\u{85}', '\u{0B}', 'é', '🐲', '\0'] {
            assert!(dot.is_match(&format!("a{c}b")), "{c:?}");
        }
        assert!(re("^🐲*$").is_match("🐲🐲"));
        assert!(re(r"^[^x]$").is_match("\n"), "a negated class does match line terminators");
        assert!(re(r"^$").is_match("") && !re(r"^$").is_match("\n"), "`$` is the end of the key only");
    }

    /// A key's lone surrogate escape reads as U+FFFD in the core, so a pattern that tells them
    /// apart cannot be evaluated exactly; the others can, since they treat all of them alike.
    #[test]
    fn patterns_telling_lone_surrogates_from_the_replacement_character_are_refused() {
        for p in [
            r"^\ud800$",
            r"\uD83D",
            r"[\ud800-\udfff]",
            r"^[^\ufffd]$",
            r"\ufffd",
            "^\u{FFFD}",
            r"[\ue000-\uffff]",
            r"[\udc00-\uffff]",
        ] {
            assert!(refused(p).contains("lone surrogates"), "{p}");
        }
        assert!(re(r"^\uD83D\uDC32$").is_match("🐲"), "a pair is one code point");
        for (p, key) in
            [(r"^.$", "\u{FFFD}"), (r"^[^a]$", "\u{FFFD}"), (r"^\W$", "\u{FFFD}"), (r"^[\u0000-\uffff]$", "\u{FFFD}")]
        {
            assert!(re(p).is_match(key), "{p}");
        }
        for (p, key) in [(r"^[^\u0000-\uffff]$", "🐲"), (r"^[\ue000-\uf8ff]$", "\u{E000}")] {
            assert!(re(p).is_match(key), "{p}");
        }
        assert!(!re(r"^[^\u0000-\uffff]$").is_match("\u{FFFD}"));
    }

    #[test]
    fn escapes() {
        assert!(re(r"^\cJ$").is_match("\n"));
        assert!(re(r"^\x41\u0042\u{43}$").is_match("ABC"));
        assert!(re(r"^\uD83D\uDC32$").is_match("🐲"), "a surrogate pair is one code point");
        assert!(re(r"^[\b]$").is_match("\u{8}"));
        assert!(re(r"^\0$").is_match("\0"));
        assert!(re(r"^\/\.\*\{\}\[\]\(\)\|\^\$\\$").is_match("/.*{}[]()|^$\\"));
        assert!(re(r"^[\w-]+$").is_match("a-b_c"));
        assert!(re(r"^[--0]$").is_match("."), "`-` can start a range");
        assert!(re(r"^[a-]$").is_match("-") && re(r"^[-a]$").is_match("-"));
        assert!(re(r"^(?<id>a|b)+?c{2,}$").is_match("abacc"));
        assert!(
            translate(r"^[]$").unwrap().source.contains("\\B") && !re(r"[]").is_match("x") && !re(r"^[]$").is_match("")
        );
        assert!(re(r"^[^]$").is_match("\n"));
        assert!(re("").is_match("anything") && re("a|").is_match("zzz"));
    }

    #[test]
    fn what_cannot_be_evaluated_exactly_is_refused() {
        for (pattern, why) in [
            ("^(?!public_)", "look-ahead"),
            ("(?=a)", "look-ahead"),
            ("(?<=a)b", "look-behind"),
            ("(?<!a)b", "look-behind"),
            (r"(a)\1", "backreferences"),
            (r"(?<n>a)\k<n>", "backreferences"),
            (r"\p{L}", "property"),
            (r"[\P{L}]", "property"),
            (r"\a", "not an escape"),
            (r"\-", "not an escape"),
            ("a{", "quantifier"),
            ("{1}", "nothing to repeat"),
            ("a]", "lone"),
            ("a}", "lone"),
            ("a{2,1}", "out of order"),
            ("(?i)a", "`(?`"),
            ("*a", "nothing to repeat"),
            ("a**", "nothing to repeat"),
            ("^*", "cannot be repeated"),
            (r"\b+", "cannot be repeated"),
            (r"[\d-z]", "cannot end a range"),
            ("[z-a]", "out of order"),
            ("(a", "missing"),
            ("a)", "unmatched"),
            ("[a", "missing"),
            (r"\", "lone"),
            (r"\c1", "letter"),
            (r"\00", "octal"),
            ("(?<a>x)(?<a>y)", "twice"),
            (r"\u{110000}", "10FFFF"),
        ] {
            let e = refused(pattern);
            assert!(e.contains(why), "{pattern}: {e}");
        }
    }

    #[test]
    fn program_size_is_bounded_before_anything_is_built() {
        let e = refused("(a{1,1000}){1,1000}");
        assert!(e.contains("over the limit of 10000"), "{e}");
        assert!(refused("(?:){0,4294967295}x{99999}").contains("over the limit"));
        assert!(refused(&"(".repeat(200)).contains("nested deeper"));
        let ok = translate("^[a-z0-9_]{1,64}$").unwrap();
        assert!(ok.size < 1000, "{}", ok.size);
        // The estimate bounds regex-lite's own count: what passes here always compiles.
        let big = translate(".{0,1000}").unwrap();
        assert!(refused(".{0,1200}").contains("over the limit"));
        assert!(regex_lite::RegexBuilder::new(&big.source).size_limit(big.size * 64).build().is_ok());
    }

    #[test]
    fn literal_forms() {
        let lit = |p: &str| translate(p).unwrap().literals;
        let one = |anchor, text: &str| Some(vec![Literal { anchor, text: text.into() }]);
        assert_eq!(lit("^x-"), one(Anchor::Prefix, "x-"));
        assert_eq!(lit("_secret$"), one(Anchor::Suffix, "_secret"));
        assert_eq!(lit("^id$"), one(Anchor::Exact, "id"));
        assert_eq!(lit("token"), one(Anchor::Contains, "token"));
        assert_eq!(lit(r"^a\.b$"), one(Anchor::Exact, "a.b"));
        assert_eq!(lit("^(?:id|key)s?$").map(|v| v.len()), Some(4));
        assert_eq!(lit("^[Ss]ecret$").map(|v| v.len()), Some(2));
        assert_eq!(
            lit("^a$|b").map(|v| v.iter().map(|l| l.anchor).collect()),
            Some(vec![Anchor::Exact, Anchor::Contains])
        );
        assert_eq!(lit(""), one(Anchor::Contains, ""));
        for p in ["^a+$", "^[a-z]$", r"^\d", "a^b", "^(a$)", ".", "^a{2}$"] {
            assert_eq!(lit(p), None, "{p}");
        }
    }

    /// Calls `f` on `ast` and every node below it.
    fn each_node(ast: &Ast, f: &mut dyn FnMut(&Ast)) {
        f(ast);
        match ast {
            Ast::Concat(v) | Ast::Alt(v) => v.iter().for_each(|a| each_node(a, f)),
            Ast::Repeat(a, ..) => each_node(a, f),
            _ => {}
        }
    }

    /// `finite_shape` is false only where `finite` is `None`, so checking it first changes no
    /// literal form.
    #[test]
    fn the_finite_shape_check_agrees_with_finite() {
        let patterns = [
            "^k12[a-z]*$",
            "^(?:id|key)s?$",
            "^[Ss]ecret$",
            "^a{2}$",
            "^(a|b)?c$",
            "x\\b",
            "^[a-i]$",
            "^[a-h]$",
            "(?:ab|cd)(?:e|f)?",
            "^a(?:b|c+)$",
            ".",
            "^(?:a|(?:b|[cd]?))$",
            "^$",
        ];
        for p in patterns {
            let ast = translate(p).unwrap().ast;
            each_node(&ast, &mut |a| assert!(finite_shape(a) || finite(a).is_none(), "{p}: {a:?}"));
        }
        // A shape that passes can still be too many strings: `finite` decides those.
        let ast = translate("[a-h][a-h][a-h][a-h][a-h]").unwrap().ast;
        assert!(finite_shape(&ast) && finite(&ast).is_none());
    }

    /// `times` is the product with `finite`'s strings, one character or not, at every count
    /// of texts up to the limit and past it.
    #[test]
    fn times_is_the_product_with_the_finite_strings() {
        for p in ["^o12_$", "k\\u{1F600}x", "^(?:id|key)s?$", "^[Ss]ecret$", "a[bc]d", "\\.", "x{2}", "(?:)", "é"] {
            let ast = translate(p).unwrap().ast;
            for n in [0, 1, 2, 63, 64, 65] {
                let texts: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
                each_node(&ast, &mut |a| {
                    let expected = finite(a).and_then(|f| product(&texts, &f));
                    assert_eq!(times(texts.clone(), a), expected, "{p}: {a:?} after {n}");
                });
            }
        }
    }

    /// A one-point set is what checking it as any set gives.
    #[test]
    fn one_point_is_checked_like_any_set() {
        for c in [0, 0x61, 0xD7FF, 0xD800, 0xDBFF, 0xDFFF, 0xE000, 0xFFFC, 0xFFFD, 0xFFFE, 0x10FFFF, 0x110000] {
            assert_eq!(exact(vec![(c, c)]), exact_checked(vec![(c, c)]), "{c:x}");
        }
    }

    #[test]
    fn required_literals() {
        let req = |p: &str| {
            let l = translate(p).unwrap().required;
            (l.anchor, l.text)
        };
        assert_eq!(req("^k12[a-z]*$"), (Anchor::Prefix, "k12".into()));
        assert_eq!(req("^(?:ab)c+"), (Anchor::Prefix, "ab".into()), "a repetition ends it");
        assert_eq!(req("^[a-z]+_id$"), (Anchor::Suffix, "_id".into()));
        assert_eq!(req("^a.+(?:_t)oken$"), (Anchor::Suffix, "_token".into()));
        assert_eq!(req("^ab.*xyz$"), (Anchor::Suffix, "xyz".into()));
        assert_eq!(req("^abc.*xy$"), (Anchor::Prefix, "abc".into()));
        for p in ["^[kK]1", "a+b$|^c", "k.+$", "x+\\b$", "^\\bk+"] {
            assert_eq!(req(p), (Anchor::Contains, String::new()), "{p}");
        }
    }

    /// The literal form means exactly what the regex means.
    #[test]
    fn literal_forms_agree_with_the_regex() {
        let keys =
            ["", "a", "id", "ids", "key", "keys", "x-a", "ax-", "a_secret", "_secret_b", "tok", "my token", "ID"];
        for p in ["^x-", "_secret$", "^(?:id|key)s?$", "token", "^a$|x", "", "^$", "^", "$", "^[Ii][Dd]$"] {
            let t = translate(p).unwrap();
            let lits = t.literals.unwrap();
            let r = Regex::new(&t.source).unwrap();
            for k in keys {
                let by_literal = lits.iter().any(|l| match l.anchor {
                    Anchor::Exact => k == l.text,
                    Anchor::Prefix => k.starts_with(&l.text),
                    Anchor::Suffix => k.ends_with(&l.text),
                    Anchor::Contains => k.contains(&l.text),
                });
                assert_eq!(by_literal, r.is_match(k), "{p} on {k:?}");
            }
        }
    }
}
