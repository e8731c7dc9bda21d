//! What one redaction takes and notes: the report (where and why, never a value), the values
//! on their way to the vault, and the vault entries once handles are issued. The link between
//! a report entry and its value lives here, so nothing else indexes into the report.

use crate::hash::TextMap;
use std::borrow::Cow;

use serde_json::Value;

use super::blocks::Reference;
use super::stubs::{new_handle, MAX_STUBS};
use crate::json::push_token;
use crate::scrub::known::KnownSecrets;
use crate::scrub::Needles;
use crate::{HandleSource, Reason, Redaction, Secret, SecretKind};

#[derive(Default)]
pub(super) struct Collector {
    report: Vec<Redaction>,
    pending: Vec<Pending>,
    secrets: Vec<Secret>,
}

/// A value on its way to the vault, before its handle is issued.
struct Pending {
    pointer: String,
    /// What the agent sees (stub, report, replacements in later results).
    label: String,
    /// What the page's vault shows the user.
    page_label: String,
    value: Value,
    /// Its entry in the report.
    entry: usize,
    /// What of the value enters the known-secret set, under the handle it gets.
    strings: Vec<String>,
    /// A block for the user only: a vault entry of its own kind, never under the overflow stub
    /// (there are no more of them than the raw result had blocks).
    user_only: bool,
}

/// A stub to write: the handle and the label the agent sees.
pub(super) struct StubSpec {
    pub handle: String,
    pub label: String,
}

impl Collector {
    pub fn is_empty(&self) -> bool {
        self.report.is_empty()
    }

    /// Room for `n` more entries.
    pub fn reserve(&mut self, n: usize) {
        self.report.reserve(n);
        self.pending.reserve(n);
    }

    /// A point to come back to with [`Collector::point_since`].
    pub fn mark(&self) -> usize {
        self.report.len()
    }

    pub fn report(&self) -> &[Redaction] {
        &self.report
    }

    /// Something left the agent view with nothing to reveal.
    pub fn note(&mut self, pointer: String, reason: Reason, label: String) {
        self.report.push(Redaction { pointer, reason, label, handle: None });
    }

    /// A value left the agent view for the vault; its handle comes in [`Collector::issue`].
    /// `label` is what the agent sees, `page_label` what the vault shows the user.
    pub fn take(
        &mut self,
        pointer: String,
        reason: Reason,
        label: String,
        page_label: String,
        value: Value,
        strings: Vec<String>,
    ) {
        let entry = self.report.len();
        let user_only = reason == Reason::Audience;
        let pending =
            Pending { pointer: pointer.clone(), label: label.clone(), page_label, value, entry, strings, user_only };
        self.pending.push(pending);
        self.report.push(Redaction { pointer, reason, label, handle: None });
    }

    /// A tool's own `secret_reference`, vaulted under `handle` at once.
    pub fn reference(&mut self, pointer: String, handle: &str, r: Reference) {
        let label = r.label.clone();
        self.report.push(Redaction {
            pointer,
            reason: Reason::SecretReference,
            label: label.clone(),
            handle: Some(handle.to_string()),
        });
        let kind = SecretKind::Reference { id: r.id, redeem_url: r.redeem_url, ttl: r.ttl };
        self.secrets.push(Secret { handle: handle.to_string(), label, kind });
    }

    /// Everything taken or noted since `mark` now points at `pointer` (a value redacted inside
    /// a JSON text block: a pointer cannot go inside a string).
    pub fn point_since(&mut self, mark: usize, pointer: &str) {
        for r in &mut self.report[mark..] {
            r.pointer = pointer.to_string();
        }
        for p in self.pending.iter_mut().filter(|p| p.entry >= mark) {
            p.pointer = pointer.to_string();
        }
    }

    /// Issues a handle per pending value, up to `MAX_STUBS`, and past that one more for all the
    /// rest; the known set learns which handle holds which strings. Returns the stubs to write.
    /// Stub labels come from tool data (titles, property names): one that holds a value known
    /// at the end of the run is replaced by a fixed word, like the report's.
    pub fn issue(&mut self, handles: &mut dyn HandleSource, known: &mut KnownSecrets) -> Vec<StubSpec> {
        let pending = std::mem::take(&mut self.pending);
        let values = pending.iter().filter(|p| !p.user_only).count();
        let overflow = values > MAX_STUBS + 1;
        let user_only = pending.len() - values;
        known.reserve(pending.iter().map(|p| p.strings.len()).sum());
        handles.reserve(if overflow { user_only + MAX_STUBS + 1 } else { pending.len() });
        let mut stubs = Vec::with_capacity(pending.len().min(user_only + MAX_STUBS + 1));
        let mut rest = Vec::with_capacity(if overflow { values - MAX_STUBS } else { 0 });
        let mut n = 0;
        for p in pending {
            if overflow && !p.user_only && n >= MAX_STUBS {
                rest.push(p);
                continue;
            }
            n += usize::from(!p.user_only);
            let handle = new_handle(handles);
            self.vault(&handle, &p, known);
            stubs.push(StubSpec { handle: handle.clone(), label: known.needles().display_label(&p.label).to_string() });
            let kind = if p.user_only { SecretKind::UserOnly(p.value) } else { SecretKind::Value(p.value) };
            self.secrets.push(Secret { handle, label: p.page_label, kind });
        }
        if overflow {
            let handle = new_handle(handles);
            let label = format!("{} more values", rest.len());
            for p in &rest {
                self.vault(&handle, p, known);
            }
            // Into a Vec of their own size: `collect` would keep the pending values' larger
            // buffer (measured: 3.0 MB for the 9,248 values of a dense 1 MB result, 1.1 MB now).
            let mut values = Vec::with_capacity(rest.len());
            values.extend(rest.into_iter().map(|p| (p.pointer, p.page_label, p.value)));
            // Its count is a label like any other: "29" may be a value this result withholds.
            let shown = known.needles().display_label(&label).to_string();
            stubs.push(StubSpec { handle: handle.clone(), label: shown });
            self.secrets.push(Secret { handle, label, kind: SecretKind::Many(values) });
        }
        stubs
    }

    fn vault(&mut self, handle: &str, p: &Pending, known: &mut KnownSecrets) {
        self.report[p.entry].handle = Some(handle.to_string());
        for s in &p.strings {
            known.own(handle, s, &p.label);
        }
    }

    /// A pointer names raw keys, and a key or label can hold a known value: the report's
    /// pointers are value-matched like everything else the agent sees, and a label that holds
    /// a value is replaced by a fixed word.
    pub fn scrub_report(&mut self, needles: &Needles) {
        // Entries in a row often share a label (one per item of a list): it is looked up once
        // per run of equal labels. (label, what the agent sees when it differs)
        let mut last: Option<(String, Option<String>)> = None;
        // Pointers share most of their tokens (`children`, `0`, a property name): each
        // distinct token is scanned once per report; and once their tokens are scrubbed, many
        // read alike (`/[redacted: key]` for each key that holds a value): each distinct
        // pointer is scanned whole once.
        let mut memo = Memo::default();
        for r in &mut self.report {
            if let Some(clean) = scrub_pointer(&r.pointer, needles, &mut memo) {
                r.pointer = clean;
            }
            if last.as_ref().map_or(true, |(label, _)| *label != r.label) {
                // A label is often the key its pointer ends with (a property's name). Written
                // as a token it is itself (no `~` or `/`), and when scrubbing that token just
                // changed it, it holds a value: no second scan of it is needed to know that.
                let scrubbed = |t: &Vec<String>| !t.is_empty();
                let holds = !r.label.contains(['~', '/']) && memo.tokens.get(&r.label).is_some_and(scrubbed);
                let display = if holds { needles.fallback_label() } else { needles.display_label(&r.label) };
                let shown = Some(display).filter(|l| *l != r.label).map(str::to_string);
                last = Some((r.label.clone(), shown));
            }
            if let Some((_, Some(shown))) = &last {
                r.label = shown.clone();
            }
        }
    }

    /// The notice's labels: those of values the user can reveal (handed a handle, or about to
    /// be by [`Collector::issue`]), then the others; what `write_tail` lists after issuing.
    pub fn notice_labels(&self) -> (Vec<&str>, Vec<&str>) {
        let mut vaulted = vec![false; self.report.len()];
        for p in &self.pending {
            vaulted[p.entry] = true;
        }
        let (mut withheld, mut other) = (Vec::new(), Vec::new());
        for (r, vaulted) in self.report.iter().zip(vaulted) {
            if r.handle.is_some() || vaulted { &mut withheld } else { &mut other }.push(r.label.as_str());
        }
        (withheld, other)
    }

    pub fn into_parts(self) -> (Vec<Redaction>, Vec<Secret>) {
        (self.report, self.secrets)
    }
}

/// What each token of a report's pointers (as written) scrubbed to: nothing when it holds no
/// value, else its one replacement. (The map type of `Run::detections`: no second instance of
/// the hash table's code in the module.)
type Tokens = TextMap<String, Vec<String>>;

/// What `scrub_pointer` remembers across the pointers of a report: what each token scrubbed
/// to (`tokens`), and what each pointer, with its tokens scrubbed, scrubbed to as a whole
/// (`whole`, of the same map type: nothing when it holds no value, else its replacement).
/// A whole pointer enters `whole` on its second ask (`Asked`): the pointers of most reports
/// are all distinct.
#[derive(Default)]
struct Memo {
    tokens: Tokens,
    whole: Tokens,
    asked: crate::scrub::Asked,
}

/// A JSON Pointer with each token value-matched as the key it names (`~1` is `/`, `~0` is
/// `~`: an encoding too), then as a whole (a value across tokens). `None` when nothing matched.
/// `memo` remembers what each token and each whole pointer scrubbed to, across the pointers of
/// a report (a scan depends only on the text and the set, which stays as it is meanwhile).
fn scrub_pointer(pointer: &str, needles: &Needles, memo: &mut Memo) -> Option<String> {
    let tokens = &mut memo.tokens;
    // The root pointer `""` has no token; a pointer is rebuilt only once a token changes.
    let all = pointer.strip_prefix('/')?;
    let mut rebuilt: Option<String> = None;
    let mut at = 0; // where the current token's `/` is in `pointer`
    for token in all.split('/') {
        let scrubbed = match tokens.get(token) {
            Some(known) => known.first(),
            None => {
                let key = match token.contains('~') {
                    true => Cow::Owned(token.replace("~1", "/").replace("~0", "~")),
                    false => Cow::Borrowed(token),
                };
                let clean = needles.scrub(&key).map(|(clean, _)| clean);
                tokens.entry(token.to_string()).or_insert(clean.into_iter().collect()).first()
            }
        };
        match scrubbed {
            Some(clean) => push_token(rebuilt.get_or_insert_with(|| pointer[..at].to_string()), clean),
            None => {
                if let Some(rebuilt) = rebuilt.as_mut() {
                    rebuilt.push('/');
                    rebuilt.push_str(token);
                }
            }
        }
        at += 1 + token.len();
    }
    let whole = rebuilt.as_deref().unwrap_or(pointer);
    let scrubbed = match memo.whole.get(whole) {
        Some(known) => known.first().cloned(),
        None => {
            let clean = needles.scrub(whole).map(|(clean, _)| clean);
            if memo.asked.again(whole) {
                memo.whole.insert(whole.to_string(), clean.iter().cloned().collect());
            }
            clean
        }
    };
    scrubbed.or(rebuilt)
}

/// `scrub_pointer` before issue 9: every pointer rebuilt, every token copied twice. The oracle
/// of the property test below.
#[cfg(all(test, not(target_arch = "wasm32")))]
fn scrub_pointer_before(pointer: &str, needles: &Needles) -> Option<String> {
    let mut rebuilt = String::with_capacity(pointer.len());
    let mut changed = false;
    for token in pointer.strip_prefix('/').into_iter().flat_map(|p| p.split('/')) {
        let key = token.replace("~1", "/").replace("~0", "~");
        match needles.scrub(&key) {
            Some((clean, _)) => {
                push_token(&mut rebuilt, &clean);
                changed = true;
            }
            None => {
                rebuilt.push('/');
                rebuilt.push_str(token);
            }
        }
    }
    match needles.scrub(&rebuilt) {
        Some((clean, _)) => Some(clean),
        None => changed.then_some(rebuilt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pointer_is_matched_token_by_token_as_the_keys_it_names() {
        let mut n = Needles::default();
        n.add("tok/en~1", "key");
        // The key `tok/en~1` is written `tok~1en~01` in a pointer.
        assert_eq!(
            scrub_pointer("/index/tok~1en~01/x", &n, &mut Memo::default()).as_deref(),
            Some("/index/[redacted: key]/x")
        );
        assert_eq!(scrub_pointer("/index/other/x", &n, &mut Memo::default()), None);
        // A value across two tokens is caught in the pointer as written.
        n.add("alpha/beta", "pair");
        assert_eq!(scrub_pointer("/alpha/beta", &n, &mut Memo::default()).as_deref(), Some("/[redacted: pair]"));
    }

    /// Two values under one label, the scans warmed up.
    fn two_values() -> Needles {
        let mut n = Needles::default();
        n.add("Qz7LmQz7Lm", "key");
        n.add("Wx9KpWx9Kp", "key");
        n.scrub("warm up: builds the automaton");
        n
    }

    /// The work of value matching a report whose pointers are `pointers` (one label for all).
    fn report_work(pointers: &[&str]) -> u64 {
        let n = two_values();
        let mut c = Collector::default();
        for p in pointers {
            c.note(p.to_string(), Reason::ValueMatch, "label".to_string());
        }
        let before = n.work();
        c.scrub_report(&n);
        n.work() - before
    }

    /// Most reports' pointers are all distinct: a whole pointer is kept only once it is asked
    /// about again (stop 25's tables cost the dynamic-ref family 4.7%).
    #[test]
    fn a_whole_pointer_is_kept_on_its_second_ask() {
        let (n, mut memo) = (two_values(), Memo::default());
        let p = "/items/Qz7LmQz7Lm";
        let first = scrub_pointer(p, &n, &mut memo);
        assert!(first.is_some() && memo.whole.is_empty(), "asked once: not kept");
        assert_eq!(scrub_pointer(p, &n, &mut memo), first);
        assert_eq!(memo.whole.len(), 1);
        assert_eq!(scrub_pointer(p, &n, &mut memo), first);
    }

    /// Pointers whose tokens scrub to the same text (keys holding values, one per item) are
    /// not each scanned whole: the whole pointer is kept on its second ask, and the entries
    /// after that cost nothing more.
    #[test]
    fn pointers_that_scrub_alike_are_scanned_whole_once() {
        let (a, b) = ("/items/Qz7LmQz7Lm", "/items/Wx9KpWx9Kp");
        let n = two_values();
        assert_eq!(scrub_pointer(a, &n, &mut Memo::default()), scrub_pointer(b, &n, &mut Memo::default()));
        // The second alike costs less than reading it alone, and from the third on (the
        // whole pointer is kept on its second ask) an alike pointer costs nothing more.
        assert!(report_work(&[a, b]) < report_work(&[a]) + report_work(&[b]));
        assert_eq!(report_work(&[a, b, a, b, a]), report_work(&[a, b]));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use proptest::prelude::*;

    use super::*;

    fn word() -> impl Strategy<Value = String> {
        let chars = prop::sample::select(&['a', 'b', '/', '~', '0', '1', 'é'][..]);
        prop::collection::vec(chars, 0..7).prop_map(|c| c.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// The report scrubbed with what its pointers' tokens told about its labels is the
        /// report scrubbed entry by entry as before: labels that are a token of their pointer
        /// (escaped or not), hold values or not, repeat or not.
        #[test]
        fn scrub_report_is_what_it_was(values in prop::collection::vec(word(), 1..4), entries in prop::collection::vec((prop::collection::vec(word(), 0..4), word(), 0..3u8, any::<bool>()), 1..6)) {
            let mut n = Needles::default();
            // Some of the keys are values too.
            let keys = entries.iter().filter(|e| e.3).filter_map(|e| e.0.last());
            for v in values.iter().chain(keys) {
                n.add(v, "key");
            }
            let mut c = Collector::default();
            let escape = |t: &String| t.replace('~', "~0").replace('/', "~1");
            for (tokens, label, pick, _) in &entries {
                let pointer: String = tokens.iter().map(|t| format!("/{}", escape(t))).collect();
                // The label is a word of its own, the pointer's last key, or that key as the
                // pointer writes it.
                let label = match pick {
                    0 => label.clone(),
                    1 => tokens.last().cloned().unwrap_or_default(),
                    _ => tokens.last().map(escape).unwrap_or_default(),
                };
                c.note(pointer, Reason::ValueMatch, label);
            }
            let expected: Vec<(Option<String>, String)> = c.report.iter().map(|r| {
                (scrub_pointer_before(&r.pointer, &n), n.display_label_before(&r.label).to_string())
            }).collect();
            let before = c.report.clone();
            c.scrub_report(&n);
            for ((r, old), (pointer, label)) in c.report.iter().zip(&before).zip(expected) {
                prop_assert_eq!(&r.pointer, pointer.as_ref().unwrap_or(&old.pointer));
                prop_assert_eq!(&r.label, &label);
            }
        }

        /// A pointer rebuilt only once a token changes is the pointer the old code rebuilt:
        /// tokens escaped with `~0` and `~1`, values within a token and across tokens, short
        /// values, the root pointer, and a pointer without its leading `/`.
        #[test]
        fn scrub_pointer_is_what_it_was(values in prop::collection::vec(word(), 1..5), tokens in prop::collection::vec(word(), 0..6), slash in any::<bool>()) {
            let mut n = Needles::default();
            for v in &values {
                n.add(v, "key");
            }
            let joined: String = tokens.iter().map(|t| format!("/{t}")).collect();
            let pointer = if slash { joined } else { joined.trim_start_matches('/').to_string() };
            // Scrubbed twice with one memory of tokens: the second time from memory.
            let mut memo = Memo::default();
            prop_assert_eq!(scrub_pointer(&pointer, &n, &mut memo), scrub_pointer_before(&pointer, &n), "{:?}", pointer);
            prop_assert_eq!(scrub_pointer(&pointer, &n, &mut memo), scrub_pointer_before(&pointer, &n), "{:?}", pointer);
        }
    }
}
