//! Our own matcher for the general `patternProperties` regexes: a Thompson NFA over code points,
//! built from the parse of `ecma.rs`, run as a lazy DFA that answers only "does this key match".
//! Hand-written rather than a crate: it needs no captures, no syntax (ecma.rs already parsed the
//! pattern) and no Unicode tables (every class is code point ranges), so it is far smaller than
//! regex-lite's parser plus PikeVM, and a cached transition is one table look-up.
//!
//! A DFA state is the set of NFA states reached after some prefix of the key, *before* their
//! zero-width assertions are resolved, plus what those assertions need to know of the past (at
//! the start of the key? was the previous character a word character?). The future they need
//! (the next character's wordness, or the end of the key) is known when a transition or the final
//! answer is computed, so `^`, `$`, `\b` and `\B` are decided exactly. Code points are grouped into
//! classes that no range or word boundary splits; transitions are a dense table per state over
//! those classes. States are built on demand and cached within a byte budget, per program and for
//! all programs together; the cache is cleared when full, so the worst case is the NFA simulation
//! it replaces, one step per state or class range per character.
//!
//! The caches belong to one evaluation (they live in its [`Budget`], [`Caches`]), not to the
//! compiled tool: the work a result costs, and so whether it ends with `work_limit`, depends on
//! that result and the schema alone, never on what other results warmed before it, and their
//! memory goes with the call.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::apply::{Budget, Exhausted};
use super::ecma::Ast;
use super::patterns::REGEX_STEPS_PER_UNIT;
use crate::hash::{IdMap, TextMap};

/// Bytes one program's cache may hold before it is cleared.
const PROGRAM_CACHE_BYTES: usize = 1 << 20;
/// Bytes the caches of every program of one evaluation may hold together; past it, a program
/// that needs a new state clears its own cache first.
const TOTAL_CACHE_BYTES: usize = 16 << 20;
/// Each program's id in [`Caches`], unique in the process.
static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

/// Units of work a run costs besides its steps: measured at about 170 ns natively a run on the
/// family of 18,000 unprefixed regexes times 18,000 keys (cache misses, one program after the
/// other), where a unit is meant to be about 0.1 us (README "Bounded cost").
const RUN_UNITS: u64 = 2;

/// Up to this many cached states are searched one by one rather than hashed.
const SCAN_STATES: usize = 8;

const UNKNOWN: u32 = u32::MAX;
const DEAD: u32 = u32::MAX - 1;
const MATCHED: u32 = u32::MAX - 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Look {
    Start,
    End,
    WordBoundary,
    NotWordBoundary,
}

#[derive(Debug)]
enum State {
    /// One code point in `ranges[from..to]`, then `next`.
    Range {
        from: u32,
        to: u32,
        next: u32,
    },
    Split(u32, u32),
    Look(Look, u32),
    Match,
}

/// A transition worked out: a match ends before the character, no match can follow, or the
/// next DFA state's NFA states and flags.
enum Step {
    Matched,
    Dead,
    To(Box<[u32]>, u8),
}

/// What the assertions at one position can see: the past (`start`, `prev_word`) and the future
/// (`next_word`, or `end`).
#[derive(Clone, Copy)]
struct Context {
    start: bool,
    prev_word: bool,
    next_word: bool,
    end: bool,
}

impl Context {
    fn holds(self, look: Look) -> bool {
        match look {
            Look::Start => self.start,
            Look::End => self.end,
            Look::WordBoundary => self.prev_word != self.next_word,
            Look::NotWordBoundary => self.prev_word == self.next_word,
        }
    }
}

/// ECMA-262's word characters without the `i` flag: ASCII only.
fn is_word(c: u32) -> bool {
    matches!(c, 0x30..=0x39 | 0x41..=0x5A | 0x5F | 0x61..=0x7A)
}

/// Where runs of word characters start and end, so that every class is all word or all not
/// (in a pattern with `\b` or `\B`).
const WORD_EDGES: [u32; 8] = [0x30, 0x3A, 0x41, 0x5B, 0x5F, 0x60, 0x61, 0x7B];

/// One pattern's NFA and its lazily built DFA.
pub(crate) struct Regex {
    states: Vec<State>,
    /// The sorted code point ranges of every `Range` state, one after the other.
    ranges: Vec<(u32, u32)>,
    start: u32,
    /// The first code point of each class, ascending, from 0.
    classes: Vec<u32>,
    /// Every match starts at the start of the key, so the NFA is not restarted at each position.
    anchored: bool,
    /// The pattern has a `\b` or `\B`: only then do classes and DFA states tell word
    /// characters apart.
    words: bool,
    /// Its key in an evaluation's [`Caches`].
    id: usize,
}

/// One evaluation's DFA caches, by program, and the bytes they hold together. Boxed, so that a
/// run takes its program's out and puts it back by moving a pointer (the map is read once per
/// regex run, which the product families do hundreds of millions of times).
#[derive(Default)]
pub(crate) struct Caches {
    by_program: IdMap<usize, Box<Lazy>>,
    bytes: usize,
}

struct Lazy {
    cache: Cache,
    scratch: Scratch,
}

/// The DFA states built so far: their NFA states with what they know of the past (`FLAG_*`),
/// and their transitions by class.
struct Cache {
    seeds: Vec<(Box<[u32]>, u8)>,
    /// The ids of `seeds`, once there are more than `SCAN_STATES`.
    ids: TextMap<(Box<[u32]>, u8), u32>,
    /// `classes.len()` entries per state.
    next: Vec<u32>,
    /// Per state: 0 not yet known, 1 matches at the end of the key, 2 does not.
    accepts: Vec<u8>,
    /// The state a run starts in, once built.
    start: u32,
    bytes: usize,
    clears: u64,
}

/// Buffers reused by every transition built (the stamps mark the NFA states a closure has seen).
#[derive(Default)]
struct Scratch {
    stamps: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
    ranges: Vec<u32>,
}

const FLAG_START: u8 = 1;
const FLAG_WORD: u8 = 2;

impl Cache {
    fn empty() -> Cache {
        Cache {
            seeds: Vec::new(),
            ids: TextMap::default(),
            next: Vec::new(),
            accepts: Vec::new(),
            start: UNKNOWN,
            bytes: 0,
            clears: 0,
        }
    }

    fn clear(&mut self) {
        let clears = self.clears + 1;
        *self = Cache::empty();
        self.clears = clears;
    }
}

/// Steps counted before they are spent from the budget (in units of `REGEX_STEPS_PER_UNIT`), so
/// that one long key on a large program stops when the budget does.
const FLUSH_STEPS: u64 = 1 << 12;

impl Regex {
    pub fn new(ast: &Ast) -> Regex {
        let mut b = Builder { states: Vec::new(), ranges: Vec::new(), edges: Vec::new() };
        let end = b.push(State::Match);
        let start = b.build(ast, end);
        let words = b.states.iter().any(|s| matches!(s, State::Look(Look::WordBoundary | Look::NotWordBoundary, _)));
        let mut edges = b.edges;
        if words {
            edges.extend(WORD_EDGES);
        }
        edges.push(0);
        edges.retain(|&e| e <= 0x10_FFFF);
        crate::sort::sort(&mut edges);
        edges.dedup();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let mut r = Regex { states: b.states, ranges: b.ranges, start, classes: edges, anchored: false, words, id };
        r.anchored = !r.reaches_without_start();
        r
    }

    /// Whether anything but a `^` stands between the start and a character or the match, so
    /// that a match could begin after the first position.
    fn reaches_without_start(&self) -> bool {
        let mut seen = vec![false; self.states.len()];
        let mut stack = vec![self.start];
        while let Some(s) = stack.pop() {
            if std::mem::replace(&mut seen[s as usize], true) {
                continue;
            }
            match &self.states[s as usize] {
                State::Range { .. } | State::Match => return true,
                State::Split(a, b) => stack.extend([*a, *b]),
                State::Look(Look::Start, _) => {}
                State::Look(_, n) => stack.push(*n),
            }
        }
        false
    }

    fn class_of(&self, c: u32) -> usize {
        self.classes.partition_point(|&e| e <= c) - 1
    }

    /// Whether `key` has a match. Costs one step per character whose transition is cached, and
    /// per transition built one step per NFA state, per class range tested and per NFA state of
    /// the new DFA state (sorting and hashing it).
    /// A run also costs [`RUN_UNITS`] of its own: it reaches a program (its NFA, its cache) that
    /// the run before, on another pattern, did not touch, which costs memory latency more than
    /// steps.
    pub fn is_match(&self, key: &str, budget: &mut Budget) -> Result<bool, Exhausted> {
        let mut steps = 0u64;
        let found = self.run(key, &mut steps, budget);
        budget.spend(RUN_UNITS + steps.div_ceil(REGEX_STEPS_PER_UNIT))?;
        found
    }

    fn run(&self, key: &str, steps: &mut u64, budget: &mut Budget) -> Result<bool, Exhausted> {
        // Taken out of the budget's caches for the run (the budget is spent from meanwhile),
        // and put back after it, whatever it returns.
        let fresh = || Box::new(Lazy { cache: Cache::empty(), scratch: Scratch::default() });
        let mut lazy = budget.regex.by_program.remove(&self.id).unwrap_or_else(fresh);
        let found = self.run_with(&mut lazy, key, steps, budget);
        budget.regex.by_program.insert(self.id, lazy);
        found
    }

    fn run_with(&self, lazy: &mut Lazy, key: &str, steps: &mut u64, budget: &mut Budget) -> Result<bool, Exhausted> {
        let Lazy { cache, scratch } = lazy;
        let width = self.classes.len();
        if cache.start == UNKNOWN {
            cache.start = self.state(cache, vec![self.start].into(), FLAG_START, steps, &mut budget.regex.bytes);
        }
        let mut s = cache.start;
        for c in key.chars() {
            if *steps >= FLUSH_STEPS {
                budget.spend(*steps / REGEX_STEPS_PER_UNIT)?;
                *steps %= REGEX_STEPS_PER_UNIT;
            }
            let class = self.class_of(c as u32);
            let mut t = cache.next[s as usize * width + class];
            if t == UNKNOWN {
                let clears = cache.clears;
                t = match self.step(&cache.seeds[s as usize], self.classes[class], scratch, steps) {
                    Step::Matched => MATCHED,
                    Step::Dead => DEAD,
                    Step::To(nfa, flags) => self.state(cache, nfa, flags, steps, &mut budget.regex.bytes),
                };
                // Adding the state may have cleared the cache, and `s` with it.
                if cache.clears == clears {
                    cache.next[s as usize * width + class] = t;
                }
            } else {
                *steps += 1;
            }
            match t {
                MATCHED => return Ok(true),
                DEAD => return Ok(false),
                _ => s = t,
            }
        }
        *steps += 1;
        if cache.accepts[s as usize] == 0 {
            let (seed, flags) = &cache.seeds[s as usize];
            let ctx = Context {
                start: flags & FLAG_START != 0,
                prev_word: flags & FLAG_WORD != 0,
                next_word: false,
                end: true,
            };
            let matched = self.closure(seed, ctx, scratch, steps);
            cache.accepts[s as usize] = if matched { 1 } else { 2 };
        }
        Ok(cache.accepts[s as usize] == 1)
    }

    /// The transition of the DFA state `seed` on a code point (any of its class).
    fn step(&self, seed: &(Box<[u32]>, u8), c: u32, scratch: &mut Scratch, steps: &mut u64) -> Step {
        let (nfa, flags) = seed;
        let word = is_word(c);
        let ctx =
            Context { start: flags & FLAG_START != 0, prev_word: flags & FLAG_WORD != 0, next_word: word, end: false };
        if self.closure(nfa, ctx, scratch, steps) {
            return Step::Matched;
        }
        let mut next = Vec::new();
        for &s in &scratch.ranges {
            if let State::Range { from, to, next: n } = self.states[s as usize] {
                let set = &self.ranges[from as usize..to as usize];
                *steps += set.len() as u64;
                if set.iter().any(|&(lo, hi)| lo <= c && c <= hi) {
                    next.push(n);
                }
            }
        }
        if !self.anchored {
            next.push(self.start);
        }
        if next.is_empty() {
            return Step::Dead;
        }
        *steps += next.len() as u64 * u64::from(usize::BITS - next.len().leading_zeros());
        crate::sort::sort(&mut next);
        next.dedup();
        Step::To(next.into(), if word && self.words { FLAG_WORD } else { 0 })
    }

    /// Follows every split and assertion that holds from `seed`, collecting the character states
    /// reached (in `scratch.ranges`); whether the match state is reached.
    fn closure(&self, seed: &[u32], ctx: Context, scratch: &mut Scratch, steps: &mut u64) -> bool {
        *steps += seed.len() as u64;
        if scratch.stamps.len() != self.states.len() || scratch.stamp == u32::MAX {
            scratch.stamps = vec![0; self.states.len()];
            scratch.stamp = 0;
        }
        scratch.stamp += 1;
        let stamp = scratch.stamp;
        scratch.ranges.clear();
        scratch.stack.clear();
        scratch.stack.extend(seed.iter().rev());
        let mut matched = false;
        while let Some(s) = scratch.stack.pop() {
            if std::mem::replace(&mut scratch.stamps[s as usize], stamp) == stamp {
                continue;
            }
            *steps += 1;
            match &self.states[s as usize] {
                State::Range { .. } => scratch.ranges.push(s),
                State::Split(a, b) => scratch.stack.extend([*b, *a]),
                State::Look(look, n) if ctx.holds(*look) => scratch.stack.push(*n),
                State::Look(..) => {}
                State::Match => matched = true,
            }
        }
        matched
    }

    /// The id of the DFA state with these NFA states and flags, added if new (clearing the
    /// cache first if it is full). A few states are compared one by one; past `SCAN_STATES`
    /// they are found by hash.
    fn state(&self, cache: &mut Cache, nfa: Box<[u32]>, flags: u8, steps: &mut u64, total: &mut usize) -> u32 {
        *steps += nfa.len() as u64;
        let key = (nfa, flags);
        let found = if cache.seeds.len() <= SCAN_STATES {
            *steps += cache.seeds.len() as u64;
            cache.seeds.iter().position(|s| *s == key).map(|i| i as u32)
        } else {
            cache.ids.get(&key).copied()
        };
        if let Some(id) = found {
            return id;
        }
        let bytes = 64 + 8 * key.0.len() + 4 * self.classes.len();
        if cache.bytes + bytes > PROGRAM_CACHE_BYTES || *total + bytes > TOTAL_CACHE_BYTES {
            *total -= cache.bytes;
            cache.clear();
        }
        cache.bytes += bytes;
        *total += bytes;
        let id = cache.seeds.len() as u32;
        if cache.seeds.len() == SCAN_STATES {
            let ids = cache.seeds.iter().cloned().zip(0..);
            cache.ids.extend(ids);
        }
        if cache.seeds.len() >= SCAN_STATES {
            cache.ids.insert(key.clone(), id);
        }
        cache.seeds.push(key);
        // The new state's row of transitions, one per class of the program: a pattern of
        // thousands of classes makes each new state cost that many writes, so they are counted
        // (a step per 4 of them), or a program whose states do not fit its cache would rebuild
        // rows at every character of a key, uncounted.
        *steps += self.classes.len() as u64 / 4;
        let len = cache.next.len() + self.classes.len();
        cache.next.resize(len, UNKNOWN);
        cache.accepts.push(0);
        id
    }

    #[cfg(test)]
    pub fn clears(&self, budget: &Budget) -> u64 {
        budget.regex.by_program.get(&self.id).map_or(0, |l| l.cache.clears)
    }

    #[cfg(test)]
    pub fn cached_bytes(&self, budget: &Budget) -> usize {
        budget.regex.by_program.get(&self.id).map_or(0, |l| l.cache.bytes)
    }
}

struct Builder {
    states: Vec<State>,
    ranges: Vec<(u32, u32)>,
    /// Class boundaries: every range's start and one past its end.
    edges: Vec<u32>,
}

impl Builder {
    fn push(&mut self, s: State) -> u32 {
        self.states.push(s);
        self.states.len() as u32 - 1
    }

    /// The NFA of `ast` followed by `next`; its entry state. Built back to front, so that every
    /// state is created knowing where it goes; a bounded repetition is unrolled, one copy per
    /// count, as `Ast::size` estimates.
    fn build(&mut self, ast: &Ast, next: u32) -> u32 {
        match ast {
            Ast::Empty => next,
            Ast::Set(set) => {
                let from = self.ranges.len() as u32;
                for &(lo, hi) in set {
                    self.edges.extend([lo, hi + 1]);
                }
                self.ranges.extend_from_slice(set);
                self.push(State::Range { from, to: self.ranges.len() as u32, next })
            }
            Ast::Start => self.push(State::Look(Look::Start, next)),
            Ast::End => self.push(State::Look(Look::End, next)),
            Ast::WordBoundary => self.push(State::Look(Look::WordBoundary, next)),
            Ast::NotWordBoundary => self.push(State::Look(Look::NotWordBoundary, next)),
            Ast::Concat(v) => v.iter().rev().fold(next, |n, a| self.build(a, n)),
            Ast::Alt(v) if v.is_empty() => next,
            Ast::Alt(v) => {
                let mut entry = self.build(&v[v.len() - 1], next);
                for a in v[..v.len() - 1].iter().rev() {
                    let first = self.build(a, next);
                    entry = self.push(State::Split(first, entry));
                }
                entry
            }
            Ast::Repeat(a, min, max) => {
                let mut entry = match max {
                    Some(max) => (*min..*max).fold(next, |n, _| {
                        let body = self.build(a, n);
                        self.push(State::Split(body, n))
                    }),
                    None => {
                        let split = self.push(State::Split(0, 0));
                        let body = self.build(a, split);
                        self.states[split as usize] = State::Split(body, next);
                        split
                    }
                };
                for _ in 0..*min {
                    entry = self.build(a, entry);
                }
                entry
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ecma::translate;

    fn both(pattern: &str) -> (Regex, regex_lite::Regex, usize) {
        let t = translate(pattern).unwrap();
        (Regex::new(&t.ast), regex_lite::Regex::new(&t.source).unwrap(), t.size)
    }

    /// `n` characters, each `a` or `b`, from a fixed pseudo-random sequence.
    fn random_ab(n: usize) -> String {
        let mut x = 12345u32;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                if x >> 16 & 1 == 0 {
                    'a'
                } else {
                    'b'
                }
            })
            .collect()
    }

    /// What one more run of `r` on `key` costs within the evaluation `budget` stands for.
    fn cost(r: &Regex, key: &str, budget: &mut Budget) -> u64 {
        let before = budget.spent();
        r.is_match(key, budget).unwrap();
        budget.spent() - before
    }

    /// A program with more DFA states than its cache holds clears the cache and still answers
    /// exactly: `(a|b)*a(a|b){14}$` has 2^15 states (the last 15 characters), and 9,000 random
    /// characters visit most of them, about 230 bytes each.
    #[test]
    fn a_full_cache_is_cleared_and_the_answers_stay_exact() {
        let (r, lite, _) = both("(?:a|b)*a(?:a|b){14}$");
        let key = random_ab(9000);
        let mut budget = Budget::new(u64::MAX);
        for end in (100..key.len()).step_by(297) {
            let k = &key[..end];
            assert_eq!(r.is_match(k, &mut budget).unwrap(), lite.is_match(k), "{end}");
        }
        assert!(r.clears(&budget) > 0, "the cache was never full");
        assert!(r.cached_bytes(&budget) <= PROGRAM_CACHE_BYTES);
    }

    /// Once its transitions are built, a run costs one step per character (plus the end).
    #[test]
    fn a_cached_run_costs_its_length() {
        let (r, _, _) = both("^(?:a{1,30}){1,30}[0-9]*$");
        let key = format!("{}{}", "a".repeat(40), "7".repeat(23));
        let b = &mut Budget::new(u64::MAX);
        let cold = cost(&r, &key, b);
        assert!(cold > 100, "building the states costs more: {cold}");
        assert_eq!(cost(&r, &key, b), 2 + RUN_UNITS, "64 cached steps are 2 units, and the run its own");
        let prefix = "a".repeat(40);
        assert!(cost(&r, &prefix, b) > 2 + RUN_UNITS, "whether its last state matches at the end is worked out once");
        assert_eq!(cost(&r, &prefix, b), 2 + RUN_UNITS, "then a prefix of a cached run is cached too (41 steps)");
        assert_eq!(
            cost(&r, &key, &mut Budget::new(u64::MAX)),
            cold,
            "another evaluation starts cold: work depends on its input alone"
        );
    }

    /// With nothing cached, a character costs at most the NFA's states (the closure and the
    /// stamps), its class ranges, and sorting and hashing the new set: linear in key length
    /// times program size, a log factor for the sort aside.
    #[test]
    fn an_uncached_run_is_linear_in_key_length_times_program_size() {
        for (pattern, key) in [
            ("^(?:a{1,30}){1,30}[0-9]*$", "a".repeat(200) + "9"),
            ("(?:x|é|[0-9]){0,300}z", "xé0".repeat(100)),
            (r"\b(?:\w+\s?)*$", "ab cd ef ".repeat(30) + "!"),
        ] {
            let (r, lite, size) = both(pattern);
            let mut budget = Budget::new(u64::MAX);
            assert_eq!(r.is_match(&key, &mut budget).unwrap(), lite.is_match(&key));
            let chars = key.chars().count() as u64 + 1;
            let log = u64::from(usize::BITS - size.leading_zeros());
            let bound = RUN_UNITS + (chars * size as u64 * (4 + log)).div_ceil(REGEX_STEPS_PER_UNIT);
            assert!(budget.spent() <= bound, "{pattern}: {} > {bound}", budget.spent());
        }
    }

    /// A long key on a program whose states do not fit the cache stops when the budget does,
    /// not at the end of the key.
    #[test]
    fn a_long_run_stops_with_the_budget() {
        let (r, _, _) = both("(?:a|b){0,800}c");
        let key = "ab".repeat(50_000);
        let mut budget = Budget::new(2000);
        assert!(r.is_match(&key, &mut budget).is_err());
        assert!(budget.spent() < 2000 + 2 * FLUSH_STEPS, "{}", budget.spent());
    }

    /// A program of thousands of classes (one class of 3,000 single code points) whose states
    /// do not fit its cache builds a row of that many transitions at almost every character:
    /// those writes are counted, so a long key ends with the budget instead of running on.
    #[test]
    fn rows_of_many_classes_are_counted() {
        let class: String = (0..3000).map(|i| format!("\\u{:04x}", 0x1000 + 2 * i)).collect();
        let (r, _, _) = both(&format!("^[{class}]|a[ab]{{12}}c"));
        let key = random_ab(100_000);
        // Without the rows counted this key took about 0.2 units a character.
        let mut budget = Budget::new(500_000);
        assert!(r.is_match(&key, &mut budget).is_err(), "{} units", budget.spent());
    }

    #[test]
    fn anchored_programs_stop_at_the_first_dead_character() {
        let (r, _, _) = both("^k12[a-z]*$");
        assert!(r.anchored);
        assert!(!both("\\bk").0.anchored && !both("^a|b").0.anchored);
        let b = &mut Budget::new(u64::MAX);
        cost(&r, "k13", b);
        assert_eq!(cost(&r, &format!("k13{}", "x".repeat(10_000)), b), 1 + RUN_UNITS, "dead after 3 characters");
    }
}

/// Our matcher against regex-lite running the translated source, on generated ECMA-262 patterns
/// (classes, anchors, word boundaries, alternations, bounded and unbounded repetition, empty
/// matches, non-ASCII) and keys made of the same pieces.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use crate::schema::ecma::translate;
    use proptest::prelude::*;

    fn atom() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "a",
            "b",
            "é",
            "🐲",
            "-",
            " ",
            "_",
            "1",
            r"\.",
            ".",
            "[a-c]",
            "[^a]",
            r"\d",
            r"\w",
            r"\W",
            r"\s",
            r"\S",
            "[é-ü]",
            r"\u{1F432}",
            "[^]",
            "[]",
            "()",
            "^",
            "$",
            r"\b",
            r"\B",
            r"[\w-]",
            r"[^\s\d]",
        ])
        .prop_map(String::from)
    }

    fn pattern() -> impl Strategy<Value = String> {
        atom().prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..4).prop_map(|v| v.concat()),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}|{b}")),
                (inner, prop::sample::select(vec!["*", "+", "?", "{0,3}", "{2}", "{1,}", "*?", "{0,2}?"]))
                    .prop_map(|(a, q)| format!("(?:{a}){q}")),
            ]
        })
    }

    fn key() -> impl Strategy<Value = String> {
        "[ab\\-_1. é🐲\n]{0,10}"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn agrees_with_regex_lite(pattern in pattern(), keys in prop::collection::vec(key(), 1..8)) {
            let Ok(t) = translate(&pattern) else { return Ok(()) };
            let lite = regex_lite::Regex::new(&t.source).unwrap();
            let ours = Regex::new(&t.ast);
            // Twice in one evaluation, so that the second pass runs on cached transitions.
            let mut budget = Budget::new(u64::MAX);
            for _ in 0..2 {
                for key in &keys {
                    let got = ours.is_match(key, &mut budget).unwrap();
                    prop_assert_eq!(got, lite.is_match(key), "{} ({}) on {:?}", pattern, t.source, key);
                }
            }
        }
    }
}
