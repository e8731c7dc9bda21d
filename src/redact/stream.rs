//! The streaming engine: one pass over the bytes of a plain structured result (issue 9).
//!
//! It reads the JSON text once, checks it, and asks the same [`Eval`] the DOM walk asks, call
//! for call and in the same order (so the work count, the marks and the labels are the same),
//! which subschemas apply where. What stays is copied to the agent's copy of the value in byte
//! ranges; only what must change is written: a taken member is left out, a taken element is
//! `null`, whitespace goes, and a string with escapes or a number with an exponent is written as
//! serde_json writes it. The result is the DOM engine's text byte for byte: the tests hold the
//! two engines to that.
//!
//! It covers what most results are, and declines the rest, leaving them to the DOM engine
//! before anything has changed: a CallToolResult (but the commonest shape, which
//! `stream_call.rs` reads around this scan) or anything that may be one (a `content`,
//! `structuredContent` or `annotations` member at the top; below it, an `annotations` object
//! or string or a `content` array, or a string or key that may hold a result written as text
//! (`claims::may_claim`), through which a nested result makes claims), a `"_meta"` anywhere in
//! the text (seen before reading, so a late one costs no scan),
//! text that is not JSON or breaks a limit,
//! repeated keys, a root that is not an object or array or is taken whole, `dependentSchemas`,
//! `contentSchema`, secret property names, and a credential the detectors find. A result that
//! runs out of work (`limits.maxWork`) is withheld as the DOM engine withholds it: what was
//! taken up to there is learned, the rest is read as kept (the detectors still see it).

use std::hash::BuildHasher;

use super::stream_call::{scan_call, Call, TextBlock};
use super::{Agent, Run};
use crate::hash::{Keyed, TextSet};
use crate::json::scan::{self, Str};
use crate::json::write;
use crate::json::{parse_json, push_index, push_token};
use crate::policy::claims;
use crate::redact::walk::{entry_units, work_limit};
use crate::schema::{AppliedId, Eval, Exhausted, Kinds, Schema, SetId};
use crate::scrub::detect::Detect;
use crate::scrub::known::secret_strings;
use crate::scrub::meter::Meter;
use crate::scrub::{detected, Needles};
use crate::{Error, Format, Reason};

/// A value the walk took: where its text is, and what the report says of it.
pub(super) struct TakenSpan {
    pub pointer: String,
    pub reason: Reason,
    pub label: String,
    pub start: usize,
    pub end: usize,
}

/// A structured value read in one pass.
#[derive(Default)]
pub(super) struct Scanned {
    /// The value as the agent gets it, as compact JSON.
    pub text: String,
    /// What the walk took, in document order, and each value read.
    pub taken: Vec<TakenSpan>,
    pub values: Vec<serde_json::Value>,
    pub is_object: bool,
    /// The walk ran out of work here (`limits.maxWork`): the result is withheld.
    pub exhausted: Option<String>,
    /// The value is the `structuredContent` of this CallToolResult (`stream_call.rs`).
    pub call: Option<super::stream_call::Call>,
}

#[cfg(test)]
thread_local! {
    /// Values the scans read on this thread: the tests count work instead of timing it.
    static VALUES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What happens to a value.
#[derive(Clone, Copy, PartialEq)]
enum Plan {
    /// The schema goes on below it: its members are decided one by one.
    Walk(AppliedId),
    /// It stays as it is (nothing below it can be marked).
    Keep,
    /// It goes to the vault (or is inside a value that does).
    Take,
}

/// An object or array being read.
struct Frame {
    object: bool,
    plan: Plan,
    /// The nearest property name, for the labels of its elements.
    name: Option<String>,
    /// Members or elements read so far.
    count: usize,
    /// Some member of it is in the agent's copy.
    emitted: bool,
    /// The member before the next comma was left out as the first: the comma goes too.
    drop_comma: bool,
    /// The pointer's length at this container.
    pointer_len: usize,
    /// The key hashes of this object start here in `Scanner::keys`.
    keys_from: usize,
    /// This container is a taken value: its entry in `taken`.
    taken: Option<usize>,
}

/// A member's key or an element's index.
#[derive(Clone, Copy)]
enum Child<'k> {
    Key(&'k str),
    Index(usize),
}

/// Above this many keys, an object's repeated keys are looked for by hash set, not by scan.
const SCAN_KEYS: usize = 16;

struct Scanner<'t, 'e> {
    text: &'t str,
    b: &'t [u8],
    schema: Option<&'t Schema>,
    eval: &'e mut Eval,
    detect: Detect,
    max_depth: usize,
    out: String,
    /// The text is copied to `out` up to here.
    copied: usize,
    stack: Vec<Frame>,
    pointer: String,
    /// The hashes of the keys of the objects being read, under `key_hash`: keyed, so that a
    /// tool cannot pick keys that collide (a collision only sends the result to the DOM engine,
    /// but the sets of large objects must not pile up).
    keys: Vec<u64>,
    key_hash: Keyed,
    big_keys: Vec<TextSet<u64>>,
    taken: Vec<TakenSpan>,
    /// What the detectors read (the known set's meter: value matching reads under the same
    /// allowance).
    meter: &'t Meter,
    /// Where the work limit was reached.
    exhausted: Option<String>,
}

/// What a scan reads with: the tool's schema and detectors, the walk's state (its work count
/// and what it worked out), the known set's meter, and the depth limit.
pub(super) struct Context<'t> {
    pub schema: Option<&'t Schema>,
    pub eval: Eval,
    pub detect: Detect,
    pub meter: &'t Meter,
    pub max_depth: usize,
    /// A result of `content` without `structuredContent` is a CallToolResult: the schema marks
    /// none of its members (`CompiledTool::reads_as_call_result`).
    pub bare_calls: bool,
}

/// Reads `text` in one pass; `None` leaves it to the DOM engine (see the module documentation).
pub(super) fn scan(text: &str, cx: &mut Context) -> Option<Scanned> {
    let b = text.as_bytes();
    let (scanned, end) = scan_at(text, scan::skip_ws(b, 0), cx)?;
    (scan::skip_ws(b, end) == b.len()).then_some(scanned)
}

/// [`scan`] of the value at `start` of `text` (a CallToolResult's `structuredContent`), with
/// where it ends. The spans taken are offsets in `text`.
pub(super) fn scan_at(text: &str, start: usize, cx: &mut Context) -> Option<(Scanned, usize)> {
    let b = text.as_bytes();
    let is_object = match b.get(start) {
        Some(b'{') => true,
        Some(b'[') => false,
        _ => return None,
    };
    let mut s = Scanner {
        text,
        b,
        schema: cx.schema,
        eval: &mut cx.eval,
        detect: cx.detect,
        max_depth: cx.max_depth,
        out: String::with_capacity(text.len()),
        copied: start,
        stack: Vec::new(),
        pointer: String::new(),
        keys: Vec::new(),
        key_hash: Keyed::default(),
        big_keys: Vec::new(),
        taken: Vec::new(),
        meter: cx.meter,
        exhausted: None,
    };
    let plan = match cx.schema {
        Some(schema) => match s.eval.root(schema) {
            Ok(root) => s.visit(start, root, None)?,
            Err(Exhausted) => s.exhaust(),
        },
        None => Plan::Keep,
    };
    if plan == Plan::Take {
        return None; // taken whole: the DOM engine writes that result
    }
    let end = s.run(start, plan)?;
    s.flush(end);
    // Reserved for the whole text, which stays for the call: a dense result's copy is about
    // half of it.
    s.out.shrink_to_fit();
    let scanned =
        Scanned { text: s.out, taken: s.taken, values: Vec::new(), is_object, exhausted: s.exhausted, call: None };
    Some((scanned, end))
}

impl Scanner<'_, '_> {
    fn suppressed(&self) -> bool {
        self.stack.last().is_some_and(|f| f.plan == Plan::Take)
    }

    /// Copies the text up to `to` into the agent's copy.
    fn flush(&mut self, to: usize) {
        if to > self.copied {
            self.out.push_str(&self.text[self.copied..to]);
            self.copied = to;
        }
    }

    /// Whitespace from `i`: left out of the copy.
    fn ws(&mut self, i: usize) -> usize {
        let end = scan::skip_ws(self.b, i);
        if end > i && !self.suppressed() {
            self.flush(i);
            self.copied = end;
        }
        end
    }

    /// Reads the whole value at `start` (decided `plan`) and everything in it.
    fn run(&mut self, start: usize, plan: Plan) -> Option<usize> {
        let mut i = self.value(start, plan, false, None)?;
        while let Some(top) = self.stack.last() {
            let (object, count) = (top.object, top.count);
            i = self.ws(i);
            let close = if object { b'}' } else { b']' };
            let c = *self.b.get(i)?;
            if c == close {
                i = self.close(i + 1);
                continue;
            }
            if count > 0 {
                if c != b',' {
                    return None;
                }
                let top = self.stack.last_mut()?;
                if std::mem::take(&mut top.drop_comma) {
                    self.flush(i);
                    self.copied = i + 1;
                }
                i = self.ws(i + 1);
            }
            i = if object { self.member(i)? } else { self.element(i)? };
        }
        Some(i)
    }

    /// The end of a container at `end`.
    fn close(&mut self, end: usize) -> usize {
        let frame = self.stack.pop().expect("a container is open");
        self.keys.truncate(frame.keys_from);
        if frame.object && frame.count > SCAN_KEYS {
            self.big_keys.pop();
        }
        if let Some(t) = frame.taken {
            self.taken[t].end = end;
            self.copied = end;
        }
        end
    }

    /// One member of the object on top, its key at `i`.
    fn member(&mut self, i: usize) -> Option<usize> {
        if self.b.get(i) != Some(&b'"') {
            return None;
        }
        let key_token = scan::string(self.b, i)?;
        let key = key_token.chars(self.text);
        let key = &*key;
        self.note_key(key)?;
        if claims::may_claim(key) {
            return None; // a result written in it may make claims (`claims::of_result`)
        }
        if self.stack.len() == 1 && matches!(key, "content" | "structuredContent" | "_meta" | "annotations") {
            return None; // a CallToolResult, or a result with claims of its own
        }
        let colon = scan::skip_ws(self.b, key_token.end);
        if self.b.get(colon) != Some(&b':') {
            return None;
        }
        let at = scan::skip_ws(self.b, colon + 1);
        if nested_claims(key, self.b.get(at)) {
            return None; // a result nested as a value, or a `_meta`: it may make claims
        }
        let top = self.stack.last()?;
        let (parent, emitted, pointer_len) = (top.plan, top.emitted, top.pointer_len);
        let plan = self.child_plan(parent, pointer_len, Child::Key(key), at)?;
        if plan == Plan::Take && parent != Plan::Take {
            // Left out with its key; a comma before it goes with it, or the one after it does.
            self.flush(key_token.start);
            if emitted {
                let comma = self.out.pop();
                debug_assert_eq!(comma, Some(','));
            } else {
                self.stack.last_mut()?.drop_comma = true;
            }
        } else if plan != Plan::Take {
            self.kept_string(key_token, key)?;
            self.ws(key_token.end);
            self.ws(colon + 1);
            self.stack.last_mut()?.emitted = true;
        }
        self.stack.last_mut()?.count += 1;
        let fresh = plan == Plan::Take && parent != Plan::Take;
        self.value(at, plan, fresh, Some(key))
    }

    /// One element of the array on top, at `i`.
    fn element(&mut self, i: usize) -> Option<usize> {
        let top = self.stack.last()?;
        let (parent, index, pointer_len) = (top.plan, top.count, top.pointer_len);
        let plan = self.child_plan(parent, pointer_len, Child::Index(index), i)?;
        let top = self.stack.last_mut()?;
        top.count += 1;
        top.emitted = true;
        // An array in an array: its elements' labels fall back to the same name.
        let name = if self.b.get(i) == Some(&b'[') { top.name.clone() } else { None };
        let fresh = plan == Plan::Take && parent != Plan::Take;
        if fresh {
            self.flush(i);
            self.out.push_str("null"); // the slot stays, so that indexes keep their meaning
        }
        self.value(i, plan, fresh, name.as_deref())
    }

    /// What happens to the child at `at` of a container read under `parent`: in a walked one,
    /// the walk's look-up of the child's subschemas (by key or index), then its `decide`; past
    /// the work limit, it stays.
    fn child_plan(&mut self, parent: Plan, pointer_len: usize, child: Child, at: usize) -> Option<Plan> {
        let Plan::Walk(applied) = parent else { return Some(parent) };
        if self.exhausted.is_some() {
            return Some(Plan::Keep);
        }
        let schema = self.schema?;
        let found = match child {
            Child::Key(key) => self.eval.property(schema, applied, key),
            Child::Index(index) => self.eval.item(schema, applied, index),
        };
        self.pointer.truncate(pointer_len);
        match child {
            Child::Key(key) => push_token(&mut self.pointer, key),
            // An index needs no escaping, and is written without a string of its own.
            Child::Index(index) => push_index(&mut self.pointer, index),
        }
        match found {
            Ok((nodes, _)) => self.decide(at, nodes, if let Child::Key(key) = child { Some(key) } else { None }),
            Err(Exhausted) => Some(self.exhaust()),
        }
    }

    /// The walk's `decide`: what happens to the child at `at` whose subschemas are `nodes`.
    /// `name` is the member's key; an element's label falls back to its array's name.
    fn decide(&mut self, at: usize, nodes: SetId, name: Option<&str>) -> Option<Plan> {
        let schema = self.schema?;
        if self.eval.is_empty(nodes) {
            return Some(Plan::Keep);
        }
        match self.eval.any_marks(schema, nodes) {
            Ok(false) => return Some(Plan::Keep),
            Ok(true) => {}
            Err(Exhausted) => return Some(self.exhaust()),
        }
        let plan = self.visit(at, nodes, name)?;
        let label = || self.taken.last().map_or("", |t| t.label.as_str());
        if plan == Plan::Take && self.eval.spend(entry_units(&self.pointer, label())).is_err() {
            self.taken.pop(); // the walk had not taken it yet
            return Some(self.exhaust());
        }
        Some(plan)
    }

    /// The walk's `visit`, up to the descent: what the subschemas of `start` say of the value
    /// at `at`. A taken value is recorded here (its end comes when it has been read).
    fn visit(&mut self, at: usize, start: SetId, name: Option<&str>) -> Option<Plan> {
        let schema = self.schema?;
        let first = *self.b.get(at)?;
        let kind = match first {
            b'n' => return Some(Plan::Keep), // nothing to hide in a null
            b'-' | b'0'..=b'9' => Kinds::of_number(&self.text[at..scan::number(self.b, at)?.0]),
            other => Kinds::of_first_byte(other),
        };
        let (applied, summary) = match self.eval.apply_kind(schema, start, kind) {
            Ok(applied) => applied?,
            Err(Exhausted) => return Some(self.exhaust()),
        };
        if summary.names_secret || summary.content.is_some() {
            return None;
        }
        if summary.marked || summary.mismatch {
            let title = summary.title.and_then(|n| schema.node_title(n));
            let array_name = || self.stack.last().and_then(|f| f.name.as_deref());
            let label = title.or(name).or_else(array_name).unwrap_or("value").to_string();
            let reason = if summary.marked { Reason::XSensitive } else { Reason::SchemaMismatch };
            let pointer = self.pointer.clone();
            self.taken.push(TakenSpan { pointer, reason, label, start: at, end: at });
            return Some(Plan::Take);
        }
        Some(if matches!(first, b'{' | b'[') { Plan::Walk(applied) } else { Plan::Keep })
    }

    /// Reads the value at `i` under `plan`: a scalar whole, a container's opening (its frame
    /// then reads the rest). `fresh`: the walk has just taken it (the last entry of `taken`),
    /// and the copy resumes after it. `name`: the nearest property name.
    fn value(&mut self, i: usize, plan: Plan, fresh: bool, name: Option<&str>) -> Option<usize> {
        #[cfg(test)]
        VALUES.with(|n| n.set(n.get() + 1));
        let taken = fresh.then(|| self.taken.len() - 1);
        let c = *self.b.get(i)?;
        if c == b'{' || c == b'[' {
            if self.stack.len() >= self.max_depth {
                return None;
            }
            let object = c == b'{';
            self.stack.push(Frame {
                object,
                plan,
                name: if object { None } else { name.map(str::to_string) },
                count: 0,
                emitted: false,
                drop_comma: false,
                pointer_len: self.pointer.len(),
                keys_from: self.keys.len(),
                taken,
            });
            return Some(i + 1);
        }
        let end = match c {
            b'"' => {
                let s = scan::string(self.b, i)?;
                let chars = s.chars(self.text);
                let chars = &*chars;
                if claims::may_claim(chars) {
                    return None; // a result written in it may make claims (`claims::of_result`)
                }
                if plan != Plan::Take {
                    self.kept_string(s, chars)?;
                }
                s.end
            }
            b'-' | b'0'..=b'9' => {
                let (end, exponent) = scan::number(self.b, i)?;
                let number = &self.text[i..end];
                if exponent && plan != Plan::Take && !self.suppressed() && !scan::exponent_is_canonical(number) {
                    self.flush(i);
                    scan::write_exponent_number(&mut self.out, number);
                    self.copied = end;
                }
                end
            }
            _ => scan::literal(self.b, i)?,
        };
        if let Some(t) = taken {
            self.taken[t].end = end;
            self.copied = end;
        }
        Some(end)
    }

    /// The work limit was reached here: like the DOM walk, which stops there, everything not
    /// decided yet stays as it is (the detectors still read it), and the result is withheld.
    fn exhaust(&mut self) -> Plan {
        if self.exhausted.is_none() {
            self.exhausted = Some(self.pointer.clone());
        }
        Plan::Keep
    }

    /// A string (value or key) that stays: the detectors read it, and one with escapes is
    /// written as serde_json writes it.
    fn kept_string(&mut self, token: Str, chars: &str) -> Option<()> {
        if self.suppressed() {
            return Some(());
        }
        if !self.detect.is_none() && !detected(chars, self.detect, self.meter).is_empty() {
            return None; // a credential: the DOM engine takes it (its order, its pointers)
        }
        if token.escaped {
            self.flush(token.start);
            write::string(&mut self.out, chars);
            self.copied = token.end;
        }
        Some(())
    }

    /// A key of the object on top: a repeated one declines (the DOM engine withholds it).
    fn note_key(&mut self, key: &str) -> Option<()> {
        let hash = self.key_hash.hash_one(key);
        let top = self.stack.last()?;
        let (from, count) = (top.keys_from, top.count);
        if count < SCAN_KEYS {
            if self.keys[from..].contains(&hash) {
                return None;
            }
            self.keys.push(hash);
            return Some(());
        }
        if count == SCAN_KEYS {
            self.big_keys.push(self.keys[from..].iter().copied().collect());
        }
        self.big_keys.last_mut()?.insert(hash).then_some(())
    }
}

impl Run<'_> {
    /// The streaming engine's reading of a plain structured result, when it takes the result
    /// on (see the module documentation).
    pub(super) fn stream(&mut self, raw_json: &str, options: &crate::Options) -> Option<Scanned> {
        let limits = &options.limits;
        if raw_json.len() > limits.max_input_bytes
            || self.tool.is_untrusted()
            || self.tool.mode_for(crate::model::Level::None) != crate::tool::Mode::Denylist
            || raw_json.contains("webmcp-redact/")
            || raw_json.contains("\"secret_reference\"")
            // A `_meta` anywhere (at the top, or below, where it may make claims) is the DOM
            // engine's: seen now, not after the scans have read all that comes before it, so
            // that such a result is read once more in all, not twice.
            || raw_json.contains("\"_meta\"")
        {
            return None;
        }
        let max_depth = limits.max_depth.min(crate::Limits::DEPTH_CEILING);
        // A decline leaves the result to the DOM engine with the allowance it would have had
        // alone (so both engines learn the same; a call reads at most twice its allowance),
        // and so does a scan whose detectors ran out of it: they read in another order.
        let meter = self.known.meter();
        let before = meter.read();
        let (schema, detect) = (self.tool.schema(), self.tool.detect());
        let bare_calls = !self.tool.marks_mcp_members();
        let mut cx = Context { schema, eval: Eval::new(limits), detect, meter, max_depth, bare_calls };
        let scanned = scan_call(raw_json, &mut cx)
            .or_else(|| {
                // Not a CallToolResult it takes: read as a plain value, from the start.
                meter.rewind(before);
                cx.eval = Eval::new(limits);
                scan(raw_json, &mut cx)
            })
            .filter(|_| !meter.spent())
            .and_then(|mut scanned| {
                let values = scanned.taken.iter().map(|t| taken_value(&raw_json[t.start..t.end]));
                scanned.values = values.collect::<Option<_>>()?;
                Some(scanned)
            })
            .filter(|scanned| self.passed_over(scanned));
        match scanned {
            Some(_) => self.eval = cx.eval,
            None => meter.rewind(before),
        }
        scanned
    }

    /// What the DOM engine's `structured` does with a value, for one the streaming engine read:
    /// the same takes in the same order, then value matching; where that finds something, the
    /// rest is the DOM engine's (rare: a known value in a result that stays).
    /// Past the work limit, what was taken up to there is still learned, as the DOM walk's
    /// takes are, and the result is withheld.
    pub(super) fn take_streamed(&mut self, scanned: Scanned) -> Result<Option<Agent>, Error> {
        let Scanned { text: value, taken, values, is_object, exhausted, call } = scanned;
        // A CallToolResult's value is its structuredContent, where the DOM engine walks it.
        let base = if call.is_some() { "/structuredContent" } else { "" };
        // What it took is known: the report and the known set's records are sized once (each
        // grew by doubling to twice what a dense result needs).
        self.collect.reserve(taken.len());
        self.known.reserve(taken.len());
        for (t, v) in taken.into_iter().zip(values) {
            let strings = secret_strings(&v, false);
            // Not `format!`: a formatter per taken value, most of them with no base at all.
            let pointer = if base.is_empty() { t.pointer } else { base.to_string() + &t.pointer };
            self.take_with(pointer, t.reason, t.label, v, strings);
        }
        if let Some(pointer) = exhausted {
            return Err(work_limit(self.eval.max_work(), format!("{base}{pointer}")));
        }
        if let Some(call) = call {
            return Ok(self.take_call(value, call));
        }
        let needles = self.known.needles();
        let wraps = self.format == Format::Mcp;
        if needles.is_empty() {
            return Ok((!self.collect.is_empty() || wraps).then_some(Agent::Structured {
                value,
                text: None,
                is_object,
            }));
        }
        // The text block is the value's compact JSON: a string, key or number without escapes
        // stands in it as it is, between characters that end a token, so one holding a known
        // value makes the text hold it too. When the text holds none, only the strings with
        // escapes (whose characters the text writes differently) are left to read one by one.
        let meter = self.known.meter();
        let before = meter.read();
        // Kept: where no string holds a value, it is the text block (reading the text again
        // for it was a third of such a result's reading).
        let text_scrub = needles.scrub_json(&value);
        let text_hit = text_scrub.is_some();
        let found = any_match(needles, &value, !text_hit);
        // Reading the whole text and then its strings can read more than the DOM engine's
        // pass over the strings: past the allowance here, that pass decides, under the
        // allowance the DOM engine would have had.
        let spent = meter.spent();
        if spent {
            meter.rewind(before);
        }
        let agent = if found || spent {
            let parsed = reparse(&value);
            Agent::Value(self.wrap_structured(parsed))
        } else if text_hit {
            let text = self.json_text_as(value.clone(), text_scrub);
            Agent::Structured { value, text: Some(text), is_object }
        } else {
            Agent::Structured { value, text: None, is_object }
        };
        Ok((!self.collect.is_empty() || wraps).then_some(agent))
    }
}

impl Run<'_> {
    /// Would the DOM engine's detectors pass over every credential they find in a
    /// CallToolResult's texts? They read after the walk, and pass over a known value: one known
    /// before, or one this result takes (a taken value its duplicate text echoes).
    fn passed_over(&self, scanned: &Scanned) -> bool {
        let Some(call) = &scanned.call else { return true };
        let unknown: Vec<&String> = call.detected.iter().filter(|s| !self.known.contains(s)).collect();
        if unknown.is_empty() {
            return true;
        }
        let taken: Vec<String> = scanned.values.iter().flat_map(|v| secret_strings(v, false)).collect();
        unknown.iter().all(|s| taken.contains(s))
    }

    /// The rest of a CallToolResult the streaming engine read (`stream_call.rs`), its takes
    /// learned: value matching, then the view. Where value matching finds something (or
    /// reading for it runs past the allowance), the DOM engine's [`Run::call_view`] writes it,
    /// from the values of what was read; else the view is written from the texts as they are.
    fn take_call(&mut self, value: String, call: Call) -> Option<Agent> {
        let changed = !self.collect.is_empty(); // the walk took from the structured value
        let needles = self.known.needles();
        if !needles.is_empty() {
            let meter = self.known.meter();
            let before = meter.read();
            let found = (call.structured && any_match(needles, &value, false))
                || call.blocks.iter().any(|b| needles.scrub(b.text_in(&value, changed)).is_some());
            let spent = meter.spent();
            if spent {
                meter.rewind(before);
            }
            if found || spent {
                let structured = call.structured.then(|| reparse(&value));
                let duplicates: Vec<bool> = call.blocks.iter().map(|b| b.duplicate).collect();
                let kept = call.blocks.into_iter().map(TextBlock::into_value).enumerate().collect();
                let rest =
                    call.is_error.map(|e| ("isError".to_string(), serde_json::Value::Bool(e))).into_iter().collect();
                let view = self.call_view(structured, changed, kept, &duplicates, rest, false);
                return (!self.collect.is_empty()).then_some(Agent::Value(view));
            }
        }
        self.content_at = Some((0..call.blocks.len()).collect());
        changed.then_some(Agent::Call { value, call })
    }
}

/// A taken value's text, which the scan read whole, as a value: a string without escapes is its
/// characters (what parsing it gives, without the parser's set-up per value: a fifth of the
/// instructions of taking each value of a dense result), anything else is parsed.
fn taken_value(text: &str) -> Option<serde_json::Value> {
    match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(chars) if !chars.contains('\\') => Some(serde_json::Value::String(chars.to_string())),
        _ => parse_json(text).ok(),
    }
}

/// Would value matching change any string, key or number of this compact JSON (the DOM
/// engine's `scrub_value` on the value it stands for)? `escaped_only`: read only the strings
/// with escapes and the numbers not written plainly (the text as a whole has answered for the
/// rest).
fn any_match(needles: &Needles, compact: &str, escaped_only: bool) -> bool {
    let b = compact.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let Some(s) = scan::string(b, i) else { return true };
                let raw = s.raw(compact);
                let hit = match (s.escaped, escaped_only) {
                    (true, _) => needles.scrub(&scan::decode(raw)).is_some(),
                    (false, false) => needles.scrub(raw).is_some(),
                    (false, true) => false,
                };
                if hit {
                    return true;
                }
                i = s.end;
            }
            b'-' | b'0'..=b'9' => {
                let Some((end, _)) = scan::number(b, i) else { return true };
                // A number the text writes otherwise than its plain value is read as that
                // value too, which the text as a whole did not answer for.
                let number = &compact[i..end];
                if (!escaped_only || !scan::is_plain_decimal(number)) && needles.scrub_number(number).is_some() {
                    return true;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    false
}
/// A member below the top through which a nested result could make claims (`claims::of_result`
/// reads them): a `_meta` or `annotations` object (or string, which may hold one as JSON), or a
/// `content` array of blocks.
fn nested_claims(key: &str, value: Option<&u8>) -> bool {
    matches!((key, value), ("_meta" | "annotations", Some(b'{' | b'"')) | ("content", Some(b'[')))
}

/// What the streaming engine wrote, parsed again. Not `expect`: that formats the error with its
/// Debug on a panic, which would keep str's Debug and the debug builders in the module.
fn reparse(value: &str) -> serde_json::Value {
    let Ok(parsed) = parse_json(value) else { unreachable!("the streaming engine writes JSON") };
    parsed
}

#[cfg(test)]
mod tests {
    use super::VALUES;
    use crate::{redact, CompiledTool, Engine, HandleSource, Limits, Options};

    struct Fixed;
    impl HandleSource for Fixed {
        fn fill(&mut self, b: &mut [u8; 16]) {
            *b = [7; 16];
        }
    }

    /// Values the streaming engine's scans read for `raw`, and the engine that redacted it.
    fn scanned(raw: &str) -> (usize, Engine) {
        let tool = r#"{"name":"k","outputSchema":{"properties":{"keys":{"items":{"properties":{"secret":{"x-sensitive":true}}}}}}}"#;
        let tool = CompiledTool::compile(tool, &Limits::default()).unwrap();
        let options = Options { engine: Engine::Streaming, ..Options::default() };
        let before = VALUES.with(|n| n.get());
        let out = redact(&tool, raw, &options, &mut Fixed, &[]);
        (VALUES.with(|n| n.get()) - before, out.engine)
    }

    /// A result with a `_meta` after its values (the DOM engine's) is declined before the scans
    /// read them: once the CallToolResult reading and once the plain one did, so with the DOM
    /// engine's parse a large result was read three times over.
    #[test]
    fn a_meta_after_the_values_is_declined_before_they_are_read() {
        let keys: Vec<String> = (0..500).map(|i| format!(r#"{{"id":"k{i}","secret":"s{i}"}}"#)).collect();
        let value = format!(r#"{{"keys":[{}]}}"#, keys.join(","));
        let call = format!(r#"{{"structuredContent":{value},"content":[]"#);
        let plain = &value[..value.len() - 1];
        let (read, engine) = scanned(&format!("{call}}}"));
        assert!(read > 1000 && engine == Engine::Streaming, "{read}");
        for late in [format!(r#"{call},"_meta":{{"x":1}}}}"#), format!(r#"{plain},"_meta":{{"x":1}}}}"#)] {
            assert_eq!(scanned(&late), (0, Engine::Dom), "{}", &late[late.len() - 40..]);
        }
    }
}
