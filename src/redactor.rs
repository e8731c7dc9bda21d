//! The redactor: the one object that holds state. It owns its configuration (validated once),
//! the compiled tools (a bounded cache keyed by the tool definition's JSON text), the
//! known-secret set, the sessions' labels and the handle issuer. The WebAssembly door wraps
//! exactly this object; JS holds none of its rules.

use crate::hash::{IdMap, TextMap};
use std::rc::Rc;

use serde_json::Value;

use crate::json::{parse_limited, top_level_string};
use crate::policy::check::{check_with, CheckResult};
use crate::policy::reference::Vault;
use crate::policy::session::Labels;
use crate::policy::Policy;
use crate::redact::{failed_outcome, name_shown, redact_with, withheld_view};
use crate::scrub::known::{KnownSecrets, Learned};
use crate::scrub::meter::{allowance, overrun_detail};
use crate::{CompiledTool, Error, ErrorCode, Format, HandleSource, Limits, Options, Outcome};

/// How many compiled tools a redactor keeps; the least recently used one goes first.
pub const TOOL_CACHE_SIZE: usize = 256;
/// And how many bytes they may hold together: what compiling each added to the heap where a
/// meter says ([`Redactor::set_heap_meter`]; the module's door counts its heap), else its
/// definition's length. A compiled tool takes 10 to 25 times its definition's bytes (measured on
/// 0.5 to 0.8 MB schemas), so the definition's length alone let a page keep hundreds of MiB. A
/// tool over the budget by itself is kept alone (see `ToolCache::insert`).
pub const TOOL_CACHE_BYTES: usize = 64 * 1024 * 1024;

/// Everything that decides how a redactor treats results and calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Config {
    pub format: Format,
    pub limits: Limits,
    pub policy: Policy,
}

/// A session's id; sessions live inside their redactor.
pub type SessionId = u32;

pub struct Redactor {
    config: Config,
    tools: ToolCache,
    known: KnownSecrets,
    sessions: IdMap<SessionId, Labels>,
    next_session: SessionId,
    handles: Box<dyn HandleSource>,
    /// Bytes live on the heap, if something counts them (see `set_heap_meter`).
    heap: Option<fn() -> usize>,
}

impl Redactor {
    pub fn new(config: Config, mut handles: Box<dyn HandleSource>) -> Redactor {
        let mut known = KnownSecrets::default();
        let mut key = [0u8; 16];
        handles.fill(&mut key);
        known.written.set_key(key);
        let sessions = IdMap::default();
        Redactor { config, tools: ToolCache::default(), known, sessions, next_session: 1, handles, heap: None }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A fresh 128-bit id, as 32 hex digits, from the redactor's handle source: the door names
    /// each result that issued handles with one (the vault's result id), drawn with its handles.
    pub fn new_id(&mut self) -> String {
        crate::redact::stubs::new_handle(self.handles.as_mut())
    }

    /// `live` tells the bytes live on the heap: the tool cache then counts what each compiled
    /// tool holds rather than its definition's length (see [`TOOL_CACHE_BYTES`]).
    pub fn set_heap_meter(&mut self, live: fn() -> usize) {
        self.heap = Some(live);
    }

    /// Compiles a tool definition (JSON text), or finds it compiled already. A definition that
    /// fails to compile is remembered with its error like one that compiles: compiling depends
    /// on the text and this redactor's fixed configuration alone, so it would fail the same way
    /// again, and a page that calls a broken 1 MB tool in a loop paid its compile every call.
    pub fn compile(&mut self, tool_json: &str) -> Result<Rc<CompiledTool>, Error> {
        if let Some(compiled) = self.tools.get(tool_json) {
            return compiled;
        }
        let before = self.heap.map(|live| live());
        let compiled = CompiledTool::compile_with(tool_json, &self.config.limits, &self.config.policy)
            .map(Rc::new)
            .map_err(|e| if e.tool.is_empty() { e.for_tool(&tool_name(tool_json)) } else { e });
        // What compiling left live (the tool, and its key once cached), at least the key's bytes.
        let held = before.zip(self.heap).map_or(0, |(before, live)| live().saturating_sub(before));
        self.tools.insert(tool_json, compiled.clone(), held.max(tool_json.len()));
        compiled
    }

    /// Redacts one raw result (JSON text). Never fails: a bad tool or result gives the withheld
    /// outcome. With a session, the result's labels join the session's.
    pub fn redact(&mut self, tool_json: &str, raw_json: &str, session: Option<SessionId>) -> Outcome {
        let tool = match self.compile(tool_json) {
            Ok(tool) => tool,
            Err(e) => {
                let mut outcome = failed_outcome(e);
                name_shown(&mut outcome, &self.known);
                return outcome;
            }
        };
        let options = Options { format: self.config.format, limits: self.config.limits, ..Options::default() };
        self.handles.new_call();
        let mut outcome = redact_with(&tool, raw_json, &options, self.handles.as_mut(), &mut self.known);
        outcome.learned = self.known.drain();
        if let Some(labels) = session.and_then(|id| self.sessions.get_mut(&id)) {
            labels.merge(&outcome.labels);
        }
        outcome
    }

    /// The pre-call decision for `tool` with `args_json`, given a session's labels (or none).
    pub fn check(
        &mut self,
        tool_json: &str,
        args_json: &str,
        session: Option<SessionId>,
    ) -> Result<CheckResult, Error> {
        self.check_with(tool_json, args_json, session, &Vault::default())
    }

    /// [`Redactor::check`], knowing what the page's vault holds (for secret references).
    pub fn check_with(
        &mut self,
        tool_json: &str,
        args_json: &str,
        session: Option<SessionId>,
        vault: &Vault,
    ) -> Result<CheckResult, Error> {
        let tool = self.compile(tool_json)?;
        let args: Value = parse_limited(args_json, &self.config.limits).map_err(|e| e.for_tool(tool.name()))?;
        let none = Labels::default();
        let labels = session.and_then(|id| self.sessions.get(&id)).unwrap_or(&none);
        let max_work = self.config.limits.max_work;
        let checked = self
            .metered(args_json, || check_with(tool.model(), &args, labels, &self.config.policy, &self.known, vault));
        // Arguments read only in part may hold a value: the call is not checked, so not made.
        checked.ok_or_else(|| {
            Error::new(ErrorCode::WorkLimit, String::new(), overrun_detail(max_work)).for_tool(tool.name())
        })
    }

    /// Runs `read` with value matching metered for an input of `input`'s size (see
    /// `scrub/meter.rs`); `None` if it read past the allowance, and so may have missed a value.
    fn metered<T>(&self, input: &str, read: impl FnOnce() -> T) -> Option<T> {
        let meter = self.known.meter();
        meter.allow(allowance(self.config.limits.max_work, input.len()));
        let out = read();
        let spent = meter.spent();
        meter.stop();
        (!spent).then_some(out)
    }

    /// The tool as the proposals' vocabulary describes it (see `CompiledTool::describe`).
    pub fn describe(&mut self, tool_json: &str) -> Result<Value, Error> {
        Ok(self.compile(tool_json)?.describe())
    }

    /// The `outputSchema` the agent is shown for this tool, or `None` (see
    /// [`CompiledTool::agent_schema`]).
    pub fn agent_schema(&mut self, tool_json: &str) -> Result<Option<Value>, Error> {
        let tool = self.compile(tool_json)?;
        // Compiling parsed it under the same limits: this parse cannot fail differently.
        let doc = parse_limited(tool_json, &self.config.limits)?;
        tool.agent_schema(&doc, &self.config.limits)
    }

    /// A value the user was given outside a redaction (a redeemed secret reference): it joins
    /// the known set, held by `handle`.
    pub fn learn(&mut self, handle: &str, label: &str, value: &str) {
        self.known.own(handle, value, label);
        self.known.drain(); // the caller knows what it told us
    }

    /// Puts back what an earlier core reported it learned (JS replays it into a fresh redactor
    /// after a trap): held by `learned.handle`, or pinned.
    pub fn remember(&mut self, learned: &Learned) {
        match &learned.handle {
            Some(h) => self.known.own(h, &learned.value, &learned.label),
            None => self.known.pin(&learned.value, &learned.label),
        }
        self.known.drain();
    }

    /// The vault entry `handle` was deleted: values only it held leave the known set.
    pub fn forget(&mut self, handle: &str) {
        self.known.forget(handle);
    }

    /// The vault entries of `handles` expired: their values stay known (pinned), the handles go,
    /// so that the set does not keep a record per call ever made.
    pub fn expire<'h>(&mut self, handles: impl IntoIterator<Item = &'h str>) {
        for handle in handles {
            self.known.expire(handle);
        }
    }

    /// The vault was cleared: the known set empties too.
    pub fn forget_all(&mut self) {
        self.known.clear();
    }

    /// The withheld view of a result of `tool_name` for `code`, naming the tool as the agent may
    /// read it (a name holding a known value masked).
    pub fn withheld_view(&self, tool_name: &str, code: ErrorCode) -> String {
        withheld_view(tool_name, code, &self.known)
    }

    /// The pointer of the first block for the user only among the messages inside
    /// `value_json` (a prompt's, a sampling request's), by the rule for a result's blocks; an
    /// MCP bridge withholds such a message. Text that cannot be read under the limits is an
    /// error (the caller withholds).
    pub fn user_only_message(&self, value_json: &str) -> Result<Option<String>, Error> {
        let value = crate::json::parse_result(value_json, &self.config.limits)?;
        Ok(crate::redact::blocks::user_only_in_messages(&value))
    }

    pub fn known(&self) -> &KnownSecrets {
        &self.known
    }

    /// `args_json` with every value the known set holds replaced by `[redacted: <label>]`: what
    /// a consent prompt may show of a call's arguments. Arguments that cannot be read, or not
    /// within the reading allowance (`scrub/meter.rs`), are `None`.
    pub fn scrub_known(&self, args_json: &str) -> Option<Value> {
        let mut args = parse_limited(args_json, &self.config.limits).ok()?;
        self.metered(args_json, || self.known.needles().scrub_value(&mut args, &mut String::new(), &mut Vec::new()))?;
        Some(args)
    }

    pub fn open_session(&mut self) -> SessionId {
        let id = self.next_session;
        self.next_session = self.next_session.wrapping_add(1).max(1);
        self.sessions.insert(id, Labels::default());
        id
    }

    pub fn close_session(&mut self, id: SessionId) {
        self.sessions.remove(&id);
    }

    pub fn session_labels(&self, id: SessionId) -> Option<&Labels> {
        self.sessions.get(&id)
    }

    /// Sets a session's labels: `reset` (to none), or a restore after a trap.
    pub fn set_session_labels(&mut self, id: SessionId, labels: Labels) -> bool {
        self.sessions.get_mut(&id).map(|l| *l = labels).is_some()
    }
}

/// The tool's name for an error message when its definition cannot be compiled (too large,
/// too deep, not JSON): read from the text without parsing all of it.
fn tool_name(tool_json: &str) -> String {
    top_level_string(tool_json, "name").unwrap_or_default()
}

/// A compiled tool, or why its definition does not compile.
type Compiled = Result<Rc<CompiledTool>, Error>;

/// Compiled tools (and failures) by the JSON text of their definition, least recently used
/// first out, each with the bytes it is counted for.
#[derive(Default)]
struct ToolCache {
    entries: TextMap<String, (Compiled, u64, usize)>,
    clock: u64,
    bytes: usize,
}

impl ToolCache {
    fn get(&mut self, key: &str) -> Option<Compiled> {
        self.clock += 1;
        let (tool, used, _) = self.entries.get_mut(key)?;
        *used = self.clock;
        Some(tool.clone())
    }

    /// A tool larger than the whole budget is kept alone, the others evicted: compiling it had
    /// that much live already (and a WebAssembly memory never shrinks), while not keeping it
    /// compiled it again on every call (a 1 MB `allOf` of 340,000 `{}` holds over 64 MiB: 3.5
    /// s a call in Node).
    fn insert(&mut self, key: &str, tool: Compiled, size: usize) {
        while self.entries.len() >= TOOL_CACHE_SIZE || self.bytes + size > TOOL_CACHE_BYTES {
            let Some(oldest) = self.entries.iter().min_by_key(|(_, e)| e.1).map(|(k, _)| k.clone()) else {
                break;
            };
            let (_, _, gone) = self.entries.remove(&oldest).expect("listed");
            self.bytes -= gone;
        }
        self.clock += 1;
        self.bytes += size;
        self.entries.insert(key.to_string(), (tool, self.clock, size));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ErrorCode;

    /// Handles from a counter, for tests of this crate that need a handle source.
    pub(crate) struct Counter(pub(crate) u64);
    impl HandleSource for Counter {
        fn fill(&mut self, b: &mut [u8; 16]) {
            self.0 += 1;
            b[..8].copy_from_slice(&self.0.to_be_bytes());
        }
    }

    fn redactor() -> Redactor {
        Redactor::new(Config::default(), Box::new(Counter(0)))
    }

    const TOOL: &str = r#"{"name":"creds","outputSchema":{"properties":{"login":{"x-sensitive":true}}}}"#;
    const PLAIN: &str = r#"{"name":"search"}"#;

    #[test]
    fn a_nested_secret_is_scrubbed_from_the_next_result_of_another_tool() {
        let mut r = redactor();
        let first = r.redact(TOOL, r#"{"login":{"user":"ann","password":"hunter2-nested"}}"#, None);
        assert_eq!(first.secrets.len(), 1);
        let next = r.redact(PLAIN, r#"{"content":[{"type":"text","text":"pw hunter2-nested"}]}"#, None);
        assert!(!next.agent_json.contains("hunter2-nested"), "{}", next.agent_json);
    }

    #[test]
    fn forget_and_forget_all_take_values_out_of_the_set() {
        let mut r = redactor();
        let out = r.redact(TOOL, r#"{"login":"sk_live_forget_me"}"#, None);
        assert_eq!(r.known().len(), 1);
        r.forget(&out.secrets[0].handle);
        assert!(r.known().is_empty());
        r.learn("h", "code", "123456789");
        r.forget_all();
        assert!(r.known().is_empty());
    }

    #[test]
    fn ten_thousand_calls_returning_one_secret_keep_one_value_and_no_expired_handle() {
        let mut r = redactor();
        let mut records = 0;
        let mut live = std::collections::VecDeque::new();
        for _ in 0..10_000 {
            let out = r.redact(TOOL, r#"{"login":"sk_live_THE_SAME_KEY_every_time"}"#, None);
            records += out.learned.len();
            live.push_back(out.secrets[0].handle.clone());
            if live.len() > 10 {
                let expired = live.pop_front().unwrap();
                r.expire([expired.as_str()]);
            }
        }
        assert_eq!(records, 10_000, "one record per handle issued, each once");
        assert_eq!(r.known().len(), 1);
        assert_eq!(r.known().holdings(), 10, "the live handles' holdings only");
        r.expire(live.iter().map(String::as_str));
        assert_eq!(r.known().holdings(), 0);
        let next = r.redact(PLAIN, r#"{"content":[{"type":"text","text":"sk_live_THE_SAME_KEY_every_time"}]}"#, None);
        assert!(!next.agent_json.contains("sk_live_THE_SAME"), "still known: {}", next.agent_json);
    }

    #[test]
    fn the_set_is_used_by_check() {
        let mut r = redactor();
        r.redact(TOOL, r#"{"login":"sk_live_egress"}"#, None);
        let post = r#"{"name":"post","annotations":{"openWorldHint":true,"readOnlyHint":false}}"#;
        let c = r.check(post, r#"{"body":"sk_live_egress"}"#, None).unwrap();
        assert!(c.reasons.iter().any(|x| x.rule.code() == "secret_egress"));
    }

    #[test]
    fn sessions_accumulate_labels_and_reset() {
        let mut r = redactor();
        let s = r.open_session();
        r.redact(PLAIN, r#"{"content":[],"_meta":{"privateHint":true}}"#, Some(s));
        assert!(r.session_labels(s).unwrap().private);
        assert!(r.set_session_labels(s, Labels::default()));
        assert!(!r.session_labels(s).unwrap().private);
        r.close_session(s);
        assert!(r.session_labels(s).is_none());
    }

    #[test]
    fn with_a_heap_meter_the_tool_cache_counts_what_compiling_left_live() {
        thread_local! { static HEAP: std::cell::Cell<usize> = const { std::cell::Cell::new(0) } }
        // Each read finds 5 MiB more live: every compile is counted at 5 MiB, whatever its text.
        fn growing() -> usize {
            HEAP.with(|h| {
                h.set(h.get() + (5 << 20));
                h.get()
            })
        }
        let mut r = redactor();
        r.set_heap_meter(growing);
        for i in 0..20 {
            r.compile(&format!(r#"{{"name":"t{i}"}}"#)).unwrap();
        }
        let fit = TOOL_CACHE_BYTES / (5 << 20);
        assert_eq!(r.tools.entries.len(), fit);
        assert_eq!(r.tools.bytes, fit * (5 << 20));
        assert!(r.tools.entries.contains_key(r#"{"name":"t19"}"#) && !r.tools.entries.contains_key(r#"{"name":"t0"}"#));
    }

    #[test]
    fn the_tool_cache_is_bounded_and_names_tools_it_cannot_compile() {
        let mut r = redactor();
        for i in 0..TOOL_CACHE_SIZE + 10 {
            r.compile(&format!(r#"{{"name":"t{i}"}}"#)).unwrap();
        }
        assert_eq!(r.tools.entries.len(), TOOL_CACHE_SIZE);
        let big = |i: usize| format!(r#"{{"name":"b{i}","description":"{}"}}"#, "x".repeat(TOOL_CACHE_BYTES / 3));
        // 256 small tools, then five of a third of the budget each: two fit.
        for i in 0..5 {
            r.compile(&big(i)).unwrap();
        }
        assert!(r.tools.entries.keys().all(|k| k.len() > TOOL_CACHE_BYTES / 3), "the small ones went first");
        assert!(r.tools.bytes <= TOOL_CACHE_BYTES, "the byte budget holds");
        assert_eq!(r.tools.bytes, r.tools.entries.keys().map(String::len).sum::<usize>());
        assert_eq!(r.tools.entries.len(), 2, "without a heap meter, a tool counts its definition's bytes");
        let deep = format!(r#"{{"outputSchema":{}{},"name":"deep"}}"#, "[".repeat(600), "]".repeat(600));
        let e = r.compile(&deep).err().unwrap();
        assert_eq!((e.code, e.tool.as_str()), (ErrorCode::DepthLimit, "deep"));
    }
}
