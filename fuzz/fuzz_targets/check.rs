//! Pre-call checks: `tool \0 args \0 earlier raw`. The earlier result (of the same tool) fills
//! the known set and the session's labels; then `check` never panics, answers JSON with a
//! decision that is one of its reasons' (or allow), and a call whose arguments are exactly a
//! value the redactor took is never allowed silently (`secret_egress`, unless the tool says it
//! takes credentials to a non-public destination, which its reasons then show).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use webmcp_redact::model::{Class, Destination};
use webmcp_redact::wire::check_json;
use webmcp_redact::{Format, SecretKind};
use webmcp_redact_fuzz::{check_outcome, parts, redactor_for};

fuzz_target!(|data: &[u8]| {
    let Some([tool, args, earlier]) = parts::<3>(data) else { return };
    let mut r = redactor_for(Format::Webmcp);
    let session = r.open_session();
    let o = r.redact(tool, earlier, Some(session));
    check_outcome(&mut r, tool, earlier, &o);
    let answer = match r.check(tool, args, Some(session)) {
        Ok(c) => c,
        Err(e) => {
            assert!(!e.message().is_empty());
            return;
        }
    };
    let wire: Value = serde_json::from_str(&check_json(&answer)).expect("check_json is JSON");
    let decision = wire["decision"].as_str().expect("a decision");
    assert!(["allow", "confirm", "deny"].contains(&decision), "{wire}");
    let strongest = wire["reasons"].as_array().into_iter().flatten().filter_map(|r| r["decision"].as_str());
    let rank = |d: &str| ["allow", "confirm", "deny"].iter().position(|x| *x == d).unwrap_or(0);
    let max = strongest.map(rank).max().unwrap_or(0);
    assert_eq!(rank(decision), max, "the decision is the strongest reason's: {wire}");
    // A value taken from the earlier result, sent straight back out.
    let taken = o.secrets.iter().find_map(|s| match &s.kind {
        SecretKind::Value(Value::String(v)) if v.chars().count() >= 8 => Some(v.clone()),
        _ => None,
    });
    if let Some(secret) = taken {
        let args = json!({ "body": secret }).to_string();
        let c = r.check(tool, &args, Some(session)).expect("plain arguments parse");
        let model = r.compile(tool).expect("compiled above").model().clone();
        let declared = model.accepts_input_class(Class::Credentials)
            && model.input_destination.as_ref().is_some_and(|d| d.value != Destination::Public);
        let egress = c.reasons.iter().any(|x| x.rule.code() == "secret_egress");
        assert!(egress || declared, "a taken value sent back out is not secret_egress: {args}");
    }
});
