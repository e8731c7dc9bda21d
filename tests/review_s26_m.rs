//! Review s26 (helper M): bounded cost of the surfaces the adversarial families did not cover.
//! Work is counted, never timed: each test doubles its input and checks what grows.

mod common;

use common::deep_secret_names;
use webmcp_redact::lint::{lint, lint_within, Finding, MAX_FINDINGS_BYTES};

fn bytes(findings: &[Finding]) -> usize {
    findings.iter().map(|f| f.to_json().to_string().len()).sum()
}

/// Findings repeat the keys above them: 1 MB of deep secret-looking names gave 62 MB of
/// findings (and twice that for 2 MB). Past 1 MiB of findings lint stops, with one
/// `findings_limit` error at the end.
#[test]
fn lint_output_of_a_deep_schema_is_capped() {
    for width in [4000, 8000, 16000] {
        let doc = deep_secret_names(60, width);
        let input = doc.to_string().len();
        let found = lint(&doc);
        let out = bytes(&found);
        assert!(out <= MAX_FINDINGS_BYTES + 4096, "{input} B of input gave {out} B of findings");
        let last = found.last().unwrap();
        assert_eq!((last.code, last.pointer.as_str(), last.tool.as_str()), ("findings_limit", "", ""));
        assert!(last.message.contains(&MAX_FINDINGS_BYTES.to_string()), "{}", last.message);
        assert_eq!(found.iter().filter(|f| f.code == "findings_limit").count(), 1);
    }
}

/// What is reported before the cap is the start of the whole list, in order; a file whose
/// findings fit is reported whole, without `findings_limit`.
#[test]
fn capped_findings_are_a_prefix_of_the_whole() {
    let doc = deep_secret_names(40, 10);
    let whole = lint(&doc);
    assert!(whole.iter().all(|f| f.code != "findings_limit"), "{whole:?}");
    assert_eq!(whole.len(), 80);
    for cap in [0, 500, 5000, 50_000] {
        let cut = lint_within(&doc, cap);
        let (last, kept) = cut.split_last().unwrap();
        assert_eq!(last.code, "findings_limit");
        assert_eq!(kept, &whole[..kept.len()], "cap {cap}");
        assert!(kept.len() < whole.len());
    }
}
