//! The contract, end to end: parse, pick the shape, apply the tool's mode. Any error becomes
//! the fail-closed "withheld" result. `assemble.rs` writes the final agent view.

mod aside;
mod assemble;
pub(crate) mod blocks;
mod call_result;
mod collect;
mod detected;
mod fields;
pub(crate) mod outcome;
pub(crate) mod own;
mod stream;
mod stream_call;
pub(crate) mod stubs;
mod walk;

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::json::{child, parse_embedded, parse_result, write};
use crate::policy::claims;
use crate::policy::session::Labels;
use crate::redact::blocks::STRUCTURAL;
use crate::redact::stubs::{as_mcp_stub, is_library_block, is_library_key, scrub_outside_wording, stub, SECRET_KEY};
use crate::redact::walk::walk;
use crate::schema::Eval;
use crate::scrub::known::{secret_strings, KnownSecrets, Overrun};
use crate::scrub::meter;
use crate::tool::Mode;
use crate::{CompiledTool, Engine, Error, ErrorCode, Format, Limits, Options, Outcome, Reason};
use collect::Collector;

pub use crate::redact::stubs::HandleSource;

/// A value the caller's vault already holds (revealed or redeemed): scrubbed wherever it
/// shows up again.
#[derive(Clone, Debug)]
pub struct KnownSecret {
    pub label: String,
    pub value: String,
}

/// Redacts one raw result (JSON text) of `tool`. Never fails: on any error the agent view is
/// [`withheld_result`] and `error` says why.
///
/// ```
/// use webmcp_redact::{redact, CompiledTool, HandleSource, Limits, Options};
/// struct Fixed;
/// impl HandleSource for Fixed { fn fill(&mut self, b: &mut [u8; 16]) { *b = [7; 16]; } }
/// let tool = CompiledTool::compile(r#"{"name":"k","outputSchema":{"properties":{"secret":{"x-sensitive":true}}}}"#, &Limits::default()).unwrap();
/// let out = redact(&tool, r#"{"id":1,"secret":"sk_live_1"}"#, &Options::default(), &mut Fixed, &[]);
/// assert!(!out.agent_json.contains("sk_live_1"));
/// assert_eq!(out.redactions[0].pointer, "/secret");
/// ```
pub fn redact(
    tool: &CompiledTool,
    raw_json: &str,
    options: &Options,
    handles: &mut dyn HandleSource,
    known: &[KnownSecret],
) -> Outcome {
    let mut set = KnownSecrets::default();
    for k in known {
        set.note(&k.value, &k.label);
    }
    redact_with(tool, raw_json, options, handles, &mut set)
}

/// [`redact`] against a long-lived known-secret set, which also learns this result's secrets
/// (owned by the handles of their vault entries).
pub fn redact_with(
    tool: &CompiledTool,
    raw_json: &str,
    options: &Options,
    handles: &mut dyn HandleSource,
    known: &mut KnownSecrets,
) -> Outcome {
    let max_work = options.limits.max_work;
    known.budget(max_work as u64, meter::allowance(max_work, raw_json.len()));
    let given_withheld = is_withheld_view(tool.name(), raw_json, known);
    let mut run = Run {
        tool,
        format: options.format,
        handles,
        limits: options.limits,
        collect: Collector::default(),
        known: &mut *known,
        reshaped: false,
        own: false,
        spotlit: false,
        eval: Eval::new(&options.limits),
        detections: Default::default(),
        streamed: false,
        glued: Vec::new(),
        content_at: None,
        cut: false,
        notice: None,
    };
    let mut labels = Labels::declared(tool.model());
    let result = match given_withheld {
        // The withheld view of this tool holds nothing but our wording: it stays as it is, as
        // any view this redactor wrote does on a second pass (rule 10), whatever the tool's
        // sensitivity or trust (found by review: a sensitive tool's error view was withheld
        // behind a stub, an untrusted one's spotlit, a known "withheld" cut).
        true => Ok(None),
        false => run.result(raw_json, options, &mut labels),
    };
    let engine = if run.streamed { Engine::Streaming } else { Engine::Dom };
    let mut outcome = match result {
        Ok(_) if run.known.overrun().is_some() => failed_outcome(overrun(run.known, options).for_tool(tool.name())),
        Ok(Some(agent)) => run.finish(agent),
        Ok(None) => Outcome {
            agent_json: raw_json.to_string(),
            redactions: Vec::new(),
            withheld: false,
            secrets: Vec::new(),
            error: None,
            labels: Labels::default(),
            unchanged: true,
            learned: Vec::new(),
            engine: Engine::Dom,
            read: 0,
        },
        Err(e) => failed_outcome(e.about_result().for_tool(tool.name())),
    };
    // Finishing reads too (the report, the notice, the stubs' labels): a budget it passed
    // leaves what it wrote unread.
    if outcome.error.is_none() && known.overrun().is_some() {
        outcome = failed_outcome(overrun(known, options).for_tool(tool.name()));
    }
    name_shown(&mut outcome, known);
    outcome.read = known.meter().read();
    known.end_budget();
    known.settle();
    if !outcome.unchanged && outcome.error.is_none() {
        known.written.record(tool.name(), &outcome.agent_json);
    }
    outcome.labels = labels;
    outcome.engine = engine;
    outcome
}

/// A result whose values would add more than `max_work` bytes to the known set (the matcher's
/// size and build time grow with them), or whose reading took more than its allowance
/// (`scrub/meter.rs`): it fails closed. What it noted is still known.
fn overrun(known: &KnownSecrets, options: &Options) -> Error {
    let max_work = options.limits.max_work;
    let detail = match known.overrun() {
        Some(Overrun::Learning) => {
            format!(
                "the values it withholds would add more than {max_work} bytes to the known-secret set (limits.maxWork)"
            )
        }
        _ => meter::overrun_detail(max_work),
    };
    Error::new(ErrorCode::WorkLimit, String::new(), detail)
}

/// The agent view when a result cannot be redacted: no part of the raw result.
pub fn withheld_result(tool_name: &str, code: ErrorCode) -> String {
    let text = format!("The result of {tool_name} was withheld: {code}.");
    let mut out = String::new();
    write::object(&mut out, |o| {
        write::array(o.key("content"), [&text], |out, t| {
            write::object(out, |b| _ = b.str("type", "text").str("text", t))
        });
        o.bool("isError", true);
    });
    out
}

/// A tool's name as the agent may read it in our wording: the page's own, but one holding a
/// value this redactor knows is masked as any text is (found by review s36: a tool named
/// `"get_" + V` put V back in the withheld view of a result that was not JSON).
fn shown_name<'a>(tool_name: &'a str, known: &KnownSecrets) -> Cow<'a, str> {
    match known.needles().scrub(tool_name) {
        Some((masked, _)) => Cow::Owned(masked),
        None => Cow::Borrowed(tool_name),
    }
}

/// [`withheld_result`] with the tool's name as [`shown_name`] shows it.
pub(crate) fn withheld_view(tool_name: &str, code: ErrorCode, known: &KnownSecrets) -> String {
    withheld_result(&shown_name(tool_name, known), code)
}

/// A withheld outcome's view written again where [`shown_name`] masks the tool's name.
pub(crate) fn name_shown(outcome: &mut Outcome, known: &KnownSecrets) {
    if let Some(error) = &outcome.error {
        if let Cow::Owned(name) = shown_name(&error.tool, known) {
            outcome.agent_json = withheld_result(&name, error.code);
        }
    }
}

/// Is `raw_json` exactly our withheld view of `tool_name` (named as [`shown_name`] shows it),
/// for some error code? A second pass leaves it as it is (rule 10). The name is read only for
/// a text that starts as the view does.
fn is_withheld_view(tool_name: &str, raw_json: &str, known: &KnownSecrets) -> bool {
    raw_json.starts_with(r#"{"content":[{"type":"text","text":"The result of "#) && {
        let shown = shown_name(tool_name, known);
        ErrorCode::ALL.iter().any(|&code| raw_json == withheld_result(&shown, code))
    }
}

/// The withheld outcome for an error; the error names the tool.
pub(crate) fn failed_outcome(error: Error) -> Outcome {
    let agent_json = withheld_result(&error.tool, error.code);
    Outcome {
        agent_json,
        redactions: Vec::new(),
        withheld: true,
        secrets: Vec::new(),
        error: Some(error),
        labels: Labels::default(),
        unchanged: false,
        learned: Vec::new(),
        engine: Engine::Dom,
        read: 0,
    }
}

/// The label the agent sees for a value the schema of a sensitive tool did not declare.
const UNDECLARED_LABEL: &str = "undeclared value";

/// The agent view in the making.
enum Agent {
    /// What the DOM engine built.
    Value(Value),
    /// A structured value the streaming engine read: the value as compact JSON, the text block
    /// when value matching changed it (else the same text), and whether it is an object (the
    /// `structuredContent`).
    Structured { value: String, text: Option<String>, is_object: bool },
    /// A CallToolResult the streaming engine read, whose structured value (`value`, as compact
    /// JSON) the walk changed and value matching left as it was: its duplicate texts are
    /// `value`, its other blocks as they were.
    Call { value: String, call: stream_call::Call },
}

/// How many times a run reads a result at most (`Run::result`): a credential uncovered by
/// value matching, then one uncovered by cutting that one out, and so on, three deep.
const MAX_ATTEMPTS: usize = 4;

const UNTRUSTED_KEY: &str = "webmcp-redact/untrusted";
const UNTRUSTED_POINTER: &str = "/_meta/webmcp-redact~1untrusted";
/// Spotlighting delimiters around untrusted text.
const SPOTLIGHT: (&str, &str) = ("<untrusted-content>", "</untrusted-content>");

/// One redaction in progress: the tool, what has been collected, and the known-secret set it
/// scrubs with (and adds this result's secrets to).
struct Run<'a> {
    tool: &'a CompiledTool,
    format: Format,
    handles: &'a mut dyn HandleSource,
    limits: Limits,
    collect: Collector,
    known: &'a mut KnownSecrets,
    /// Something changed that the report does not list (a stub rewritten for the mcp format).
    reshaped: bool,
    /// The raw result is an agent view this redactor returned for this tool: its library parts
    /// are its own. Otherwise anything shaped like them is tool data.
    own: bool,
    /// The raw result is a view this redactor wrote with its text between spotlighting
    /// delimiters: they are our wording there.
    spotlit: bool,
    /// What applying the schema has worked out so far, its work count, and its error.
    eval: Eval,
    /// Where credentials were detected, with their labels: value matching's replacement of
    /// one there is the detection itself, reported once.
    /// (A map of the same type as the known set's: no second instance of the hash table.)
    detections: crate::hash::TextMap<String, Vec<String>>,
    /// The streaming engine read the result.
    streamed: bool,
    /// Credentials an earlier attempt found where value matching cut a token: taken first.
    glued: Vec<detected::Glued>,
    /// For a CallToolResult, the index in the raw content of each block the agent view keeps.
    content_at: Option<Vec<usize>>,
    /// Value matching replaced something (every replacement is noted): only then can it have
    /// left a credential standing alone (`glued_in`).
    cut: bool,
    /// The notice's text as the last attempt's `glued_in_tail` read it, for `finish` to write.
    notice: Option<String>,
}

impl Run<'_> {
    /// The agent view, or `None` when the raw text passes through unchanged. A known value cut
    /// out of a longer token can leave a credential standing alone that the detectors did not
    /// read as one (`glued_in`): the run then starts over with it taken, as redacting the agent
    /// view again would take it (rule 10). An attempt reads the whole result again, and a chain
    /// of credentials glued one to the next is uncovered one link per attempt: past
    /// `MAX_ATTEMPTS` the result fails closed (`work_limit`) rather than cost that many times
    /// its reading (no data but a tool's own forgery glues credentials that deep).
    fn result(&mut self, raw_json: &str, options: &Options, labels: &mut Labels) -> Result<Option<Agent>, Error> {
        for _ in 0..MAX_ATTEMPTS {
            let mark = self.known.mark();
            let agent = self.attempt(raw_json, options, labels)?;
            // Each attempt finds only what no attempt found before, so they end.
            let found = match &agent {
                Some(agent) if self.known.overrun().is_none() => self.uncovered(agent),
                _ => Vec::new(),
            };
            if found.is_empty() {
                return Ok(agent);
            }
            self.start_over(mark, found);
        }
        let pointer = self.glued.last().map(|g| g.pointer.clone()).unwrap_or_default();
        let detail = "credentials glued one to the next, each uncovered by cutting out the one after it, would take more readings of the result than a call may make";
        Err(Error::new(ErrorCode::WorkLimit, pointer, detail))
    }

    /// What this attempt leaves for the next one to take first: credentials in the report's
    /// pointers and labels (copied from tool data), then, once the report is value-matched
    /// (`Collector::scrub_report`), credentials value matching left standing alone in the
    /// agent view and in what finishing adds.
    fn uncovered(&mut self, agent: &Agent) -> Vec<detected::Glued> {
        let mut found = detected::Uncovered::default();
        self.detect_in_report(&mut found);
        if found.list.is_empty() {
            self.collect.scrub_report(self.known.needles());
            self.glued_in(agent, &mut found);
            self.glued_in_tail(&mut found);
        }
        found.list
    }

    /// Back to where the run began, but for the credentials found glued, taken first next time.
    fn start_over(&mut self, mark: usize, found: Vec<detected::Glued>) {
        self.known.rollback(mark);
        self.glued.extend(found);
        self.streamed = false; // the next attempt is the DOM engine's (`attempt`)
        self.collect = Collector::default();
        self.detections = Default::default();
        self.reshaped = false;
        self.eval = Eval::new(&self.limits);
        self.content_at = None;
        self.cut = false;
        self.notice = None;
    }

    fn attempt(&mut self, raw_json: &str, options: &Options, labels: &mut Labels) -> Result<Option<Agent>, Error> {
        // What the detectors found glued the streaming engine does not know: the DOM takes it.
        let streaming = options.engine == Engine::Streaming && self.glued.is_empty();
        if let Some(scanned) = streaming.then(|| self.stream(raw_json, options)).flatten() {
            *labels = Labels::declared(self.tool.model());
            self.streamed = true;
            return self.take_streamed(scanned);
        }
        self.dom(raw_json, options, labels).map(|agent| agent.map(Agent::Value))
    }

    /// The DOM engine: the result parsed whole, walked, and written again.
    fn dom(&mut self, raw_json: &str, options: &Options, labels: &mut Labels) -> Result<Option<Value>, Error> {
        let raw = parse_result(raw_json, &options.limits)?;
        // Only text that could hold our parts is checked (the check re-serializes the value).
        self.own = (raw_json.contains("webmcp-redact/") || raw_json.contains("\"secret_reference\""))
            && self.known.written.wrote(self.tool.name(), &raw);
        // The result's own claims (trust annotations, SEP-1913 result annotations, in every
        // place a result carries them, and those of a result written as text inside it) only
        // add to the tool's: a result that says it is sensitive or untrusted is treated as one.
        let own = self.own;
        let mut read_text = |t: &str| call_result::tolerate_own(parse_embedded(t, &options.limits), own);
        let own_claims = claims::of_result(&raw, &mut read_text)?;
        let own_labels = own_claims.labels;
        *labels = Labels::declared(self.tool.model());
        labels.merge(&own_labels);
        let is_call_result = self.tool.reads_as_call_result(&raw);
        let spotlit = self.own && raw.pointer(UNTRUSTED_POINTER) == Some(&Value::Bool(true));
        self.spotlit = spotlit && self.tool.spotlight();
        let mark_untrusted = (self.tool.is_untrusted() || own_claims.untrusted) && !spotlit;
        let mode = self.tool.mode_for(own_labels.sensitivity);
        let mut agent = match raw {
            _ if mode == Mode::Withhold && self.own && only_library_parts(&raw, self.format) => return Ok(None),
            _ if mode == Mode::Withhold => self.withhold_whole(raw),
            Value::Object(mut result) if is_call_result => {
                let content = match result.shift_remove("content") {
                    Some(Value::Array(c)) => c,
                    _ => Vec::new(),
                };
                self.call_result(result, content, mode == Mode::Allowlist)?
            }
            value => self.structured(value, mode == Mode::Allowlist),
        };
        if let Some(e) = self.eval.take_error() {
            return Err(e); // the work limit: nothing of this result goes out
        }
        if mark_untrusted {
            self.mark_untrusted(&mut agent);
        }
        let wraps = (self.format == Format::Mcp || mark_untrusted) && !is_call_result;
        Ok((!self.collect.is_empty() || self.reshaped || wraps).then_some(agent))
    }

    /// Results from untrusted public sources carry `_meta["webmcp-redact/untrusted"]`, and with
    /// `spotlight` their text sits between delimiters it cannot close early.
    fn mark_untrusted(&mut self, agent: &mut Value) {
        self.reshaped = true;
        if self.tool.spotlight() {
            for block in agent.get_mut("content").and_then(Value::as_array_mut).into_iter().flatten() {
                if self.own && is_library_block(block) {
                    continue;
                }
                // A text block's text, and an embedded resource's (text a model reads all the same).
                let at = if block.pointer("/resource/text").is_some() { "/resource/text" } else { "/text" };
                if let Some(Value::String(text)) = block.pointer_mut(at) {
                    *text = spotlight(text);
                    // Value matching read the text before it was rewritten and wrapped: what
                    // that wrote next to a known value (a closing delimiter made `[/…]`, the
                    // delimiters themselves) is read as a second pass will read it.
                    self.scrub_spotlit_text(text, "");
                }
            }
        }
        if let Some(agent) = agent.as_object_mut() {
            let meta = agent.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(UNTRUSTED_KEY.into(), Value::Bool(true));
            }
        }
    }

    /// Moves `value` to the vault. What of it enters the known-secret set is `secret_strings`'
    /// rule; it is scrubbed from the rest of this result as well.
    fn take(&mut self, pointer: String, reason: Reason, label: String, value: Value) {
        let strings = secret_strings(&value, false);
        self.take_with(pointer, reason, label, value, strings);
    }

    /// An undeclared value's name is tool data the schema never declared: the agent sees a
    /// generic label, and the caller gives the pointer of the object that holds it (an array's
    /// element keeps its index: no tool data); the page's vault keeps the name. Only the caller
    /// knows a key from an index: a key of digits ("4111…") is a name too.
    fn take_with(&mut self, pointer: String, reason: Reason, label: String, value: Value, strings: Vec<String>) {
        let (pointer, shown) = match reason {
            Reason::Undeclared => (pointer, UNDECLARED_LABEL.to_string()),
            _ => (pointer, label.clone()),
        };
        for s in &strings {
            self.known.note(s, &shown);
        }
        self.collect.take(pointer, reason, shown, label, value, strings);
    }

    fn note(&mut self, pointer: String, reason: Reason, label: String) {
        self.cut |= reason == Reason::ValueMatch;
        if reason == Reason::ValueMatch && self.detections.get(&pointer).is_some_and(|l| l.contains(&label)) {
            return;
        }
        self.collect.note(pointer, reason, label);
    }

    /// Rule 4, no marks: one stub for the whole result. A result that withholds itself (its own
    /// claim) comes from a tool that published an `outputSchema`, which the stub, without
    /// `structuredContent`, does not satisfy: it is an error then, which MCP does not validate.
    fn withhold_whole(&mut self, raw: Value) -> Value {
        let is_error = raw.get("isError") == Some(&Value::Bool(true)) || self.tool.publishes_schema();
        self.take(String::new(), Reason::SensitiveTool, self.tool.result_label(), raw);
        let mut agent = vec![("content", Value::Array(vec![]))];
        if is_error {
            agent.push(("isError", Value::Bool(true)));
        }
        write::obj(agent)
    }

    /// A plain structured value V: walk it; if anything goes, wrap V' as a CallToolResult.
    fn structured(&mut self, mut value: Value, allowlist: bool) -> Value {
        self.walk_into(&mut value, "", allowlist);
        self.take_glued();
        self.detect(&value, "");
        self.wrap_structured(value)
    }

    /// The rest of [`Run::structured`] after the walk and the detectors: value matching, and
    /// the CallToolResult around what is left.
    fn wrap_structured(&mut self, mut value: Value) -> Value {
        let unsettled = self.known.needles().unsettled();
        self.scrub(&mut value, "");
        if value.is_null() && !self.collect.is_empty() {
            return write::obj(vec![("content", Value::Array(vec![]))]); // taken whole: the stub says it all
        }
        // Written out together, the scrubbed strings can spell a known value again: across
        // their seams, or where the writer escapes them. Where neither can happen the text
        // holds what they hold, nothing (`Needles::repeats_its_tokens`), and is not read again
        // (it was a twentieth of a dense result's instructions). Where only the writer's
        // escapes can, the views below them are not read (`Needles::scrub_json_settled`).
        let text = write::text(&value);
        let needles = self.known.needles();
        let text = match needles.settled(unsettled) {
            true if needles.repeats_its_tokens(&text, unsettled) => text,
            true => {
                let scrubbed = needles.scrub_json_settled(&text);
                self.json_text_as(text, scrubbed)
            }
            false => self.scrub_json_text(text),
        };
        let block = write::obj(vec![("type", "text".into()), ("text", text.into())]);
        let mut agent = vec![("content", Value::Array(vec![block]))];
        if value.is_object() {
            agent.push(("structuredContent", value));
        }
        write::obj(agent)
    }

    /// Walks a structured value with the schema, vaulting what it takes under `base`.
    fn walk_into(&mut self, value: &mut Value, base: &str, allowlist: bool) -> bool {
        let Some(schema) = self.tool.schema() else { return false };
        let taken = walk(schema, value, allowlist, self.own, &mut self.eval, base);
        let any = !taken.is_empty();
        for t in taken {
            let strings = secret_strings(&t.value, t.secret_keys);
            self.take_with(format!("{base}{}", t.pointer), t.reason, t.label, t.value, strings);
        }
        any
    }

    /// Value matching on every string of `value` (at `pointer`).
    pub(crate) fn scrub(&mut self, value: &mut Value, pointer: &str) -> bool {
        let needles = self.known.needles();
        if needles.is_empty() {
            return false;
        }
        let mut hits = Vec::new();
        needles.scrub_value(value, &mut pointer.to_string(), &mut hits);
        let any = !hits.is_empty();
        for hit in hits {
            for label in hit.labels {
                self.note(hit.pointer.clone(), Reason::ValueMatch, label);
            }
        }
        any
    }

    /// Value matching on the JSON text that stands for a structured value (its text block):
    /// as `scrub` on one string, but a marker that spans strings is not ours
    /// ([`Needles::scrub_json`]).
    pub(crate) fn scrub_json_text(&mut self, text: String) -> String {
        let scrubbed = self.known.needles().scrub_json(&text);
        self.json_text_as(text, scrubbed)
    }

    /// The text block `text` as `scrubbed`, its [`Needles::scrub_json`], leaves it, what was
    /// replaced noted.
    pub(crate) fn json_text_as(&mut self, text: String, scrubbed: Option<(String, Vec<String>)>) -> String {
        let Some((clean, labels)) = scrubbed else { return text };
        for label in labels {
            self.note(String::new(), Reason::ValueMatch, label);
        }
        clean
    }

    /// Value matching on the keys of one object of the result (the top of a CallToolResult, the
    /// top of `_meta`): what `scrub` does for nested objects.
    fn scrub_keys(&mut self, map: &mut serde_json::Map<String, Value>, pointer: &str, shape: &[&str]) {
        let mut hits = Vec::new();
        self.known.needles().scrub_keys(map, pointer, shape, &mut hits);
        for hit in hits {
            for label in hit.labels {
                self.note(hit.pointer.clone(), Reason::ValueMatch, label);
            }
        }
    }

    /// Value matching on our own text (a notice, an mcp stub): a match wholly inside our
    /// fixed wording is ignored, every other one applies.
    fn scrub_library_text(&mut self, text: &mut String, pointer: &str) {
        if let Some((clean, labels)) = scrub_outside_wording(self.known.needles(), text) {
            *text = clean;
            for label in labels {
                self.note(pointer.to_string(), Reason::ValueMatch, label);
            }
        }
    }

    /// Value matching on a text between spotlighting delimiters in a view we wrote
    /// ([`scrub_spotlit`]).
    fn scrub_spotlit_text(&mut self, text: &mut String, pointer: &str) {
        if let Some((clean, labels)) = scrub_spotlit(self.known.needles(), text) {
            *text = clean;
            for label in labels {
                self.note(pointer.to_string(), Reason::ValueMatch, label);
            }
        }
    }

    /// Value matching on the content fields of a block (never its type, audience or data),
    /// a text that is the structured value's JSON written again included: written out
    /// together, its matched strings can spell a known value again.
    fn scrub_block(&mut self, block: &mut Value, pointer: &str) {
        let library = self.own && is_library_block(block);
        if library && self.relabel_own_stub(block, pointer) {
            return;
        }
        let Value::Object(fields) = block else { return };
        for (key, value) in fields.iter_mut() {
            let k = key.as_str();
            let skip = STRUCTURAL.contains(&k) || (library && k == "_meta");
            if skip {
                continue;
            }
            let at = child(pointer, k);
            match (k, value) {
                ("text", Value::String(text)) if library => self.scrub_library_text(text, &at),
                ("text", Value::String(text)) if self.spotlit => self.scrub_spotlit_text(text, &at),
                ("resource", Value::Object(r)) => {
                    for (rk, rv) in r.iter_mut().filter(|(rk, _)| !STRUCTURAL.contains(&rk.as_str())) {
                        match rv {
                            Value::String(text) if self.spotlit && rk == "text" => {
                                self.scrub_spotlit_text(text, &child(&at, rk))
                            }
                            _ => drop(self.scrub(rv, &child(&at, rk))),
                        }
                    }
                }
                (_, v) => {
                    self.scrub(v, &at);
                }
            }
        }
    }
}

impl Run<'_> {
    /// Our own stub (either format) whose label now holds a known value (the label became a
    /// secret after the stub was written): written again with the fixed word, same handle.
    fn relabel_own_stub(&mut self, block: &mut Value, pointer: &str) -> bool {
        let own = block.get("_meta").and_then(|m| m.get(SECRET_KEY)).unwrap_or(block);
        let (Some(label), Some(handle)) =
            (own.get("label").and_then(Value::as_str), own.get("handle").and_then(Value::as_str))
        else {
            return false;
        };
        let shown = self.known.needles().display_label(label);
        if shown == label {
            return false;
        }
        let (shown, handle) = (shown.to_string(), handle.to_string());
        let format =
            if block.get("type").and_then(Value::as_str) == Some("text") { Format::Mcp } else { Format::Webmcp };
        *block = stub(format, &shown, &handle);
        self.note(pointer.to_string(), Reason::ValueMatch, shown);
        true
    }
}

/// `text` between spotlighting delimiters, with every closing delimiter of its own written
/// with brackets (`[/untrusted-content]`), so that it cannot close them early.
pub(crate) fn spotlight(text: &str) -> String {
    format!("{}\n{}\n{}", SPOTLIGHT.0, without_closers(text), SPOTLIGHT.1)
}

/// `text` with each delimiter of its own that a model may read as ours opened with a bracket:
/// a `<` (or `&lt;`) followed by `untrusted` in any case, after any spaces, `/` or `\`
/// (`</UNTRUSTED-CONTENT>`, `< /untrusted_content >`, `<//untrusted-content>`,
/// `</untrusted-content/>`; found by two reviews: first only the exact `</untrusted-content>`
/// was, then only a `>` right after the words). A closing one written as ours closes with a
/// bracket too (`[/untrusted-content]`). Linear: each `<` is read up to the first byte that
/// cannot follow.
fn without_closers(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 2);
    let (mut copied, mut from) = (0, 0);
    while let Some(k) = text[from..].find(['<', '&']) {
        let start = from + k;
        let open = if b[start] == b'<' {
            1
        } else if b[start..].starts_with(b"&lt;") {
            4
        } else {
            0
        };
        from = start + 1;
        if open == 0 || !names_untrusted(b, start + open) {
            continue;
        }
        out.push_str(&text[copied..start]);
        out.push('[');
        copied = start + open;
        if let Some(end) = closer_end(b, start).filter(|_| open == 1) {
            out.push_str(&text[copied..end - 1]);
            out.push(']');
            copied = end;
        }
        from = copied;
    }
    out.push_str(&text[copied..]);
    out
}

/// Spaces (vertical tab included), `/` and `\`, then `untrusted` in any case, at `at`?
fn names_untrusted(b: &[u8], at: usize) -> bool {
    let j = at + b[at..].iter().take_while(|&&c| c.is_ascii_whitespace() || matches!(c, 0x0b | b'/' | b'\\')).count();
    b.get(j..j + 9).is_some_and(|w| w.eq_ignore_ascii_case(b"untrusted"))
}

/// Where our closing delimiter, as a model may read it, that starts with the `<` at `start`
/// ends (past its `>`): spaces around the slash and before `>`, and `-`, `_` or a space
/// between the words.
fn closer_end(b: &[u8], start: usize) -> Option<usize> {
    let skip =
        |j: usize, also: &[u8]| j + b[j..].iter().take_while(|c| c.is_ascii_whitespace() || also.contains(c)).count();
    let word = |j: usize, w: &[u8]| b.get(j..j + w.len()).filter(|s| s.eq_ignore_ascii_case(w)).map(|_| j + w.len());
    let j = skip(start + 1, b"");
    let j = skip(b.get(j).filter(|&&c| c == b'/').map(|_| j + 1)?, b"");
    let j = skip(word(j, b"untrusted")?, b"-_");
    let j = skip(word(j, b"content")?, b"");
    (b.get(j) == Some(&b'>')).then_some(j + 1)
}

/// Value matching on a text between spotlighting delimiters: they are our wording and stay
/// whole (a known value "untrusted" inside one is ours; one reaching into one from the text is
/// cut up to it), so that a second pass finds them as they were written.
fn scrub_spotlit(needles: &crate::scrub::Needles, text: &str) -> Option<(String, Vec<String>)> {
    let (head, tail) = spotlit_span(text);
    needles.scrub_within(text, &[(head, tail)])
}

/// Where the text between spotlighting delimiters is in `text` (all of it when they are not
/// there as written).
pub(crate) fn spotlit_span(text: &str) -> (usize, usize) {
    let opened = text.strip_prefix(SPOTLIGHT.0).is_some_and(|t| t.starts_with('\n'));
    let head = if opened { SPOTLIGHT.0.len() + 1 } else { 0 };
    let close = SPOTLIGHT.1.len() + 1;
    let closed = text.strip_suffix(SPOTLIGHT.1).is_some_and(|t| t.ends_with('\n'));
    let tail = if closed && text.len() >= head + close { text.len() - close } else { text.len() };
    (head, tail)
}

/// A CallToolResult made only of what this library writes (in this format): a second pass
/// leaves it alone.
fn only_library_parts(raw: &Value, format: Format) -> bool {
    let Value::Object(r) = raw else { return false };
    r.iter().all(|(k, v)| match k.as_str() {
        "content" => v.as_array().is_some_and(|c| {
            c.iter().all(|b| is_library_block(b) && !(format == Format::Mcp && as_mcp_stub(b).is_some()))
        }),
        "_meta" => v.as_object().is_some_and(|m| m.keys().all(|k| is_library_key(k))),
        "isError" => true,
        _ => false,
    })
}
