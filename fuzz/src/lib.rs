//! What the fuzz targets share: how an input is split into its JSON texts, and the properties
//! checked on every outcome (besides "no panic"): the agent view is JSON; an error gives
//! exactly the withheld view of the tool it names; otherwise redacting the agent view again
//! with the same redactor changes nothing, byte for byte.
//!
//! An input is UTF-8 text (JS hands the core nothing else), its parts separated by NUL bytes,
//! which valid JSON text never holds: `tool \0 raw` for `redact`, `options \0 tool \0 raw` for
//! `redact_json`, `tool \0 args \0 earlier raw` for `check`. `scripts/fuzz.mjs` writes the
//! seeds in that form from the conformance vectors.

use serde_json::Value;
use webmcp_redact::{withheld_result, Config, Format, HandleSource, Outcome, Reason, Redactor};

/// Handles from a counter: a crash must reproduce.
pub struct Counter(pub u64);

impl HandleSource for Counter {
    fn fill(&mut self, bytes: &mut [u8; 16]) {
        self.0 += 1;
        bytes[..8].copy_from_slice(&self.0.to_be_bytes());
        bytes[8..].copy_from_slice(&[0x5a; 8]);
    }
}

pub fn redactor(config: Config) -> Redactor {
    Redactor::new(config, Box::new(Counter(0)))
}

pub fn redactor_for(format: Format) -> Redactor {
    redactor(Config { format, ..Config::default() })
}

/// The first `N` NUL-separated parts of `data` (missing ones empty), or `None` when `data` is
/// not UTF-8.
pub fn parts<const N: usize>(data: &[u8]) -> Option<[&str; N]> {
    let text = std::str::from_utf8(data).ok()?;
    let mut out = [""; N];
    let mut split = text.splitn(N, '\0');
    for slot in out.iter_mut() {
        *slot = split.next().unwrap_or("");
    }
    Some(out)
}

/// The properties of one outcome of `r.redact(tool, raw, session)`.
pub fn check_outcome(r: &mut Redactor, tool: &str, raw: &str, o: &Outcome) {
    let context = || format!("\n  tool:  {tool}\n  raw:   {raw}\n  agent: {}\n  error: {:?}", o.agent_json, o.error);
    // The core's own reading: what JSON.parse accepts (a lone surrogate escape passes through).
    if let Err(e) = webmcp_redact::parse_json(&o.agent_json) {
        panic!("the agent view is not JSON ({e}){}", context());
    }
    match &o.error {
        Some(e) => {
            let want = withheld_result(&e.tool, e.code);
            assert!(o.withheld && o.agent_json == want, "an error must give exactly {want}{}", context());
            assert!(o.secrets.is_empty() && o.redactions.is_empty(), "an error leaves nothing to reveal{}", context());
        }
        None => {
            let again = r.redact(tool, &o.agent_json, None);
            if again.agent_json != o.agent_json && known_open(o, &again).is_none() {
                panic!("a second pass changed the agent view{}\n  second: {}", context(), again.agent_json);
            }
        }
    }
}

/// Idempotence failures of a class already reported (fuzz/README.md, with reproducers in
/// fuzz/artifacts-found/): skipped, so that a fuzz run looks for new ones and CI stays green
/// until they are fixed. `WEBMCP_FUZZ_STRICT=1` reports them too. Each test reads the outcome,
/// not the input, and errs towards skipping no more than its class.
pub fn known_open(first: &Outcome, again: &Outcome) -> Option<&'static str> {
    if std::env::var("WEBMCP_FUZZ_STRICT").is_ok_and(|v| v == "1") {
        return None;
    }
    let agent: Value = webmcp_redact::parse_json(&first.agent_json).ok()?;
    // A structuredContent marked whole stays as null; a second pass finds the value's
    // value-matched text and walks it as the structured value (tests/properties_open.rs,
    // StructuredMarkedWhole).
    if agent.get("structuredContent").is_some_and(Value::is_null) {
        return Some("structured_marked_whole");
    }
    // A label holds a known value: the report's copy is value-matched, but `[redacted: <label>]`
    // replacements and stub labels carry it, and every pass nests it again.
    if first.redactions.iter().any(|r| r.label.contains("[redacted: ")) {
        return Some("label_holds_secret");
    }
    // Allowlist mode: a value taken from an undeclared member at the top of the result or of its
    // `_meta` is learned after the blocks and structuredContent were value-matched, so its
    // copies there stay; the next pass scrubs them (tests/properties_open.rs,
    // open_undeclared_*_taken_after_the_blocks).
    let late = |p: &str| !p.is_empty() && !p.starts_with("/content") && !p.starts_with("/structuredContent");
    if first.redactions.iter().any(|r| r.reason == Reason::Undeclared && late(&r.pointer))
        && again.redactions.iter().any(|r| r.reason == Reason::ValueMatch)
    {
        return Some("taken_after_the_blocks");
    }
    // A text the library composes after value matching (the JSON text of a structured value,
    // the notice's list of labels) spells a known value again out of other parts (a secret
    // holding JSON syntax such as `:"k48",`, or ending in ", "); the next pass value-matches it.
    let second: Value = serde_json::from_str(&again.agent_json).ok()?;
    let structured = agent.get("structuredContent").filter(|v| !v.is_null());
    let blocks = agent.get("content").and_then(Value::as_array)?;
    let notice =
        |b: &Value| b.get("_meta").and_then(Value::as_object).is_some_and(|m| m.contains_key("webmcp-redact/notice"));
    let rematched = second.get("structuredContent") == structured
        && blocks.iter().enumerate().any(|(i, b)| {
            let text = b.get("text").and_then(Value::as_str).unwrap_or_default();
            let json = structured.is_some_and(|s| serde_json::from_str::<Value>(text).is_ok_and(|v| v == *s));
            (json || notice(b)) && second.pointer(&format!("/content/{i}/text")).and_then(Value::as_str) != Some(text)
        });
    rematched.then_some("library_text_reforms_secret")
}
