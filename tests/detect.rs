//! Issue 11, item 3: credentials a tool never declared are found by their format and handled
//! like any withheld value: a vault entry with a handle and a stub (reason `detected:<kind>`),
//! a known value (later echoes scrubbed, `check` catches it), everywhere value matching reads.

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::policy::{Decision, Policy};
use webmcp_redact::{Config, Format, Redactor, SecretKind};

/// Fake, valid-structure credentials (see docs/detectors.md).
const AWS_ID: &str = "AKIA2OGYBAH6STMMNXNN";
const GOOGLE: &str = "AIzaSyD8kQ3vX2pLmN7tRb1YcW9sHd3FgJ0aZx4";
const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QifQ.c2lnbmF0dXJlLW5vdC1yZWFsLWJ1dC1sb25n";

fn plain() -> Value {
    json!({ "name": "plain" })
}

fn reasons(o: &webmcp_redact::Outcome) -> Vec<(String, String)> {
    o.redactions.iter().map(|r| (r.pointer.clone(), r.reason.as_str().to_string())).collect()
}

#[test]
fn an_undeclared_key_in_a_text_block_is_vaulted_with_a_stub() {
    let raw = json!({ "content": [{ "type": "text", "text": format!("Your key is {GOOGLE}, keep it safe.") }] });
    let o = run(plain(), raw);
    assert_no_canary(&o, GOOGLE);
    let view = agent(&o);
    assert_eq!(view["content"][0]["text"], "Your key is [redacted: Google API key], keep it safe.");
    assert_eq!(reasons(&o), [("/content/0/text".to_string(), "detected:google_api_key".to_string())]);
    assert_eq!(view["content"][1]["type"], "secret_reference");
    assert_eq!(view["content"][1]["label"], "Google API key");
    let handle = o.redactions[0].handle.clone().expect("a handle");
    assert_eq!(o.secrets[0].handle, handle);
    assert_eq!(o.secrets[0].kind, SecretKind::Value(json!(GOOGLE)));
    assert_idempotent(&plain(), &o, Format::Webmcp);
}

#[test]
fn every_place_value_matching_reads_is_searched() {
    let raw = json!({
        "content": [
            { "type": "text", "text": format!("{{\"token\":\"{JWT}\"}}") },
            { "type": "resource", "resource": { "uri": "file:///x", "text": format!("id={AWS_ID}") } },
        ],
        "structuredContent": { "nested": [{ "k": GOOGLE }], GOOGLE: 1 },
        "_meta": { "debug": format!("bearer {JWT}") },
        "isError": false,
    });
    let o = run(plain(), raw);
    for canary in [AWS_ID, GOOGLE, JWT] {
        assert_no_canary(&o, canary);
    }
    let detected: Vec<&str> =
        o.redactions.iter().map(|r| r.reason.as_str()).filter(|r| r.starts_with("detected:")).collect();
    assert_eq!(detected.len(), 3, "one entry per distinct value: {:?}", reasons(&o));
    assert_eq!(o.secrets.len(), 3);
}

#[test]
fn a_pem_key_in_escaped_json_text_is_found_as_it_reads_decoded() {
    let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu";
    let text = format!("{{\"key\":\"-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----\\n\"}}");
    let o = run(plain(), json!({ "content": [{ "type": "text", "text": text }] }));
    assert_no_canary(&o, "MIIEvQIBADANBg");
    assert_eq!(reasons(&o), [("/content/0/text".to_string(), "detected:private_key".to_string())]);
}

#[test]
fn a_detected_value_is_known_later_and_in_arguments() {
    let mut r = redactor(Format::Webmcp);
    let def = plain().to_string();
    let first = r.redact(&def, &json!({ "content": [{ "type": "text", "text": AWS_ID }] }).to_string(), None);
    assert_eq!(first.redactions[0].reason.as_str(), "detected:aws_access_key_id");
    // Known now: a later echo is a value match, not a second detection.
    let later = r.redact(&def, &json!({ "echo": format!("was {AWS_ID}") }).to_string(), None);
    assert_no_canary(&later, AWS_ID);
    assert_eq!(later.redactions[0].reason.as_str(), "value_match");
    let send = json!({ "name": "send", "annotations": { "openWorldHint": true } }).to_string();
    let c = r.check(&send, &json!({ "body": AWS_ID }).to_string(), None).unwrap();
    assert_eq!(c.decision, Decision::Deny);
}

#[test]
fn policy_detect_turns_detection_off_whole_or_per_kind() {
    let raw = json!({ "content": [{ "type": "text", "text": format!("{GOOGLE} {JWT}") }] }).to_string();
    let with = |policy: Value| {
        let policy = Policy::from_json(&policy).unwrap();
        let mut r = Redactor::new(Config { policy, ..Config::default() }, Box::new(Counter(0)));
        r.redact(&plain().to_string(), &raw, None)
    };
    let off = with(json!({ "detect": false }));
    assert!(off.unchanged && off.agent_json == raw);
    let no_jwt = with(json!({ "detect": { "jwt": false } }));
    assert!(no_jwt.agent_json.contains(JWT) && !no_jwt.agent_json.contains(GOOGLE));
}

#[test]
fn a_declared_value_is_not_reported_twice() {
    // Marked and detectable: the mark takes it; detection finds a known value and stands back.
    let def = json!({ "name": "k", "outputSchema": { "properties": { "key": { "x-sensitive": true } } } });
    let o = run(def, json!({ "key": GOOGLE, "note": format!("copy of {GOOGLE}") }));
    assert_no_canary(&o, GOOGLE);
    let r = reasons(&o);
    assert!(r.contains(&("/key".to_string(), "x_sensitive".to_string())), "{r:?}");
    assert!(r.iter().all(|(_, reason)| !reason.starts_with("detected:")), "{r:?}");
}

#[test]
fn kinds_with_other_characters_are_read_decoded_where_the_string_names_them() {
    let hook = "https://hooks.slack.com/services/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";
    let secret = "q8Vb3Xk/7Jd+Ls2Nw9Pz4Rt6Hy1Gf5Mc0Ae8UiKo";
    let escaped = format!("{{\"hook\":\"{}\"}}", hook.replace('/', "\\/"));
    let query = format!("aws_secret_access_key={}", secret.replace('/', "%2F").replace('+', "%2B"));
    for (text, kind) in [(escaped, "detected:slack_webhook"), (query, "detected:aws_secret_access_key")] {
        let o = run(plain(), json!({ "content": [{ "type": "text", "text": text }] }));
        assert_eq!(reasons(&o), [("/content/0/text".to_string(), kind.to_string())], "{text}");
        assert!(
            !o.agent_json.contains("Xk3v9QmZ2pLr8sTw1YbnQ7vH") && !o.agent_json.contains("Ls2Nw9Pz4Rt6"),
            "{}",
            o.agent_json
        );
    }
}

#[test]
fn the_mcp_format_gets_its_text_stub() {
    let raw = json!({ "content": [{ "type": "text", "text": format!("key {GOOGLE}") }] }).to_string();
    let o = run_with(plain(), &raw, Format::Mcp, &[]);
    assert_no_canary(&o, GOOGLE);
    let view = agent(&o);
    assert_eq!(view["content"][1]["text"], "[secret withheld: Google API key]");
    assert_eq!(reasons(&o), [("/content/0/text".to_string(), "detected:google_api_key".to_string())]);
    assert_idempotent(&plain(), &o, Format::Mcp);
}

/// Found by the fuzzer (check target, CI at 28cc03f): a dropped block's `type` becomes a report
/// label and the notice repeats it, so a credential written there reached the agent; and a
/// second pass found it in the notice. Labels and pointers are tool data: detection reads them.
#[test]
fn a_credential_in_text_copied_to_the_report_is_found_there() {
    let token = "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";
    for raw in [
        json!({ "content": [{ "type": format!("note {token} rotated") }] }),
        json!({ "content": [{ "type": "text", "text": "ok", "annotations": { "audience": ["user"] } }, { "type": token }] }),
        json!({ "content": [{ "type": "text", "text": "ok" }], "structuredContent": [1], format!("x {token}"): { "k": 1 } }),
    ] {
        let o = run(plain(), raw.clone());
        assert_no_canary(&o, token);
        assert_idempotent(&plain(), &o, Format::Webmcp);
        assert!(o.redactions.iter().any(|r| r.reason.as_str() == "detected:github_token"), "{raw}");
    }
}

/// Google API keys of a valid structure, each different (`AIza` and 35 random-looking
/// characters).
fn google(n: usize) -> String {
    format!("AIza{}{:03}", &GOOGLE[4..36], n)
}

/// A credential glued to a known value stands alone once value matching cuts that value out,
/// and the detectors read it then, as they would in a second pass: it is taken on the first,
/// wherever the strings stand in the result and however long the chain of glued values.
#[test]
fn a_credential_glued_to_a_known_value_is_taken_when_cutting_uncovers_it() {
    let (k0, k1, k2) = (google(0), google(1), google(2));
    // The chain: k2 stands alone, k1 is glued to it, k0 to k1; every order of the strings.
    let strings = [format!("{k0}{k1}"), format!("{k1}{k2}"), format!("see {k2}.")];
    for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
        let value: serde_json::Map<String, Value> =
            order.iter().map(|&i| (format!("s{i}"), json!(strings[i]))).collect();
        let o = run(plain(), Value::Object(value.clone()));
        for k in [&k0, &k1, &k2] {
            assert_no_canary(&o, k);
        }
        let mut taken: Vec<(String, String)> =
            reasons(&o).into_iter().filter(|(_, r)| r.starts_with("detected:")).collect();
        taken.sort();
        assert_eq!(taken.len(), 3, "{order:?}: each credential taken once: {:?}", reasons(&o));
        assert_eq!(o.secrets.len(), 3);
        let mut values: Vec<Value> = o
            .secrets
            .iter()
            .map(|s| match &s.kind {
                SecretKind::Value(v) => v.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        values.sort_by_key(|v| v.to_string());
        assert_eq!(values, [json!(k0), json!(k1), json!(k2)]);
        assert_idempotent(&plain(), &o, Format::Webmcp);
        // In a CallToolResult, with a block dropped before them: the pointers are the raw ones.
        let blocks: Vec<Value> = std::iter::once(json!({ "type": "no_such_type", "x": 1 }))
            .chain(order.iter().map(|&i| json!({ "type": "text", "text": strings[i] })))
            .collect();
        let o = run(plain(), json!({ "content": blocks }));
        for k in [&k0, &k1, &k2] {
            assert_no_canary(&o, k);
        }
        let at = order.iter().position(|&i| i == 0).unwrap() + 1;
        assert!(
            reasons(&o).contains(&(format!("/content/{at}/text"), "detected:google_api_key".into())),
            "{order:?}: k0 is reported where it stood: {:?}",
            reasons(&o)
        );
        assert_idempotent(&plain(), &o, Format::Webmcp);
    }
}

/// The same with a value the schema marks: cutting it out of a longer token uncovers the
/// credential before it.
#[test]
fn a_credential_glued_to_a_marked_value_is_taken() {
    let def = json!({ "name": "t", "outputSchema": { "properties": { "pw": { "x-sensitive": true } } } });
    let k = google(7);
    let o = run(def.clone(), json!({ "pw": "hunter2hunter2", "note": format!("{k}hunter2hunter2") }));
    assert_no_canary(&o, &k);
    assert!(reasons(&o).contains(&("/note".to_string(), "detected:google_api_key".to_string())), "{:?}", reasons(&o));
    assert_idempotent(&def, &o, Format::Webmcp);
}

/// A chain of credentials glued one to the next is uncovered one link per reading of the
/// result: three links deep are taken, a fourth fails closed (`work_limit`, nothing of the
/// result) rather than read the result once more per link. The reading counted stays within
/// a constant times that of the same result with the chain's credentials apart, however deep.
#[test]
fn a_chain_of_glued_credentials_is_read_a_bounded_number_of_times() {
    let pad = "a b ".repeat(50_000);
    let chain = |n: usize, glued: bool| {
        let mut m = serde_json::Map::new();
        for i in 0..n {
            let sep = if glued { "" } else { " " };
            m.insert(format!("s{i}"), json!(format!("{}{sep}{}", google(i), google(i + 1))));
        }
        m.insert("last".into(), json!(format!("see {} .", google(n))));
        m.insert("pad".into(), json!(pad));
        Value::Object(m)
    };
    for n in 1..=8 {
        // (`assert_idempotent` redacts again with the memory of the last run: this one's.)
        let apart = run(plain(), chain(n, false));
        assert!(apart.error.is_none());
        let o = run(plain(), chain(n, true));
        if n <= 3 {
            assert!(o.error.is_none(), "{n} deep: {:?}", o.error);
            assert_eq!(o.secrets.len(), n + 1);
            assert_idempotent(&plain(), &o, Format::Webmcp);
        } else {
            let e = o.error.as_ref().expect("fails closed");
            assert_eq!(e.code.as_str(), "work_limit");
            assert!(o.withheld && o.secrets.is_empty());
        }
        for i in 0..=n {
            assert_no_canary(&o, &google(i));
        }
        // Each reading also reads again the strings value matching cut (here the JSON text
        // block, which holds all of them): measured 1.6 times one reading of the result apart.
        assert!(o.read <= 8 * apart.read, "{n} deep: read {} against {} apart", o.read, apart.read);
    }
}

/// Every engine and format on one tool and result, with `prior` results redacted first on
/// the same known set (the second pass of `assert_idempotent` uses it too).
fn every_way(def: &Value, prior: &[Value], raw: &Value, check: impl Fn(&webmcp_redact::Outcome, Format)) {
    use webmcp_redact::{redact_with, CompiledTool, Engine, KnownSecrets, Limits, Options};
    let tool = CompiledTool::from_value(def, &Limits::default()).expect("compiles");
    let mut views = Vec::new();
    for format in Format::ALL {
        for engine in [Engine::Streaming, Engine::Dom] {
            let options = Options { format, engine, ..Options::default() };
            let (mut known, mut handles) = (KnownSecrets::default(), Counter(0));
            for p in prior {
                redact_with(&tool, &p.to_string(), &options, &mut handles, &mut known);
            }
            let o = redact_with(&tool, &raw.to_string(), &options, &mut handles, &mut known);
            check(&o, format);
            let again = redact_with(&tool, &o.agent_json, &options, &mut handles, &mut known);
            assert_eq!(again.agent_json, o.agent_json, "{format:?} {engine:?}: a second pass changed it");
            views.push((format, o.agent_json));
        }
    }
    for pair in views.chunks(2) {
        assert_eq!(pair[0].1, pair[1].1, "{:?}: the engines disagree", pair[0].0);
    }
}

/// Where value matching cuts a known value out of a longer token, a credential glued to it is
/// left standing alone: in a key named only by a report pointer, in the JSON text block the
/// streaming engine writes, in a CallToolResult's own keys, and across the notice's labels.
/// Each is taken on the first pass, in both engines (found by review, and the third by the
/// `check` fuzz target: fuzz/artifacts-found/check/glued_credential_in_call_result_key).
#[test]
fn a_credential_uncovered_anywhere_the_agent_reads_is_taken() {
    let no_google = |o: &webmcp_redact::Outcome, _: Format| {
        assert!(o.error.is_none(), "{:?}", o.error);
        assert_no_canary(o, GOOGLE);
    };
    // A taken member's key: only its report pointer names it.
    let def = json!({ "name": "t", "outputSchema": { "properties": { "pw": { "x-sensitive": true } },
        "additionalProperties": { "x-sensitive": true } } });
    every_way(&def, &[], &json!({ "pw": "hunter2hunter2", format!("{GOOGLE}hunter2hunter2"): 1 }), no_google);
    every_way(&def, &[json!({ "pw": "hunter2hunter2" })], &json!({ format!("{GOOGLE}hunter2hunter2"): 1 }), no_google);
    // A known value across two strings of the text block, the credential before it.
    let def = json!({ "name": "t", "outputSchema": { "properties": { "pw": { "x-sensitive": true } } } });
    let raw = json!({ "a": format!("{GOOGLE}Q"), "b": "zz" });
    every_way(&def, &[json!({ "pw": "Q\",\"b\"" })], &raw, no_google);
    // A CallToolResult's own key.
    let raw = json!({ "content": [{ "type": "text", "text": "hi" }], format!("{GOOGLE}hunter2hunter2"): 1 });
    every_way(&def, &[json!({ "pw": "hunter2hunter2" })], &raw, no_google);
    // A known value across two labels of the notice.
    let label = format!("{GOOGLE}hun");
    let def = json!({ "name": "a", "outputSchema": { "type": "object", "properties": {
        label.clone(): { "x-sensitive": true }, "ter2zz": { "x-sensitive": true }, "pin": { "x-sensitive": true } } } });
    every_way(&def, &[], &json!({ label: "v1zzzz", "ter2zz": "v2zzzz", "pin": "hun, ter2" }), no_google);
}

/// A key that is a credential holding a `/` (a Slack webhook URL, an AWS secret key) is
/// spelled with `~1` in its report pointer: the detectors read the pointer decoded too (found
/// by review).
#[test]
fn a_credential_key_with_a_slash_is_taken_from_its_report_pointer() {
    let def = json!({ "name": "t", "outputSchema": { "additionalProperties": { "x-sensitive": true, "title": "v" } } });
    for (key, secret) in [
        ("https://hooks.slack.com/services/T00000000/B00000000/FAKEfakeEXAMPLE012345678", "FAKEfakeEXAMPLE012345678"),
        ("aws_secret_access_key = FAKEfake/SecretAccessKey+ForDocsOnly0001", "SecretAccessKey+ForDocsOnly0001"),
    ] {
        every_way(&def, &[], &json!({ key: 1 }), |o, _| {
            assert!(o.error.is_none(), "{:?}", o.error);
            assert_no_canary(o, secret);
            assert!(o.redactions.iter().any(|r| r.reason.as_str().starts_with("detected:")), "{:?}", reasons(o));
        });
    }
}

/// A credential in a report's label or pointer (a title, a key of a taken member, a dropped
/// block's `type`) is taken before value matching writes the view: its echoes elsewhere, even
/// inside a word, and the markers labelled with it hold a fixed word instead (found by review:
/// taken after value matching, the echoes and the markers kept it).
#[test]
fn a_credential_in_the_report_is_taken_before_value_matching() {
    const GHP: &str = "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";
    let no_ghp = |o: &webmcp_redact::Outcome, _: Format| {
        assert!(o.error.is_none(), "{:?}", o.error);
        assert_no_canary(o, GHP);
    };
    let titled =
        json!({ "name": "t", "outputSchema": { "properties": { "pw": { "x-sensitive": true, "title": GHP } } } });
    every_way(&titled, &[], &json!({ "pw": "hunter2hunter2", "note": "pass hunter2hunter2" }), no_ghp);
    let keyed = json!({ "name": "t", "outputSchema": { "properties": { "note": {} },
        "additionalProperties": { "x-sensitive": true } } });
    every_way(&keyed, &[], &json!({ GHP: "hunter2hunter2", "note": "pw hunter2hunter2" }), no_ghp);
    every_way(&keyed, &[], &json!({ GHP: "x", "note": format!("see{GHP}here") }), no_ghp);
    let raw = json!({ "content": [{ "type": GHP }, { "type": "text", "text": format!("token:x{GHP}y") }] });
    every_way(&plain(), &[], &raw, no_ghp);
}

/// One cut can uncover thousands of credentials at once (a known value between each two):
/// all are taken in one more reading, each found once (a set, not a list searched per hit:
/// review measured 6 s for 0.9 MB with the list).
#[test]
fn thousands_of_credentials_uncovered_by_one_cut_are_taken_in_one_more_reading() {
    let def = json!({ "name": "t", "outputSchema": { "properties": { "pw": { "x-sensitive": true } } } });
    let keys: Vec<String> = (0..5_000).map(|i| format!("AIza{}{:04}", &GOOGLE[4..35], i)).collect();
    let s: String = keys.iter().map(|k| format!("{k}Qz7L")).collect();
    let o = run(def, json!({ "pw": "Qz7L", "s": s }));
    assert!(o.error.is_none(), "{:?}", o.error);
    for k in keys.iter().step_by(97) {
        assert_no_canary(&o, k);
    }
    assert_eq!(o.redactions.iter().filter(|r| r.reason.as_str() == "detected:google_api_key").count(), keys.len());
}

/// A run that starts over is the DOM engine's from then on, and its outcome says so.
#[test]
fn a_run_that_starts_over_reports_the_engine_that_finished_it() {
    use webmcp_redact::{redact_with, CompiledTool, Engine, KnownSecrets, Limits, Options};
    let def = json!({ "name": "t", "outputSchema": { "properties": { "pw": { "x-sensitive": true } } } });
    let tool = CompiledTool::from_value(&def, &Limits::default()).expect("compiles");
    let options = Options { engine: Engine::Streaming, ..Options::default() };
    let (mut known, mut handles) = (KnownSecrets::default(), Counter(0));
    let plain = redact_with(&tool, r#"{"pw":"Q\",\"b\""}"#, &options, &mut handles, &mut known);
    assert_eq!(plain.engine, Engine::Streaming);
    let raw = json!({ "a": format!("{GOOGLE}Q"), "b": "zz" }).to_string();
    let o = redact_with(&tool, &raw, &options, &mut handles, &mut known);
    assert_no_canary(&o, GOOGLE);
    assert_eq!(o.engine, Engine::Dom);
}
