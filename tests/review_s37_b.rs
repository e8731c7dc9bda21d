//! Review s37 (helper B): the detectors reading text folded (unseen characters left out,
//! fullwidth ASCII as ASCII), attacked where review A's generators did not put a credential:
//! keys of `_meta` and of `structuredContent`, nested `_meta` strings, a `resource_link`'s name;
//! and on ordinary multilingual text that holds unseen and fullwidth characters. Through a
//! Redactor's `redact`, both formats.

mod common;

use common::*;
use serde_json::json;

/// The detectors' fake examples (docs/detectors.md).
const TOKENS: &[&str] = &[
    "AKIAFAKE2EXAMPLE7KEY",
    "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",
    "glpat-FAKEfake0123example0",
    "sk_live_FAKEfakeEXAMPLE0123456789",
    "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",
];

/// Characters a renderer shows as nothing.
const UNSEEN: &[char] =
    &['\u{200B}', '\u{2060}', '\u{AD}', '\u{FEFF}', '\u{200D}', '\u{E0041}', '\u{FE0F}', '\u{180E}'];

/// `token` as a model reads it but no detector of the text as written: split by unseen
/// characters, or some of it in fullwidth letters.
fn disguised(rng: &mut Rng, token: &str) -> String {
    let mut out = String::new();
    let fullwidth = rng.below(2) == 0;
    for (i, c) in token.chars().enumerate() {
        if i > 0 && rng.below(6) == 0 {
            out.push(UNSEEN[rng.below(UNSEEN.len())]);
        }
        match c {
            c if fullwidth && c.is_ascii_alphanumeric() && rng.below(2) == 0 => {
                out.push(char::from_u32(c as u32 + 0xFEE0).unwrap())
            }
            c => out.push(c),
        }
    }
    out
}

/// A credential split by unseen characters or partly fullwidth, as a key of `_meta` or of
/// `structuredContent` (nested too), in a nested `_meta` string, or as a `resource_link`'s
/// name, is taken: in neither format does it reach the agent as written.
#[test]
fn a_disguised_credential_in_a_key_or_meta_is_taken() {
    const SEED: u64 = 0x5eed_0037_b000_0003;
    let mut rng = Rng(SEED);
    let (mut cases, mut bad) = (0, Vec::new());
    for _ in 0..200 {
        let token = TOKENS[rng.below(TOKENS.len())];
        let t = disguised(&mut rng, token);
        let ok = json!([{ "type": "text", "text": "ok" }]);
        let raw = match rng.below(5) {
            0 => json!({ "content": ok, "_meta": { "x": { "y": [t] } } }),
            1 => json!({ "content": ok, "_meta": { t.clone(): 1 } }),
            2 => json!({ "content": [], "structuredContent": { t.clone(): 1 } }),
            3 => json!({ "content": [], "structuredContent": { "a": { t.clone(): [1] } } }),
            _ => json!({ "content": [{ "type": "resource_link", "uri": "https://x.test/a", "name": t }] }),
        };
        for format in FORMATS {
            cases += 1;
            let view = redactor(format).redact(PLAIN, &raw.to_string(), None).agent_json;
            let escaped = serde_json::to_string(&t).unwrap();
            if view.contains(&t) || view.contains(escaped.trim_matches('"')) {
                bad.push(format!("{format:?}: {raw} -> {view}"));
            }
        }
    }
    println!("disguised credentials that reached the agent: {} of {cases} (seed {SEED:#x})", bad.len());
    assert!(bad.is_empty(), "{:#?}", &bad[..bad.len().min(5)]);
}

/// Ordinary text in scripts that use joiners (Persian's ZWNJ, Devanagari's ZWJ, emoji
/// sequences), soft hyphens, and Japanese text with fullwidth letters and digits (order
/// numbers, versions): nothing is taken.
#[test]
fn ordinary_multilingual_text_is_left_alone() {
    let texts = [
        "می\u{200C}خواهم کتاب\u{200C}ها را بخوانم",
        "क्\u{200D}ष त्र ज्ञ श्\u{200D}र",
        "👨\u{200D}👩\u{200D}👧\u{200D}👦 family 🏳\u{FE0F}\u{200D}🌈",
        "注文番号：ＡＢＣＤＥＦＧＨ１２３４５６７８９０ＩＪＫＬ、お届け予定",
        "会員ＩＤ：ＡＫＩＡ１２３４５６７８９０ＡＢＣＤ（テスト）",
        "ｓｋ＿ｔｅｓｔ＿ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘ",
        "Ｇｏｏｇｌｅ Ｃｈｒｏｍｅ ｖｅｒｓｉｏｎ １２０．０．６０９９．７１",
        "ＳＫＵ：ＸＹＺ－９８７６５４３２１０－ＡＢＣＤＥＦＧＨＩＪ",
        "co\u{AD}op\u{AD}er\u{AD}a\u{AD}tion in\u{AD}ter\u{AD}na\u{AD}tio\u{AD}nal",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b\u{200B} (git)",
    ];
    for t in texts {
        for format in FORMATS {
            let o = redactor(format).redact(PLAIN, &text_result(t).to_string(), None);
            assert!(o.redactions.is_empty(), "{t}: {:?}", o.redactions.iter().map(|r| &r.label).collect::<Vec<_>>());
        }
    }
}
