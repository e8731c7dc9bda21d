//! Tool definitions: compiling never panics, compiling twice agrees, and what a compiled tool
//! says about itself (`describe`) and what lint finds are plain JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use webmcp_redact::{lint, CompiledTool, Format, Limits};
use webmcp_redact_fuzz::{parts, redactor_for};

fuzz_target!(|data: &[u8]| {
    let Some([tool]) = parts::<1>(data) else { return };
    let direct = CompiledTool::compile(tool, &Limits::default());
    let mut r = redactor_for(Format::Webmcp);
    let cached = r.compile(tool);
    assert_eq!(direct.is_ok(), cached.is_ok(), "CompiledTool::compile and Redactor::compile disagree on {tool}");
    match direct {
        Ok(t) => {
            assert!(!t.name().is_empty(), "a compiled tool has a name");
            let described = t.describe().to_string();
            assert!(serde_json::from_str::<Value>(&described).is_ok());
            assert_eq!(r.describe(tool).map(|v| v.to_string()).ok(), Some(described));
        }
        Err(e) => {
            let again = r.compile(tool).err().expect("the same definition fails again");
            assert_eq!((e.code, &e.pointer), (again.code, &again.pointer), "errors agree");
            assert!(!e.message().is_empty());
        }
    }
    if let Ok(v) = serde_json::from_str::<Value>(tool) {
        for f in lint::lint(&v) {
            assert!(serde_json::from_str::<Value>(&f.to_json().to_string()).is_ok());
        }
    }
});
