//! Issue 8, "Nothing gets through": a value the vault knows is caught in the encodings a careful
//! user expects, both when a later result carries it back to the agent and when the agent puts
//! it in a call's arguments (`check`, `secret_egress`). Both use the same needles.

mod common;

use common::*;
use serde_json::json;
use webmcp_redact::policy::Decision;
use webmcp_redact::{Config, Format, KnownSecret, Redactor};

/// (value the vault holds, text carrying it, canary that must not survive). The encoded texts
/// were written with the encoders named (Python's base64, html and urllib; .NET, Go and Gson
/// output as their documentation and sources give it), not with this crate's code.
const CASES: &[(&str, &str, &str)] = &[
    // base64 and base64url, on their own, padded or not, and inside longer data.
    ("sk_live_CANARY~>?", "Basic c2tfbGl2ZV9DQU5BUll+Pj8=", "Q0FOQVJZ"),
    ("sk_live_CANARY~>?", "c2tfbGl2ZV9DQU5BUll-Pj8", "Q0FOQVJZ"),
    ("sk_live_CANARY~>?", "YXNrX2xpdmVfQ0FOQVJZfj4/eno=", "Q0FOQVJZ"),
    ("sk_live_CANARY~>?", "YWJza19saXZlX0NBTkFSWX4+P3p6", "NBTkFSWX4"),
    ("hunter2-CANARY", "data:application/json;base64,eyJwYXNzd29yZCI6Imh1bnRlcjItQ0FOQVJZIn0=", "bnRlcjItQ0FOQVJZ"),
    // HTML entities.
    ("p&ss<CANARY>", "value=\"p&amp;ss&lt;CANARY&gt;\"", "CANARY"),
    ("it's \"CANARY\"", "it&#x27;s &quot;CANARY&quot;", "CANARY"),
    ("it's \"CANARY\"", "it&#39;s &#34;CANARY&#34;", "CANARY"),
    ("it's \"CANARY\"", "it&#039;s &quot;CANARY&quot;", "CANARY"),
    ("a<b>&CANARY", "a&#60;b&#62;&#38;CANARY", "CANARY"),
    ("a<b>&CANARY", "a&#x3C;b&#x3E;&#x26;CANARY", "CANARY"),
    // References as browsers read them without their `;`: numeric ones, and the legacy names.
    ("p@ss/w0rd+CANARY", "p&#64ss&#47w0rd&#43CANARY", "CANARY"),
    ("p@ss/w0rd+CANARY", "p&#x40ss&#X2fw0rd&#x2b;CANARY", "CANARY"),
    ("p@ss/w0rd+CANARY", "p&#00064ss&#47;w0rd&#43CANARY", "CANARY"),
    ("a<b>&CANARY\"", "a&ltb&gt&ampCANARY&quot", "CANARY"),
    ("a<b>&CANARY\"", "a&LTb&GT;&AMPCANARY&QUOT", "CANARY"),
    // \u escapes as System.Text.Json (uppercase hex), Go and Gson (lowercase) write them.
    ("a+b<CANARY>'", r"a\u002Bb\u003CCANARY\u003E\u0027", "CANARY"),
    ("a+b<CANARY>'", r"a+b\u003cCANARY\u003e\u0027", "CANARY"),
    ("x=<CANARY>", r"x\u003d\u003cCANARY\u003e", "CANARY"),
    // Percent-encoded twice.
    ("ana@example.com/CANARY", "u%3Dana%2540example.com%252FCANARY", "CANARY"),
    // A short value, standing alone.
    ("737", "CVV: 737.", "737"),
];

#[test]
fn a_later_result_carrying_an_encoded_value_is_scrubbed() {
    for &(value, text, canary) in CASES {
        let known = [KnownSecret { label: "secret".into(), value: value.into() }];
        let raw = json!({ "content": [{ "type": "text", "text": format!("see {text} here") }] }).to_string();
        let o = run_with(json!({ "name": "t" }), &raw, Format::Webmcp, &known);
        assert!(o.agent_json.contains("[redacted: secret]"), "{text}: {}", o.agent_json);
        assert_no_canary(&o, canary);
        assert_eq!(o.redactions[0].reason.as_str(), "value_match");
    }
}

#[test]
fn a_call_carrying_an_encoded_value_is_denied() {
    for &(value, text, _) in CASES {
        let mut r = Redactor::new(Config::default(), Box::new(Counter(0)));
        r.learn("h1", "secret", value);
        let args = json!({ "body": format!("see {text} here") }).to_string();
        let result = r.check(r#"{"name":"send_message"}"#, &args, None).unwrap();
        assert_eq!(result.decision, Decision::Deny, "{text}");
        assert_eq!(result.reasons[0].rule.code(), "secret_egress", "{text}");
    }
}

#[test]
fn innocent_text_is_left_alone() {
    let mut r = Redactor::new(Config::default(), Box::new(Counter(0)));
    r.learn("h1", "CVV", "737");
    r.learn("h2", "key", "sk_live_CANARY~>?");
    for body in ["order 17370", "card 4242737", "sk_live_other", "c2tfbGl2", "base64 of sk_: c2tf"] {
        let args = json!({ "body": body }).to_string();
        let result = r.check(r#"{"name":"send_message"}"#, &args, None).unwrap();
        assert!(result.reasons.iter().all(|x| x.rule.code() != "secret_egress"), "{body}");
    }
}
