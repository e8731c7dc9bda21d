//! Secret use by reference: the agent writes `{{secret:<handle>}}` inside a string argument, and
//! the page puts the vault's value there after the check, so that the agent uses a secret it
//! never saw. This module reads the placeholders and decides; JS only substitutes the handles
//! the answer lists, after an allow or the user's yes.

use crate::hash::TextSet;

use serde_json::Value;

use crate::model::ToolModel;
use crate::policy::check::accepts_credentials;
use crate::policy::Rule;

/// How a placeholder opens and closes.
pub const OPEN: &str = "{{secret:";
pub const CLOSE: &str = "}}";

/// What the page tells the check about its vault, for one call: the handles whose entry holds
/// one live value (only those can be substituted), and the handles the user already approved
/// for this tool in this session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vault {
    pub handles: Vec<String>,
    pub approved: Vec<String>,
}

impl Vault {
    /// Reads `{ handles?: [string], approved?: [string] }`.
    pub fn from_json(v: &Value) -> Result<Vault, String> {
        let list = |key: &str| -> Result<Vec<String>, String> {
            match v.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| x.as_str().map(str::to_string).ok_or(format!("vault.{key} must hold strings")))
                    .collect(),
                Some(_) => Err(format!("vault.{key} must be an array")),
            }
        };
        if !v.is_object() {
            return Err("the vault's handles must be an object".into());
        }
        Ok(Vault { handles: list("handles")?, approved: list("approved")? })
    }
}

/// One placeholder found in the arguments.
#[derive(Debug, PartialEq)]
enum Found {
    /// In a string value: the text between `{{secret:` and `}}`.
    Value(String),
    /// `{{secret:` with no `}}` after it.
    Unclosed,
    /// In an object key: a key is a name, never a place for a value.
    InKey,
}

/// Every placeholder of the arguments, in string values at any depth and in object keys.
fn placeholders(args: &Value) -> Vec<Found> {
    let mut out = Vec::new();
    let mut stack = vec![args];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.extend(in_text(s).into_iter().map(|h| h.map_or(Found::Unclosed, Found::Value))),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                out.extend(map.keys().filter(|k| k.contains(OPEN)).map(|_| Found::InKey));
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    out
}

/// The handles written in one string, left to right (`None`: an opening with no close). The
/// same scan as `substitute` in js/enforce.js: each opening is closed by the first `}}` after it.
pub fn in_text(s: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(at) = rest.find(OPEN) {
        let body = &rest[at + OPEN.len()..];
        match body.find(CLOSE) {
            Some(end) => {
                out.push(Some(body[..end].to_string()));
                rest = &body[end + CLOSE.len()..];
            }
            None => {
                out.push(None);
                break;
            }
        }
    }
    out
}

/// The reasons the placeholders give, and the handles the page may substitute if the call goes
/// ahead: those that are well placed, held by the vault, and sent to a tool that accepts
/// credentials. A reason's rule decides what happens (the policy may turn either off).
pub struct Outcome {
    pub reasons: Vec<(Rule, String)>,
    pub usable: Vec<String>,
}

pub fn read(model: &ToolModel, args: &Value, vault: &Vault) -> Outcome {
    let found = placeholders(args);
    let mut out = Outcome { reasons: Vec::new(), usable: Vec::new() };
    if found.is_empty() {
        return out;
    }
    let accepts = accepts_credentials(model);
    // Sets, not the lists' linear scans: an agent may write many placeholders against a vault of
    // many handles, and the check's cost must stay linear in both.
    let held: TextSet<&str> = vault.handles.iter().map(String::as_str).collect();
    let approved: TextSet<&str> = vault.approved.iter().map(String::as_str).collect();
    let mut seen: TextSet<&str> = TextSet::default();
    let mut refused: Vec<&str> = Vec::new();
    let mut refuse = |why: &'static str| {
        if !refused.contains(&why) {
            refused.push(why);
        }
    };
    let mut fresh = 0;
    for f in &found {
        match f {
            Found::Unclosed => refuse("a `{{secret:` with no closing `}}`"),
            Found::InKey => refuse("a secret reference in an object key (only string values can use one)"),
            Found::Value(h) if !held.contains(h.as_str()) => refuse(
                "a handle this page's vault does not hold (never issued here, expired, deleted, or not a single value)",
            ),
            Found::Value(_) if !accepts => {
                refuse("a secret reference to a tool that does not declare it takes credentials to a non-public place")
            }
            Found::Value(h) => {
                if seen.insert(h.as_str()) {
                    if !approved.contains(h.as_str()) {
                        fresh += 1;
                    }
                    out.usable.push(h.clone());
                }
            }
        }
    }
    for why in refused {
        out.reasons.push((Rule::SecretReferenceRefused, format!("the arguments hold {why}")));
    }
    if fresh > 0 {
        let what = if fresh == 1 { "a secret" } else { "secrets" };
        let message = format!("the agent uses {what} from the vault by reference, for the first time with this tool: the value goes to the tool, never to the agent");
        out.reasons.push((Rule::SecretReference, message));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::check::{check_with, CheckResult};
    use crate::policy::session::Labels;
    use crate::policy::{Decision, Policy};
    use crate::scrub::known::KnownSecrets;
    use serde_json::json;

    const H: &str = "0123456789abcdef0123456789abcdef";
    const H2: &str = "fedcba9876543210fedcba9876543210";

    // Not destructive, said outright: MCP's default (destructive) would add `irreversible` to
    // every answer, and these tests are about the references alone.
    fn sink() -> Value {
        json!({ "annotations": { "destructiveHint": false, "inputMetadata": { "Sensitivity": ["Credentials"], "Destination": "Internal" } } })
    }

    fn run(tool: Value, args: Value, vault: &Vault, policy: &Policy) -> CheckResult {
        check_with(&ToolModel::read(&tool), &args, &Labels::default(), policy, &KnownSecrets::default(), vault)
    }

    fn vault(approved: &[&str]) -> Vault {
        Vault { handles: vec![H.into(), H2.into()], approved: approved.iter().map(|s| s.to_string()).collect() }
    }

    fn codes(r: &CheckResult) -> Vec<&str> {
        r.reasons.iter().map(|x| x.rule.code()).collect()
    }

    #[test]
    fn scan_finds_each_placeholder_in_order() {
        assert_eq!(in_text(&format!("a {{{{secret:{H}}}}} b {{{{secret:x}}}}")), [Some(H.into()), Some("x".into())]);
        assert_eq!(in_text("{{secret:x"), [None]);
        assert_eq!(in_text("{{secret:{{secret:x}}"), [Some("{{secret:x".into())]);
        assert!(in_text("{{secrets:x}} {secret:x}").is_empty());
    }

    #[test]
    fn accepting_tool_asks_first_then_allows() {
        let p = Policy::default();
        let args = json!({ "key": format!("{{{{secret:{H}}}}}") });
        let r = run(sink(), args.clone(), &vault(&[]), &p);
        assert_eq!((r.decision, codes(&r)), (Decision::Confirm, vec!["secret_reference"]));
        assert_eq!(r.references, [H]);
        let r = run(sink(), args, &vault(&[H]), &p);
        assert_eq!((r.decision, codes(&r)), (Decision::Allow, vec![]));
        assert_eq!(r.references, [H], "an approved handle is still substituted");
    }

    #[test]
    fn nested_and_several_are_all_read() {
        let args = json!({ "a": [{ "b": [format!("x {{{{secret:{H}}}}} y {{{{secret:{H2}}}}}")] }], "c": format!("{{{{secret:{H}}}}}") });
        let r = run(sink(), args, &vault(&[H]), &Policy::default());
        assert_eq!((r.decision, codes(&r)), (Decision::Confirm, vec!["secret_reference"]), "H2 is new");
        assert_eq!(r.references.len(), 2);
    }

    #[test]
    fn refused_anywhere_else() {
        let p = Policy::default();
        let public =
            json!({ "annotations": { "inputMetadata": { "Sensitivity": ["Credentials"], "Destination": "Public" } } });
        let open = json!({ "annotations": { "openWorldHint": true, "inputMetadata": { "Sensitivity": ["Credentials"], "Destination": "Internal" } } });
        let plain = json!({ "annotations": { "readOnlyHint": false } });
        let one = json!({ "k": format!("{{{{secret:{H}}}}}") });
        for tool in [public, open, plain] {
            let r = run(tool.clone(), one.clone(), &vault(&[H]), &p);
            assert_eq!(r.decision, Decision::Deny, "{tool}");
            assert!(codes(&r).contains(&"secret_reference_refused"), "{tool}");
            assert!(r.references.is_empty(), "nothing is substituted for {tool}");
        }
        for args in [
            json!({ "k": "{{secret:0000000000000000000000000000dead}}" }),
            json!({ "k": "{{secret:" }),
            json!({ format!("{{{{secret:{H}}}}}"): "v" }),
            json!({ "k": format!("{{{{secret:{H}}}}} and {{{{secret:nope}}}}") }),
        ] {
            let r = run(sink(), args.clone(), &vault(&[H]), &p);
            assert_eq!((r.decision, codes(&r)), (Decision::Deny, vec!["secret_reference_refused"]), "{args}");
        }
        let r = run(sink(), json!({ "k": "no placeholder" }), &Vault::default(), &p);
        assert_eq!(r.decision, Decision::Allow);
    }

    #[test]
    fn policy_turns_the_rules_off_or_changes_them() {
        let args = json!({ "key": format!("{{{{secret:{H}}}}}") });
        for (rule, want) in [("off", Decision::Allow), ("allow", Decision::Allow), ("deny", Decision::Deny)] {
            let p = Policy::from_json(&json!({ "rules": { "secret_reference": rule } })).unwrap();
            assert_eq!(run(sink(), args.clone(), &vault(&[]), &p).decision, want, "{rule}");
        }
        let p = Policy::from_json(&json!({ "rules": { "secret_reference_refused": "off" } })).unwrap();
        let r =
            run(json!({ "annotations": { "readOnlyHint": false, "destructiveHint": false } }), args, &vault(&[]), &p);
        assert_eq!((r.decision, r.references.len()), (Decision::Allow, 0), "off: nothing substituted either");
    }

    #[test]
    fn secret_egress_reads_the_placeholder_not_the_value() {
        let mut known = KnownSecrets::default();
        known.own(H, "sk_live_REFERENCED1", "API key");
        let decide = |tool: Value, args: Value| {
            check_with(&ToolModel::read(&tool), &args, &Labels::default(), &Policy::default(), &known, &vault(&[H]))
        };
        let by_ref = json!({ "key": format!("{{{{secret:{H}}}}}") });
        let r = decide(sink(), by_ref.clone());
        assert_eq!((r.decision, codes(&r)), (Decision::Allow, vec![]), "approved, and no secret_egress");
        let post = json!({ "annotations": { "readOnlyHint": false, "destructiveHint": false } });
        assert_eq!(codes(&decide(post.clone(), by_ref)), ["secret_reference_refused"]);
        let pasted = decide(post, json!({ "body": "sk_live_REFERENCED1" }));
        assert_eq!((pasted.decision, codes(&pasted)), (Decision::Deny, vec!["secret_egress"]));
        assert!(pasted.references.is_empty());
    }

    #[test]
    fn vault_json() {
        assert_eq!(
            Vault::from_json(&json!({ "handles": [H], "approved": [] })).unwrap(),
            Vault { handles: vec![H.into()], approved: vec![] }
        );
        assert!(Vault::from_json(&json!({ "handles": [1] })).is_err());
        assert!(Vault::from_json(&json!([])).is_err());
    }
}
