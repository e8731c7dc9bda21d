//! The door's path (`WasmRedactor`: options, then `redact` with a session), natively:
//! `options \0 tool \0 raw`. Options are validated by `wire::read_options` (an error is a
//! TypeError or RangeError with a message); the side record and the session's labels are JSON;
//! and the outcome keeps the properties of the `redact` target.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use webmcp_redact::wire::{labels_json, read_options, settings_json, side_json};
use webmcp_redact_fuzz::{check_outcome, parts, redactor};

fuzz_target!(|data: &[u8]| {
    let Some([options, tool, raw]) = parts::<3>(data) else { return };
    let options: Value = serde_json::from_str(options).unwrap_or(Value::Null);
    let settings = match read_options(&options) {
        Ok(s) => s,
        Err(e) => {
            assert!(!e.message().is_empty(), "an option error says what is wrong");
            return;
        }
    };
    let view = settings_json(&settings);
    assert!(serde_json::from_str::<Value>(&view).is_ok(), "not JSON: {view}");
    let mut r = redactor(settings.config.clone());
    let session = r.open_session();
    let o = r.redact(tool, raw, Some(session));
    let labels = r.session_labels(session).expect("the session is open");
    for json in [side_json(&o, Some(labels), Some("0123456789abcdef0123456789abcdef")), labels_json(labels)] {
        assert!(serde_json::from_str::<Value>(&json).is_ok(), "not JSON: {json}");
    }
    check_outcome(&mut r, tool, raw, &o);
});
