//! What goes back to JS, one function per record, written directly (see `json/write.rs`).

use super::{Settings, COUNT_CEILING};
use crate::json::write::{array, object, size_hint, string, Obj};
use crate::model::{Class, Level};
use crate::policy::check::CheckResult;
use crate::policy::session::Labels;
use crate::policy::{Decision, Rule};
use crate::scrub::detect::Kind;
use crate::scrub::known::Learned;
use crate::{ErrorCode, Format, Limits, Outcome, Reason, Redaction, Secret, SecretKind};

/// The caller's side of a redaction:
/// `{ resultId?, redactions: [{ pointer, reason, label, handle? }], withheld, secrets: [...],
/// labels, sessionLabels?, known?: [{ handle?, label, values: [...] }] }`. `resultId` names a
/// result that issued handles (the vault ties them to it); `secrets` hold raw values;
/// `known` is what joined the known-secret set, for JS's journal (replayed after a trap), in
/// runs of one handle and label: a dense result's thousands of values share both, and writing
/// them once per value made the record a fifth longer (and JS's parse of it with it).
pub fn side_json(outcome: &Outcome, session: Option<&Labels>, result_id: Option<&str>) -> String {
    let mut out = String::with_capacity(side_size(outcome));
    object(&mut out, |o| {
        o.opt_str("resultId", result_id);
        array(o.key("redactions"), &outcome.redactions, redaction);
        o.bool("withheld", outcome.withheld);
        array(o.key("secrets"), &outcome.secrets, secret);
        labels(o.key("labels"), &outcome.labels);
        if let Some(l) = session {
            labels(o.key("sessionLabels"), l);
        }
        if !outcome.learned.is_empty() {
            array(o.key("known"), known_runs(&outcome.learned), |out, run| {
                object(out, |o| {
                    o.opt_str("handle", run[0].handle.as_deref()).str("label", &run[0].label);
                    array(o.key("values"), run, |out, l| string(out, &l.value));
                });
            });
        }
    });
    out
}

/// The runs of one handle and label of what the known set learned.
fn known_runs(learned: &[Learned]) -> impl Iterator<Item = &[Learned]> {
    learned.chunk_by(|a, b| a.handle == b.handle && a.label == b.label)
}

/// What `side_json` writes when no string needs an escape, the labels' few words aside:
/// reserved at once, the record of a dense result (thousands of pointers and values) did not
/// grow by doubling to twice its size (measured: a 4 MiB buffer for 2.1 MB at 1 MB of input).
fn side_size(outcome: &Outcome) -> usize {
    let text = |s: &str| s.len() + 12; // `"key":"…",` around it, as much as its longest key
    let opt = |s: &Option<String>| s.as_deref().map_or(0, text);
    let redactions: usize =
        outcome.redactions.iter().map(|r| text(&r.pointer) + text(&r.label) + opt(&r.handle) + 48).sum();
    let secrets: usize = outcome
        .secrets
        .iter()
        .map(|s| {
            let held = match &s.kind {
                SecretKind::Value(v) | SecretKind::UserOnly(v) => size_hint(v),
                SecretKind::Many(items) => items.iter().map(|(p, l, v)| text(p) + text(l) + size_hint(v) + 12).sum(),
                SecretKind::Reference { id, redeem_url, .. } => text(id) + text(redeem_url) + 32,
            };
            text(&s.handle) + text(&s.label) + held + 32
        })
        .sum();
    let known: usize = known_runs(&outcome.learned)
        .map(|run| {
            run[0].handle.as_deref().map_or(0, text)
                + text(&run[0].label)
                + run.iter().map(|l| l.value.len() + 3).sum::<usize>()
                + 16
        })
        .sum();
    redactions + secrets + known + 512
}

fn redaction(out: &mut String, r: &Redaction) {
    object(out, |o| {
        o.str("pointer", &r.pointer).str("reason", r.reason.as_str()).str("label", &r.label);
        o.opt_str("handle", r.handle.as_deref());
    });
}

fn secret(out: &mut String, s: &Secret) {
    object(out, |o| {
        o.str("handle", &s.handle).str("label", &s.label);
        match &s.kind {
            SecretKind::Value(v) => {
                o.str("kind", "value").value("value", v);
            }
            SecretKind::UserOnly(block) => {
                o.str("kind", "user_only").value("value", block);
            }
            SecretKind::Many(items) => {
                o.str("kind", "many");
                array(o.key("values"), items, |out, (pointer, label, value)| {
                    object(out, |o| {
                        o.str("pointer", pointer).str("label", label).value("value", value);
                    });
                });
            }
            SecretKind::Reference { id, redeem_url, ttl } => {
                o.str("kind", "reference").str("id", id).str("redeemUrl", redeem_url);
                if let Some(t) = ttl {
                    o.raw("ttl", &t.to_string());
                }
            }
        }
    });
}

fn labels(out: &mut String, l: &Labels) {
    object(out, |o| {
        o.str("sensitivity", l.sensitivity.as_str()).bool("private", l.private).bool("openWorld", l.open_world);
        o.bool("malicious", l.malicious).value("attribution", &serde_json::Value::from(l.attribution.clone()));
        if !l.evidence.is_empty() {
            o.value("evidence", &serde_json::Value::from(l.evidence.clone()));
        }
    });
}

/// Session labels: `{ sensitivity, private, openWorld, malicious, attribution, evidence? }`.
pub fn labels_json(l: &Labels) -> String {
    let mut out = String::new();
    labels(&mut out, l);
    out
}

/// A check's answer: `{ decision, reasons: [{ code, decision, message, source }] }`.
pub fn check_json(c: &CheckResult) -> String {
    let mut out = String::new();
    object(&mut out, |o| {
        o.str("decision", c.decision.as_str());
        array(o.key("reasons"), &c.reasons, |out, r| {
            object(out, |o| {
                o.str("code", r.rule.code()).str("decision", r.decision.as_str());
                o.str("message", &r.message).str("source", &r.source);
            });
        });
        if !c.references.is_empty() {
            array(o.key("references"), &c.references, |out, h| string(out, h));
        }
    });
    out
}

/// The answer for arguments the core could not read: nothing could be checked, so `deny`.
pub fn unreadable_arguments_json(e: &crate::Error) -> String {
    let mut out = String::new();
    object(&mut out, |o| {
        o.str("decision", "deny");
        array(o.key("reasons"), [e], |out, e| {
            object(out, |o| {
                let message =
                    format!("the arguments cannot be read ({}: {}), so they cannot be checked", e.code, e.detail);
                o.str("code", "unserializable")
                    .str("decision", "deny")
                    .str("message", &message)
                    .str("source", "arguments");
            });
        });
    });
    out
}

/// What JS reads back once: the normalized options it acts on itself,
/// `{ format, maxInputBytes, vault: { ttl }, redeem: { maxTtl, allowedPaths } }`.
pub fn settings_json(s: &Settings) -> String {
    let seconds = |x: f64| serde_json::Number::from_f64(x).map_or_else(|| "null".into(), |n| n.to_string());
    let mut out = String::new();
    object(&mut out, |o| {
        o.str("format", s.config.format.as_str()).raw("maxInputBytes", &s.config.limits.max_input_bytes.to_string());
        object(o.key("vault"), |v| {
            v.raw("ttl", &seconds(s.vault.ttl));
        });
        object(o.key("redeem"), |r| {
            r.raw("maxTtl", &seconds(s.redeem.max_ttl));
            match &s.redeem.allowed_paths {
                Some(paths) => r.strs("allowedPaths", paths),
                None => r.raw("allowedPaths", "null"),
            };
        });
    });
    out
}

/// Every word JS sees, so that its types can be checked against the core (a test compares
/// them with the unions in `js/index.d.ts`), and the constants it must not restate.
pub fn vocabulary_json() -> String {
    let words = |o: &mut Obj, key: &str, items: Vec<&str>| {
        array(o.key(key), items, string);
    };
    let range = |o: &mut Obj, key: &str, default: usize, max: usize| {
        o.raw(key, &format!("[{default},{max}]"));
    };
    let d = Limits::default();
    let mut out = String::new();
    object(&mut out, |o| {
        words(o, "errorCodes", ErrorCode::ALL.iter().map(|c| c.as_str()).collect());
        words(o, "reasons", Reason::words());
        words(o, "detectKinds", Kind::ALL.iter().map(|k| k.code()).collect());
        // `unserializable` and `wasm_unavailable` are raised by JS when nothing could be checked.
        words(o, "checkCodes", Rule::ALL.iter().map(|r| r.code()).collect());
        words(o, "decisions", Decision::ALL.iter().map(|d| d.as_str()).collect());
        words(o, "levels", Level::ALL.iter().map(|l| l.as_str()).collect());
        words(o, "classes", Class::ALL.iter().map(|c| c.as_str()).collect());
        words(o, "formats", Format::ALL.iter().map(|f| f.as_str()).collect());
        object(o.key("limits"), |l| {
            range(l, "maxDepth", d.max_depth, Limits::DEPTH_CEILING);
            range(l, "maxInputBytes", d.max_input_bytes, COUNT_CEILING);
            range(l, "maxRefHops", d.max_ref_hops, COUNT_CEILING);
            range(l, "maxWork", d.max_work, COUNT_CEILING);
        });
        o.raw("toolCacheSize", &crate::TOOL_CACHE_SIZE.to_string());
    });
    out
}
