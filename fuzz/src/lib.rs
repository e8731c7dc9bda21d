//! What the fuzz targets share: how an input is split into its JSON texts, and the properties
//! checked on every outcome (besides "no panic"): the agent view is JSON; an error gives
//! exactly the withheld view of the tool it names; otherwise redacting the agent view again
//! with the same redactor changes nothing, byte for byte.
//!
//! An input is UTF-8 text (JS hands the core nothing else), its parts separated by NUL bytes,
//! which valid JSON text never holds: `tool \0 raw` for `redact`, `options \0 tool \0 raw` for
//! `redact_json`, `tool \0 args \0 earlier raw` for `check`. `scripts/fuzz.mjs` writes the
//! seeds in that form from the conformance vectors.

use webmcp_redact::{withheld_result, Config, Format, HandleSource, Outcome, Redactor};

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
            if again.agent_json != o.agent_json {
                panic!("a second pass changed the agent view{}\n  second: {}", context(), again.agent_json);
            }
        }
    }
}

