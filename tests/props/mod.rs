//! Shared by the property tests (`tests/properties.rs`, which must pass, and
//! `tests/properties_open.rs`, the properties that fail on today's code): the generated cases,
//! how one is run through a `Redactor`, and the checks.
//!
//! Runs are reproducible: the RNG seed is fixed (`WEBMCP_PROPTEST_SEED`, else
//! `PROPTEST_RNG_SEED`, else [`DEFAULT_SEED`]) and printed, and so is the number of cases per
//! property (`WEBMCP_PROPTEST_CASES`, else [`DEFAULT_CASES`]). A failure is shrunk to a minimal
//! case, whose tool, raw result and agent view the failure message prints; proptest also saves
//! it under `proptest-regressions/` and replays it first on the next run.
#![allow(dead_code)]

pub mod echo;
pub mod mcp;
pub mod shape;

use std::io::Write;

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence, RngSeed, TestCaseError};
use serde_json::{json, Value};
use webmcp_redact::{withheld_result, Config, Format, HandleSource, Limits, Outcome, Redactor};

use echo::{Dup, Echo, Envelope, Form, Plan, Site};
use shape::{Body, Canaries, Mark, Plain, Shape};

pub const DEFAULT_SEED: u64 = 20_260_522;
/// Cases per property in a plain `cargo test` (debug): well under a minute for the suite.
pub const DEFAULT_CASES: u32 = 256;

fn env_number(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(v.trim().parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")))
}

/// The proptest configuration every property uses; prints the seed and case count (outside the
/// test harness's capture, so they show even when the test passes).
pub fn config(test: &str) -> ProptestConfig {
    let cases = env_number("WEBMCP_PROPTEST_CASES").map_or(DEFAULT_CASES, |n| n as u32);
    let seed = env_number("WEBMCP_PROPTEST_SEED").or_else(|| env_number("PROPTEST_RNG_SEED")).unwrap_or(DEFAULT_SEED);
    let line = format!("[{test}] proptest seed {seed} (WEBMCP_PROPTEST_SEED), {cases} cases (WEBMCP_PROPTEST_CASES)\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        max_shrink_iters: 4096,
        // Next to the test file: tests/properties.proptest-regressions.
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    }
}

/// Handles from a counter, so that runs are reproducible. Never a `CNRY` token.
pub struct Counter(pub u64);

impl HandleSource for Counter {
    fn fill(&mut self, bytes: &mut [u8; 16]) {
        self.0 += 1;
        bytes[..8].copy_from_slice(&self.0.to_be_bytes());
        bytes[8..].copy_from_slice(&[0xc3; 8]);
    }
}

pub fn redactor(format: Format, limits: Limits) -> Redactor {
    Redactor::new(Config { format, limits, ..Config::default() }, Box::new(Counter(0)))
}

pub fn format() -> impl Strategy<Value = Format> {
    prop_oneof![Just(Format::Webmcp), Just(Format::Mcp)]
}

/// Leak classes the review found that generic cases rarely reach: `into_class` forces a case
/// into one, and `tests/properties_open.rs` runs the properties there. All are closed now; each
/// variant says what leaked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Open {
    /// "mcp" format, a structuredContent that is not an object (an array, a string):
    /// structuredContent is dropped as `not_mcp` without being walked, so its marked values are
    /// never taken nor learned, and every echo of them (its JSON duplicated in a text block, any
    /// other text) reaches the agent.
    McpNonObjectStructured,
    /// A structuredContent marked as a whole (its root schema, or an `anyOf` branch or `$ref`
    /// of it, carries the mark): the agent view keeps `"structuredContent": null`, which the
    /// MCP SDK's CallToolResultSchema rejects in the "mcp" format; and when the value is a
    /// scalar its duplicate text is value-matched, not regenerated, so a second pass (no
    /// structuredContent now) walks that text as the structured value and takes it again.
    StructuredMarkedWhole,
    /// Allowlist mode (`sensitiveHint: true` with marks): a property the schema does not
    /// declare is taken with its key as the label, and the stub's label is not value-matched
    /// (the report's and the notice's are): a key that is a secret reaches the agent in a stub.
    KeyAsLabel,
    /// Keys at the top of a CallToolResult and of its `_meta` are not value-matched (values
    /// are, and keys further down are).
    TopLevelKeys,
    /// A JSON text block (the structured value's JSON with no structuredContent beside it)
    /// holding a value that is already JSON- or `\u`-escaped once: the text then holds the
    /// canary escaped twice more, and value matching, which scans the block's text rather than
    /// the strings inside its JSON, knows only JSON-in-JSON.
    EscapedInJsonText,
}

impl Plan {
    /// The same plan moved into a plan-level `class`: one more echo that puts it there.
    pub fn into_class(mut self, class: Open) -> Plan {
        let (site, form) = match class {
            Open::EscapedInJsonText => {
                self.envelope = Envelope::TextOnly;
                let forms = [Form::JsonInJson, Form::JsonSolidus, Form::PythonAscii];
                (Site::StructuredProp, forms[self.echoes.len() % forms.len()])
            }
            Open::TopLevelKeys => {
                if self.envelope == Envelope::Plain {
                    self.envelope = Envelope::Structured(Dup::Compact);
                }
                ([Site::TopLevelKey, Site::MetaKeyDirect][self.echoes.len() % 2], Form::Verbatim)
            }
            _ => return self,
        };
        self.echoes.push(Echo { canary: self.echoes.len() as u16, site, form, front: false });
        self
    }
}

fn escaped_in_structured(e: &echo::Echo) -> bool {
    matches!(e.site, Site::StructuredProp | Site::StructuredKey)
        && matches!(e.form, Form::JsonInJson | Form::JsonSolidus | Form::PythonAscii | Form::GoHtml)
}

/// One tool (a generated schema, `sensitiveHint: true` sometimes) and one raw result of it.
#[derive(Clone, Debug)]
pub struct Case {
    pub root: Shape,
    pub sensitive: bool,
    pub format: Format,
    pub plan: Plan,
}

/// A case written out as the JSON texts the core takes.
pub struct Built {
    pub tool: String,
    pub name: String,
    pub raw: String,
    /// This result's canaries.
    pub canaries: Vec<String>,
}

pub const TOOL_NAME: &str = "gen_tool";

pub fn tool_json(root: &Shape, sensitive: bool) -> Value {
    let mut tool = json!({ "name": TOOL_NAME, "description": "generated", "outputSchema": shape::output_schema(root) });
    if sensitive {
        tool["annotations"] = json!({ "sensitiveHint": true });
    }
    tool
}

impl Case {
    /// The same case moved into `class` (and out of every other): what its open property runs on.
    pub fn into_class(mut self, class: Open) -> Case {
        let structured = |p: &mut Plan| {
            if !matches!(p.envelope, Envelope::Structured(_)) {
                p.envelope = Envelope::Structured(Dup::Compact);
            }
        };
        match class {
            Open::McpNonObjectStructured => {
                self.format = Format::Mcp;
                structured(&mut self.plan);
                if self.root.is_object() || self.root.may_be_marked_whole() {
                    self.root = Shape::Prefix { items: vec![self.root], rest: None };
                }
            }
            Open::StructuredMarkedWhole => {
                structured(&mut self.plan);
                if !self.root.is_object() {
                    self.root = Shape::Object(vec![self.root]);
                }
                let whole = Shape::Secret { mark: Mark::Untyped, body: Body::Str, deco: 0, titled: false };
                self.root = Shape::AnyOf { branches: vec![whole, self.root], pick: 1 };
            }
            Open::KeyAsLabel => {
                self.sensitive = true;
                let secret = Shape::Secret { mark: Mark::True, body: Body::Str, deco: 0, titled: false };
                let extra = Box::new(Shape::Object(vec![secret]));
                self.root = Shape::Additional { declared: vec![self.root], extra, keys: 1 };
                self.plan.echoes.push(Echo {
                    canary: 0,
                    site: Site::StructuredKey,
                    form: Form::Verbatim,
                    front: false,
                });
            }
            Open::EscapedInJsonText | Open::TopLevelKeys => self.plan = self.plan.into_class(class),
        }
        self
    }

    /// The same case for a sensitive tool with marks (allowlist mode), with a declared string
    /// property for a value of the raw result's own (`Plain::Slot`), out of the open classes.
    pub fn allowlisted(mut self) -> Case {
        self.sensitive = true;
        let secret = Shape::Secret { mark: Mark::True, body: Body::Str, deco: 0, titled: false };
        self.root = Shape::Object(vec![Shape::Plain(Plain::Slot), self.root, secret]);
        if self.plan.envelope == Envelope::Plain {
            self.plan.envelope = Envelope::Structured(Dup::Compact);
        }
        self
    }

    pub fn build(&self, counter: &mut Canaries) -> Built {
        let first = counter.all.len();
        let inst = shape::instance(&self.root, counter);
        let marked = counter.all[first..].to_vec();
        let raw = echo::raw(inst, &marked, &self.plan, &mut || counter.fresh(0));
        Built {
            tool: tool_json(&self.root, self.sensitive).to_string(),
            name: TOOL_NAME.into(),
            raw: echo::text(&raw, self.plan.pretty),
            canaries: counter.all[first..].to_vec(),
        }
    }
}

pub fn case(sites: &'static [Site], forms: &'static [Form], echoes: usize) -> impl Strategy<Value = Case> {
    let sensitive = prop_oneof![3 => Just(false), 1 => Just(true)];
    (shape::root_shape(), sensitive, format(), echo::plan(sites, forms, echoes))
        .prop_map(|(root, sensitive, format, plan)| Case { root, sensitive, format, plan })
}

/// A case whose raw result echoes each of `required` at least once.
pub fn case_with(
    required: &'static [Site],
    sites: &'static [Site],
    forms: &'static [Form],
    echoes: usize,
) -> impl Strategy<Value = Case> {
    let sensitive = prop_oneof![3 => Just(false), 1 => Just(true)];
    (shape::root_shape(), sensitive, format(), echo::plan_with(required, sites, forms, echoes))
        .prop_map(|(root, sensitive, format, plan)| Case { root, sensitive, format, plan })
}

/// The second tool of a carry-over: it marks nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Other {
    /// No outputSchema: only value matching applies.
    NoSchema,
    /// A schema without marks.
    Unmarked,
    /// `sensitiveHint: true` without marks: the whole result is withheld.
    SensitiveNoMarks,
}

impl Other {
    pub fn tool(self) -> Value {
        match self {
            Other::NoSchema => json!({ "name": "other_tool" }),
            Other::Unmarked => json!({
                "name": "other_tool",
                "outputSchema": { "type": "object", "properties": { "status": { "type": "string" } } },
            }),
            Other::SensitiveNoMarks => json!({ "name": "other_tool", "annotations": { "sensitiveHint": true } }),
        }
    }
}

/// Two calls on one redactor: `first`, then a result of another, unmarked tool that echoes the
/// first result's canaries.
#[derive(Clone, Debug)]
pub struct Carry {
    pub first: Case,
    pub other: Other,
    pub plan: Plan,
}

pub fn carry(sites: &'static [Site], forms: &'static [Form], echoes: usize) -> impl Strategy<Value = Carry> {
    (case(echo::CLAIMED_SITES, echo::CLAIMED_FORMS, 4), other(), later(echo::plan(sites, forms, echoes)))
        .prop_map(|(first, other, plan)| Carry { first, other, plan })
}

fn other() -> impl Strategy<Value = Other> {
    prop_oneof![Just(Other::NoSchema), Just(Other::Unmarked), Just(Other::SensitiveNoMarks)]
}

/// A later result's plan: sometimes only the echoes (no structured value beside them).
fn later(plans: impl Strategy<Value = Plan>) -> impl Strategy<Value = Plan> {
    (plans, prop_oneof![3 => Just(false), 1 => Just(true)]).prop_map(|(mut p, bare)| {
        if bare {
            p.envelope = Envelope::Bare;
        }
        p
    })
}

/// Like [`carry`], the second result echoing each of `required` at least once.
pub fn carry_with(
    required: &'static [Site],
    sites: &'static [Site],
    forms: &'static [Form],
    echoes: usize,
) -> impl Strategy<Value = Carry> {
    let plans = later(echo::plan_with(required, sites, forms, echoes));
    (case(echo::CLAIMED_SITES, echo::CLAIMED_FORMS, 4), other(), plans).prop_map(|(first, other, plan)| Carry {
        first,
        other,
        plan,
    })
}

/// Like [`carry`], the second result's plan moved into the plan-level `class`.
pub fn carry_in(class: Open, sites: &'static [Site], forms: &'static [Form]) -> impl Strategy<Value = Carry> {
    (case(echo::CLAIMED_SITES, echo::CLAIMED_FORMS, 4), other(), later(echo::plan(sites, forms, 4)))
        .prop_map(move |(first, other, plan)| Carry { first, other, plan: plan.into_class(class) })
}

/// What to print about a failing call.
pub fn trace(what: &str, tool: &str, raw: &str, o: &Outcome) -> String {
    format!("{what}\n  tool:  {tool}\n  raw:   {raw}\n  agent: {}\n  error: {:?}", o.agent_json, o.error)
}

/// Holds for every outcome: the agent view is JSON; in the mcp format a CallToolResult the SDK
/// accepts; an error gives exactly the withheld view of the tool it names.
pub fn check_outcome(o: &Outcome, name: &str, format: Format, tool: &str, raw: &str) -> Result<(), TestCaseError> {
    let agent: Value = serde_json::from_str(&o.agent_json)
        .map_err(|e| TestCaseError::fail(trace(&format!("the agent view is not JSON: {e}"), tool, raw, o)))?;
    if format == Format::Mcp {
        if let Err(e) = mcp::check_call_tool_result(&agent) {
            return Err(TestCaseError::fail(trace(&format!("not an MCP CallToolResult: {e}"), tool, raw, o)));
        }
    }
    if let Some(e) = &o.error {
        let want = withheld_result(name, e.code);
        if o.agent_json != want || e.tool != name || !o.withheld {
            let msg =
                format!("an error ({}) must give exactly {want} (tool {:?}, withheld {})", e.code, e.tool, o.withheld);
            return Err(TestCaseError::fail(trace(&msg, tool, raw, o)));
        }
    }
    Ok(())
}

/// No `CNRY<n>xq` token, so no canary in any form, is in the agent view.
pub fn check_no_canary(o: &Outcome, tool: &str, raw: &str) -> Result<(), TestCaseError> {
    let found = shape::canary_tokens(&o.agent_json);
    if found.is_empty() {
        Ok(())
    } else {
        Err(TestCaseError::fail(trace(&format!("canaries reached the agent: {found:?}"), tool, raw, o)))
    }
}

/// Redacting the agent view again with the same redactor changes nothing, byte for byte.
pub fn check_idempotent(r: &mut Redactor, o: &Outcome, tool: &str, raw: &str) -> Result<(), TestCaseError> {
    if o.error.is_some() {
        return Ok(()); // the withheld view is the tool's result no more: rule 10 is about redacted results
    }
    let again = r.redact(tool, &o.agent_json, None);
    if again.agent_json == o.agent_json {
        Ok(())
    } else {
        let msg = format!("a second pass changed the agent view:\n  second: {}", again.agent_json);
        Err(TestCaseError::fail(trace(&msg, tool, raw, o)))
    }
}

/// One case through a fresh redactor: the outcome checks, then `no canary` and idempotence as
/// asked.
pub fn run_case(c: &Case, no_canary: bool, idempotent: bool) -> Result<(Redactor, Built), TestCaseError> {
    let mut counter = Canaries::default();
    let b = c.build(&mut counter);
    let mut r = redactor(c.format, Limits::default());
    let o = r.redact(&b.tool, &b.raw, None);
    check_outcome(&o, &b.name, c.format, &b.tool, &b.raw)?;
    if no_canary {
        check_no_canary(&o, &b.tool, &b.raw)?;
    }
    if idempotent {
        check_idempotent(&mut r, &o, &b.tool, &b.raw)?;
    }
    Ok((r, b))
}

/// A carry-over: the first call (all checks), then the other tool's result echoing the first
/// one's canaries, which must not reach the agent either.
pub fn run_carry(c: &Carry, idempotent: bool) -> Result<(), TestCaseError> {
    let (mut r, first) = run_case(&c.first, true, false)?;
    let tool = c.other.tool().to_string();
    let mut none = || unreachable!("a later result echoes the first one's canaries only");
    let raw = echo::raw(json!({ "status": "ok" }), &first.canaries, &c.plan, &mut none);
    let raw = echo::text(&raw, c.plan.pretty);
    let o = r.redact(&tool, &raw, None);
    let context = format!("{}\n  (after the first call)\n  tool:  {}\n  raw:   {}", "", first.tool, first.raw);
    let with_first = |e: TestCaseError| match e {
        TestCaseError::Fail(m) => TestCaseError::fail(format!("{m}{context}")),
        other => other,
    };
    check_outcome(&o, "other_tool", c.first.format, &tool, &raw).map_err(with_first)?;
    check_no_canary(&o, &tool, &raw).map_err(with_first)?;
    if idempotent {
        check_idempotent(&mut r, &o, &tool, &raw).map_err(with_first)?;
    }
    Ok(())
}

/// Ways to make a redaction fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The raw text cut short.
    Truncate(u16),
    /// Text after the raw JSON.
    Trailing,
    /// `maxDepth: 3`.
    TinyDepth,
    /// `maxInputBytes: 200`.
    TinySize,
    /// `maxRefHops: 0` (any `$ref`).
    NoRefHops,
    /// `"x-sensitive": 1` in the schema.
    BadMark,
    /// A `$ref` to another document.
    RemoteRef,
    /// A `$ref` to nothing.
    DanglingRef,
    /// An empty tool name.
    EmptyName,
    /// Text after the tool definition's JSON.
    ToolTrailing,
}

pub fn fault() -> impl Strategy<Value = Fault> {
    prop_oneof![
        2 => any::<u16>().prop_map(Fault::Truncate),
        1 => Just(Fault::Trailing),
        1 => Just(Fault::TinyDepth),
        1 => Just(Fault::TinySize),
        1 => Just(Fault::NoRefHops),
        1 => Just(Fault::BadMark),
        1 => Just(Fault::RemoteRef),
        1 => Just(Fault::DanglingRef),
        1 => Just(Fault::EmptyName),
        1 => Just(Fault::ToolTrailing),
    ]
}

/// A case with a fault: no canary reaches the agent, and an error gives exactly the withheld view.
pub fn run_fault(c: &Case, f: Fault) -> Result<(), TestCaseError> {
    let mut counter = Canaries::default();
    let b = c.build(&mut counter);
    let mut tool: Value = serde_json::from_str(&b.tool).unwrap();
    let mut raw = b.raw.clone();
    let mut limits = Limits::default();
    let mut name = b.name.clone();
    let mut tool_text = None;
    match f {
        Fault::Truncate(n) => {
            let mut cut = usize::from(n) % raw.len().max(1);
            while !raw.is_char_boundary(cut) {
                cut -= 1;
            }
            raw.truncate(cut);
        }
        Fault::Trailing => raw.push_str(" {}"),
        Fault::TinyDepth => limits.max_depth = 3,
        Fault::TinySize => limits.max_input_bytes = 200,
        Fault::NoRefHops => limits.max_ref_hops = 0,
        Fault::BadMark => tool["outputSchema"]["properties"] = json!({ "bad": { "x-sensitive": 1 } }),
        Fault::RemoteRef => tool["outputSchema"]["allOf"] = json!([{ "$ref": "https://schemas.example/x.json" }]),
        Fault::DanglingRef => tool["outputSchema"]["allOf"] = json!([{ "$ref": "#/$defs/missing" }]),
        Fault::EmptyName => {
            tool["name"] = json!("");
            name = String::new();
        }
        Fault::ToolTrailing => tool_text = Some(format!("{tool} x")),
    }
    let tool = tool_text.unwrap_or_else(|| tool.to_string());
    let mut r = redactor(c.format, limits);
    let o = r.redact(&tool, &raw, None);
    check_outcome(&o, &name, c.format, &tool, &raw)?;
    check_no_canary(&o, &tool, &raw)
}

/// `property!(fn name(v in strategy) { body })`: a test that runs `body` (returning
/// `Result<(), TestCaseError>`) on every generated `v`, with [`config`] (seed and case count
/// printed, failures shrunk, persisted under `proptest-regressions/`).
#[macro_export]
macro_rules! property {
    ($(#[$m:meta])* fn $name:ident($v:ident in $s:expr) $body:block) => {
        $(#[$m])*
        #[test]
        fn $name() {
            let mut config = props::config(stringify!($name));
            config.source_file = Some(file!());
            config.test_name = Some(concat!(module_path!(), "::", stringify!($name)));
            let mut runner = proptest::test_runner::TestRunner::new(config);
            let result = runner.run(&$s, |$v| $body);
            if let Err(e) = result {
                panic!("{e}\n{runner}");
            }
        }
    };
}
