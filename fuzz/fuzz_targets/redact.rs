//! A tool definition and a raw result (`tool \0 raw`), in both formats: no panic, the agent
//! view is JSON, an error gives exactly the withheld view, a second pass changes nothing.
//! Then the same raw result once more through a tool without a schema, on the same redactor:
//! what the first pass took is now known, and must be scrubbed the same way every time.
#![no_main]

use libfuzzer_sys::fuzz_target;
use webmcp_redact::Format;
use webmcp_redact_fuzz::{check_outcome, parts, redactor_for};

const PLAIN: &str = r#"{"name":"plain_tool"}"#;

fuzz_target!(|data: &[u8]| {
    let Some([tool, raw]) = parts::<2>(data) else { return };
    for format in Format::ALL {
        let mut r = redactor_for(format);
        let o = r.redact(tool, raw, None);
        check_outcome(&mut r, tool, raw, &o);
        let later = r.redact(PLAIN, raw, None);
        check_outcome(&mut r, PLAIN, raw, &later);
    }
});
