//! The known-secret set: every value a redactor has taken from a result, fetched for the user,
//! or seen as a tool's own secret reference, so that no later result of any tool carries it back
//! to the agent, and no call takes it out (`check`'s `secret_egress`).
//!
//! What enters it is decided in one place, [`secret_strings`]. Values are owned by the vault
//! handles they came with: `forget(handle)` drops a value once no other handle holds it, and
//! `clear` drops everything. A value that entered without a handle (from a result that was then
//! withheld, or a reference the agent never got a stub for) stays until `clear`: scrubbing a
//! value too many is the safe side.
//!
//! Memory grows with the number of distinct values (each kept once, verbatim: its encodings
//! are read on decoded views of the text) until `forget`/`clear`; nothing expires on its own,
//! since an expired vault entry's value must still never reach the agent.

use std::rc::Rc;

use crate::hash::{TextMap, TextSet};

use serde_json::Value;

use super::meter::Meter;
use super::Needles;

#[derive(Default)]
pub struct KnownSecrets {
    needles: Needles,
    /// Each value once; the handles that hold it share its text.
    values: TextMap<Rc<str>, Known>,
    /// handle -> the values it holds, each once (one handle may hold thousands: the items
    /// behind an overflow stub, so asking whether it holds one must not read them all).
    owned: TextMap<Rc<str>, TextSet<Rc<str>>>,
    /// Values noted in this run with no handle yet, with their labels: `settle` pins those
    /// that never got one.
    provisional: Vec<(Rc<str>, Rc<str>)>,
    /// What changed since the last `drain`, so that JS can rebuild the set after a trap.
    log: Vec<Learned>,
    /// The holdings the current run added, so that `rollback` can take back an attempt's.
    /// Emptied by `settle` and `drain`.
    held: Vec<(Rc<str>, Rc<str>)>,
    /// The label last noted: the values of a result share a few labels, and every record of
    /// one (`provisional`, `log`) shares its text. (Each value's text is shared the same way,
    /// from `values`, and a handle's from `owned`: a dense result's records of what it
    /// learned were three copies of each value, label and handle, a tenth of its call's
    /// memory.)
    label: Option<Rc<str>>,
    /// Where `held` and `log` stood at the last `mark`.
    undo_from: (usize, usize),
    /// The agent views this redactor returned (not secrets, but the same kind of memory: what
    /// lets it tell its own parts from a tool's forgeries). Kept by `clear`.
    pub(crate) written: crate::redact::own::Written,
    /// During a run: the bytes of values it may still add (see `budget`).
    budget: Option<u64>,
    /// The run's budget ran out.
    exhausted: bool,
    /// What `needles` gives past the budget.
    none: Needles,
    /// Bumped on every change of what `needles` matches, never reset (not by `clear` either):
    /// JS caches what a scrub of a name gave under it (js/install.js, `refusedName`).
    generation: u64,
}

/// Which budget a run went past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overrun {
    /// The values it withholds would add more bytes to the matcher than `Limits::max_work`.
    Learning,
    /// Value matching and the detectors read more than their allowance (`meter.rs`).
    Reading,
}

#[derive(Default)]
struct Known {
    /// How many live handles hold it (each counted once: `owned` says which). A count, not a
    /// list: a list had one entry per call that returned the value, and was scanned per call.
    owners: usize,
    /// Entered without a handle, or held by a handle that expired (nothing the user can delete
    /// stands for it any more): stays until `clear`.
    pinned: bool,
}

/// One value that joined the set, exactly as the core holds it: held by `handle`, or pinned.
/// Its texts are the set's own, shared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Learned {
    pub handle: Option<Rc<str>>,
    pub label: Rc<str>,
    pub value: Rc<str>,
}

impl KnownSecrets {
    /// Remembers `value` under `label` (the label its redactions will show), provisionally: the
    /// run gives it a handle, or `settle` pins it.
    pub fn note(&mut self, value: &str, label: &str) {
        self.noted(value, label);
    }

    /// [`note`](Self::note), and the set's text of `value`.
    fn noted(&mut self, value: &str, label: &str) -> Rc<str> {
        if let Some((shared, _)) = self.values.get_key_value(value) {
            return Rc::clone(shared);
        }
        let added = add_needles(&mut self.needles, value, label);
        self.generation += 1;
        self.charge(added);
        let shared: Rc<str> = Rc::from(value);
        self.values.insert(Rc::clone(&shared), Known::default());
        let label = self.shared_label(label);
        self.provisional.push((Rc::clone(&shared), label));
        shared
    }

    /// `label` as the set keeps it: the last one's text when it is the same.
    fn shared_label(&mut self, label: &str) -> Rc<str> {
        match &self.label {
            Some(last) if **last == *label => Rc::clone(last),
            _ => Rc::clone(self.label.insert(Rc::from(label))),
        }
    }

    /// Room for `n` more values in the run's records (a dense result's grew by doubling to
    /// twice what they held).
    pub(crate) fn reserve(&mut self, n: usize) {
        self.provisional.reserve(n);
        self.held.reserve(n);
        self.log.reserve(n);
    }

    /// Remembers `value` as held by `handle`.
    pub fn own(&mut self, handle: &str, value: &str, label: &str) {
        let shared = self.noted(value, label);
        // One handle often holds many values (the overflow stub's): its name is copied once.
        let handle = match self.owned.get_key_value(handle) {
            Some((name, _)) => Rc::clone(name),
            None => {
                let name: Rc<str> = Rc::from(handle);
                self.owned.insert(Rc::clone(&name), TextSet::default());
                name
            }
        };
        let held = self.owned.get_mut(&handle).expect("entered above");
        if held.insert(Rc::clone(&shared)) {
            self.values.get_mut(&shared).expect("noted above").owners += 1;
            self.held.push((Rc::clone(&handle), Rc::clone(&shared)));
            let label = self.shared_label(label);
            self.log.push(Learned { handle: Some(handle), label, value: shared });
        }
    }

    /// Remembers `value` for good (until `clear`), held by no handle.
    pub fn pin(&mut self, value: &str, label: &str) {
        let shared = self.noted(value, label);
        let known = self.values.get_mut(&shared).expect("noted above");
        if !known.pinned {
            known.pinned = true;
            let label = self.shared_label(label);
            self.log.push(Learned { handle: None, label, value: shared });
        }
    }

    /// Where a run stands in what it noted, for [`rollback`](Self::rollback). The holdings and
    /// log entries made after it are found from `undo_from`, set here: a run marks before each
    /// attempt and rolls back to its latest mark.
    pub(crate) fn mark(&mut self) -> usize {
        self.undo_from = (self.held.len(), self.log.len());
        self.provisional.len()
    }

    /// Forgets what the run noted since `mark` (a run that starts over: the values it takes
    /// again must be new to it, as they were, so that each is taken, not value-matched), and
    /// what handles the discarded attempt issued hold: those handles never reach the vault, so
    /// nothing would ever forget or expire them, and the next attempt issues its own.
    pub(crate) fn rollback(&mut self, mark: usize) {
        let (held_at, log_at) = self.undo_from;
        for (handle, value) in self.held.drain(held_at.min(self.held.len())..) {
            let Some(set) = self.owned.get_mut(&handle) else { continue };
            if set.remove(&value) {
                if let Some(known) = self.values.get_mut(&value) {
                    known.owners -= 1;
                }
            }
            if set.is_empty() {
                self.owned.remove(&handle);
            }
        }
        self.log.truncate(log_at);
        while self.provisional.len() > mark {
            let Some((value, _)) = self.provisional.pop() else { break };
            self.values.remove(&value);
            remove_needles(&mut self.needles, &value);
            self.generation += 1;
        }
    }

    /// The end of a run (whatever its outcome): values it noted that no handle holds are pinned.
    pub fn settle(&mut self) {
        self.held = Vec::new(); // its buffer goes too: it grows with a result's values
        for (value, label) in std::mem::take(&mut self.provisional) {
            if self.values.get(&value).is_some_and(|k| k.owners == 0) {
                self.pin(&value, &label);
            }
        }
    }

    fn charge(&mut self, bytes: usize) {
        if let Some(left) = self.budget.as_mut() {
            match left.checked_sub(bytes as u64) {
                Some(rest) => *left = rest,
                None => self.exhausted = true,
            }
        }
    }

    /// A run starts that may add `learn` bytes of values to the matcher (whose size and build
    /// time grow with them) and read `read` bytes in value matching and detection (see
    /// `meter.rs`): past either, [`overrun`](Self::overrun) says which, and the run fails with
    /// `work_limit`. What it noted is still known.
    pub fn budget(&mut self, learn: u64, read: u64) {
        self.budget = Some(learn);
        self.exhausted = false;
        self.needles.start_call(read);
    }

    /// Has this run gone past its budget? Then it fails. Past the learning budget scrubbing
    /// stops (nothing of it reaches the agent): `needles` is empty until `end_budget`, so that
    /// the values it did add are not built into the matcher for a result that is thrown away.
    /// Past the reading allowance, every scan finds nothing at once.
    pub fn overrun(&self) -> Option<Overrun> {
        if self.exhausted {
            Some(Overrun::Learning)
        } else if self.needles.meter().spent() {
            Some(Overrun::Reading)
        } else {
            None
        }
    }

    /// The run is over.
    pub fn end_budget(&mut self) {
        self.budget = None;
        self.exhausted = false;
        self.needles.end_call();
    }

    /// What value matching and the detectors read in the current call, against its allowance
    /// (the same meter whether or not `needles` is empty past the learning budget).
    pub(crate) fn meter(&self) -> &Meter {
        self.needles.meter()
    }

    /// What joined the set since the last call.
    pub fn drain(&mut self) -> Vec<Learned> {
        self.held = Vec::new();
        self.undo_from = (0, 0);
        std::mem::take(&mut self.log)
    }

    /// The vault entry `handle` is gone: its values go too, unless another handle holds them or
    /// they are pinned.
    pub fn forget(&mut self, handle: &str) {
        for value in self.owned.remove(handle).unwrap_or_default() {
            let Some(known) = self.values.get_mut(&value) else { continue };
            known.owners -= 1;
            if known.owners == 0 && !known.pinned {
                self.values.remove(&value);
                remove_needles(&mut self.needles, &value);
                self.generation += 1;
            }
        }
    }

    /// The vault entry `handle` expired: the vault no longer knows it, so no `forget` will ever
    /// name it. Its values stay known (an expired secret must not reach the agent), pinned until
    /// `clear`, and the handle itself is let go, so that the set holds what live handles and
    /// distinct values need, not one record per call ever made. Whether another live handle
    /// holds the value too does not matter: deleting that one must not bring back a value this
    /// one left behind. Nothing is logged: the caller keeps its own journal in step.
    pub fn expire(&mut self, handle: &str) {
        for value in self.owned.remove(handle).unwrap_or_default() {
            let Some(known) = self.values.get_mut(&value) else { continue };
            known.owners -= 1;
            known.pinned = true;
        }
    }

    /// How many (handle, value) holdings the set keeps: at most the live handles times the
    /// values each holds, whatever the number of calls (the tests count it).
    #[cfg(test)]
    pub(crate) fn holdings(&self) -> usize {
        self.owned.values().map(TextSet::len).sum()
    }

    pub fn clear(&mut self) {
        let written = std::mem::take(&mut self.written);
        let generation = self.generation + 1;
        *self = KnownSecrets { written, generation, ..KnownSecrets::default() };
    }

    /// Changes whenever what the set matches may have (see `generation`).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Is `value` known already?
    pub fn contains(&self, value: &str) -> bool {
        self.values.contains_key(value)
    }

    /// How many distinct values are known.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub(crate) fn needles(&self) -> &Needles {
        if self.exhausted {
            &self.none
        } else {
            &self.needles
        }
    }
}

/// Adds the needles of `value`: itself, and, when it holds characters a renderer shows as
/// nothing (a bidi mark, a zero-width character, a variation selector) or fullwidth ASCII, as
/// the user saw it (`unescape::folded_text`): echoed without them, it is the same value to a
/// reader (stop 36: reached the agent). Returns the bytes added.
fn add_needles(needles: &mut Needles, value: &str, label: &str) -> usize {
    let seen = super::unescape::folded_text(value).map_or(0, |seen| needles.add(&seen, label));
    needles.add(value, label) + seen
}

/// Takes back [`add_needles`].
fn remove_needles(needles: &mut Needles, value: &str) {
    needles.remove(value);
    if let Some(seen) = super::unescape::folded_text(value) {
        needles.remove(&seen);
    }
}

/// The rule for what of a taken value enters the set: every string and the text of every
/// number inside it, nested ones included; with `keys`, object keys too (a value whose keys are
/// secret, from `propertyNames`). The envelope words of anything shaped like a content block
/// (its `type`, `mimeType` and `annotations`) are structure, not values: a block or a whole
/// result taken at once would otherwise scrub "text" out of every later result. The rule reads
/// only the value, so the JS side can replay a vault record into a fresh set after a trap.
///
/// A value of fewer than 4 characters (a CVV, a PIN) enters only when it is the taken value
/// itself: inside a larger value, `20` or `ann` would scrub every later "20" and "ann" token.
///
/// A string that holds a JSON object or array (a value stringified, `"{\"password\":…}"`)
/// enters whole and with what that JSON holds, by the same rule, down to
/// [`MAX_EMBEDDED`](crate::policy::claims::MAX_EMBEDDED) stringifications (found by review: the
/// password inside a taken stringified object, echoed on its own elsewhere, reached the agent).
pub fn secret_strings(value: &Value, keys: bool) -> Vec<String> {
    let mut out = Vec::new();
    match value {
        Value::String(s) => {
            out.push(s.clone());
            strings_inside(s, keys, 0, &mut out);
        }
        Value::Number(n) => out = number_forms(n.as_str()),
        _ => leaves(value, keys, 0, &mut out),
    }
    out
}

/// What the JSON a string holds adds: an object's or array's leaves, or a string's text (a
/// value stringified once more); for prose, the leaves of each JSON object or array written in
/// it, as rule 5 finds them (`token: {"key":"…"}`, also stringified once more between quotes).
/// Found by review s27: a sensitive tool's text `Key: {"apiKey":"…"}`, withheld whole, was
/// known only whole, so a later result echoing its JSON reached the agent.
fn strings_inside(s: &str, keys: bool, depth: usize, out: &mut Vec<String>) {
    use crate::json::{embedded_spans, parse_embedded, quoted_spans};
    // Bytes, not a pattern of chars: `contains` with a char array decodes and compares each
    // character (callgrind: a fifth of taking each value of a dense result).
    const OPENS_JSON: crate::ascii::AsciiSet = crate::ascii::AsciiSet::of(b"{[\"");
    if depth >= crate::policy::claims::MAX_EMBEDDED || !OPENS_JSON.any_in(s.as_bytes()) {
        return;
    }
    let parse = |text: &str| parse_embedded(text, &crate::Limits::default());
    // A whole JSON object or array is one span; a whole JSON string, one quoted span.
    let spans = embedded_spans(s);
    for &(start, end) in &spans {
        if let Ok(Some(inner @ (Value::Object(_) | Value::Array(_)))) = parse(&s[start..end]) {
            leaves(&inner, keys, depth + 1, out);
        }
    }
    for (start, end) in quoted_spans(s, &spans) {
        if let Ok(Some(Value::String(inner))) = parse(&s[start..end]) {
            strings_inside(&inner, keys, depth + 1, out);
            // A value stringified once more is known whole too (not a quote in prose).
            if s.trim() == &s[start..end] && long_as_seen(&inner) {
                out.push(inner);
            }
        }
    }
}

/// Does `s` hold `MIN_LEN` characters as a reader sees it (`unescape::folded_text`, which
/// `add_needles` adds)? Padded with characters a renderer shows as nothing, `\u{200b}20`
/// entered as the short value `20` and scrubbed every later "20" token (review s36, helper A).
fn long_as_seen(s: &str) -> bool {
    let long = |s: &str| s.chars().count() >= super::MIN_LEN;
    long(s) && super::unescape::folded_text(s).map_or(true, |seen| long(&seen))
}

/// The strings and number texts of at least `MIN_LEN` characters inside `value` (`depth`
/// stringifications down).
fn leaves(value: &Value, keys: bool, depth: usize, out: &mut Vec<String>) {
    let long = long_as_seen;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) if long(s) => {
                out.push(s.clone());
                strings_inside(s, keys, depth, out);
            }
            Value::Number(n) => out.extend(number_forms(n.as_str()).into_iter().filter(|f| long(f))),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                if keys {
                    out.extend(map.keys().filter(|k| long(k)).cloned());
                }
                let block = map.get("type").and_then(Value::as_str).is_some_and(is_block_type);
                let envelope = |k: &str| block && matches!(k, "type" | "mimeType" | "annotations");
                stack.extend(map.iter().filter(|(k, _)| !envelope(k)).map(|(_, v)| v));
            }
            _ => {}
        }
    }
}

/// The forms a taken number is known in: as the core writes it (`4.111111111111111e+15`), its
/// plain value (`4111111111111111`, which is also what every number the agent would see is read
/// as, `Needles::scrub_number`), and with an exponent, the ways tools write one (`e15`, `E15`,
/// `E+15`): found by review, the text a tool wrote beside the number (`card 4.111111111111111e15`)
/// and the number written plainly both reached the agent.
/// And as JavaScript writes it once read (`String(Number(text))`, `JSON.stringify(JSON.parse(…))`,
/// [`js_number`]), with that form's plain value and spellings: found by review s32, a marked
/// `12345678901234567890` or `0.0000001234567` echoed by a JavaScript tool or page
/// (`12345678901234567000`, `1.234567e-7`) reached the agent and passed `check()`.
pub(crate) fn number_forms(text: &str) -> Vec<String> {
    let mut forms = Vec::new();
    let js = js_number(text).filter(|js| js != text);
    for base in std::iter::once(text).chain(js.as_deref()) {
        forms.push(base.to_string());
        forms.extend(crate::json::scan::plain_decimal(base));
        let Some(at) = base.find(['e', 'E']) else { continue };
        let (mantissa, exp) = (&base[..at], &base[at + 1..]);
        let digits = exp.trim_start_matches('+');
        let signs: &[&str] = if digits.starts_with('-') { &[""] } else { &["", "+"] };
        for marker in ["e", "E"] {
            forms.extend(signs.iter().map(|sign| format!("{mantissa}{marker}{sign}{digits}")));
        }
    }
    let mut seen = Vec::new();
    forms.retain(|f| {
        !seen.contains(f) && {
            seen.push(f.clone());
            true
        }
    });
    forms
}

/// The number `text` reads as, written as ECMAScript's `Number::toString` writes it: the
/// shortest digits that read back to the same f64, halfway ties to even (serde_json's writer
/// of an f64, already in the module: Rust's own float formatting cost 25 KiB), plain from 1e-6
/// up to 1e21 and `d.ddde±X` outside; `-0` is `0`. None past f64 (JavaScript's `Infinity`).
pub(crate) fn js_number(text: &str) -> Option<String> {
    let f = crate::json::float::parse(text)?;
    let short = serde_json::Number::from_f64(f)?; // its shortest digits (zmij)
    if (1e-6..1e21).contains(&f.abs()) || f == 0.0 {
        return crate::json::scan::plain_decimal(short.as_str());
    }
    // Outside, the writer's form is JavaScript's (`1e+21`, `-1.5e-7`): the test below holds it.
    Some(short.as_str().into())
}

fn is_block_type(t: &str) -> bool {
    matches!(t, "text" | "image" | "audio" | "resource_link" | "resource" | "secret_reference")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scrubbed(k: &KnownSecrets, s: &str) -> bool {
        k.needles().scrub(s).is_some()
    }

    /// `js_number` against an oracle of ECMAScript's `Number::toString` built from Rust's own
    /// shortest digits (`{:e}`, `Display`), over seeded number texts of every shape JSON has.
    #[test]
    fn js_number_writes_numbers_as_javascript_does() {
        let oracle = |f: f64| match f.abs() {
            0.0 => "0".to_string(),
            a if (1e-6..1e21).contains(&a) => format!("{f}"),
            _ => format!("{f:e}").replace("e", "e+").replace("+-", "-"),
        };
        let mut state = 0x5eed_0034_u64;
        let mut below = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) % n
        };
        let (mut cases, mut ties) = (0, 0);
        for fixed in ["-0", "0.0e5", "1e21", "1e-7", "123e-9", "5e-324", "1.7976931348623157e308", "9007199254740993"] {
            assert_eq!(js_number(fixed).unwrap(), oracle(fixed.parse().unwrap()), "{fixed}");
        }
        while cases < 40_000 {
            let digits: String = (0..1 + below(24)).map(|_| char::from(b'0' + below(10) as u8)).collect();
            let cut = 1 + below(digits.len() as u64) as usize;
            let e = ["e", "E", "e+", "E-", "e-0", "E+00"][below(6) as usize];
            let n = format!(
                "{}{}{}{}",
                ["", "-"][below(2) as usize],
                if below(3) == 0 { "0." } else { "" },
                if below(2) == 0 { format!("{}.{}", &digits[..cut], &digits[cut..]) } else { digits.clone() },
                if below(2) == 0 { format!("{e}{}", below(340)) } else { String::new() },
            );
            let n = n.replace("..", ".").trim_end_matches('.').to_string();
            let Ok(f) = n.parse::<f64>() else { continue };
            cases += 1;
            let Some(js) = js_number(&n) else {
                assert!(f.is_infinite(), "{n}");
                continue;
            };
            let want = oracle(f);
            // Halfway between two shortest forms, Rust's `Display` rounds the last digit up
            // (`783735228020836.3` for the f64 783735228020836.25) and ECMAScript to even (.2).
            let last = |s: &str| s.split(['e', 'E']).next().unwrap().bytes().last().unwrap();
            let tie = js.len() == want.len() && js.parse::<f64>() == Ok(f) && last(&js) % 2 == 0;
            ties += usize::from(js != want && tie);
            assert!(js == want || tie, "{n}: {js}, not {want}");
        }
        println!("js_number: {cases} number texts, {ties} ties rounded to even");
        assert!(ties < cases / 100, "{ties} ties");
    }

    #[test]
    fn the_generation_changes_with_every_change_of_what_is_matched_and_never_comes_back() {
        let mut k = KnownSecrets::default();
        let mut seen = vec![k.generation()];
        let mut step = |k: &KnownSecrets, changed: bool| {
            let g = k.generation();
            assert_eq!(!seen.contains(&g), changed, "generation {g} after {seen:?}");
            if changed {
                seen.push(g);
            }
        };
        k.own("h1", "sk_live_first", "key");
        step(&k, true);
        k.own("h2", "sk_live_first", "key"); // the same value: nothing new to match
        step(&k, false);
        k.pin("pinned-value", "key");
        step(&k, true);
        k.forget("h1"); // h2 still holds it
        step(&k, false);
        k.forget("h2");
        step(&k, true);
        k.clear();
        step(&k, true);
        k.own("h3", "sk_live_again", "key"); // as many changes as before the clear: still new
        step(&k, true);
        let mark = k.mark();
        k.note("noted-then-rolled-back", "key");
        step(&k, true);
        k.rollback(mark);
        step(&k, true);
    }

    #[test]
    fn forget_drops_a_value_only_when_no_handle_holds_it() {
        let mut k = KnownSecrets::default();
        k.own("h1", "sk_live_shared", "key");
        k.own("h2", "sk_live_shared", "key");
        k.own("h1", "only-in-h1", "key");
        k.forget("h1");
        assert!(scrubbed(&k, "x sk_live_shared y"), "h2 still holds it");
        assert!(!scrubbed(&k, "x only-in-h1 y"));
        k.forget("h2");
        assert!(k.is_empty());
        assert!(!scrubbed(&k, "x sk_live_shared y"));
    }

    #[test]
    fn one_value_under_ten_thousand_handles_is_one_value_and_expired_handles_are_let_go() {
        // A tool returning the same secret on every call: a handle per call.
        let mut k = KnownSecrets::default();
        for i in 0..10_000 {
            let h = format!("h{i}");
            k.own(&h, "sk_live_THE_SAME_KEY", "key");
            k.own(&h, "sk_live_THE_SAME_KEY", "key"); // twice under one handle: held once
            assert_eq!(k.drain().len(), 1, "one record per (handle, value), not per own");
            if i >= 100 {
                k.expire(&format!("h{}", i - 100)); // the vault's sweep, 100 handles behind
            }
        }
        assert_eq!(k.len(), 1);
        assert_eq!(k.holdings(), 100, "what the live handles hold, not one per call");
        assert_eq!(k.owned.len(), 100);
        for i in 9_900..10_000 {
            k.expire(&format!("h{i}"));
        }
        assert_eq!(k.holdings(), 0);
        assert!(k.owned.is_empty());
        assert!(scrubbed(&k, "x sk_live_THE_SAME_KEY y"), "an expired handle's value stays known");
        k.forget("h9999");
        k.forget("h0");
        assert!(scrubbed(&k, "x sk_live_THE_SAME_KEY y"), "forgetting an expired handle drops nothing");
        k.clear();
        assert!(k.is_empty());
    }

    #[test]
    fn a_value_one_handle_left_behind_by_expiring_stays_when_another_is_deleted() {
        let mut k = KnownSecrets::default();
        k.own("h1", "sk_live_shared", "key");
        k.own("h2", "sk_live_shared", "key");
        k.own("h2", "only-in-h2", "key");
        k.expire("h1");
        k.forget("h2");
        assert!(scrubbed(&k, "x sk_live_shared y"), "h1 expired holding it: pinned");
        assert!(!scrubbed(&k, "x only-in-h2 y"), "deleted while only h2 held it");
        assert_eq!(k.len(), 1);
        assert_eq!(k.holdings(), 0);
    }

    #[test]
    fn forgetting_twenty_thousand_handles_of_one_value_touches_each_holding_once() {
        // Each forget used to scan the value's list of owners: quadratic. Now it reads only the
        // handle's own values; what is left after each step says so without a clock.
        let mut k = KnownSecrets::default();
        let n = 20_000;
        for i in 0..n {
            k.own(&format!("h{i}"), "sk_live_SAME_KEY_delete", "key");
        }
        assert_eq!(k.values.get("sk_live_SAME_KEY_delete").map(|v| v.owners), Some(n));
        for i in 0..n {
            k.forget(&format!("h{i}"));
            assert_eq!(k.values.get("sk_live_SAME_KEY_delete").map_or(0, |v| v.owners), n - 1 - i);
        }
        assert!(k.is_empty() && k.owned.is_empty());
    }

    #[test]
    fn a_rolled_back_attempt_takes_back_what_its_handles_held() {
        let mut k = KnownSecrets::default();
        k.own("old", "known-before-the-run", "a");
        k.drain();
        let mark = k.mark();
        k.own("discarded", "known-before-the-run", "a");
        k.note("new-in-the-attempt", "b");
        k.own("discarded", "new-in-the-attempt", "b");
        k.rollback(mark);
        assert!(!k.owned.contains_key("discarded"), "a handle the vault never gets is not kept");
        assert_eq!(k.holdings(), 1);
        assert!(!k.contains("new-in-the-attempt"));
        assert!(k.drain().is_empty(), "nothing of the attempt reaches the journal");
        k.forget("old");
        assert!(k.is_empty(), "the discarded handle held nothing back");
    }

    #[test]
    fn a_run_past_its_budget_matches_nothing_until_it_ends_and_keeps_what_it_noted() {
        let mut k = KnownSecrets::default();
        k.budget(10, u64::MAX);
        k.own("h1", "<p>\"tok\"</p>", "key"); // 12 bytes: past 10
        assert_eq!(k.overrun(), Some(Overrun::Learning));
        assert!(k.needles().is_empty(), "nothing is built for a run that fails");
        k.own("h2", "<b>\"second\"</b>", "key");
        k.end_budget();
        assert_eq!(k.overrun(), None);
        assert!(scrubbed(&k, "x &lt;b&gt;&quot;second&quot;&lt;/b&gt; y"));
        assert!(scrubbed(&k, "x PGI+InNlY29uZCI8L2I+ y"), "base64 is read decoded");
        assert!(scrubbed(&k, "x PHA+InRvayI8L3A+ y"));
        k.forget("h2");
        k.forget("h1");
        assert!(k.is_empty() && k.needles().is_empty());
    }

    #[test]
    fn a_run_past_its_reading_allowance_finds_nothing_more_and_its_label_answers_are_not_kept() {
        let mut k = KnownSecrets::default();
        k.own("h", "Qz7LmSecretValue", "token");
        let text = "x Qz7LmSecretValue y";
        k.budget(u64::MAX, 2 * text.len() as u64);
        assert!(scrubbed(&k, text), "within the allowance");
        assert!(!scrubbed(&k, text), "past it: nothing read");
        assert_eq!(k.overrun(), Some(Overrun::Reading));
        // A label asked about past the allowance shows the fixed word, and that answer is
        // not remembered for later calls.
        assert_eq!(k.needles().display_label("plain"), "secret");
        k.end_budget();
        assert_eq!(k.overrun(), None);
        assert_eq!(k.needles().display_label("plain"), "plain");
        assert!(scrubbed(&k, text), "a new call reads again");
    }

    #[test]
    fn values_without_a_handle_stay_until_clear() {
        let mut k = KnownSecrets::default();
        k.note("pending-value", "x");
        k.settle();
        k.own("h", "pending-value", "x");
        k.forget("h");
        assert!(scrubbed(&k, "pending-value"));
        k.clear();
        assert!(!scrubbed(&k, "pending-value"));
    }

    #[test]
    fn the_log_replays_into_the_same_set() {
        let mut k = KnownSecrets::default();
        k.note("taken-then-owned", "a");
        k.own("h1", "taken-then-owned", "a");
        k.note("never-owned", "b");
        k.settle();
        let log = k.drain();
        let mut fresh = KnownSecrets::default();
        for l in &log {
            match &l.handle {
                Some(h) => fresh.own(h, &l.value, &l.label),
                None => fresh.pin(&l.value, &l.label),
            }
        }
        for set in [&mut k, &mut fresh] {
            set.forget("h1");
            assert!(!scrubbed(set, "x taken-then-owned"), "dropped with its handle");
            assert!(scrubbed(set, "x never-owned"), "pinned");
        }
        assert!(k.drain().is_empty());
    }

    #[test]
    fn a_removed_form_shared_with_another_value_stays() {
        // "a%20bcd" is both the verbatim form of one value and the encoded form of another.
        let mut k = KnownSecrets::default();
        k.own("h1", "a bcd", "one");
        k.own("h2", "a%20bcd", "two");
        k.forget("h2");
        assert!(scrubbed(&k, "q=a%20bcd"), "still an encoding of h1's value");
    }

    #[test]
    fn secret_strings_cover_nested_strings_numbers_and_secret_keys() {
        let v = json!({ "user": { "password": "hunter22", "pin": 123456 }, "list": ["tok-abc"], "type": "card" });
        let mut s = secret_strings(&v, false);
        s.sort();
        assert_eq!(s, ["123456", "card", "hunter22", "tok-abc"], "\"type\" is a value outside a block");
        assert!(secret_strings(&v, true).contains(&"password".to_string()));
        let short = json!({ "cvv": "737", "age": 42, "name": "ann" });
        assert_eq!(secret_strings(&short, false), Vec::<String>::new(), "short leaves of a larger value");
        assert_eq!(secret_strings(&json!("737"), false), ["737"], "a short value taken itself");
    }

    /// Prose holding JSON: the text is known whole, and with the leaves of each JSON object or
    /// array in it (also of one stringified again between quotes); prose alone adds nothing.
    #[test]
    fn json_written_in_a_taken_text_is_known_with_its_leaves() {
        let known = |s: &str| {
            let mut k = secret_strings(&json!(s), false);
            k.sort();
            k
        };
        let t = r#"Key: {"apiKey":"sk_live_abc","n":[4111111111111111]} ok"#;
        assert_eq!(known(t), ["4111111111111111", t, "sk_live_abc"]);
        let t = r#"said "{"apiKey":"sk_live_abc"}" then [see {"k":"tok-xyz"}]"#;
        assert_eq!(known(t), [t, "sk_live_abc", "tok-xyz"]);
        for t in ["plain words [not json] {nor this}", r#"a "quoted string" b"#, r#"{"k":"ann"} short"#] {
            assert_eq!(known(t), [t], "{t}");
        }
    }

    #[test]
    fn a_whole_result_leaves_its_envelope_words_out() {
        let raw = json!({ "content": [{ "type": "text", "text": "card 4111", "annotations": { "audience": ["user"] } },
                                      { "type": "image", "data": "QUJD", "mimeType": "image/png" }],
                          "structuredContent": { "card": "4111-1111" } });
        let mut s = secret_strings(&raw, false);
        s.sort();
        assert_eq!(s, ["4111-1111", "QUJD", "card 4111"]);
    }
}
