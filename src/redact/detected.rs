//! The safety net: credentials a tool never declared, found by their format
//! (`scrub::detect`), are taken like any marked value: each gets a vault entry, a handle and a
//! stub (reason `detected:<kind>`), and joins the known set, so that value matching replaces
//! it wherever it stands in this result and in later ones, and `check` catches it in arguments.

use serde_json::Value;

use super::blocks::STRUCTURAL;
use super::fields::fixed_texts;
use super::stubs::notice_shown;
use super::{Agent, Run};
use crate::json::{child, push_token};
use crate::scrub::detect::{Detect, Kind};
use crate::scrub::meter::Meter;
use crate::scrub::{detected, MARKER_FORMS};
use crate::Reason;

impl Run<'_> {
    /// Detection on every string of `value` (at `pointer`) and every key, as value matching
    /// reads them: a hit in a key points at its object.
    pub(super) fn detect(&mut self, value: &Value, pointer: &str) {
        let on = self.tool.detect();
        if on.is_none() {
            return;
        }
        for (at, (kind, secret)) in detections(value, pointer, on, self.known.meter(), &|_| true) {
            self.detected(at, kind, secret);
        }
    }

    /// Credentials that value matching uncovered: a known value cut out of a longer token
    /// leaves the rest of it standing alone, which the detectors read as a token of its own,
    /// as they would when this agent view is redacted again (rule 10). So the agent view's
    /// strings and keys that value matching cut (those holding one of our markers) are read
    /// again, and what is found there and not known or found before is returned (with its
    /// pointer in the raw result), for the run to start over and take it (`take_glued`).
    /// `Run::glued_in_tail` reads what finishing adds (the report, the notice).
    pub(super) fn glued_in(&self, agent: &Agent, found: &mut Uncovered) {
        let on = self.tool.detect();
        if on.is_none() || !self.cut {
            return;
        }
        let mut read = |value: &Value, pointer: &str| {
            for (pointer, (kind, secret)) in detections(value, pointer, on, self.known.meter(), &holds_marker) {
                self.add_glued(found, pointer, kind, secret);
            }
        };
        let top = match agent {
            // The streaming engine's text block differs from its value only where value
            // matching cut it: it stands for all of the value.
            Agent::Structured { text: Some(text), .. } => {
                if holds_marker(text) {
                    for (kind, secret) in detected(text, on, self.known.meter()) {
                        self.add_glued(found, String::new(), kind, secret);
                    }
                }
                return;
            }
            Agent::Value(Value::Object(top)) => top,
            _ => return,
        };
        // Read with the pointers of the raw result: a kept block's index there; for a plain
        // structured value, its place in it, and its JSON text block stands for all of it.
        match &self.content_at {
            Some(kept) => {
                for (key, value) in top {
                    match (key.as_str(), value) {
                        ("content", Value::Array(blocks)) => {
                            for (block, i) in blocks.iter().zip(kept) {
                                read(block, &format!("/content/{i}"));
                            }
                        }
                        _ => read(value, &child("", key)),
                    }
                }
                // The result's own keys (a key is reported at its object: the root).
                for key in top.keys().filter(|k| holds_marker(k)) {
                    for (kind, secret) in detected(key, on, self.known.meter()) {
                        self.add_glued(found, String::new(), kind, secret);
                    }
                }
            }
            None => {
                if let Some(value) = top.get("structuredContent") {
                    read(value, "");
                }
                let blocks = top.get("content").and_then(Value::as_array).into_iter().flatten();
                for text in blocks.filter_map(|b| b.get("text")) {
                    read(text, "");
                }
            }
        }
    }

    /// `glued_in` for what finishing adds, read as the agent will read it: the report's
    /// pointers and labels (scrubbed by `Run::uncovered`), and the notice, whose labels value
    /// matching may cut across. A hit is taken at its entry's pointer (the notice's, at the
    /// entry whose label holds it).
    /// The notice read here is kept for `finish` to write (`Run::notice`): it is the one it
    /// would write, and value-matching it again cost a fortieth of a 2 KB result.
    pub(super) fn glued_in_tail(&mut self, found: &mut Uncovered) {
        let on = self.tool.detect();
        if on.is_none() || self.collect.is_empty() {
            return;
        }
        self.read_report(found, true);
        let report = self.collect.report();
        let (withheld, other) = self.collect.notice_labels();
        let notice = notice_shown(&withheld, &other, Some(self.known.needles()));
        if holds_marker(&notice) {
            for (kind, secret) in detected(&notice, on, self.known.meter()) {
                let entry = report.iter().find(|r| r.label.contains(&secret));
                self.add_glued(found, entry.map(|r| r.pointer.clone()).unwrap_or_default(), kind, secret);
            }
        }
        self.notice = Some(notice);
    }

    /// A credential found for the run to start over with, unless it is known (what earlier
    /// attempts found was taken first in this one, so it is known too) or found already: a
    /// set, since one cut can uncover tens of thousands (measured by review: a list made a
    /// 0.9 MB result of glued keys take 6 s).
    fn add_glued(&self, found: &mut Uncovered, pointer: String, kind: Kind, secret: String) {
        if !self.known.contains(&secret) && found.seen.insert(secret.clone()) {
            found.list.push(Glued { pointer, kind, secret });
        }
    }

    /// Takes what an earlier attempt of this run found uncovered (`glued_in`), before the
    /// detectors read the result.
    pub(super) fn take_glued(&mut self) {
        let glued = std::mem::take(&mut self.glued);
        for g in &glued {
            self.detected(g.pointer.clone(), g.kind, g.secret.clone());
        }
        self.glued = glued;
    }

    /// Detection on a block's content fields: what value matching reads in it.
    pub(super) fn detect_block(&mut self, block: &Value, pointer: &str) {
        let Value::Object(fields) = block else { return };
        for (key, value) in fields.iter().filter(|(k, _)| !STRUCTURAL.contains(&k.as_str())) {
            let at = child(pointer, key);
            match value {
                Value::Object(resource) if key == "resource" => {
                    for (rk, rv) in resource.iter().filter(|(rk, _)| !STRUCTURAL.contains(&rk.as_str())) {
                        self.detect(rv, &child(&at, rk));
                    }
                }
                _ => self.detect(value, &at),
            }
        }
        // The fields never rewritten: a hit there becomes known, and the block then goes as a
        // value match, as for any known value in them.
        for (at, text) in fixed_texts(block) {
            self.detect(&Value::String(text), &format!("{pointer}{at}"));
        }
    }

    /// The report's labels and pointers are copied from tool data (a dropped block's `type`, a
    /// key), and the notice repeats the labels: the detectors read them too. What they find that
    /// is not known is returned in `found`, for the run to start over with it taken first (found
    /// by review: taken here, after value matching had written the view, its echoes elsewhere
    /// and the markers labelled with it stayed). (Labels from the library's own words hold
    /// nothing to find.)
    pub(super) fn detect_in_report(&self, found: &mut Uncovered) {
        self.read_report(found, false);
    }

    /// The detectors on each report entry's label and pointer (a pointer also with its escapes
    /// decoded, `pointer_views`), a hit taken at the entry's pointer. `cut`: only the texts
    /// value matching cut (holding a marker), pointer first.
    fn read_report(&self, found: &mut Uncovered, cut: bool) {
        let on = self.tool.detect();
        if on.is_none() {
            return;
        }
        // Entries in a row often share a label (one per item of a marked list): a label read
        // for the entry before finds the same secrets, which `add_glued` keeps once, so it is
        // not read again (callgrind: a fifth of reading the report of 32,000 entries alike).
        let mut last: Option<&str> = None;
        for r in self.collect.report() {
            let repeat = last.replace(&r.label) == Some(r.label.as_str());
            let texts = if cut { [&r.pointer, &r.label] } else { [&r.label, &r.pointer] };
            let read = |t: &&String| (!cut || holds_marker(t)) && !(repeat && std::ptr::eq(*t, &r.label));
            for text in texts.into_iter().filter(read) {
                pointer_views(text, &mut |view| {
                    for (kind, secret) in detected(view, on, self.known.meter()) {
                        self.add_glued(found, r.pointer.clone(), kind, secret);
                    }
                });
            }
        }
    }

    /// One hit: taken to the vault, unless it is a known value already (an earlier hit of this
    /// result, or a value the vault holds): value matching takes care of that one.
    fn detected(&mut self, pointer: String, kind: Kind, secret: String) {
        if self.known.contains(&secret) {
            return;
        }
        self.detections.entry(pointer.clone()).or_default().push(kind.label().to_string());
        self.take(pointer, Reason::Detected(kind), kind.label().to_string(), Value::String(secret));
    }
}

/// Does `s` hold one of our markers (value matching cut it)?
fn holds_marker(s: &str) -> bool {
    MARKER_FORMS.iter().any(|&(open, _)| s.contains(open))
}

/// A report's text as the detectors read it: as written, and, when it has JSON Pointer escapes,
/// with them decoded (`~1` is `/`: a key holding a URL or a key with a `/` is spelled out
/// whole only so). A label is read the same way: decoding text that holds no escape is itself.
fn pointer_views(text: &str, read: &mut dyn FnMut(&str)) {
    read(text);
    if text.contains('~') {
        read(&text.replace("~1", "/").replace("~0", "~"));
    }
}

/// What a reading of the result found that the run must take before value matching: the
/// credentials to start over with, and a set of them.
#[derive(Default)]
pub(super) struct Uncovered {
    pub(super) list: Vec<Glued>,
    seen: crate::hash::TextSet<String>,
}

/// A credential found where value matching cut a token, to take when the run starts over.
#[derive(Clone)]
pub(super) struct Glued {
    pub(super) pointer: String,
    kind: Kind,
    secret: String,
}

/// The hits in `value` (at `pointer`), with the pointer of each. The values are visited in the
/// order of a stack (an array's last item first), and a pointer is built only for a hit: each
/// container visited leaves its place (its parent's, and its token) in `places`.
/// Only the strings (and keys) `read` accepts are read.
fn detections(
    value: &Value,
    pointer: &str,
    on: Detect,
    meter: &Meter,
    read: &dyn Fn(&str) -> bool,
) -> Vec<(String, (Kind, String))> {
    let mut found = Vec::new();
    let mut places: Vec<(usize, Token)> = Vec::new();
    // Each value with its place: its container's (`ROOT` for `value`'s) and its token.
    let mut stack: Vec<(&Value, usize, Option<Token>)> = vec![(value, ROOT, None)];
    while let Some((v, parent, token)) = stack.pop() {
        match v {
            Value::String(s) if read(s) => {
                let hits = detected(s, on, meter);
                if !hits.is_empty() {
                    let at = pointer_of(pointer, &places, parent, token);
                    found.extend(hits.into_iter().map(|h| (at.clone(), h)));
                }
            }
            Value::Array(items) => {
                let me = place(&mut places, parent, token);
                stack.extend(items.iter().enumerate().map(|(i, v)| (v, me, Some(Token::Index(i)))));
            }
            Value::Object(map) => {
                let me = place(&mut places, parent, token);
                for (key, v) in map {
                    let hits = if read(key) { detected(key, on, meter) } else { Vec::new() };
                    if !hits.is_empty() {
                        let at = pointer_of(pointer, &places, me, None);
                        found.extend(hits.into_iter().map(|h| (at.clone(), h)));
                    }
                    stack.push((v, me, Some(Token::Key(key))));
                }
            }
            _ => {}
        }
    }
    found
}

/// The place of `detect`'s `value` itself: its pointer is the one given.
const ROOT: usize = usize::MAX;

/// A reference token of a pointer below `detect`'s, kept unescaped until a hit needs it.
#[derive(Clone, Copy)]
enum Token<'a> {
    Key(&'a str),
    Index(usize),
}

/// A container's place: `ROOT` for `detect`'s value, else a new entry of `places`.
fn place<'a>(places: &mut Vec<(usize, Token<'a>)>, parent: usize, token: Option<Token<'a>>) -> usize {
    match token {
        None => parent,
        Some(token) => {
            places.push((parent, token));
            places.len() - 1
        }
    }
}

/// The pointer of the value with this container and token (`None`: the container's own).
fn pointer_of(root: &str, places: &[(usize, Token)], mut parent: usize, token: Option<Token>) -> String {
    let mut tokens: Vec<Token> = token.into_iter().collect();
    while parent != ROOT {
        let (up, token) = places[parent];
        tokens.push(token);
        parent = up;
    }
    let mut pointer = root.to_string();
    for token in tokens.iter().rev() {
        match *token {
            Token::Key(key) => push_token(&mut pointer, key),
            Token::Index(i) => push_token(&mut pointer, &i.to_string()),
        }
    }
    pointer
}

/// `detections` against the traversal it replaced, which built every value's pointer as it
/// went: the same hits, pointers and order, on generated documents whose keys need escaping.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn eager(value: &Value, pointer: &str, on: Detect) -> Vec<(String, (Kind, String))> {
        let mut found = Vec::new();
        let mut stack = vec![(value, pointer.to_string())];
        while let Some((v, at)) = stack.pop() {
            match v {
                Value::String(s) => {
                    found.extend(detected(s, on, &Meter::default()).into_iter().map(|h| (at.clone(), h)))
                }
                Value::Array(items) => {
                    stack.extend(items.iter().enumerate().map(|(i, v)| (v, child(&at, &i.to_string()))))
                }
                Value::Object(map) => {
                    for (key, v) in map {
                        found.extend(detected(key, on, &Meter::default()).into_iter().map(|h| (at.clone(), h)));
                        stack.push((v, child(&at, key)));
                    }
                }
                _ => {}
            }
        }
        found
    }

    const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QifQ.\
                       c2lnbmF0dXJlLW5vdC1yZWFsLWJ1dC1sb25n";

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => "[a-z~/é]{0,6}",
            1 => Just("AKIA2OGYBAH6STMMNXNN".to_string()),
            1 => Just(JWT.to_string()),
            1 => Just(format!("a/b~{JWT}")),
        ]
    }

    fn document() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![text().prop_map(Value::String), any::<i32>().prop_map(Value::from), Just(Value::Null)];
        leaf.prop_recursive(4, 48, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..5)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn lazy_pointers_agree_with_eager_ones(doc in document(), root in "(/[a-z~]{0,3}){0,2}") {
            let lazy = detections(&doc, &root, Detect::ALL, &Meter::default(), &|_| true);
            prop_assert_eq!(&lazy, &eager(&doc, &root, Detect::ALL));
        }
    }
}
