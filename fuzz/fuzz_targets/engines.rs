//! A tool definition and a raw result (`tool \0 raw`), through the streaming engine and the
//! DOM engine (the oracle), in both formats, first on an empty known set and then after the
//! same result once more: the outcomes agree field for field and the agent views byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use webmcp_redact::{redact_with, CompiledTool, Engine, Format, KnownSecrets, Limits, Options, Outcome};
use webmcp_redact_fuzz::{parts, Counter};

fn run(tool: &CompiledTool, raw: &str, format: Format, engine: Engine) -> Vec<Outcome> {
    let options = Options { format, engine, ..Options::default() };
    let mut known = KnownSecrets::default();
    let mut handles = Counter(0);
    (0..2).map(|_| redact_with(tool, raw, &options, &mut handles, &mut known)).collect()
}

fn fields(o: &Outcome) -> String {
    let error = o.error.as_ref().map(|e| (e.code, &e.pointer, &e.detail));
    format!("{} {:?} {:?} {} {:?} {:?} {}", o.agent_json, o.redactions, o.secrets, o.withheld, error, o.labels, o.unchanged)
}

fuzz_target!(|data: &[u8]| {
    let Some([tool, raw]) = parts::<2>(data) else { return };
    let Ok(tool) = CompiledTool::compile(tool, &Limits::default()) else { return };
    for format in Format::ALL {
        let stream = run(&tool, raw, format, Engine::Streaming);
        let dom = run(&tool, raw, format, Engine::Dom);
        for (s, d) in stream.iter().zip(&dom) {
            assert_eq!(fields(s), fields(d), "the engines disagree\n  raw: {raw}\n  format: {format:?}");
        }
    }
});
