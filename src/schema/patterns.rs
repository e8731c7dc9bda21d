//! The `patternProperties` of one subschema, indexed so that finding the patterns a key matches
//! costs time linear in the key for literal patterns (exact names by hash; prefixes and suffixes
//! by a trie; substrings by an Aho-Corasick automaton), plus one bounded regex run (`regex.rs`)
//! per other pattern that could match: a pattern whose matches all start with a literal (`^k12`
//! of `^k12[a-z]*$`) or end with one (`_id` of `^[a-z]+_id$`) is found through a trie of those
//! prefixes or suffixes, and runs only on keys that start or end with it. Every step is counted.

use super::apply::{Budget, Exhausted};
use super::ecma::{Anchor, Literal};
use super::regex::Regex;
use crate::hash::{IdSet, TextMap};

/// Regex steps (one state or class range for one character while a transition is built, or one
/// cached transition) per unit of work: measured natively, one step takes a few nanoseconds at
/// most, a 30th of the other units.
pub(crate) const REGEX_STEPS_PER_UNIT: u64 = 32;

/// A compiled regex.
pub(crate) struct Program {
    pub regex: Regex,
}

/// How one pattern is matched.
#[derive(Clone)]
pub(crate) enum Form {
    Literals(Vec<Literal>),
    /// A program, and the literal every match starts or ends with (an empty `Contains` if none).
    Regex(usize, Literal),
}

/// Which of a node's patterns (by their index in `Node::patterns`) a key matches.
#[derive(Default)]
pub(crate) struct PatternIndex {
    /// Patterns that match every key (an empty literal that is not exact: `""`, `^`, `$`).
    always: Vec<u32>,
    /// (Of usize: the table type of a node's `dependentSchemas` index, so that the module
    /// carries one copy of its code.)
    exact: TextMap<String, Vec<usize>>,
    prefix: Trie,
    suffix: Trie,
    contains: Automaton,
    /// (pattern, program) for every pattern that is not literal and has no required literal.
    regexes: Vec<(u32, usize)>,
    /// (pattern, program) for the other regexes, found by their prefix in `regex_prefix` or
    /// their suffix (reversed) in `regex_suffix`.
    anchored: Vec<(u32, usize)>,
    regex_prefix: Trie,
    regex_suffix: Trie,
}

impl PatternIndex {
    pub fn new(forms: &[Form]) -> PatternIndex {
        let mut index = PatternIndex::default();
        let mut substrings = Vec::new();
        for (i, form) in forms.iter().enumerate() {
            let i = i as u32;
            let literals = match form {
                Form::Regex(p, Literal { anchor, text }) => {
                    let j = index.anchored.len() as u32;
                    match anchor {
                        Anchor::Prefix if !text.is_empty() => index.regex_prefix.insert(text.chars(), j),
                        Anchor::Suffix if !text.is_empty() => index.regex_suffix.insert(text.chars().rev(), j),
                        _ => {
                            index.regexes.push((i, *p));
                            continue;
                        }
                    }
                    index.anchored.push((i, *p));
                    continue;
                }
                Form::Literals(l) => l,
            };
            for Literal { anchor, text } in literals {
                match anchor {
                    Anchor::Exact => index.exact.entry(text.clone()).or_default().push(i as usize),
                    _ if text.is_empty() => index.always.push(i),
                    Anchor::Prefix => index.prefix.insert(text.chars(), i),
                    Anchor::Suffix => index.suffix.insert(text.chars().rev(), i),
                    Anchor::Contains => substrings.push((text.as_str(), i)),
                }
            }
        }
        for (text, i) in substrings {
            index.contains.trie.insert(text.chars(), i);
        }
        index.contains.link();
        index
    }

    /// The patterns `key` matches, sorted, each once.
    pub fn matches(
        &self,
        key: &str,
        programs: &[Program],
        budget: &mut Budget,
        out: &mut Vec<u32>,
    ) -> Result<(), Exhausted> {
        let start = out.len();
        out.extend(&self.always);
        let chars = key.chars().count() as u64;
        budget.spend(1 + key.len() as u64)?;
        if let Some(hit) = self.exact.get(key) {
            out.extend(hit.iter().map(|&i| i as u32));
        }
        if !self.prefix.is_empty() {
            budget.spend(chars)?;
            self.prefix.walk(key.chars(), out);
        }
        if !self.suffix.is_empty() {
            budget.spend(chars)?;
            self.suffix.walk(key.chars().rev(), out);
        }
        if !self.contains.trie.is_empty() {
            self.contains.find(key, budget, out)?;
        }
        for &(i, p) in &self.regexes {
            if programs[p].regex.is_match(key, budget)? {
                out.push(i);
            }
        }
        self.run_candidates(&self.regex_prefix, key.chars(), key, programs, budget, out)?;
        self.run_candidates(&self.regex_suffix, key.chars().rev(), key, programs, budget, out)?;
        budget.spend((out.len() - start) as u64)?;
        crate::sort::sort(&mut out[start..]);
        let mut kept = start;
        for j in start..out.len() {
            if kept == start || out[kept - 1] != out[j] {
                out[kept] = out[j];
                kept += 1;
            }
        }
        out.truncate(kept);
        Ok(())
    }
}

impl PatternIndex {
    /// Runs only the regexes whose required prefix (or suffix, `text` then being the key
    /// reversed) the key has: at most one trie state per character, each listing the regexes
    /// whose literal ends there.
    fn run_candidates(
        &self,
        trie: &Trie,
        text: impl Iterator<Item = char>,
        key: &str,
        programs: &[Program],
        budget: &mut Budget,
        out: &mut Vec<u32>,
    ) -> Result<(), Exhausted> {
        if trie.is_empty() {
            return Ok(());
        }
        let mut s = 0u32;
        let mut steps = 0u64;
        for c in text {
            steps += 1;
            match trie.next.get(&(s, c)) {
                Some(&n) => s = n,
                None => break,
            }
            for &j in &trie.out[s as usize] {
                let (i, p) = self.anchored[j as usize];
                if programs[p].regex.is_match(key, budget)? {
                    out.push(i);
                }
            }
        }
        budget.spend(steps)
    }
}

/// A character trie; each state lists the patterns whose literal ends there.
/// Empty, without its root until the first `insert`: a node's index has five tries, most of
/// them never used, and allocating their roots was most of indexing a node with one pattern
/// (many such nodes: `anyOf` branches each with its own `patternProperties`).
#[derive(Default)]
struct Trie {
    out: Vec<Vec<u32>>,
    next: TextMap<(u32, char), u32>,
    /// The children of each state, in insertion order (for building the automaton).
    children: Vec<Vec<(char, u32)>>,
}

impl Trie {
    /// Holds no literal (no text inserted is empty: those go to `always` or `exact`).
    fn is_empty(&self) -> bool {
        self.out.len() <= 1
    }

    fn insert(&mut self, text: impl Iterator<Item = char>, pattern: u32) {
        if self.out.is_empty() {
            self.out.push(Vec::new());
            self.children.push(Vec::new());
        }
        let mut s = 0u32;
        for c in text {
            s = match self.next.get(&(s, c)) {
                Some(&n) => n,
                None => {
                    let n = self.out.len() as u32;
                    self.out.push(Vec::new());
                    self.children.push(Vec::new());
                    self.next.insert((s, c), n);
                    self.children[s as usize].push((c, n));
                    n
                }
            };
        }
        self.out[s as usize].push(pattern);
    }

    /// Follows `text` from the root, collecting what ends at each state passed.
    fn walk(&self, text: impl Iterator<Item = char>, out: &mut Vec<u32>) {
        let mut s = 0u32;
        for c in text {
            match self.next.get(&(s, c)) {
                Some(&n) => s = n,
                None => return,
            }
            out.extend(&self.out[s as usize]);
        }
    }
}

const NONE: u32 = u32::MAX;

/// Aho-Corasick over a trie: `fail` is the longest proper suffix that is a state, `dict` the
/// nearest state along the `fail` chain where a literal ends.
#[derive(Default)]
struct Automaton {
    trie: Trie,
    fail: Vec<u32>,
    dict: Vec<u32>,
}

impl Automaton {
    fn link(&mut self) {
        if self.trie.is_empty() {
            return; // never read (`PatternIndex::matches`)
        }
        let n = self.trie.out.len();
        self.fail = vec![0; n];
        self.dict = vec![NONE; n];
        let mut queue = std::collections::VecDeque::new();
        for &(_, child) in &self.trie.children[0] {
            queue.push_back(child);
        }
        while let Some(u) = queue.pop_front() {
            for &(c, v) in &self.trie.children[u as usize] {
                let mut f = self.fail[u as usize];
                let target = loop {
                    if let Some(&w) = self.trie.next.get(&(f, c)) {
                        break w;
                    }
                    if f == 0 {
                        break 0;
                    }
                    f = self.fail[f as usize];
                };
                self.fail[v as usize] = target;
                self.dict[v as usize] =
                    if self.trie.out[target as usize].is_empty() { self.dict[target as usize] } else { target };
                queue.push_back(v);
            }
        }
    }

    fn find(&self, key: &str, budget: &mut Budget, out: &mut Vec<u32>) -> Result<(), Exhausted> {
        let mut s = 0u32;
        let mut reported: IdSet<usize> = IdSet::default();
        let mut steps = 0u64;
        for c in key.chars() {
            s = loop {
                steps += 1;
                if let Some(&n) = self.trie.next.get(&(s, c)) {
                    break n;
                }
                if s == 0 {
                    break 0;
                }
                s = self.fail[s as usize];
            };
            let mut t = if self.trie.out[s as usize].is_empty() { self.dict[s as usize] } else { s };
            // A state reported once had its whole chain reported then.
            while t != NONE && reported.insert(t as usize) {
                steps += 1;
                out.extend(&self.trie.out[t as usize]);
                t = self.dict[t as usize];
            }
        }
        budget.spend(steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ecma::translate;

    fn index(patterns: &[&str]) -> (PatternIndex, Vec<Program>, Vec<regex_lite::Regex>) {
        let mut programs = Vec::new();
        let mut plain = Vec::new();
        let forms: Vec<Form> = patterns
            .iter()
            .map(|p| {
                let t = translate(p).unwrap();
                plain.push(regex_lite::Regex::new(&t.source).unwrap());
                match t.literals {
                    Some(l) => Form::Literals(l),
                    None => {
                        programs.push(Program { regex: Regex::new(&t.ast) });
                        Form::Regex(programs.len() - 1, t.required)
                    }
                }
            })
            .collect();
        (PatternIndex::new(&forms), programs, plain)
    }

    /// A node's index allocates only the tries its patterns use: one prefix pattern, one trie.
    #[test]
    fn unused_tries_hold_nothing() {
        let (index, programs, _) = index(&["^o12_"]);
        let tries = [&index.suffix, &index.contains.trie, &index.regex_prefix, &index.regex_suffix];
        assert!(tries.iter().all(|t| t.out.capacity() == 0 && t.children.capacity() == 0));
        assert!(index.contains.fail.is_empty() && !index.prefix.is_empty());
        let mut out = Vec::new();
        for (key, found) in [("o12_x", vec![0]), ("o1", vec![]), ("", vec![])] {
            out.clear();
            index.matches(key, &programs, &mut Budget::new(u64::MAX), &mut out).unwrap();
            assert_eq!(out, found, "{key}");
        }
    }

    /// Whatever the index uses, it finds exactly the patterns whose regex matches.
    #[test]
    fn the_index_agrees_with_running_every_regex() {
        let patterns = [
            "^x-",
            "^x-a",
            "_id$",
            "id$",
            "^id$",
            "^(?:key|token)s?$",
            "oken",
            "token",
            "ke",
            "^",
            "",
            "^$",
            "^[a-z]+$",
            "a.c",
            "^aa",
            "aa",
            "aaa",
            "^(a|ab)$",
            "^k1[a-z]*$",
            "^k12[a-z]*$",
            r"^k1\d",
            "^(?:ab)c+",
            "^é+x",
            "^a(?:b|c)",
            "^[a-z]+_id$",
            "^.?d_id$",
            "(?:x|y)+z_id$",
        ];
        let (idx, programs, plain) = index(&patterns);
        let keys = [
            "", "x-a", "x-ab", "ax-", "user_id", "id", "keys", "token", "tokens", "broken", "abc", "aXc", "aaaa", "ab",
            "a", "A", "ke", "évid", "k1", "k1x", "k12", "k12abc", "k123", "k12A", "abcc", "ab", "éx", "ééx", "ac",
            "user_id", "d_id", "xd_id", "_id", "xz_id", "aXz_id",
        ];
        for key in keys {
            let mut got = Vec::new();
            idx.matches(key, &programs, &mut Budget::new(u64::MAX), &mut got).unwrap();
            let want: Vec<u32> = (0..patterns.len() as u32).filter(|&i| plain[i as usize].is_match(key)).collect();
            assert_eq!(got, want, "key {key:?}");
        }
    }

    #[test]
    fn a_literal_key_costs_its_length_whatever_the_number_of_patterns() {
        let many: Vec<String> = (0..2000).map(|i| format!("^k{i}$")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let (idx, programs, _) = index(&refs);
        let mut budget = Budget::new(u64::MAX);
        let mut out = Vec::new();
        idx.matches("k1999", &programs, &mut budget, &mut out).unwrap();
        assert_eq!(out, vec![1999]);
        assert!(budget.spent() < 20, "{}", budget.spent());
        let mut budget = Budget::new(5);
        assert!(index(&["^a+$"]).0.matches("aaaa", &index(&["^a+$"]).1, &mut budget, &mut Vec::new()).is_err());
    }

    /// Regexes that start with a literal run only on keys that start with it: a key costs its
    /// length times the number of prefixes it starts with, not the number of patterns.
    #[test]
    fn a_regex_runs_only_on_keys_with_its_prefix() {
        let many: Vec<String> = (0..2000).map(|i| format!("^k{i}[a-z]*$")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let (idx, programs, _) = index(&refs);
        let mut out = Vec::new();
        let mut warm = Budget::new(u64::MAX);
        idx.matches("k1999abc", &programs, &mut warm, &mut out).unwrap();
        assert_eq!(out, vec![1999]);
        assert!(warm.spent() < 40, "four candidates (k1, k19, k199, k1999), each built once: {}", warm.spent());
        // The same evaluation again: its DFA states are cached (in the budget, `regex.rs`).
        let before = warm.spent();
        out.clear();
        idx.matches("k1999abc", &programs, &mut warm, &mut out).unwrap();
        assert_eq!(out, vec![1999]);
        // The key, its prefix walk, and four cached runs of at most 3 units each.
        assert!(warm.spent() - before <= 1 + 8 + 8 + 4 * 3 + 1, "cached: {}", warm.spent() - before);
        out.clear();
        idx.matches("x1999abc", &programs, &mut warm, &mut out).unwrap();
        assert!(out.is_empty());
    }

    /// Likewise for a regex that ends with a literal, found by its suffix.
    #[test]
    fn a_regex_runs_only_on_keys_with_its_suffix() {
        let many: Vec<String> = (0..2000).map(|i| format!("^[a-z]+_s{i}$")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let (idx, programs, _) = index(&refs);
        let mut out = Vec::new();
        let mut budget = Budget::new(u64::MAX);
        idx.matches("abc_s1999", &programs, &mut budget, &mut out).unwrap();
        assert_eq!(out, vec![1999]);
        assert!(budget.spent() < 40, "one candidate, built once: {}", budget.spent());
        out.clear();
        idx.matches("_s1999", &programs, &mut budget, &mut out).unwrap();
        assert!(out.is_empty(), "the suffix alone is not a match: [a-z]+ needs a letter");
    }
}
