//! Value matching: a redacted string must not come back through another string of the result
//! (a text block, a URI, `_meta`, error text), verbatim or in the encodings it commonly takes.
//!
//! # The matcher and its bounds
//!
//! Needles live in three hand-written Aho–Corasick automata (`automaton.rs`): a *main* one, and
//! a *middle* and a *side* one for the needles added since the main one was built (the side one
//! for those added since the middle one was built). Values of 2 or 3 characters
//! are kept apart and looked up as whole tokens. Writing `S` for the needle bytes of the main
//! automaton, `P` for the live needle bytes added since it was built, `n` for the length of a
//! scanned text and `k` for the number of places where a needle ends in it:
//!
//! - A scan is O(n + k), whatever the number, length and overlap of the needles: one pass of
//!   each automaton (a transition per byte, never more failure hops than transitions), at most
//!   3 lookups per byte for short values, then one merge of the matches by end position (a
//!   stack: each match pushed and popped once). k is at most 4n: per automaton only the longest
//!   needle ending at a position counts, as every shorter one lies inside it.
//! - `add` is O(bytes of the value): it is the one needle. The automata catch up at the next scan, once for
//!   however many values were added: the side automaton is rebuilt, O(Q) for its Q bytes; or,
//!   once Q passes √(64P) (and 4 KiB), the middle one with every pending needle, O(P) with P at
//!   most S/8, which is O(√P) amortized per added byte; or, once P passes S/8, the main one with
//!   everything, O(S + P) = O(9P), which is O(1) amortized per added byte. So a call that adds
//!   a value pays about O(√S) (it paid up to O(S/8) with two automata: quadratic over a session
//!   of one value per call), never a full rebuild; the main one is rebuilt a logarithmic number
//!   of times as the set grows (each time 9/8 of the last size, at least). A scan reads the
//!   text once per automaton that is not empty: at most three passes.
//! - `remove` is O(bytes of the value): a removed needle stays in its automaton as a
//!   tombstone, skipped (and pointed past, once) by the scans. Tombstones are swept out by a
//!   rebuild once they are half the main automaton's bytes or half the slots: O(1) amortized
//!   per removed byte.
//!
//! - A string shorter than the shortest needle, when no short value is known, is not scanned
//!   at all (`too_short`): no decoded view is longer than its text. In a dense result most
//!   strings are (ids, names, numbers, the report's pointer tokens), so a scan mostly costs
//!   one comparison; a scan that finds nothing allocates nothing.
//!
//! Both costs are counted, scans in `work` and builds in `build_work`, and the tests assert the
//! bounds on those counts instead of timing anything. Where issue 9 made a step faster, the
//! code before it is kept for tests (`oracle.rs`, and `*_before` beside the code), and a
//! property test compares the two on generated needles and texts.

use crate::ascii::AsciiSet;
use crate::hash::TextMap;
use std::cell::{Cell, RefCell};

use serde_json::{Map, Value};

use crate::json::push_token;

mod automaton;
mod base64;
pub(crate) use base64::{data_url_text, json_runs};
pub mod detect;
mod forms;
pub mod known;
pub(crate) mod meter;
mod unescape;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod unescape_before;
// Proptest is native only (tests run on wasm32 too).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod oracle;
#[cfg(test)]
mod review_s37_b;

use automaton::{Automaton, Steps};
use meter::Meter;

/// How labels are written into text the agent reads: value matching's markers, and the "mcp"
/// format's stub text (`src/redact/stubs.rs`).
pub(crate) const MARKER_FORMS: [(&str, &str); 2] = [("[redacted: ", "]"), ("[secret withheld: ", "]")];

/// Values of at least this many characters are matched wherever they occur. Shorter ones
/// would match innocent text everywhere.
pub(crate) const MIN_LEN: usize = 4;
/// How many decodings deep a chain of views goes (`unescape.rs`), for the claims reader.
pub(crate) const DECODINGS: usize = unescape::LEVELS;

/// Values of `MIN_SHORT` to `MIN_LEN - 1` characters (a CVV, a short PIN) are matched only where
/// they stand alone as a token: "CVV 737" is caught, "17370" is not. A single character is
/// not: it would erase every "a", "I" and digit, and hides nothing a guess would not find.
pub(crate) const MIN_SHORT: usize = 2;

/// The main automaton is rebuilt once the pending bytes reach this fraction of it.
const PENDING_FRACTION: usize = 8;

/// The middle automaton takes in the side one's needles once the side one's bytes squared pass
/// this many times the pending bytes (and `SIDE_FLOOR`): the side one, rebuilt by every call
/// that adds a value, stays near the square root of what is pending, not a fraction of it.
const SIDE_SQUARE: usize = 64;
const SIDE_FLOOR: usize = 4096;

/// What a tombstone's slot is worth against live needle bytes when deciding to reclaim the
/// slots (about what a `Form` and its `by_text` entry hold): a rebuild then costs a bounded
/// multiple of the removals that called for it.
const SLOT_BYTES: usize = 64;

/// The redacted strings, in every form we look for, each with the label of its value.
///
/// A long-lived set (a redactor's known secrets) is updated in place by `add` and `remove`;
/// see the module documentation for what each costs.
#[derive(Default)]
pub(crate) struct Needles {
    /// Slot per form, and per short value. A slot whose `refs` fell to 0 is a tombstone until
    /// the next rebuild.
    forms: Vec<Form>,
    /// Live slots only.
    by_text: TextMap<Box<str>, u32>,
    labels: Vec<String>,
    label_index: TextMap<String, usize>,
    /// Live short values (`MIN_SHORT..MIN_LEN` characters): they are in no automaton, and are
    /// looked up as whole tokens.
    short: usize,
    /// The first bytes of the forms under `MIN_LEN` characters (a superset while tombstones
    /// wait), as a 256-bit set: `short_matches` looks a token up only when it could be one.
    /// Hashing every token of one to three characters was a tenth of redacting 1 MB of JSON
    /// strings (callgrind, review s30), and most start with a byte no short value does.
    short_firsts: [u64; 4],
    /// Live values that could lie inside a number written plainly (digits, `.` and `-`
    /// only): without one, no number needs reading as its plain value (`number_matches`).
    numeric: usize,
    /// Live values holding a byte that JSON writes between tokens (`JSON_SEAMS`): without one,
    /// no match in a value's JSON text spans two of its tokens (`repeats_its_tokens`).
    seamed: usize,
    /// Readings of `scrub_in` that ended still finding something (short values cut in a
    /// chain longer than its readings): what they wrote may hold a match again.
    unsettled: Cell<u64>,
    /// Tombstones, in either automaton or not yet in one.
    dead_slots: usize,
    /// The automata. They catch up with `add` at the next scan, so that the many values one
    /// result adds cost one build.
    index: RefCell<Index>,
    work: Cell<Steps>,
    build_work: Cell<Steps>,
    /// What `display_label` shows for a label that holds a value: the first fixed word that
    /// holds none, found once while the set stays as it is (a result whose keys hold values
    /// asks for it once per report entry and per match; each asking scanned every word).
    /// `None` until asked after a change.
    fallback: Cell<Option<&'static str>>,
    /// Per label, whether it spells a value (`spells_value`), while the set stays as it is:
    /// matches, stubs and report entries repeat their labels (one per element of a marked
    /// array), and a label is a tool's text of any length (measured: scanning the label again
    /// for each match was a tenth of a dense result whose keys hold values).
    spells: RefCell<TextMap<Box<str>, bool>>,
    /// Base64 runs read and found to hold no value while the set stays as it is
    /// (`CleanRuns`).
    clean: RefCell<CleanRuns>,
    /// What `find` found in each text it read (not JSON text) while the set stays as it is
    /// (`Scans`).
    scans: RefCell<Scans>,
    /// What scans and views have read in the current call, against its allowance.
    meter: Meter,
}

#[derive(Default)]
struct Index {
    main: Automaton,
    /// Pending slots up to `mid_end`; the side automaton holds the rest.
    mid: Automaton,
    side: Automaton,
    /// Slots below this are in the main automaton, the others pending (in the middle or side
    /// one).
    main_end: u32,
    mid_end: u32,
    /// Live bytes of the pending slots, and of those in the side automaton.
    pending_bytes: usize,
    side_bytes: usize,
    /// Bytes of tombstones in the main automaton.
    main_dead_bytes: usize,
    /// The shortest needle of either automaton (`usize::MAX` for none): base64 runs too short
    /// to decode to it are not decoded.
    shortest: usize,
    /// The longest needle of either automaton (0 for none): how far from an escape a view is
    /// read (`long_matches_near`).
    longest: usize,
    /// The side automaton no longer matches the pending slots.
    side_stale: bool,
}

impl Index {
    /// Before a scan: after a change, the side automaton is rebuilt; or, once its bytes pass
    /// the square root of `SIDE_SQUARE` times the pending ones, the middle one with every
    /// pending needle; or, once the pending bytes pass 1/`PENDING_FRACTION` of the main
    /// automaton, the main one with everything.
    fn catch_up(&mut self, forms: &[Form], work: &mut Steps) {
        if !self.side_stale {
            return;
        }
        let main = self.main_end == 0 || self.pending_bytes * PENDING_FRACTION > self.main.bytes();
        let side = self.side_bytes;
        let mid = !main && side > SIDE_FLOOR && side.saturating_mul(side) > SIDE_SQUARE * self.pending_bytes;
        let from = if main {
            0
        } else if mid {
            self.main_end
        } else {
            self.mid_end
        } as usize;
        let live = (from..forms.len()).filter(|&i| forms[i].refs > 0 && !forms[i].short);
        let built = Automaton::build(&mut live.map(|i| (i as u32, forms[i].text.as_bytes())), work);
        let end = forms.len() as u32;
        if main {
            *self = Index { main: built, main_end: end, mid_end: end, ..Index::default() };
        } else if mid {
            (self.mid, self.mid_end, self.side, self.side_bytes) = (built, end, Automaton::default(), 0);
        } else {
            self.side = built;
        }
        self.side_stale = false;
        self.shortest = self.main.shortest().min(self.mid.shortest()).min(self.side.shortest());
        self.longest = self.main.longest().max(self.mid.longest()).max(self.side.longest());
    }
}

struct Form {
    text: Box<str>,
    label: usize,
    /// How many added values produced this form; it is matched while this is above 0.
    refs: u32,
    /// A short value, matched as a token.
    short: bool,
}

/// A string that was changed, and the labels of what was found in it.
pub(crate) struct Hit {
    pub pointer: String,
    pub labels: Vec<String>,
}

impl Needles {
    pub fn is_empty(&self) -> bool {
        self.by_text.is_empty()
    }

    /// Adds a redacted string under `label`: the value itself is the one needle, read also in
    /// its encodings on decoded views of the text (see `forms.rs`: what is caught, and what is
    /// not). Returns the bytes it added.
    pub fn add(&mut self, value: &str, label: &str) -> usize {
        self.forget_labels();
        let chars = value.chars().count();
        if chars < MIN_SHORT {
            return 0;
        }
        // Most values of a result share a few labels: the label is copied only when new.
        let index = match self.label_index.get(label) {
            Some(&index) => index,
            None => {
                self.label_index.insert(label.to_string(), self.labels.len());
                self.labels.push(label.to_string());
                self.labels.len() - 1
            }
        };
        self.push(value, index, chars < MIN_LEN);
        value.len()
    }

    /// Takes back one `add` of `value`: a value added more than once stays until its last
    /// `remove`.
    pub fn remove(&mut self, value: &str) {
        self.forget_labels();
        let Some(&slot) = self.by_text.get(value) else { return };
        let f = &mut self.forms[slot as usize];
        f.refs -= 1;
        if f.refs == 0 {
            self.by_text.remove(value);
            self.numeric -= usize::from(could_be_in_a_number(value));
            self.seamed -= usize::from(holds_a_seam(value));
            f.text = Box::from("");
            self.dead_slots += 1;
            let index = self.index.get_mut();
            if f.short {
                self.short -= 1;
            } else if slot < index.main_end {
                index.main_dead_bytes += value.len();
            } else {
                index.pending_bytes -= value.len();
                if slot >= index.mid_end {
                    index.side_bytes -= value.len();
                    index.side_stale = true;
                }
            }
        }
        // A rebuild reads every live byte: it waits until the tombstones stand for as much.
        // Counting slots alone let a few hundred short values, removed beside a few huge
        // ones (a run starting over rolls back what it noted), rebuild megabytes each time.
        let index = self.index.get_mut();
        let live_bytes = index.main.bytes() - index.main_dead_bytes + index.pending_bytes;
        let slots_due = self.dead_slots * 2 > self.forms.len() && self.dead_slots * SLOT_BYTES > live_bytes;
        if index.main_dead_bytes * 2 > index.main.bytes() || slots_due {
            self.rebuild();
        }
    }

    fn push(&mut self, text: &str, label: usize, short: bool) {
        if let Some(&slot) = self.by_text.get(text) {
            self.forms[slot as usize].refs += 1;
            return;
        }
        let slot = self.forms.len() as u32;
        self.numeric += usize::from(could_be_in_a_number(text));
        self.seamed += usize::from(holds_a_seam(text));
        if short {
            self.short += 1;
        } else {
            let index = self.index.get_mut();
            index.pending_bytes += text.len();
            index.side_bytes += text.len();
            index.side_stale = true;
        }
        note_first(&mut self.short_firsts, text);
        let text: Box<str> = Box::from(text);
        self.by_text.insert(text.clone(), slot);
        self.forms.push(Form { text, label, refs: 1, short });
    }

    /// The tombstones' slots are reclaimed, and the next scan builds one main automaton of
    /// every live form.
    fn rebuild(&mut self) {
        if self.dead_slots > 0 {
            let mut renumber = vec![u32::MAX; self.forms.len()];
            let mut live = Vec::with_capacity(self.forms.len() - self.dead_slots);
            for (old, form) in std::mem::take(&mut self.forms).into_iter().enumerate() {
                if form.refs > 0 {
                    renumber[old] = live.len() as u32;
                    live.push(form);
                }
            }
            for slot in self.by_text.values_mut() {
                *slot = renumber[*slot as usize];
            }
            self.forms = live;
            self.compact_labels();
            self.short_firsts = [0; 4];
            for form in &self.forms {
                note_first(&mut self.short_firsts, &form.text);
            }
        }
        let pending_bytes = self.forms.iter().filter(|f| !f.short).map(|f| f.text.len()).sum();
        let side_bytes = pending_bytes;
        *self.index.get_mut() = Index { side_stale: true, pending_bytes, side_bytes, ..Index::default() };
        self.dead_slots = 0;
    }

    /// Labels no live form uses go too (they come from tools, so a long-lived set must not keep
    /// every label it ever saw).
    fn compact_labels(&mut self) {
        let mut renumber = vec![usize::MAX; self.labels.len()];
        let mut labels = Vec::new();
        for form in &mut self.forms {
            if renumber[form.label] == usize::MAX {
                renumber[form.label] = labels.len();
                labels.push(std::mem::take(&mut self.labels[form.label]));
            }
            form.label = renumber[form.label];
        }
        self.label_index = labels.iter().enumerate().map(|(i, l)| (l.clone(), i)).collect();
        self.labels = labels;
    }

    /// The matches in `s`, overlapping ones merged: (start, end, label) in order, the label
    /// being that of the leftmost match of the group, the longest one if several start there.
    /// A match wholly inside one of our own `[redacted: <label>]` markers is no match: the
    /// marker's words are ours, so a second pass changes nothing when a value is a word or a
    /// piece of the marker (`redacted`, `acted: sec`).
    ///
    /// A string with JSON escapes is also matched as it reads decoded (`unescape.rs`), and a
    /// match there replaces the span of `s` that encodes it.
    /// `json`: `s` is JSON text (see [`Needles::scrub_json`]).
    fn find(&self, s: &str, json: bool) -> Vec<(usize, usize, usize)> {
        self.find_as(s, json, false)
    }

    /// [`Needles::find`]; with `settled`, JSON text that [`Needles::scrub_json_settled`] reads.
    fn find_as(&self, s: &str, json: bool, settled: bool) -> Vec<(usize, usize, usize)> {
        if self.too_short(s) || self.meter.spent() {
            return Vec::new();
        }
        if json {
            return self.find_unmemoized(s, true, settled);
        }
        if self.scans.borrow().clean.contains_key(s) {
            return Vec::new();
        }
        let found = self.find_unmemoized(s, false, false);
        // An answer read past the meter's allowance may be incomplete: the call fails.
        if found.is_empty() && !self.meter.spent() {
            self.scans.borrow_mut().add(s);
        }
        found
    }

    /// [`Needles::find`] without its memo (`settled`: see [`Needles::find_as`]).
    fn find_unmemoized(&self, s: &str, json: bool, settled: bool) -> Vec<(usize, usize, usize)> {
        // Most strings hold no value: the lists are gathered without allocating until one
        // holds a match, and nothing is merged when none does.
        let mut lists: Vec<Vec<(usize, usize, usize)>> = Vec::new();
        let keep = |list: Vec<(usize, usize, usize)>, lists: &mut Vec<_>| {
            if !list.is_empty() {
                lists.push(list);
            }
        };
        for list in self.matches(s) {
            keep(list, &mut lists);
        }
        // Base64 matches come from many decoded runs: gathered, then put in order of end.
        let mut encoded = Vec::new();
        self.base64_matches_in(s.as_bytes(), None, true, &mut |m| encoded.push(m));
        let views = if settled { unescape::for_each_view_but_unescaped } else { unescape::for_each_view };
        views(s, &self.meter, &mut |view, origin| {
            let raw = |(a, b, label): (usize, usize, usize)| {
                let (start, end) = origin.span(a, b);
                (start, end, label)
            };
            for list in self.matches_near(view, origin.escapes()) {
                keep(list.into_iter().map(raw).filter(|m| m.0 < m.1).collect(), &mut lists);
            }
            let mut emit = |m| encoded.extend(Some(raw(m)).filter(|m| m.0 < m.1));
            self.base64_matches_in(view.as_bytes(), Some(origin.escapes()), true, &mut emit);
        });
        if !encoded.is_empty() {
            lists.push(one_per_end(encoded));
        }
        keep(self.number_matches(s), &mut lists);
        if lists.is_empty() {
            return Vec::new();
        }
        self.merge_outside_markers(s, lists, json)
    }

    /// Numbers in `s` written with an exponent, read as their plain value: the agent reads
    /// `4.111111111111111e15` in a text as the card number, so a known value in the plain
    /// form takes the whole number, as it does for a JSON number of the result
    /// (`scrub_number`; found by review in JSON text). Any other number's plain form is a piece
    /// of its own text, which the scan has read already. In order of end, apart.
    fn number_matches(&self, s: &str) -> Vec<(usize, usize, usize)> {
        let b = s.as_bytes();
        let mut found = Vec::new();
        if self.numeric == 0 {
            return found;
        }
        let mut after = 0; // where the last number read ended
        for e in 1..b.len().saturating_sub(1) {
            if !matches!(b[e], b'e' | b'E') || !b[e - 1].is_ascii_digit() || e < after {
                continue;
            }
            // Back to the start of the longest number that ends in this mantissa: digits, one
            // point, digits, a sign ("0.4.111e15" reads "4.111e15"). Each byte is walked back
            // over from one `e` at most: the walk stops at any other byte.
            let digits_before = |mut i: usize| {
                while i > after && b[i - 1].is_ascii_digit() {
                    i -= 1;
                }
                i
            };
            let mut start = digits_before(e);
            if start > after + 1 && b[start - 1] == b'.' && b[start - 2].is_ascii_digit() {
                start = digits_before(start - 1);
            }
            if start > after && b[start - 1] == b'-' {
                start -= 1;
            }
            let mut work = self.work.get();
            work += (e - start) as u64;
            self.work.set(work);
            let Some((end, _)) = crate::json::scan::number(b, start) else {
                after = e; // no number here (".5e3"): the next one starts past this `e`
                continue;
            };
            after = end;
            let Some(plain) = crate::json::scan::plain_decimal(&s[start..end]) else { continue };
            if let Some(&(_, _, label)) = self.matches(&plain).iter().flatten().next() {
                found.push((start, end, label));
            }
        }
        found
    }

    /// The matches of `lists` in `s`, leaving out those inside our own markers, merged into
    /// groups (`merge`).
    fn merge_outside_markers(
        &self,
        s: &str,
        mut lists: Vec<Vec<(usize, usize, usize)>>,
        json: bool,
    ) -> Vec<(usize, usize, usize)> {
        let markers = self.markers(s, json);
        if !markers.is_empty() {
            for list in &mut lists {
                retain_outside(list, &markers);
            }
        }
        let mut work = self.work.get();
        let groups = merge(&lists, &mut work);
        self.work.set(work);
        groups
    }

    /// The values in `text` read as base64 (`base64.rs`), as spans of `text`: matches of the
    /// values of `MIN_LEN` characters or more, in no particular order. In a view whose last
    /// decoding read `escapes` (if given), only the runs beside an escape are read: any other
    /// run, with the characters that end it, was copied whole from the text below, and read
    /// there as it reads here. Nor, with `clean`, is a run the set's `CleanRuns` holds: read
    /// already (in another view of the string, or in another string) and found to hold nothing.
    fn base64_matches_in(
        &self,
        text: &[u8],
        escapes: Option<&[u32]>,
        clean: bool,
        emit: &mut dyn FnMut((usize, usize, usize)),
    ) {
        let clean = clean.then_some(&self.clean);
        if self.by_text.len() == self.short {
            return; // no value is matched anywhere but as a token
        }
        let shortest = self.index().shortest;
        let mut work = self.work.get();
        // The run being read, until a match is found in it; then, unless the meter ran out
        // (the call fails), it is clean.
        let reading: Cell<Option<(usize, usize)>> = Cell::new(None);
        let settle = || match (reading.take(), clean) {
            (Some((a, b)), Some(clean)) if !self.meter.spent() => clean.borrow_mut().add(&text[a..b]),
            _ => {}
        };
        let wanted = |start: usize, end: usize| {
            // A run's bounds are read up to 3 characters past it (a line break, `\r\n`, and
            // the character after it), and an escape's character is up to 4 bytes long.
            if escapes.is_some_and(|e| !near(e, start.saturating_sub(8), end + 4))
                || clean.is_some_and(|c| c.borrow().holds(&text[start..end]))
            {
                return false;
            }
            settle();
            reading.set(Some((start, end)));
            true
        };
        let mut hits = Vec::new();
        base64::for_each_view(text, shortest, &wanted, &mut |view| {
            work += view.bytes.len() as u64;
            if !self.meter.charge(view.bytes.len()) {
                return;
            }
            let mut found = |(a, b, label): (usize, usize, usize), work: &mut Steps| {
                *work += 1;
                reading.set(None);
                if view.counts(a, b) {
                    let (start, end) = view.span(a, b);
                    emit((start, end, label));
                }
            };
            self.long_matches_into(view.bytes, &mut hits, &mut work);
            for &m in &hits {
                found(m, &mut work);
            }
            // Decoded text may be escaped in turn: a JWT's JSON (`\u00e4`, `\/`), a URL's
            // query. One decoding deep, so that a run costs a bounded number of scans. Each
            // stretch of UTF-8 is read on its own: a run is decoded from characters that are not
            // part of the encoded text too (`/api/eyJ…`, read from `api/`), and what they decode
            // to is rarely UTF-8 (found by review s27: such a run's escapes were never read).
            // Decoded base64 is mostly not UTF-8, cut into many stretches: when no byte could
            // start an escape, no stretch has a view, and cutting it was a twentieth of reading
            // 1 MB of keys that read as base64 (callgrind).
            let mut at = 0;
            let chunks = unescape::may_escape(view.bytes).then(|| view.bytes.utf8_chunks());
            for chunk in chunks.into_iter().flatten() {
                let decoded = chunk.valid();
                unescape::for_each_view_once(decoded, &self.meter, &mut |inner, origin| {
                    for (a, b, label) in
                        self.long_matches_near(inner.as_bytes(), origin.escapes(), &mut work).into_iter().flatten()
                    {
                        let (start, end) = origin.span(a, b);
                        found((at + start, at + end, label), &mut work);
                    }
                });
                at += decoded.len() + chunk.invalid().len();
            }
        });
        settle();
        self.work.set(work);
    }

    /// The automata, caught up with every `add` and `remove`.
    fn index(&self) -> std::cell::RefMut<'_, Index> {
        let mut index = self.index.borrow_mut();
        let mut build = self.build_work.get();
        index.catch_up(&self.forms, &mut build);
        self.build_work.set(build);
        index
    }

    /// Can `s` hold no match at all? When no short value is known and `s` is shorter than the
    /// shortest needle: no decoding makes a text longer (an escape decodes to at most as many
    /// bytes as it takes, base64 to 3 bytes per 4 characters), so neither `s` nor any view of it
    /// can hold one. Most strings of a result are short: this spares them every scan.
    fn too_short(&self, s: &str) -> bool {
        self.short == 0 && s.len() < self.index().shortest
    }

    /// Every match in `s`, unmerged: the main automaton's, the side automaton's, and the short
    /// values standing alone as a token, each list in order of end.
    fn matches(&self, s: &str) -> [Vec<(usize, usize, usize)>; 4] {
        if !self.meter.charge(s.len()) {
            return Default::default();
        }
        let mut work = self.work.get();
        let [a, b, c] = self.long_matches(s.as_bytes(), &mut work);
        let d = self.short_matches(s, &mut work);
        self.work.set(work);
        [a, b, c, d]
    }

    /// `matches` in a view whose last decoding read `escapes`, read only within reach of them
    /// (`long_matches_near`); with short values known, the whole view (a token's bounds are
    /// read beside it).
    fn matches_near(&self, view: &str, escapes: &[u32]) -> [Vec<(usize, usize, usize)>; 4] {
        if self.short > 0 {
            return self.matches(view);
        }
        let mut work = self.work.get();
        let [a, b, c] = self.long_matches_near(view.as_bytes(), escapes, &mut work);
        self.work.set(work);
        [a, b, c, Vec::new()]
    }

    /// `long_matches` in a view whose last decoding read `escapes`: only the windows that reach
    /// from an escape as far as the longest needle does are read (charged to the meter). A match
    /// outside them touches no escape, so it lies in a run the decoding copied whole from the
    /// text below, where it was found, with the same span of the original (or inside a longer
    /// match ending at the same place). Escapes close together make one window; a view that is
    /// mostly windows is read whole.
    fn long_matches_near(&self, view: &[u8], escapes: &[u32], work: &mut Steps) -> [Vec<(usize, usize, usize)>; 3] {
        let reach = self.index().longest.saturating_sub(1);
        let mut windows: Vec<(usize, usize)> = Vec::new();
        for &e in escapes {
            let (a, b) = ((e as usize).saturating_sub(reach), (e as usize + 4 + reach).min(view.len()));
            match windows.last_mut() {
                Some(last) if a <= last.1 => last.1 = b.max(last.1),
                _ => windows.push((a, b)),
            }
        }
        let read: usize = windows.iter().map(|(a, b)| b - a).sum();
        if read * 4 >= view.len() * 3 {
            *work += view.len() as u64;
            if !self.meter.charge(view.len()) {
                return Default::default();
            }
            return self.long_matches(view, work);
        }
        *work += read as u64;
        if !self.meter.charge(read) {
            return Default::default();
        }
        let mut out: [Vec<(usize, usize, usize)>; 3] = Default::default();
        for (a, b) in windows {
            for (list, found) in out.iter_mut().zip(self.long_matches(&view[a..b], work)) {
                list.extend(found.into_iter().map(|(s, e, label)| (s + a, e + a, label)));
            }
        }
        out
    }

    /// [`Needles::long_matches`] into `out` (cleared first), the main automaton's matches then
    /// the middle and side ones': each decoded base64 view is read so, and most hold nothing, so the two
    /// lists of each, and their chaining, were most of what reading a view cost (callgrind:
    /// a fifth of value matching a report's pointers, base64 runs from end to end).
    fn long_matches_into(&self, bytes: &[u8], out: &mut Vec<(usize, usize, usize)>, work: &mut Steps) {
        out.clear();
        let mut index = self.index();
        let Index { main, mid, side, .. } = &mut *index;
        let live = |slot: u32| self.forms[slot as usize].refs > 0;
        let mut found = Vec::new();
        for automaton in [main, mid, side] {
            automaton.scan(bytes, &live, &mut found, work);
        }
        out.extend(found.into_iter().map(|(start, end, slot)| (start, end, self.forms[slot as usize].label)));
    }

    /// The matches in `bytes` of the values of `MIN_LEN` characters or more: the main,
    /// middle and side automata's, each in order of end.
    fn long_matches(&self, bytes: &[u8], work: &mut Steps) -> [Vec<(usize, usize, usize)>; 3] {
        let mut index = self.index();
        let live = |slot: u32| self.forms[slot as usize].refs > 0;
        let labelled = |automaton: &mut Automaton, work: &mut Steps| {
            let mut found = Vec::new();
            automaton.scan(bytes, &live, &mut found, work);
            found.into_iter().map(|(start, end, slot)| (start, end, self.forms[slot as usize].label)).collect()
        };
        let Index { main, mid, side, .. } = &mut *index;
        [labelled(main, work), labelled(mid, work), labelled(side, work)]
    }

    /// Does `s` hold a known value, as written or decoded (ignoring markers)?
    fn holds_value(&self, s: &str) -> bool {
        if self.too_short(s) {
            return false;
        }
        if self.meter.spent() {
            return true; // unread: the call fails, and the safe answer is kept from the memo
        }
        // As `find` reads, stopping at the first match.
        let mut any = self.matches(s).iter().any(|l| !l.is_empty());
        self.base64_matches_in(s.as_bytes(), None, true, &mut |_| any = true);
        unescape::for_each_view(s, &self.meter, &mut |view, origin| {
            if !any {
                any = self.matches_near(view, origin.escapes()).iter().any(|l| !l.is_empty());
                self.base64_matches_in(view.as_bytes(), Some(origin.escapes()), true, &mut |_| any = true);
            }
        });
        any
    }

    /// The label the agent sees for `label`: itself, unless it holds a known value (a title or
    /// key that spells a secret, a tool's reference label built around its id); then a fixed
    /// word that holds none. Written out, a label never carries a value, and a second pass
    /// finds nothing new in it. It is read as it is written, inside the brackets of a marker
    /// or of the "mcp" format's stub text: a value may be spelled across them (a label ending
    /// in `Qz7Lm` before the `]` spells a known `Qz7Lm]`).
    pub fn display_label<'a>(&self, label: &'a str) -> &'a str {
        let known = self.spells.borrow().get(label).copied();
        let spells = known.unwrap_or_else(|| {
            let spells = self.spells_value(label);
            // An answer read past the meter's allowance may be incomplete: the call fails, and
            // the memo outlives it.
            if self.meter.spent() {
                return true;
            }
            self.spells.borrow_mut().insert(label.into(), spells);
            spells
        });
        if !spells {
            return label;
        }
        self.fallback_label()
    }

    /// Does `label` spell a known value where it is written: in itself, or across the brackets
    /// of a marker or of an "mcp" stub's text (a label ending in `Qz7Lm` before the `]` spells
    /// a known `Qz7Lm]`)?
    fn spells_value(&self, label: &str) -> bool {
        self.holds_value(label) || MARKER_FORMS.iter().any(|&(open, close)| self.spelled_across(open, label, close))
    }

    /// Does a known value, as written, overlap both `label` and the fixed text around it in
    /// `{open}{label}{close}`? (One wholly inside the label is `holds_value`'s; one wholly inside
    /// the fixed words is ours, as everywhere in a marker.)
    fn spelled_across(&self, open: &str, label: &str, close: &str) -> bool {
        let written = format!("{open}{label}{close}");
        let (a, b) = (open.len(), open.len() + label.len());
        self.matches(&written).iter().flatten().any(|&(start, end, _)| start < b && end > a && (start < a || end > b))
    }

    /// What the memos of labels knew no longer holds once the set changes.
    fn forget_labels(&mut self) {
        self.spells.get_mut().clear();
        self.clean.get_mut().clear();
        self.scans.get_mut().clear();
        self.fallback.set(None);
    }

    /// What [`Needles::display_label`] shows for a label that holds a known value.
    pub fn fallback_label(&self) -> &'static str {
        if let Some(word) = self.fallback.get() {
            return word;
        }
        let word = FALLBACK_LABELS.iter().copied().find(|f| !self.spells_value(f)).unwrap_or("");
        if !self.meter.spent() {
            self.fallback.set(Some(word));
        }
        word
    }

    /// The short values standing alone as a token in `s`: (start, end, label), the longest per
    /// end, in order of end. One pass: at each place a token can end (before a character that
    /// is not alphanumeric, or at the end), the last one to three characters are looked up,
    /// when a token can start before them.
    fn short_matches(&self, s: &str, work: &mut Steps) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        if self.short == 0 {
            return out;
        }
        // The last four characters: (byte offset, alphanumeric), by count modulo 4.
        let mut last = [(0usize, false); 4];
        let mut count = 0usize;
        let mut next = 0;
        while next <= s.len() {
            let (j, alnum) = (next, next < s.len() && alnum_at(s, next));
            next += s.as_bytes().get(j).map_or(1, |&b| utf8_len(b));
            *work += 1;
            if !alnum {
                for k in (1..MIN_LEN.min(count + 1)).rev() {
                    let start = last[(count - k) % 4].0;
                    if count > k && last[(count - k - 1) % 4].1 {
                        continue;
                    }
                    *work += 1;
                    let first = s.as_bytes()[start];
                    if self.short_firsts[usize::from(first >> 6)] & (1 << (first & 63)) == 0 {
                        continue;
                    }
                    #[cfg(test)]
                    tests::TOKEN_LOOKUPS.with(|l| l.set(l.get() + 1));
                    let Some(form) = self.by_text.get(&s[start..j]).map(|&slot| &self.forms[slot as usize]) else {
                        continue;
                    };
                    if form.short {
                        out.push((start, j, form.label));
                    }
                    break;
                }
            }
            if j < s.len() {
                last[count % 4] = (j, alnum);
                count += 1;
            }
        }
        out
    }

    /// Our own `[redacted: <label>]` markers in `s`, in order: those whose label is one this set
    /// writes (a label it holds that spells no known value, or a fixed fallback word).
    /// In JSON text (`json`), a marker never holds a `"`: ours are written inside one string,
    /// where a label's `"` is escaped, so a `[redacted: …]` with a raw `"` in it spans strings
    /// (a label holding `","`) and leaves what it covers to be matched.
    fn markers(&self, s: &str, json: bool) -> Vec<(usize, usize)> {
        const OPEN: &str = MARKER_FORMS[0].0;
        let mut out = Vec::new();
        let (mut from, mut close) = (0, 0);
        while let Some(k) = s[from..].find(OPEN) {
            let body = from + k + OPEN.len();
            if close < body {
                // The first ']' at or after `body`, found once per stretch of text.
                let Some(c) = s[body..].find(']') else { break };
                close = body + c;
            }
            let mut work = self.work.get();
            work += (body - from) as u64;
            self.work.set(work);
            let label = &s[body..close];
            // (An empty label is the fallback once every fixed word spells a known value.)
            let ours = !(json && label.contains('"'))
                && (FALLBACK_LABELS.contains(&label)
                    || self.label_index.contains_key(label)
                    || (label.is_empty() && self.fallback_label().is_empty()));
            // Ours only if we could have written it: its label spells no value, in itself or
            // across the brackets (`display_label` would have written the fixed word).
            if ours && self.display_label(label) == label {
                out.push((body - OPEN.len(), close + 1));
                from = close + 1;
            } else {
                from = body - OPEN.len() + 1;
            }
        }
        out
    }

    /// Replaces every occurrence in `s` with `[redacted: <label>]`. Overlapping matches are
    /// merged so that no part of a value survives between two replacements.
    ///
    /// Base64 is read decoded inside any string, so this also answers for a content
    /// block's `data` (image, audio) or a resource's `blob`. There a hit must not be spliced
    /// in (the marker would corrupt the media, and the groups at the edges of the value would
    /// stay): the caller removes the whole field's block and reports it as a `value_match`
    /// with the labels returned here.
    pub fn scrub(&self, s: &str) -> Option<(String, Vec<String>)> {
        self.scrub_in(s, false, false, None)
    }

    /// [`Needles::scrub`] of a JSON number's text, also read as its plain value
    /// (`json::scan::plain_decimal`): the agent reads `4.111111111111111E+15` as the card
    /// number `4111111111111111`, so a known number matches however the tool writes it.
    pub fn scrub_number(&self, number: &str) -> Option<(String, Vec<String>)> {
        self.scrub(number).or_else(|| {
            let plain =
                crate::json::scan::plain_decimal(number).filter(|_| !crate::json::scan::is_plain_decimal(number))?;
            self.scrub(&plain)
        })
    }

    /// [`Needles::scrub`] of JSON text (a structured value written out, as the text block that
    /// stands for it): what is in our markers is left alone only where the marker lies inside
    /// one string.
    pub fn scrub_json(&self, s: &str) -> Option<(String, Vec<String>)> {
        self.scrub_in(s, true, false, None)
    }

    /// [`Needles::scrub_json`] of `text`, the compact JSON of a value that
    /// [`Needles::scrub_value`] has just scrubbed, where [`Needles::settled`] says so: the
    /// views below its JSON escapes decoded are not read (at its first reading; what a cut
    /// leaves is read whole), since they hold nothing.
    ///
    /// Why. Its JSON escapes are all the writer's (each `\` of a string is written `\\`), so
    /// decoding them reads each string as it stands, byte for byte between its quotes (with
    /// `"` and control characters as they are in it): the text the writer would have written
    /// escaping nothing. [`Needles::repeats_its_tokens`] shows that such a text holds nothing in
    /// any view: no seam reads otherwise in a view (no decoder starts an escape at a seam byte;
    /// one that starts in a string and reaches the quote after it keeps that quote's byte: `\"`
    /// and an unseen character before it read `"`, a reference or a percent-escape stops there,
    /// `\u`, `\x`, `\U` take hex digits only), so each string reads as in the same view of
    /// the string alone, at most without what an escape joined to the quote (`&#92;` before
    /// it reads `\`, which the next unescaping joins to the quote: the string reads as its own
    /// view without that last `\`), and those views hold no match. Python's reading
    /// (`unescape_bytes`) of the text, where it reads one, reads it as this one does (the
    /// writer writes no `\x`). The text's other views (references or percent-escapes decoded
    /// first, then its escapes) are read: there an escape decoded can join a writer's `\`.
    ///
    /// The property test `the_text_of_a_scrubbed_value_repeats_its_tokens` holds this against
    /// reading every view, on generated values and sets whose strings hold backslashes,
    /// quotes and every escape.
    pub fn scrub_json_settled(&self, text: &str) -> Option<(String, Vec<String>)> {
        self.scrub_in(text, true, true, None)
    }

    /// How many readings so far ended still finding something (see [`Needles::repeats_its_tokens`]).
    pub fn unsettled(&self) -> u64 {
        self.unsettled.get()
    }

    /// Can [`Needles::scrub_json`] of `text`, the compact JSON (`json::write::text`) of a value
    /// that [`Needles::scrub_value`] has just scrubbed (`unsettled` read before it), find
    /// nothing? Then the text block that stands for the value need not be read again: it
    /// holds what the value's strings, keys and numbers hold, and they hold nothing now.
    ///
    /// Why, when the answer is yes. The text is tokens (strings, keys, numbers, `true`,
    /// `false`, `null`) with seams between them, and every seam holds a byte of `JSON_SEAMS`.
    /// - With no `\` in the text, the writer escaped nothing: each string and key stands in it
    ///   byte for byte, between quotes. No decoder starts an escape at a seam byte, and one
    ///   that starts in a string and reaches its closing quote keeps that quote's byte in its
    ///   view (`\"` reads `"`; a reference or percent-escape stops there): so in every view
    ///   of the text, each string reads as in the same view of the string alone (at most
    ///   without a last lone `\`), and the seams stay seams.
    /// - No live value holds a seam byte (`seamed`), so no match, verbatim, as a token or in a
    ///   view, spans a seam; nor does a base64 run, since no seam byte is base64.
    /// - So a match lies inside one token. In a string or key, it is a match of the string as
    ///   `scrub_value` read it (markers included: a marker inside one string is ours in both
    ///   readings); in a number, of the number as `scrub_number` read it (the plain value of
    ///   one written with an exponent too); a literal holds one only if a value lies inside
    ///   `true`, `false` or `null` (asked here; too short for base64 or a short token).
    /// - The value's strings are as `scrub_value` left them, and each of its readings ended
    ///   with one that found nothing (`unsettled` did not move), so none holds a match.
    ///
    /// The test `the_text_of_a_scrubbed_value_repeats_its_tokens` holds this against reading
    /// the text, on generated values and sets.
    pub fn repeats_its_tokens(&self, text: &str, unsettled: u64) -> bool {
        !text.as_bytes().contains(&b'\\') && self.settled(unsettled)
    }

    /// Does the compact JSON of a value [`Needles::scrub_value`] has just scrubbed (`unsettled`
    /// read before it) hold nothing where the writer escaped nothing? No live value holds a
    /// seam byte, each reading ended finding nothing, and no value lies in `true`, `false` or
    /// `null` (see [`Needles::repeats_its_tokens`]).
    pub fn settled(&self, unsettled: u64) -> bool {
        if self.seamed > 0 || self.unsettled.get() != unsettled {
            return false;
        }
        let mut work = self.work.get();
        let literal = ["true", "false", "null"]
            .iter()
            .any(|w| self.long_matches(w.as_bytes(), &mut work).iter().any(|l| !l.is_empty()));
        self.work.set(work);
        !literal
    }

    /// [`Needles::scrub`] of the parts `spans` of `s` (in order, apart, on character
    /// boundaries), as they read within the whole: a match reaching past a part's ends is cut
    /// only up to them, and one wholly outside the parts stays, so what lies outside (our own
    /// wording around tool text or labels) is left whole and reads the same on a second pass.
    pub fn scrub_within(&self, s: &str, spans: &[(usize, usize)]) -> Option<(String, Vec<String>)> {
        self.scrub_in(s, false, false, Some(spans))
    }

    /// Cuts what `find` finds (within `spans`, if given), then reads the text again while
    /// it finds more: a value of 2 or 3 characters counts only standing alone as a token,
    /// and a cut beside it can leave it so (`737` in `737<value>`), as a second pass would
    /// read it. Only with such values known: a cut never makes a longer value match, since
    /// those match anywhere but inside our markers.
    /// `settled`: `s` is JSON text [`Needles::scrub_json_settled`] reads.
    fn scrub_in(
        &self,
        s: &str,
        json: bool,
        settled: bool,
        spans: Option<&[(usize, usize)]>,
    ) -> Option<(String, Vec<String>)> {
        // A short value is cut once it stands alone; what a cut leaves standing alone is
        // beside the cut, so each reading but the first cuts only what the one before left.
        // (A few: a bound on a loop whose every reading shortens the text outside markers.)
        const READINGS: usize = 4;
        if self.is_empty() {
            return None;
        }
        let mut spans = spans.map(<[_]>::to_vec);
        let mut done: Option<(String, Vec<String>)> = None;
        for reading in 1..=READINGS {
            let text = done.as_ref().map_or(s, |(text, _)| text.as_str());
            let mut groups = self.find_as(text, json, settled && reading == 1);
            if let Some(spans) = &spans {
                groups = clip(groups, spans);
            }
            let Some((out, labels)) = self.write_markers(text, &groups, spans.as_deref_mut()) else { break };
            done = Some(match done {
                None => (out, labels),
                Some((_, mut all)) => {
                    all.extend(labels.into_iter().filter(|l| !all.contains(l)).collect::<Vec<_>>());
                    (out, all)
                }
            });
            if self.short == 0 {
                break;
            }
            if reading == READINGS {
                self.unsettled.set(self.unsettled.get() + 1);
            }
        }
        done
    }

    /// `s` with each group (start, end, label), in order and apart, replaced by its marker;
    /// `spans` (in order, apart, each group inside one) moved to where their text went.
    fn write_markers(
        &self,
        s: &str,
        groups: &[(usize, usize, usize)],
        spans: Option<&mut [(usize, usize)]>,
    ) -> Option<(String, Vec<String>)> {
        if groups.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(s.len());
        let mut labels: Vec<String> = Vec::new();
        // Where each group's end went: (old end, new end), to move the spans by.
        let mut moved: Vec<(usize, usize)> = Vec::with_capacity(groups.len());
        let mut at = 0;
        for &(start, end, label) in groups {
            let label = self.display_label(&self.labels[label]);
            out.push_str(&s[at..start]);
            for part in [MARKER_FORMS[0].0, label, MARKER_FORMS[0].1] {
                out.push_str(part);
            }
            if !labels.iter().any(|l| l == label) {
                labels.push(label.to_string());
            }
            moved.push((end, out.len()));
            at = end;
        }
        out.push_str(&s[at..]);
        if let Some(spans) = spans {
            // An edge moves with the last group that ends at or before it; a group starting at
            // a span's start leaves that start where its marker starts.
            let to = |p: usize| match moved.partition_point(|&(end, _)| end <= p) {
                0 => p,
                k => p - moved[k - 1].0 + moved[k - 1].1,
            };
            for span in spans.iter_mut() {
                *span = (to(span.0), to(span.1));
            }
        }
        Some((out, labels))
    }

    /// A metered call starts, which may read `bytes` (`meter.rs`). What `Scans` remembers
    /// goes with the call: what a call reads, and whether it ends with `work_limit`, depends
    /// on that call alone.
    pub(crate) fn start_call(&self, bytes: u64) {
        self.scans.borrow_mut().clear();
        self.meter.allow(bytes);
    }

    /// The metered call is over.
    pub(crate) fn end_call(&self) {
        self.scans.borrow_mut().clear();
        self.meter.stop();
    }

    /// What this set's scans read in the current call, and may read (`meter.rs`).
    pub(crate) fn meter(&self) -> &Meter {
        &self.meter
    }

    /// Steps taken by every scan so far (transitions, failure hops, tombstones skipped,
    /// matches merged).
    #[cfg(test)]
    pub(crate) fn work(&self) -> u64 {
        self.work.get().0
    }

    /// Steps taken by every automaton build so far.
    #[cfg(test)]
    pub(crate) fn build_work(&self) -> u64 {
        self.build_work.get().0
    }

    /// Scrubs every string in `value`, recording where. `pointer` is its location. A key that
    /// holds a redacted value is renamed, or its member dropped if the new name is taken; the
    /// hit then points at the object, since the old key must not appear in the report.
    pub fn scrub_value(&self, value: &mut Value, pointer: &mut String, hits: &mut Vec<Hit>) {
        match value {
            Value::String(s) => {
                if let Some((clean, labels)) = self.scrub(s) {
                    *s = clean;
                    hits.push(Hit { pointer: pointer.clone(), labels });
                }
            }
            Value::Number(n) => {
                // A known number must not reach the agent as a number either.
                if let Some((clean, labels)) = self.scrub_number(n.as_str()) {
                    *value = Value::String(clean);
                    hits.push(Hit { pointer: pointer.clone(), labels });
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let mark = pointer.len();
                    push_token(pointer, &i.to_string());
                    self.scrub_value(item, pointer, hits);
                    pointer.truncate(mark);
                }
            }
            Value::Object(map) => {
                self.scrub_keys(map, pointer, &[], hits);
                for (key, item) in map.iter_mut() {
                    let mark = pointer.len();
                    push_token(pointer, key);
                    self.scrub_value(item, pointer, hits);
                    pointer.truncate(mark);
                }
            }
            _ => {}
        }
    }

    /// Value matching on the keys of one object (not its values): a key holding a known value is
    /// renamed, or its member dropped if the new name is taken.
    /// Keys in `shape` are the object's own field names (a CallToolResult's `content`): a value
    /// equal to one reveals nothing there, and renaming it would break the shape.
    pub fn scrub_keys(&self, map: &mut Map<String, Value>, pointer: &str, shape: &[&str], hits: &mut Vec<Hit>) {
        let data = |k: &String| !shape.contains(&k.as_str());
        if !map.keys().filter(|k| data(k)).any(|k| !self.find(k, false).is_empty()) {
            return;
        }
        let old = std::mem::take(map);
        let mut labels = Vec::new();
        for (key, item) in old {
            let key = match Some(&key).filter(|k| data(k)).and_then(|k| self.scrub(k)) {
                Some((clean, found)) => {
                    labels.extend(found.into_iter().filter(|l| !labels.contains(l)).collect::<Vec<_>>());
                    if map.contains_key(&clean) {
                        continue;
                    }
                    clean
                }
                None => key,
            };
            map.insert(key, item);
        }
        hits.push(Hit { pointer: pointer.to_string(), labels });
    }
}

/// Each way `s` reads with one decoder applied once (its JSON escapes, HTML references, percent-
/// or form escapes decoded), for a reader outside value matching: `claims` reads a result
/// written as text through them.
pub(crate) fn each_decoding(s: &str, visit: &mut dyn FnMut(&str)) {
    unescape::for_each_view_once(s, &Meter::default(), &mut |view, _| visit(view));
}

/// The texts `s` carries encoded once that may hold JSON (a bracket): each decoding of it (JSON
/// escapes, `{\"apiKey\":…}`; HTML references, `{&quot;apiKey&quot;:…}` in a `<pre>`; percent-
/// or form escapes, a query's `%7B%22apiKey%22…`) and each base64 run that starts as JSON's does
/// (`eyJ…`, a `data:` URL's payload). Rule 5 walks the JSON in them as JSON in prose (stop 37:
/// a marked value in the tool's JSON written so reached the agent).
pub(crate) fn json_readings(s: &str, visit: &mut dyn FnMut(&str)) {
    each_decoding(s, &mut |view| {
        if view.contains(['{', '[']) {
            visit(view)
        }
    });
    json_runs(s, visit);
}

/// Does `s` carry JSON encoded once ([`json_readings`])?
pub(crate) fn encodes_json(s: &str) -> bool {
    let mut any = false;
    json_readings(s, &mut |_| any = true);
    any
}

/// The credentials in `s` (`detect.rs`), as the values they read as (a value found in several
/// views is listed each time). Value matching then finds each in every form, like a known
/// value. Token kinds are read as written (no encoder escapes their characters) and as a model
/// reads the text, unseen characters left out and fullwidth ASCII as ASCII; the kinds
/// that hold other characters are also read on the decoded views (`unescape.rs`: a PEM key's
/// line breaks in JSON text, a webhook URL written with `\/`, an AWS secret key's `/` and `+`
/// percent-encoded), but only in a string that names one of them: the views cost as much as
/// value matching, and most strings name none.
///
/// One `scan` of `s` decides both: a string with nothing to find costs that pass, and
/// allocates nothing. What the detectors read is charged to `meter` (a spent meter reads
/// nothing more: the caller fails).
pub(crate) fn detected(s: &str, on: detect::Detect, meter: &Meter) -> Vec<(detect::Kind, String)> {
    let mut out: Vec<(detect::Kind, String)> = Vec::new();
    if on.is_none() || !meter.charge(s.len()) {
        return out;
    }
    let seen = detect::scan(s);
    let mut found = |text: &str, seen: detect::Scan| {
        if !seen.any() {
            return;
        }
        let mut work = 0;
        let hits = detect::detect_scanned(text, on, seen, &mut work);
        meter.charge(work as usize);
        out.extend(hits.into_iter().map(|f| (f.kind, text[f.start..f.end].to_string())));
    };
    found(s, seen);
    // As a model reads it: a token split by a character a renderer shows as nothing, or with
    // letters in fullwidth, reads whole (stop 37: `sk_liv\u{200b}e_…` reached the agent).
    if let Some(folded) = unescape::folded_text(s).filter(|f| meter.charge(f.len())) {
        found(&folded, detect::scan(&folded));
    }
    if seen.needs_views(on) {
        unescape::for_each_view(s, meter, &mut |view, _| {
            if meter.charge(view.len()) {
                found(view, detect::scan(view));
            }
        });
    }
    out
}

/// Adds the first byte of `text` to `firsts` when `text` is under `MIN_LEN` characters (as
/// each token `short_matches` looks up is).
fn note_first(firsts: &mut [u64; 4], text: &str) {
    if let (Some(&first), true) = (text.as_bytes().first(), text.chars().nth(MIN_LEN - 1).is_none()) {
        firsts[usize::from(first >> 6)] |= 1 << (first & 63);
    }
}

/// Is the character at byte `i` of `s` (a character boundary) alphanumeric? ASCII without
/// decoding: `short_matches` asks it of every character of every string it reads (measured:
/// decoding each character was a tenth of value matching a report's pointers).
/// A character a renderer shows as nothing (`unescape::folded`) is none: the Hangul fillers
/// are letters, so `737` and one at the end of a string read as one token of four, and the
/// view that leaves them out keeps those at the end of a text (review s36, helper A: a known
/// CVV so followed reached the agent).
fn alnum_at(s: &str, i: usize) -> bool {
    match s.as_bytes()[i] {
        b if b.is_ascii() => b.is_ascii_alphanumeric(),
        _ => {
            !matches!(unescape::folded(s.as_bytes(), i), Some((None, _)))
                && s[i..].chars().next().is_some_and(char::is_alphanumeric)
        }
    }
}

/// The length of the UTF-8 character whose first byte is `b`.
fn utf8_len(b: u8) -> usize {
    match b {
        0..=0x7F => 1,
        0x80..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Base64 runs read already and found to hold no value, by their characters: what a run holds
/// depends on its characters and the set alone (so the set forgets them when it changes). The
/// views of a text rich in escapes copy most of its runs (measured: text padded with runs of
/// `A` between escapes of every kind read each run in each of its dozens of views), and a
/// result reads most of its runs several times (a key as a key, in the report's pointers and
/// labels, in the JSON text block that stands for the structured value: measured, decoding
/// and scanning them again was a quarter of redacting a result of 28,000 keys that read as
/// base64). Kept up to `CLEAN_ROOM` bytes, then started afresh.
/// A run enters the table on its second reading (`Asked`): most runs of a result are read
/// once, and the table only pays for those read again.
#[derive(Default)]
struct CleanRuns {
    /// (A run is ASCII: base64 characters and line breaks. The module already holds this
    /// table's type, `spells`; a set of bytes took 2 KiB more.)
    runs: TextMap<Box<str>, bool>,
    /// The runs read once.
    asked: Asked,
    /// What the table holds: its runs' bytes and `CLEAN_ENTRY` per run, and `ASKED_ENTRY` per
    /// run read once.
    size: usize,
}

/// What `CleanRuns` may hold, in bytes (about what it takes in memory).
const CLEAN_ROOM: usize = 1 << 20;
/// What an entry of `CleanRuns` is worth beyond its run's bytes (its slot and allocation).
const CLEAN_ENTRY: usize = 32;
/// What a run read once is worth in `CleanRuns` (its fingerprint's slot).
const ASKED_ENTRY: usize = 16;

impl CleanRuns {
    fn clear(&mut self) {
        self.runs.clear();
        self.asked.clear();
        self.size = 0;
    }

    fn holds(&self, run: &[u8]) -> bool {
        std::str::from_utf8(run).is_ok_and(|run| self.runs.contains_key(run))
    }

    fn add(&mut self, run: &[u8]) {
        let Ok(run) = std::str::from_utf8(run) else { return };
        if !self.asked.again(run) {
            self.size += ASKED_ENTRY;
            if self.size > CLEAN_ROOM {
                self.clear();
            }
            return;
        }
        let size = run.len() + CLEAN_ENTRY;
        if self.size + size > CLEAN_ROOM {
            self.clear();
        }
        if size <= CLEAN_ROOM {
            self.size += size;
            self.runs.insert(Box::from(run), true);
        }
    }
}

/// The texts `find` read and found to hold no value, while the set stays as it is: a result's strings
/// are read several times each (a key by `scrub_keys`' check and again to rename it, then as
/// its report pointer's token; a string by the streaming engine's check and again by the DOM
/// engine's pass), and each reading decodes every view again (callgrind, 1 MB of keys that
/// hold values: the report's tokens alone were a fifth of redacting it). Texts of up to
/// `SCAN_TEXT` bytes, kept up to `SCANS_ROOM` bytes, then started afresh, and for one call
/// (`start_call`). A text enters on its first reading: most of those read at all are read again.
#[derive(Default)]
struct Scans {
    /// The texts found to hold no value. (Those that hold one are read again: the module
    /// already holds this table's type, `spells`; one of their matches took 1 KiB more.)
    clean: TextMap<Box<str>, bool>,
    /// What the table holds: its texts' bytes and `SCAN_ENTRY` per text.
    size: usize,
}

/// What `Scans` may hold, in bytes (about what it takes in memory).
const SCANS_ROOM: usize = 1 << 20;
/// The longest text `Scans` keeps: keys, tokens, labels and short strings are what is read
/// again; a long text is rarely read twice as it is.
const SCAN_TEXT: usize = 1 << 10;
/// What an entry of `Scans` is worth beyond its text and matches (its slot and allocation).
const SCAN_ENTRY: usize = 48;

impl Scans {
    fn clear(&mut self) {
        self.clean.clear();
        self.size = 0;
    }

    fn add(&mut self, text: &str) {
        if text.len() > SCAN_TEXT {
            return;
        }
        let size = text.len() + SCAN_ENTRY;
        if self.size + size > SCANS_ROOM {
            self.clear();
        }
        self.size += size;
        self.clean.insert(Box::from(text), true);
    }
}

/// Texts a memo was asked about once, by a keyed fingerprint: a memo fills its table only on
/// a second ask, so that texts read once (in a result whose runs or pointers are all
/// distinct, most of them) cost a fingerprint each, not a copy and a table entry (stop 25
/// measured such a result 4.7% slower for the tables than without them). A collision of two
/// fingerprints only fills the table one ask early.
#[derive(Default)]
pub(crate) struct Asked {
    seen: crate::hash::IdSet<u64>,
    key: crate::hash::Keyed,
}

impl Asked {
    /// Was `text` asked about before? From now on it has been.
    pub(crate) fn again(&mut self, text: &str) -> bool {
        use std::hash::BuildHasher;
        !self.seen.insert(self.key.hash_one(text))
    }

    fn clear(&mut self) {
        self.seen.clear();
    }
}

/// Is one of `escapes` (sorted) in `from..to`?
fn near(escapes: &[u32], from: usize, to: usize) -> bool {
    escapes.get(escapes.partition_point(|&e| (e as usize) < from)).is_some_and(|&e| (e as usize) < to)
}

/// The words a label falls back to when it holds a known value, in order of preference.
const FALLBACK_LABELS: &[&str] = &["secret", "value", "item"];

/// `groups` (in order, apart) cut to their parts inside `spans` (in order, apart): a group
/// reaching over a span's edge keeps the part within, and one outside every span goes.
fn clip(groups: Vec<(usize, usize, usize)>, spans: &[(usize, usize)]) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::with_capacity(groups.len());
    let mut first = 0; // the first span that can still meet a group (both are in order)
    for (start, end, label) in groups {
        while spans.get(first).is_some_and(|&(_, b)| b <= start) {
            first += 1;
        }
        for &(a, b) in spans[first..].iter().take_while(|&&(a, _)| a < end) {
            let (lo, hi) = (start.max(a), end.min(b));
            if lo < hi {
                out.push((lo, hi, label));
            }
        }
    }
    out
}

/// Drops the matches (sorted by end) that lie wholly inside one of `markers` (sorted, disjoint).
fn retain_outside(list: &mut Vec<(usize, usize, usize)>, markers: &[(usize, usize)]) {
    let mut m = 0;
    list.retain(|&(start, end, _)| {
        while markers.get(m).is_some_and(|&(_, me)| me < end) {
            m += 1;
        }
        !markers.get(m).is_some_and(|&(ms, me)| ms <= start && end <= me)
    });
}

/// `matches` in order of end, with one per end (the longest), as `merge` takes them. Sorted as
/// (end, index) pairs of `u32`: the module already holds that sort (`ecma::normalize`), and a
/// sort of these triples would add a second one (4 KiB, measured).
fn one_per_end(matches: Vec<(usize, usize, usize)>) -> Vec<(usize, usize, usize)> {
    let mut order: Vec<(u32, u32)> = matches.iter().enumerate().map(|(i, m)| (m.1 as u32, i as u32)).collect();
    crate::sort::sort(&mut order);
    let mut out: Vec<(usize, usize, usize)> = Vec::with_capacity(order.len());
    for (_, i) in order {
        let m = matches[i as usize];
        match out.last_mut() {
            Some(last) if last.1 == m.1 => {
                if m.0 < last.0 {
                    *last = m;
                }
            }
            _ => out.push(m),
        }
    }
    out
}

/// Merges match lists, each sorted by end with at most one match per end, into groups of
/// overlapping matches, in order: (start, end, label of the leftmost-longest match). Linear:
/// the lists are merged by end, and each match is pushed on and popped off a stack once.
fn merge(lists: &[Vec<(usize, usize, usize)>], work: &mut Steps) -> Vec<(usize, usize, usize)> {
    // (start, end, label start, label length, label)
    let mut groups: Vec<(usize, usize, usize, usize, usize)> = Vec::new();
    let mut at = vec![0; lists.len()];
    loop {
        // The next end; at equal ends the longest match.
        let mut next: Option<(usize, usize, usize)> = None;
        for (list, i) in lists.iter().zip(&at) {
            if let Some(&m) = list.get(*i) {
                if next.map_or(true, |n| m.1 < n.1 || (m.1 == n.1 && m.0 < n.0)) {
                    next = Some(m);
                }
            }
        }
        let Some((start, end, label)) = next else { break };
        for (list, i) in lists.iter().zip(at.iter_mut()) {
            if list.get(*i).is_some_and(|m| m.1 == end) {
                *i += 1;
            }
        }
        *work += 1;
        let mut g = (start, end, start, end - start, label);
        while let Some(&top) = groups.last() {
            if g.0 >= top.1 {
                break;
            }
            *work += 1;
            g.0 = g.0.min(top.0);
            if top.2 < g.2 || (top.2 == g.2 && top.3 > g.3) {
                (g.2, g.3, g.4) = (top.2, top.3, top.4);
            }
            groups.pop();
        }
        groups.push(g);
    }
    groups.into_iter().map(|(start, end, _, _, label)| (start, end, label)).collect()
}

/// The bytes compact JSON writes between its tokens (and around a string's characters): every
/// place where two tokens meet holds one.
const JSON_SEAMS: &[u8] = b"\",:[]{}";

/// Does `value` hold a byte of `JSON_SEAMS`? Every value added asks it of all its bytes, and a
/// `contains` (a `memchr` call) per byte was a twentieth of learning the values of a dense
/// result (callgrind, stop 37).
fn holds_a_seam(value: &str) -> bool {
    const SEAMS: AsciiSet = AsciiSet::of(JSON_SEAMS);
    SEAMS.any_in(value.as_bytes())
}

/// Could `value` lie inside a number's plain form (`json::scan::plain_decimal`)?
fn could_be_in_a_number(value: &str) -> bool {
    value.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit table answers as the list it is built from, for every byte, alone and inside
    /// longer text.
    #[test]
    fn a_seam_is_a_byte_of_the_list() {
        for b in 0u8..0x80 {
            let c = char::from(b);
            let listed = JSON_SEAMS.contains(&b);
            assert_eq!(holds_a_seam(&c.to_string()), listed, "{b:#x}");
            assert_eq!(holds_a_seam(&format!("ab{c}é")), listed, "{b:#x}");
        }
        assert!(!holds_a_seam("sk_live_0123456789 é😀\u{2028}"));
    }

    fn needles(values: &[(&str, &str)]) -> Needles {
        let mut n = Needles::default();
        for (v, l) in values {
            n.add(v, l);
        }
        n
    }

    /// Numbers with an exponent are read by walking back from each `e`: linear in the text,
    /// however the digits, points and `e`s are laid out.
    #[test]
    fn numbers_with_exponents_are_read_in_linear_work() {
        let n = needles(&[("4111111111111111", "card")]);
        let work = |text: &str| {
            let before = n.work();
            n.number_matches(text);
            n.work() - before
        };
        for unit in ["1.1.", "1e", "11111111e", "1.1e1e", "-0.5e-3 ", "9.9.9.9.9.9.9.9e+", ".1e"] {
            let (small, large) = (work(&unit.repeat(2000)), work(&unit.repeat(8000)));
            assert!(large <= 4 * small + 64, "{unit:?}: {small} then {large}");
        }
        assert_eq!(n.number_matches("a 4.111111111111111e15 b 0.4.111111111111111E+15"), vec![(2, 22, 0), (27, 48, 0)]);
    }

    #[test]
    fn verbatim_json_and_percent_forms() {
        let n = needles(&[("p@ss/w\"rd é", "password")]);
        for text in [
            "x p@ss/w\"rd é y",
            r#"{"v":"p@ss/w\"rd é"}"#,
            r#"{\"v\":\"p@ss/w\\\"rd é\"}"#,
            "p@ss\\/w\\\"rd é",
            "?q=p%40ss%2Fw%22rd%20%C3%A9",
            "?q=p%40ss%2fw%22rd%20%c3%a9",
            "?q=p%40ss%2Fw%22rd+%C3%A9",
            "/p@ss/w%22rd%20%C3%A9",
        ] {
            let (clean, labels) = n.scrub(text).unwrap_or_else(|| panic!("no match in {text}"));
            assert!(clean.contains("[redacted: password]"), "{clean}");
            assert!(!clean.contains("p@ss") && !clean.contains("p%40ss"), "{clean}");
            assert_eq!(labels, ["password"]);
        }
    }

    #[test]
    fn python_and_go_unicode_escapes() {
        let n = needles(&[("<é&😀>", "v")]);
        for text in [r#"{"v":"\u003c\u00e9\u0026\ud83d\ude00\u003e"}"#, r#"{"v":"<\u00e9&\ud83d\ude00>"}"#] {
            assert!(n.scrub(text).is_some(), "{text}");
        }
    }

    #[test]
    fn keys_holding_a_value_are_renamed_or_dropped() {
        let n = needles(&[("sk_live_key1", "API key")]);
        let mut v: Value = serde_json::from_str(r#"{"usage":{"sk_live_key1":3,"other":1}}"#).unwrap();
        let mut hits = Vec::new();
        n.scrub_value(&mut v, &mut String::new(), &mut hits);
        assert_eq!(v.to_string(), r#"{"usage":{"[redacted: API key]":3,"other":1}}"#);
        assert_eq!(hits[0].pointer, "/usage");
    }

    /// A text found to hold no value is read once while the set stays as it is (`Scans`): an
    /// object's keys were read by `scrub_keys`' check and again to rename the one that holds a
    /// value, and the report read each again as its pointer's token. Once the set changes, a
    /// text is read again and a new value caught.
    #[test]
    fn a_clean_text_is_read_once_while_the_set_stays() {
        let clean = ["Qz7LmOtherValue, read %51z7L", "UXo3TG1PdGhlclZhbHVl c", "plain words, long enough"];
        let holds = "a Qz7LmSecretValue b";
        let work = |texts: &[&str]| {
            let n = needles(&[("Qz7LmSecretValue", "token")]);
            texts.iter().map(|k| work_of(&n, k)).sum::<u64>()
        };
        let (fresh, held) = (work(&clean), work(&[holds]));
        let n = needles(&[("Qz7LmSecretValue", "token")]);
        n.scrub("warm up: builds the side automaton if it is stale");
        let mut object: Map<String, Value> =
            clean.iter().chain([&holds]).map(|k| (k.to_string(), Value::from(1))).collect();
        let before = n.work();
        n.scrub_keys(&mut object, "", &[], &mut Vec::new());
        let once = n.work() - before;
        // The key that holds a value is read twice (the check, the renaming), the others once.
        assert!(once <= fresh + 2 * held, "each clean key read once: {once} for {fresh} + 2 x {held}");
        assert_eq!(object.keys().filter(|k| k.contains("[redacted: token]")).count(), 1);
        let before = n.work();
        for k in clean {
            assert_eq!(n.scrub(k), None);
        }
        assert_eq!(n.work(), before, "read again (a report's tokens): recalled");
        let mut n = n;
        n.add("Qz7LmOtherValue", "other");
        assert!(work_of(&n, clean[0]) > 0);
        assert_eq!(n.scrub(clean[0]).map(|(_, labels)| labels), Some(vec!["other".to_string()]));
    }

    #[test]
    fn a_single_character_is_not_matched() {
        let n = needles(&[("7", "digit")]);
        assert!(n.is_empty());
        assert!(n.scrub("7 7").is_none());
    }

    #[test]
    fn short_values_are_matched_as_whole_tokens() {
        let n = needles(&[("737", "CVV"), ("42", "PIN"), ("a-b", "code"), ("é1", "x")]);
        for (text, clean) in [
            ("CVV 737", "CVV [redacted: CVV]"),
            ("737", "[redacted: CVV]"),
            ("(737), 737.", "([redacted: CVV]), [redacted: CVV]."),
            ("cvv=737&pin=42", "cvv=[redacted: CVV]&pin=[redacted: PIN]"),
            (r#"{"cvv":"737"}"#, r#"{"cvv":"[redacted: CVV]"}"#),
            ("x a-b y", "x [redacted: code] y"),
            ("é1 é1", "[redacted: x] [redacted: x]"),
        ] {
            assert_eq!(n.scrub(text).map(|(c, _)| c).as_deref(), Some(clean), "{text}");
        }
        for text in ["17370", "7370", "1737", "v737", "CVV737", "a-bc", "xa-b", "42nd", "é12", "\u{e0}é1"] {
            assert!(n.scrub(text).is_none(), "{text}");
        }
    }

    thread_local! {
        /// Tokens `short_matches` looked up in `by_text`.
        pub(super) static TOKEN_LOOKUPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Every token of one to three characters was hashed and looked up, whatever it started
    /// with: a tenth of redacting 1 MB of JSON strings (callgrind, review s30). Only a token
    /// whose first byte starts a short value is looked up now, with the same matches (one
    /// lookup per `t1` in each of the two readings of the text). Fails before: every token
    /// bounded by punctuation was looked up.
    #[test]
    fn only_tokens_that_could_be_short_values_are_looked_up() {
        let mut n = needles(&[("t1", "token"), ("4111111111111111", "card")]);
        let text = r#"{"id":123,"token":"t1","note":"a b c","x":[1,2]}"#.repeat(1000);
        let lookups = |n: &Needles| {
            TOKEN_LOOKUPS.with(|l| l.set(0));
            let (clean, _) = n.scrub(&text).expect("t1 is found");
            assert_eq!(clean.matches("[redacted: token]").count(), 1000);
            TOKEN_LOOKUPS.with(std::cell::Cell::get)
        };
        assert!(lookups(&n) <= 2000, "one lookup per t1 in each reading");
        // Removed values leave their first byte until the slots are reclaimed; the same then.
        n.add("q12", "other");
        n.remove("q12");
        n.rebuild();
        assert!(lookups(&n) <= 2000);
    }

    #[test]
    fn a_short_value_inside_a_longer_one_merges_with_it() {
        let n = needles(&[("737", "CVV"), ("card 737 ok", "note")]);
        assert_eq!(n.scrub("a card 737 ok").unwrap().0, "a [redacted: note]");
        assert_eq!(n.scrub("737 card 737 ok").unwrap().0, "[redacted: CVV] [redacted: note]");
    }

    #[test]
    fn our_own_markers_are_left_alone_by_short_values() {
        let n = needles(&[("PIN", "pin code"), ("key", "API token")]);
        let (clean, _) = n.scrub("key PIN").unwrap();
        assert_eq!(clean, "[redacted: API token] [redacted: pin code]");
        assert!(n.scrub(&clean).is_none(), "a second pass changes nothing");
        // A marker with a label we never wrote is text like any other.
        assert_eq!(n.scrub("[redacted: key]").unwrap().0, "[redacted: [redacted: API token]]");
        // An unclosed marker and many openings stay linear.
        let many = "[redacted: ".repeat(10_000) + "key";
        let before = n.work();
        assert!(n.scrub(&many).is_some());
        assert!(n.work() - before < 8 * many.len() as u64);
    }

    #[test]
    fn short_values_are_removed_like_the_others() {
        let mut n = needles(&[("737", "CVV")]);
        n.add("737", "CVV");
        n.remove("737");
        assert!(n.scrub("CVV 737").is_some(), "added twice, removed once");
        n.remove("737");
        assert!(n.is_empty() && n.scrub("CVV 737").is_none());
    }

    #[test]
    fn work_is_linear_for_short_values() {
        let mut n = Needles::default();
        for i in 0..1000 {
            n.add(&format!("{i:03}"), "short");
        }
        n.add("a-b", "short");
        assert_linear(&n, |len| "1 22 333 a-b-a-b ".repeat(len / 17), "1000 short values over short tokens");
        assert_linear(&n, |len| "-".repeat(len), "1000 short values over punctuation");
    }

    #[test]
    fn overlapping_values_leave_nothing_between() {
        let n = needles(&[("abcd", "one"), ("cdef", "two")]);
        let (clean, labels) = n.scrub("xxabcdefyy").unwrap();
        assert_eq!(clean, "xx[redacted: one]yy");
        assert_eq!(labels, ["one"]);
    }

    /// The merged matches by brute force, as the matcher before the automaton found them.
    fn brute(values: &[(String, &str)], s: &str) -> Vec<(usize, usize, String)> {
        let mut spans = Vec::new();
        for (v, label) in values {
            if v.chars().count() >= MIN_LEN {
                let form = v;
                let mut at = 0;
                while let Some(i) = s[at..].find(form.as_str()) {
                    spans.push((at + i, at + i + form.len(), label.to_string()));
                    at += i + s[at + i..].chars().next().map_or(1, char::len_utf8);
                }
            }
        }
        spans.sort_by_key(|(start, end, _)| (*start, std::cmp::Reverse(*end)));
        let mut merged: Vec<(usize, usize, String)> = Vec::new();
        for span in spans {
            match merged.last_mut() {
                Some(last) if span.0 < last.1 => last.1 = last.1.max(span.1),
                _ => merged.push(span),
            }
        }
        merged
    }

    #[test]
    fn updates_in_place_agree_with_brute_force() {
        // A small LCG drives adds, removes and scans over a tiny alphabet, so that needles
        // nest and overlap, and every path is taken: main and side automata, tombstones in
        // both, rebuilds.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % m
        };
        let labels = ["one", "two", "three"];
        let mut n = Needles::default();
        let mut model: Vec<(String, &str)> = Vec::new();
        let mut scans = 0;
        for round in 0..3000 {
            let op = next(10);
            match op {
                0..=4 if model.len() < 30 => {
                    let len = 4 + next(6) as usize;
                    let v: String = (0..len).map(|_| char::from(b'a' + next(3) as u8)).collect();
                    if !model.iter().any(|(m, _)| *m == v) {
                        let label = labels[next(3) as usize];
                        n.add(&v, label);
                        model.push((v, label));
                    }
                }
                0..=6 if !model.is_empty() => {
                    let (v, _) = model.remove(next(model.len() as u64) as usize);
                    n.remove(&v);
                }
                _ => {
                    let text: String = (0..40).map(|_| char::from(b'a' + next(4) as u8)).collect();
                    let want = brute(&model, &text);
                    let got: Vec<(usize, usize, String)> =
                        n.find(&text, false).into_iter().map(|(s, e, l)| (s, e, n.labels[l].clone())).collect();
                    assert_eq!(got, want, "round {round}: {text}");
                    scans += 1;
                }
            }
        }
        assert!(scans > 500 && n.build_work() > 0, "{scans} scans");
    }

    /// The same with a large main automaton under the churn, so that the pending needles pass
    /// through all three automata: the side one, the middle one once the side one outgrows the
    /// square root of what is pending (past 4 KiB), and the main one again. The set of small
    /// values alone never leaves the side automaton.
    #[test]
    fn updates_through_three_automata_agree_with_brute_force() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % m
        };
        let mut n = Needles::default();
        // Never in a scanned text (other letters): they only make the main automaton large.
        for i in 0..6_000u32 {
            n.add(&format!("zq{i:010}"), "base");
        }
        n.scrub("build the main automaton");
        let labels = ["one", "two", "three"];
        let mut model: Vec<(String, &str)> = Vec::new();
        let (mut scans, mut with_middle) = (0, 0);
        for round in 0..10_000 {
            match next(16) {
                0..=9 if model.len() < 2_000 => {
                    let len = 6 + next(8) as usize;
                    let v: String = (0..len).map(|_| char::from(b'a' + next(4) as u8)).collect();
                    if !model.iter().any(|(m, _)| *m == v) {
                        let label = labels[next(3) as usize];
                        n.add(&v, label);
                        model.push((v, label));
                    }
                }
                10..=12 if !model.is_empty() => {
                    let (v, _) = model.remove(next(model.len() as u64) as usize);
                    n.remove(&v);
                }
                _ => {
                    let text: String = (0..24).map(|_| char::from(b'a' + next(5) as u8)).collect();
                    let want = brute(&model, &text);
                    let got: Vec<(usize, usize, String)> =
                        n.find(&text, false).into_iter().map(|(s, e, l)| (s, e, n.labels[l].clone())).collect();
                    assert_eq!(got, want, "round {round}: {text}");
                    scans += 1;
                    let index = n.index();
                    with_middle += usize::from(index.mid_end > index.main_end && index.side_bytes > 0);
                }
            }
        }
        assert!(scans > 1_500 && with_middle > 500, "{scans} scans, {with_middle} with all three automata");
    }

    /// The work of one scrub of `text`.
    fn work_of(n: &Needles, text: &str) -> u64 {
        n.scrub("warm up: builds the side automaton if it is stale");
        let before = n.work();
        n.scrub(text);
        n.work() - before
    }

    /// Doubling the text at most doubles the work (plus a little), and the work stays within
    /// a constant number of steps per byte, whatever the needles: per byte, a transition and
    /// at most one failure hop in each of the two automata, and at most one match pushed and
    /// popped (8); and the same for each of the up to 3 bytes a character of a base64 run
    /// decodes to, plus a step to decode it (3 x 9).
    fn assert_linear(n: &Needles, text: impl Fn(usize) -> String, family: &str) -> (u64, u64) {
        let (small, large) = (text(100_000), text(200_000));
        let (w1, w2) = (work_of(n, &small), work_of(n, &large));
        assert!(w2 as f64 <= 2.2 * w1 as f64, "{family}: {w1} then {w2} steps");
        assert!(w2 <= 35 * large.len() as u64, "{family}: {w2} steps for {} bytes", large.len());
        eprintln!("{family}: {} bytes {w1} steps, {} bytes {w2} steps", small.len(), large.len());
        (w1, w2)
    }

    #[test]
    fn work_is_linear_for_thousands_of_values_sharing_a_prefix() {
        let mut n = Needles::default();
        for i in 0..5000 {
            n.add(&format!("sk_live_{i:05}Z"), "key");
        }
        assert_linear(&n, |len| "sk_live_0".repeat(len / 9), "5000 values sharing sk_live_");
        let text = format!("{} sk_live_04999Z", "sk_live_0".repeat(100));
        assert!(n.scrub(&text).unwrap().0.ends_with(" [redacted: key]"));
    }

    #[test]
    fn work_is_linear_for_long_values_sharing_a_long_prefix() {
        let mut n = Needles::default();
        let prefix = "x".repeat(20_000);
        for i in 0..5 {
            n.add(&format!("{prefix}{i}"), "long");
        }
        assert_linear(&n, |len| "x".repeat(len), "5 values of 20 KB sharing 20 KB");
        assert_linear(&n, |len| format!("{prefix}3").repeat(len / 20_001 + 1), "the same, matching");
    }

    #[test]
    fn work_is_linear_for_hundreds_of_nested_values() {
        let mut n = Needles::default();
        for len in 4..404 {
            n.add(&"A".repeat(len), &format!("A{len}"));
        }
        assert_linear(&n, |len| "A".repeat(len), "400 nested values over a run of A");
        let (clean, labels) = n.scrub("xAAAAAAy").unwrap();
        assert_eq!((clean.as_str(), labels), ("x[redacted: A6]y", vec!["A6".to_string()]));
    }

    #[test]
    fn work_does_not_depend_on_the_number_of_values() {
        let text: String = (0..64).map(|i| format!("word{i:02} v{:07} ", i * 1000)).collect::<String>()[..1024].into();
        let mut works = Vec::new();
        for count in [1_000, 100_000] {
            let mut n = Needles::default();
            for i in 0..count {
                n.add(&format!("v{i:07}"), "v");
            }
            let (clean, _) = n.scrub(&text).unwrap();
            assert!(!clean.contains("v0000000"), "{clean}");
            works.push(work_of(&n, &text));
        }
        eprintln!("1 KB text: {} steps with 1,000 values, {} with 100,000", works[0], works[1]);
        // About 3.5 steps per byte: the text, and its words of 6 characters or more decoded as
        // base64.
        assert!(works[1] <= 4 * 1024 && works[1] as f64 <= 1.2 * works[0] as f64, "{works:?}");
    }

    /// Build steps per needle byte of one automaton build (trie steps, sibling comparisons,
    /// states, failure hops), for the values of the tests below.
    const BUILD_PER_BYTE: u64 = 4;

    #[test]
    fn the_main_automaton_is_rebuilt_amortized_constant_work_per_added_byte() {
        // Calls as a redactor makes them: each adds a result's values, then scans. Each scan
        // after a change builds the side automaton (O(P), P below 1/8 of the main one), or the
        // main one once P passes that fraction; main rebuilds then cost O(1) per added byte.
        let mut n = Needles::default();
        let (mut added, mut main_work, mut rebuilds) = (0u64, 0u64, 0);
        for call in 0..400 {
            for i in 0..10 {
                let v = format!("secret-{call}-{i}-value");
                added += n.add(&v, "s") as u64;
            }
            let before = (n.build_work(), n.index.borrow().main_end, n.index.borrow().mid_end);
            n.scrub("a result");
            let work = n.build_work() - before.0;
            let index = n.index.borrow();
            if index.main_end != before.1 {
                rebuilds += 1;
                main_work += work;
                assert!(work <= BUILD_PER_BYTE * index.main.bytes() as u64, "call {call}: {work}");
            } else {
                let pending = index.mid.bytes() + index.side.bytes();
                assert!(pending * PENDING_FRACTION <= index.main.bytes(), "call {call}");
                let built = if index.mid_end != before.2 { index.mid.bytes() } else { index.side.bytes() };
                assert!(work <= BUILD_PER_BYTE * built as u64, "call {call}: {work}");
            }
        }
        let per_byte = main_work as f64 / added as f64;
        eprintln!("400 calls: {rebuilds} main rebuilds, {per_byte:.1} build steps per added byte");
        assert!(per_byte <= (BUILD_PER_BYTE * (PENDING_FRACTION as u64 + 1)) as f64, "{per_byte}");
        assert!(rebuilds <= 60, "{rebuilds}: the main automaton grows by 1/8 at least each time");
    }

    /// Review s26: values that arrive one per call (a session of redactions, each with its own
    /// marked value) rebuilt the side automaton, up to an eighth of the set, on every call:
    /// 16,535 build steps per call at 10,000 known values, 131,890 at 40,000 (quadratic over a
    /// session). The middle automaton keeps the side one near the square root of what is
    /// pending: four times the values, about twice the steps per call.
    #[test]
    fn a_call_adding_one_value_pays_about_the_square_root_of_the_set() {
        let mut n = Needles::default();
        let (mut last, mut per_call) = (0, Vec::new());
        for call in 0..32_000u32 {
            n.add(&format!("sk_live_{call:012}_secretvalue"), "s");
            n.scrub("a result");
            if (call + 1) % 8_000 == 0 {
                per_call.push((n.build_work() - last) / 8_000);
                last = n.build_work();
            }
        }
        eprintln!("build steps per call, by 8,000 calls: {per_call:?}");
        // 8,000 to 16,000 known, then 24,000 to 32,000: three times the set.
        assert!(per_call[3] <= 2 * per_call[1], "{per_call:?}");
        assert!(per_call[3] <= 12_000, "{per_call:?}");
    }

    #[test]
    fn removing_many_short_values_beside_huge_ones_does_not_rebuild_the_huge_ones() {
        // A run that starts over rolls back hundreds of values it noted; the set also holds a
        // few huge values from earlier results. Found by review: each rollback rebuilt the
        // main automaton of every live byte (9 MB, three times in one 2.5 KB result).
        let mut n = Needles::default();
        let huge: Vec<String> = (0..4).map(|i| format!("{i}{}", "qwertyuiop".repeat(20_000))).collect();
        for v in &huge {
            n.add(v, "big");
        }
        n.scrub("warm");
        let start = n.build_work();
        let mut churn = 0u64;
        for round in 0..50 {
            let values: Vec<String> = (0..230).map(|i| format!("r{round}v{i:05}")).collect();
            for v in &values {
                churn += n.add(v, "item") as u64;
            }
            n.scrub("a result");
            for v in &values {
                n.remove(v);
            }
            n.scrub("after");
        }
        let work = n.build_work() - start;
        let live: u64 = huge.iter().map(|v| v.len() as u64).sum();
        eprintln!("{churn} bytes added and removed beside {live}: {work} build steps");
        // The churn pays for its own builds, and at most a bounded number of full ones.
        assert!(work <= BUILD_PER_BYTE * (churn * 4 + live * 2), "{work}");
        assert!(huge.iter().all(|v| n.scrub(&format!("x {v} y")).is_some()), "the huge values are still matched");
    }

    #[test]
    fn many_values_added_at_once_cost_one_build() {
        let mut n = Needles::default();
        let mut bytes = 0;
        for i in 0..8_000 {
            let v = format!("secret-{i}-value");
            bytes += n.add(&v, "s") as u64;
        }
        assert_eq!(n.build_work(), 0, "nothing is built before a scan");
        n.scrub("x");
        assert!(n.build_work() <= BUILD_PER_BYTE * bytes, "{} for {bytes}", n.build_work());
        for i in 0..8_000 {
            n.remove(&format!("secret-{i}-value"));
        }
        assert!(n.is_empty() && n.forms.is_empty(), "tombstones are reclaimed");
    }

    #[test]
    fn replacement_text_is_not_matched_again() {
        let n = needles(&[("secret-value", "redacted"), ("dact", "x")]);
        let (clean, labels) = n.scrub("a secret-value b").unwrap();
        // The label "redacted" holds the value "dact": a fixed word stands for it.
        assert_eq!((clean.as_str(), labels), ("a [redacted: secret] b", vec!["secret".to_string()]));
        assert!(n.scrub(&clean).is_none(), "the marker's own words are not matched again");
    }

    #[test]
    fn a_short_value_stands_alone_after_an_escaped_separator() {
        let n = needles(&[("737", "CVV")]);
        for text in ["CVV%20737", "CVV%2C737", r"card ok\n737", r"ok\u0020737", r"ok\t737 done"] {
            assert!(n.scrub(text).is_some_and(|(clean, _)| !clean.contains("737")), "{text}");
        }
        // (`ok\\n737` is a newline once decoded twice, as JSON text inside a JSON string: caught.)
        for text in ["17370", "x%41737", r"ok\u0041737", "ab737", "caf%C3%A9737"] {
            assert!(n.scrub(text).is_none(), "{text}");
        }
    }

    /// A view is read only near its escapes: a base64 run beside one is read in the view even
    /// where the text below runs it on. Here the JSON escape `\u0020` is a space in the view,
    /// ending the run there; below, `u0020` runs on into it, so the run decodes below with 3
    /// more bytes first, which are not UTF-8, and its escaped JSON is read only in the view.
    #[test]
    fn a_base64_run_beside_an_escape_is_read_in_the_view() {
        let n = needles(&[("Qz7LmSecretValue", "token")]);
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let jwt_part = super::forms::base64(br#"{"a":"\u0051z7LmSecretValue"}"#, alphabet, false);
        for text in [format!(r"x\u0020{jwt_part} y"), format!(r"x\u0020{jwt_part}\u0020y"), jwt_part.clone()] {
            let groups = n.find(&text, false);
            assert_eq!(groups.len(), 1, "{text}");
            // The characters that carry `\u0051z7LmSecretValue`, bytes 6 to 27 of the JSON.
            let at = text.find(&jwt_part).unwrap();
            assert_eq!((groups[0].0 - at, groups[0].1 - at), (8, 36), "{text}");
        }
    }

    /// Base64 of escaped text glued after base64 characters (a URL path, `/api/<jwt payload>`)
    /// is decoded from them too, so the decoded bytes start with what they make, rarely UTF-8:
    /// the escapes after them must still be read.
    #[test]
    fn escaped_text_in_base64_glued_to_base64_characters() {
        let n = needles(&[("Qz7\"LmSecretValue", "token")]);
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for escaped in [
            r#"{"a":"Qz7\"LmSecretValue"}"#,
            r"Qz7\u0022LmSecretValue",
            "Qz7%22LmSecretValue",
            "Qz7&quot;LmSecretValue",
        ] {
            let encoded = super::forms::base64(escaped.as_bytes(), alphabet, false);
            for glue in ["", "a", "ab/", "api/v1/", "x/y/z/w"] {
                let text = format!("https://x.test/{glue}{encoded}");
                let groups = n.find(&text, false);
                assert_eq!(groups.len(), 1, "{text}");
            }
        }
    }

    /// Found by the property above: a percent view that keeps a non-UTF-8 escape as written
    /// (`%aa`) is mapped byte by byte, and its `+` read as a space maps one byte to one; it is
    /// an escape all the same, which ends the base64 run before it. Only the run cut there
    /// decodes to UTF-8 (JSON escaping `/aa/a` as `\/aa/a`).
    #[test]
    fn a_plus_beside_a_percent_escape_kept_as_written_is_an_escape() {
        let n = needles(&[("aa", "pin"), ("aé/~/aaa", "secret"), ("/aa/a", "secret")]);
        let text = "%aaYVwvYWEvYWFcYWHDqS9+L2FhYWFh7Q";
        assert_eq!(n.find(text, false), [(4, 13, 1), (16, 29, 1)]);
    }

    /// A base64 run that held a value is read again wherever it recurs: only runs found clean
    /// are skipped in the string's other views.
    #[test]
    fn a_base64_run_that_recurs_is_caught_each_time() {
        let n = needles(&[("Qz7LmSecretValue", "token")]);
        let b = "UXo3TG1TZWNyZXRWYWx1ZQ"; // the value in base64, unpadded
        for text in [format!("{b} {b} x&amp;{b}"), format!(r"{b}.\n{b}.\t{b}.{b}"), format!("{b}%20{b}+x {b}")] {
            let groups = n.find(&text, false);
            assert_eq!(groups.len(), text.matches(b).count(), "{text}");
        }
    }

    /// A base64 run read once and found clean is not decoded again while the set stays as it
    /// is, in the same string or another (a key, then the pointers and the JSON text that
    /// repeat it); once the set changes it is read again, and a value it encodes is caught.
    /// Most runs of a result are read once: a clean run is kept only when it is read again.
    #[test]
    fn a_clean_base64_run_is_kept_on_its_second_reading() {
        let n = needles(&[("Qz7LmSecretValue", "token")]);
        let run = "UXo3TG1PdGhlclZhbHVlUXo3TG1PdGhlclZhbHVl"; // "Qz7LmOtherValue" twice, in base64
        assert_eq!(n.scrub(run), None);
        assert!(n.clean.borrow().runs.is_empty(), "read once: not kept");
        n.scans.borrow_mut().clear(); // read again, not recalled (`Scans`)
        assert_eq!(n.scrub(run), None);
        assert!(n.clean.borrow().holds(run.as_bytes()));
    }

    #[test]
    fn a_clean_base64_run_is_read_once_while_the_set_stays() {
        let mut n = needles(&[("Qz7LmSecretValue", "token")]);
        let run = "UXo3TG1PdGhlclZhbHVlUXo3TG1PdGhlclZhbHVl"; // "Qz7LmOtherValue" twice, in base64
        let first = work_of(&n, &format!("key {run}"));
        // Read a second time (it enters the table then), and not again; the same text is read
        // again, not recalled (`Scans`).
        n.scans.borrow_mut().clear();
        assert_eq!(work_of(&n, &format!("key {run}")), first);
        let again = work_of(&n, &format!("pointer ({run})"));
        // Its four views, of about 3 bytes per 4 characters, each a step per byte at least.
        assert!(again + 3 * run.len() as u64 <= first, "{again} {first}");
        assert_eq!(n.scrub(run), None);
        n.add("Qz7LmOtherValue", "other");
        assert!(work_of(&n, &format!("key {run}")) >= first);
        assert_eq!(n.scrub(run).map(|(_, labels)| labels), Some(vec!["other".to_string()]));
    }

    /// The compact JSON of a scrubbed value whose strings hold backslashes and quotes (so the
    /// writer escapes them) is read without the views below its JSON escapes decoded: they
    /// read each string as it stands, which `scrub_value` read. Where an escape decoded from a
    /// string joins the quote after it (`&#92;`, `%5C`, `&bsol;`, a lone `\`, `\u00`, a soft
    /// hyphen), what is found is the same, and less is read.
    #[test]
    fn a_settled_text_is_not_read_through_its_writers_escapes() {
        let n = needles(&[("s3cr3t!x", "token"), ("ab", "pin")]);
        for end in ["\\", "&#92;", "%5C", "&bsol;", "\\u00", "\u{AD}", "&#x5c;", "%255C", "&amp;#92;"] {
            let s = |v: &str| format!("{v}{end}");
            let mut value = serde_json::json!({
                "a": s("s3cr&#51;t!x"),
                "b": [s("\"s3cr\\u0033t!x"), s("x ab y"), s("&amp;#92;\\"), s("%5C%22")],
                s("k\\"): s("plain\\text"),
            });
            let unsettled = n.unsettled();
            n.scrub_value(&mut value, &mut String::new(), &mut Vec::new());
            let text = crate::json::write::text(&value);
            assert!(n.settled(unsettled) && text.contains('\\'), "{text}");
            let read = |f: &dyn Fn() -> Option<(String, Vec<String>)>| {
                let before = n.meter().read();
                (f(), n.meter().read() - before)
            };
            let (all, read_all) = read(&|| n.scrub_json(&text));
            let (settled, read_settled) = read(&|| n.scrub_json_settled(&text));
            assert_eq!(settled, all, "{text}");
            assert!(read_settled < read_all, "{text}: read {read_settled} bytes, {read_all} reading every view");
        }
    }

    #[test]
    fn a_value_adds_one_needle_of_its_own_length() {
        // Escaped and base64 forms are read on decoded views, so no value multiplies into
        // forms: the per-run budget counts these bytes, so a result of N bytes adds at most N.
        let mut n = Needles::default();
        for value in ["sk_live_abcdefghijklmnopqrstuvwx", "<&\"'>é+/ 1".repeat(20).as_str(), "abcd", "737"] {
            assert_eq!(n.add(value, "v"), value.len());
        }
        assert_eq!(n.forms.len(), 4);
        assert_eq!(n.add("abcd", "v"), 4, "a value added twice counts twice, for its two removes");
        assert_eq!(n.forms.len(), 4);
    }

    #[test]
    fn a_label_never_carries_a_value() {
        // A reference's label built around its id; a key that spells a shorter value.
        let n = needles(&[("tok_C", "Ntok_CAA"), ("code", "codes")]);
        assert_eq!(n.display_label("Ntok_CAA"), "secret");
        assert_eq!(n.display_label("codes"), "secret");
        assert_eq!(n.display_label("API key"), "API key");
        let (clean, _) = n.scrub("see tok_C and code").unwrap();
        assert_eq!(clean, "see [redacted: secret] and [redacted: secret]");
        assert!(n.scrub(&clean).is_none());
        // The fallback holds a value too: the next word; all of them: no label at all.
        let n = needles(&[("secret", "secret label")]);
        assert_eq!(n.display_label("secret label"), "value");
        let n = needles(&[("secret", "s"), ("value", "v"), ("item", "i"), ("x-secret", "x-secret")]);
        assert_eq!(n.display_label("x-secret"), "");
        // A forged marker whose label holds a value is no marker of ours.
        let n = needles(&[("tok_C", "Ntok_CAA")]);
        assert!(n.scrub("[redacted: Ntok_CAA]").is_some());
    }
}
