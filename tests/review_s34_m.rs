//! Stop 34 (helper M): what the adversarial families cost (issue 8's bench goal), counted, never
//! timed: the bytes value matching reads (`Outcome::read`, `src/scrub/meter.rs`).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::Counter;
use serde_json::json;
use webmcp_redact::{redact_with, CompiledTool, Engine, KnownSecrets, Limits, Options};

const SECRET: &str = "Zq9Xw7Lm-secret";

fn tool() -> String {
    json!({ "name": "echoes", "outputSchema": { "type": "object", "properties": { "s": { "x-sensitive": true } } } })
        .to_string()
}

/// A structured result whose marked value is echoed by one of `n` strings, the others rich in
/// escapes and base64-looking runs (a backslash would decline the streaming engine): the
/// streaming engine finds the echo in a string, and the DOM engine writes the view (reading
/// every string and the text block).
fn echoing(n: usize) -> String {
    let mut v: Vec<String> = (0..n).map(|i| format!("r{i} %2541 &amp;amp; +QUJDREVGR0hJSktM{i}")).collect();
    v[n / 2] = format!("echo {SECRET}");
    json!({ "s": SECRET, "v": v }).to_string()
}

fn read(raw: &str, engine: Engine) -> (u64, String) {
    let tool = CompiledTool::compile(&tool(), &Limits::default()).expect("compiles");
    let options = Options { engine, ..Options::default() };
    let out = redact_with(&tool, raw, &options, &mut Counter(0), &mut KnownSecrets::default());
    assert!(out.error.is_none(), "{:?}", out.error);
    assert!(!out.agent_json.contains(SECRET));
    assert_eq!(out.engine, engine, "the engine that read it");
    (out.read, out.agent_json)
}

/// Where a string of a structured result holds a known value, the DOM engine writes the view
/// and reads the text block it writes: the streaming engine's reading of the whole text first
/// stops at the first kind of match (`Needles::may_change_json`), not after its escapes and
/// base64 runs. Before, the streaming engine read 1.52 times what the DOM engine reads on this
/// result (200 strings); now 1.01 times, and the view is the same.
#[test]
fn an_echo_in_a_string_is_not_read_twice_in_the_whole_text() {
    for n in [200, 2000] {
        let raw = echoing(n);
        let (streamed, view) = read(&raw, Engine::Streaming);
        let (dom, dom_view) = read(&raw, Engine::Dom);
        assert_eq!(view, dom_view);
        let ratio = streamed as f64 / dom as f64;
        eprintln!("{n} strings: streaming read {streamed}, DOM {dom} ({ratio:.2}x)");
        assert!(ratio <= 1.2, "{n} strings: the streaming engine read {ratio:.2} times the DOM engine's");
    }
}
