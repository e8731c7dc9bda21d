//! "May the agent make this call?": the pre-call rules over a tool's model, the session's
//! labels and the call's arguments.

use serde_json::{json, Value};

use crate::model::{Class, Destination, Effect, Fact, Hint, Outcomes, ToolModel};
use crate::policy::reference::{self, Vault};
use crate::policy::session::Labels;
use crate::policy::{Decision, Policy, Rule};
use crate::scrub::known::KnownSecrets;

/// One reason behind a decision: a stable rule code, a sentence, and what said so (a JSON
/// Pointer into the tool definition, or `session.<label>`, or `arguments`).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReason {
    pub rule: Rule,
    pub decision: Decision,
    pub message: String,
    pub source: String,
}

/// The answer: the strictest decision among the reasons (allow when there are none).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    pub decision: Decision,
    pub reasons: Vec<CheckReason>,
    /// The vault handles the page may put in place of their `{{secret:…}}` placeholders if the
    /// call goes ahead (see `reference`).
    pub references: Vec<String>,
}

impl CheckResult {
    pub fn to_json(&self) -> Value {
        let reasons: Vec<Value> = self.reasons.iter()
            .map(|r| json!({ "code": r.rule.code(), "decision": r.decision.as_str(), "message": r.message, "source": r.source }))
            .collect();
        json!({ "decision": self.decision.as_str(), "reasons": reasons })
    }
}

/// Applies every rule the policy has on. `args` is the call's arguments as parsed JSON.
pub fn check(model: &ToolModel, args: &Value, labels: &Labels, policy: &Policy, known: &KnownSecrets) -> CheckResult {
    check_with(model, args, labels, policy, known, &Vault::default())
}

/// [`check`], knowing which handles the page's vault holds, for secret references.
pub fn check_with(
    model: &ToolModel,
    args: &Value,
    labels: &Labels,
    policy: &Policy,
    known: &KnownSecrets,
    vault: &Vault,
) -> CheckResult {
    let mut c = Checker { policy, reasons: Vec::new() };
    let refs = reference::read(model, args, vault);
    for (rule, message) in &refs.reasons {
        c.add(*rule, message, "arguments".into());
    }
    irreversible(&mut c, model);
    let confirm = model.hint_fact(Hint::RequiresConfirmation);
    if let Some(f) = confirm.filter(|f| f.value) {
        c.add(Rule::RequiresConfirmation, "the tool asks for the user's confirmation before it runs", first(f));
    }
    if let Some(f) = model.hint_fact(Hint::PrivilegedAccess).filter(|f| f.value) {
        c.add(Rule::Privileged, "the tool uses privileged access", first(f));
    }
    exfiltration(&mut c, model, labels);
    secret_egress(&mut c, model, args, known);
    if labels.malicious && model.hint(Hint::ReadOnly) != Some(true) {
        c.add(
            Rule::MaliciousContent,
            "a result in this session was flagged as malicious, and this tool can change things",
            "session.malicious".into(),
        );
    }
    if model.is_empty() {
        c.add(
            Rule::NoClaims,
            "the tool makes no claims about its effects or data; nothing is known about it",
            String::new(),
        );
    }
    let decision = c.reasons.iter().map(|r| r.decision).max().unwrap_or(Decision::Allow);
    CheckResult { decision, reasons: c.reasons, references: refs.usable }
}

struct Checker<'a> {
    policy: &'a Policy,
    reasons: Vec<CheckReason>,
}

impl Checker<'_> {
    fn add(&mut self, rule: Rule, message: &str, source: String) {
        if let Some(decision) = self.policy.decision(rule) {
            self.reasons.push(CheckReason { rule, decision, message: message.into(), source });
        }
    }
}

fn first<T>(f: &Fact<T>) -> String {
    f.claims.first().map(|c| c.source.clone()).unwrap_or_default()
}

/// Does the tool change anything? (Not read-only, or an effect or outcome that writes.)
fn writes(model: &ToolModel) -> bool {
    model.hint(Hint::ReadOnly) == Some(false)
        || model.effect.as_ref().is_some_and(|e| e.value != Effect::Read)
        || model.outcomes.as_ref().is_some_and(|o| o.value >= Outcomes::Consequential)
}

fn irreversible(c: &mut Checker, model: &ToolModel) {
    let hint = |h| model.hint_fact(h);
    if let Some(o) = model.outcomes.as_ref().filter(|o| o.value == Outcomes::Irreversible) {
        c.add(Rule::Irreversible, "the tool's outcome cannot be undone", first(o));
    } else if let Some(d) = hint(Hint::Destructive).filter(|d| d.value && model.hint(Hint::ReadOnly) != Some(true)) {
        c.add(Rule::Irreversible, "the tool is destructive", first(d));
    } else if let Some(r) = hint(Hint::Reversible).filter(|r| !r.value && writes(model)) {
        c.add(Rule::Irreversible, "the tool changes things that cannot be reversed", first(r));
    }
}

fn exfiltration(c: &mut Checker, model: &ToolModel, labels: &Labels) {
    let holds = labels.sensitivity >= crate::model::Level::Medium || labels.private;
    if !holds {
        return;
    }
    let held = if labels.private { "private data" } else { "sensitive data" };
    let route = if let Some(d) = model.input_destination.as_ref().filter(|d| d.value == Destination::Public) {
        Some(("sends its input to a public destination", first(d)))
    } else if let Some(e) = model.effect.as_ref().filter(|e| e.value == Effect::External) {
        Some(("has an external effect", first(e)))
    } else if model.hint(Hint::OpenWorld) == Some(true) && model.hint(Hint::ReadOnly) != Some(true) {
        let f = model.hint_fact(Hint::OpenWorld).map(first).unwrap_or_default();
        Some(("reaches the open world and is not read-only", f))
    } else {
        None
    };
    if let Some((what, source)) = route {
        let message = format!("the session holds {held}, and this tool {what}");
        c.add(Rule::Exfiltration, &message, source);
    }
}

/// A value the vault knows, in the arguments, to a tool that does not declare it takes
/// credentials to a non-public place. The riskiest claim wins: a credentials sink that also
/// claims an external effect or an open world is no sink.
fn secret_egress(c: &mut Checker, model: &ToolModel, args: &Value, known: &KnownSecrets) {
    if accepts_credentials(model) || known.is_empty() {
        return;
    }
    let found = every_string(args).into_iter().find_map(|s| known.needles().scrub(&s).map(|(_, labels)| labels));
    if let Some(labels) = found {
        let message = format!("the arguments contain a secret the user was shown ({})", labels.join(", "));
        c.add(Rule::SecretEgress, &message, "arguments".into());
    }
}

/// Does the tool declare it takes credentials to a non-public place, with no claim that takes
/// its input further (an external effect, an open world)?
pub fn accepts_credentials(model: &ToolModel) -> bool {
    let leaves =
        model.effect.as_ref().is_some_and(|e| e.value == Effect::External) || model.hint(Hint::OpenWorld) == Some(true);
    model.accepts_input_class(Class::Credentials)
        && model.input_destination.as_ref().is_some_and(|d| d.value != Destination::Public)
        && !leaves
}

/// Every string, key and number text of the arguments: unlike what enters the known set, no
/// part of an argument is structure (a block-shaped argument can carry a value in any field).
fn every_string(args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![args];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Number(n) => out.push(n.to_string()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                out.extend(map.keys().cloned());
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Level;

    fn decide(tool: Value, args: Value, labels: &Labels, known: &KnownSecrets) -> CheckResult {
        check(&ToolModel::read(&tool), &args, labels, &Policy::default(), known)
    }

    fn codes(r: &CheckResult) -> Vec<&str> {
        r.reasons.iter().map(|x| x.rule.code()).collect()
    }

    #[test]
    fn irreversible_three_ways() {
        let none = Labels::default();
        for tool in [
            json!({ "annotations": { "inputMetadata": { "Outcomes": "Irreversible" } } }),
            json!({ "annotations": { "destructiveHint": true } }),
            json!({ "annotations": { "reversibleHint": false, "readOnlyHint": false } }),
        ] {
            let r = decide(tool.clone(), json!({}), &none, &KnownSecrets::default());
            assert_eq!((r.decision, codes(&r)), (Decision::Confirm, vec!["irreversible"]), "{tool}");
        }
        let r = decide(
            json!({ "annotations": { "destructiveHint": true, "readOnlyHint": true } }),
            json!({}),
            &none,
            &KnownSecrets::default(),
        );
        assert_eq!(r.decision, Decision::Allow);
        let r = decide(
            json!({ "annotations": { "reversibleHint": false, "readOnlyHint": true } }),
            json!({}),
            &none,
            &KnownSecrets::default(),
        );
        assert_eq!(r.decision, Decision::Allow, "reversibility means nothing for a read-only tool");
    }

    #[test]
    fn confirmation_and_privilege() {
        let r = decide(
            json!({ "_meta": { "mcp.dev/requiresConfirmation": true }, "annotations": { "privilegedAccessHint": true } }),
            json!({}),
            &Labels::default(),
            &KnownSecrets::default(),
        );
        assert_eq!(codes(&r), ["requires_confirmation", "privileged"]);
        assert_eq!(r.reasons[0].source, "/_meta/mcp.dev~1requiresConfirmation");
    }

    #[test]
    fn exfiltration_needs_sensitive_session_and_an_outward_tool() {
        let public = json!({ "annotations": { "inputMetadata": { "Destination": "Public" } } });
        let medium = Labels { sensitivity: Level::Medium, ..Labels::default() };
        let private = Labels { private: true, ..Labels::default() };
        let low = Labels { sensitivity: Level::Low, ..Labels::default() };
        assert_eq!(codes(&decide(public.clone(), json!({}), &medium, &KnownSecrets::default())), ["exfiltration"]);
        assert_eq!(codes(&decide(public.clone(), json!({}), &private, &KnownSecrets::default())), ["exfiltration"]);
        assert!(codes(&decide(public, json!({}), &low, &KnownSecrets::default())).is_empty());
        assert_eq!(
            codes(&decide(
                json!({ "_meta": { "mcp.dev/effect": "external" } }),
                json!({}),
                &medium,
                &KnownSecrets::default()
            )),
            ["exfiltration"]
        );
        assert_eq!(
            codes(&decide(
                json!({ "annotations": { "openWorldHint": true } }),
                json!({}),
                &medium,
                &KnownSecrets::default()
            )),
            ["exfiltration"]
        );
        assert!(codes(&decide(
            json!({ "annotations": { "openWorldHint": true, "readOnlyHint": true } }),
            json!({}),
            &medium,
            &KnownSecrets::default(),
        ))
        .is_empty());
    }

    #[test]
    fn secret_egress_denies_unless_declared() {
        let mut known = KnownSecrets::default();
        known.note("sk_live_CANARY1", "API key");
        let tool = json!({ "annotations": { "readOnlyHint": false } });
        for args in [
            json!({ "body": "here: sk_live_CANARY1" }),
            json!({ "u": "https://x/?k=sk_live_CANARY1" }),
            json!({ "nested": [{ "sk_live_CANARY1": 1 }] }),
        ] {
            let r = decide(tool.clone(), args.clone(), &Labels::default(), &known);
            assert_eq!((r.decision, codes(&r)), (Decision::Deny, vec!["secret_egress"]), "{args}");
        }
        let vault =
            json!({ "annotations": { "inputMetadata": { "Sensitivity": "Credentials", "Destination": "Internal" } } });
        assert_eq!(
            decide(vault, json!({ "key": "sk_live_CANARY1" }), &Labels::default(), &known).decision,
            Decision::Allow
        );
        for leaky in [
            json!({ "annotations": { "openWorldHint": true, "inputMetadata": { "Sensitivity": "Credentials", "Destination": "Internal" } } }),
            json!({ "_meta": { "mcp.dev/effect": "external" }, "annotations": { "inputMetadata": { "Sensitivity": "Credentials", "Destination": "Internal" } } }),
        ] {
            let r = decide(leaky.clone(), json!({ "key": "sk_live_CANARY1" }), &Labels::default(), &known);
            assert_eq!(r.decision, Decision::Deny, "the riskiest claim wins: {leaky}");
        }
        let public =
            json!({ "annotations": { "inputMetadata": { "Sensitivity": "Credentials", "Destination": "Public" } } });
        assert_eq!(
            decide(public, json!({ "key": "sk_live_CANARY1" }), &Labels::default(), &known).decision,
            Decision::Deny
        );
    }

    #[test]
    fn malicious_content_and_no_claims() {
        let bad = Labels { malicious: true, ..Labels::default() };
        assert_eq!(
            codes(&decide(
                json!({ "annotations": { "readOnlyHint": false } }),
                json!({}),
                &bad,
                &KnownSecrets::default()
            )),
            ["malicious_content"]
        );
        assert!(codes(&decide(
            json!({ "annotations": { "readOnlyHint": true } }),
            json!({}),
            &bad,
            &KnownSecrets::default()
        ))
        .is_empty());
        let r = decide(json!({ "name": "x" }), json!({}), &Labels::default(), &KnownSecrets::default());
        assert_eq!((r.decision, codes(&r)), (Decision::Allow, vec!["no_claims"]));
        let strict = Policy::from_json(&json!({ "unknownTools": "confirm" })).unwrap();
        assert_eq!(
            check(&ToolModel::default(), &json!({}), &Labels::default(), &strict, &KnownSecrets::default()).decision,
            Decision::Confirm
        );
    }

    #[test]
    fn rules_can_be_turned_off_or_changed() {
        let p = Policy::from_json(&json!({ "rules": { "irreversible": "off", "privileged": "deny" } })).unwrap();
        let m = ToolModel::read(&json!({ "annotations": { "destructiveHint": true, "privilegedAccessHint": true } }));
        let r = check(&m, &json!({}), &Labels::default(), &p, &KnownSecrets::default());
        assert_eq!((r.decision, codes(&r)), (Decision::Deny, vec!["privileged"]));
    }
}
