//! A `patternProperties` pattern and keys (`pattern \0 key \0 key ...`): our lazy DFA
//! (`src/schema/regex.rs`) and regex-lite, running its translation of the same ECMA-262 parse,
//! give the same answer on every key, with the DFA's cache shared across the keys as in one
//! result. A pattern the parser refuses is skipped (it is `schema_invalid`, never run).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut parts = text.split('\0');
    let pattern = parts.next().unwrap_or("");
    let keys: Vec<&str> = parts.take(16).collect();
    let Some((source, ours)) = webmcp_redact::fuzzing::regex(pattern, &keys) else { return };
    let lite = regex_lite::RegexBuilder::new(&source).size_limit(1 << 24).build();
    let Ok(lite) = lite else { panic!("regex-lite refuses the translation of {pattern:?}: {source}") };
    for (key, got) in keys.iter().zip(ours) {
        assert_eq!(got, lite.is_match(key), "{pattern:?} ({source}) on {key:?}");
    }
});
