//! "May the agent make this call?": the pre-call rules over a tool's model, the session's
//! labels and the call's arguments.

use crate::json::write::obj;
use serde_json::Value;

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
        let reason = |r: &CheckReason| {
            obj(vec![
                ("code", r.rule.code().into()),
                ("decision", r.decision.as_str().into()),
                ("message", r.message.as_str().into()),
                ("source", r.source.as_str().into()),
            ])
        };
        obj(vec![("decision", self.decision.as_str().into()), ("reasons", self.reasons.iter().map(reason).collect())])
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
    if labels.malicious && !model.read_only() {
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

/// The source of a hint for a reason: its first claim, or `default` for MCP's default.
fn hint_source(model: &ToolModel, hint: Hint) -> String {
    model.hint_fact(hint).map_or_else(|| "default".into(), first)
}

/// The riskiest claim wins: `readOnlyHint: true` does not switch off what `destructiveHint:
/// true`, an outcome or an effect of the same tool says (see [`ToolModel::read_only`]).
fn irreversible(c: &mut Checker, model: &ToolModel) {
    if let Some(o) = model.outcomes.as_ref().filter(|o| o.value == Outcomes::Irreversible) {
        c.add(Rule::Irreversible, "the tool's outcome cannot be undone", first(o));
    } else if model.effective_hint(Hint::Destructive) == Some(true) {
        let message = match model.hint(Hint::Destructive) {
            Some(true) => "the tool is destructive",
            _ => "the tool is not read-only and does not say it is not destructive (MCP's default: destructive)",
        };
        c.add(Rule::Irreversible, message, hint_source(model, Hint::Destructive));
    } else if let Some(r) = model.hint_fact(Hint::Reversible).filter(|r| !r.value && !model.read_only()) {
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
    } else if model.effective_hint(Hint::OpenWorld) == Some(true) && !model.read_only() {
        Some(("reaches the open world and is not read-only", hint_source(model, Hint::OpenWorld)))
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
    let leaves = model.effect.as_ref().is_some_and(|e| e.value == Effect::External)
        || model.effective_hint(Hint::OpenWorld) == Some(true);
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
            // Read as the agent's tool reads it: also as its plain value (`Needles::scrub_number`).
            Value::Number(n) => {
                out.extend(crate::json::scan::plain_decimal(n.as_str()).into_iter().chain([n.to_string()]))
            }
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
    use serde_json::json;

    fn decide(tool: Value, args: Value, labels: &Labels, known: &KnownSecrets) -> CheckResult {
        check(&ToolModel::read(&tool), &args, labels, &Policy::default(), known)
    }

    fn codes(r: &CheckResult) -> Vec<&str> {
        r.reasons.iter().map(|x| x.rule.code()).collect()
    }

    fn plain(tool: Value) -> CheckResult {
        decide(tool, json!({}), &Labels::default(), &KnownSecrets::default())
    }

    #[test]
    fn irreversible_three_ways() {
        for tool in [
            json!({ "annotations": { "inputMetadata": { "Outcomes": "Irreversible" } } }),
            json!({ "annotations": { "destructiveHint": true } }),
            json!({ "annotations": { "reversibleHint": false, "readOnlyHint": false, "destructiveHint": false } }),
        ] {
            let r = plain(tool.clone());
            assert_eq!((r.decision, codes(&r)), (Decision::Confirm, vec!["irreversible"]), "{tool}");
        }
        let r = plain(json!({ "annotations": { "reversibleHint": false, "readOnlyHint": true } }));
        assert_eq!(r.decision, Decision::Allow, "reversibility means nothing for a read-only tool");
    }

    #[test]
    fn mcp_defaults_apply_to_a_tool_that_makes_claims() {
        // Not read-only and silent on destructiveness: MCP's default is destructive.
        let r = plain(json!({ "annotations": { "readOnlyHint": false } }));
        assert_eq!((r.decision, codes(&r)), (Decision::Confirm, vec!["irreversible"]));
        assert_eq!(r.reasons[0].source, "default");
        assert!(r.reasons[0].message.contains("MCP's default"), "{}", r.reasons[0].message);
        // A claim of any vocabulary that speaks to it replaces the default.
        for tool in [
            json!({ "annotations": { "readOnlyHint": false, "destructiveHint": false } }),
            json!({ "annotations": { "readOnlyHint": true } }),
            json!({ "_meta": { "mcp.dev/effect": "read" } }),
            json!({ "annotations": { "inputMetadata": { "Outcomes": "Consequential" } } }),
        ] {
            assert_eq!(plain(tool.clone()).decision, Decision::Allow, "{tool}");
        }
        // Only claims about the output: the effects still get the defaults.
        let r = plain(json!({ "annotations": { "sensitiveHint": false } }));
        assert_eq!(codes(&r), ["irreversible"]);
        // The open world by default: a writer is a route out once the session holds sensitive data.
        let medium = Labels { sensitivity: Level::Medium, ..Labels::default() };
        let tool = json!({ "annotations": { "readOnlyHint": false, "destructiveHint": false } });
        let r = decide(tool, json!({}), &medium, &KnownSecrets::default());
        assert_eq!((codes(&r), r.reasons[0].source.as_str()), (vec!["exfiltration"], "default"));
        let closed =
            json!({ "annotations": { "readOnlyHint": false, "destructiveHint": false, "openWorldHint": false } });
        assert!(codes(&decide(closed, json!({}), &medium, &KnownSecrets::default())).is_empty());
    }

    #[test]
    fn a_tool_that_says_nothing_gets_no_defaults_but_no_claims() {
        let r = plain(json!({ "name": "x" }));
        assert_eq!((r.decision, codes(&r)), (Decision::Allow, vec!["no_claims"]));
        let medium = Labels { sensitivity: Level::Medium, ..Labels::default() };
        let r = decide(json!({ "name": "x" }), json!({}), &medium, &KnownSecrets::default());
        assert_eq!(codes(&r), ["no_claims"], "no default open world either");
    }

    #[test]
    fn read_only_never_switches_off_what_other_claims_say() {
        let r = plain(json!({ "annotations": { "destructiveHint": true, "readOnlyHint": true } }));
        assert_eq!((r.decision, codes(&r)), (Decision::Confirm, vec!["irreversible"]), "destructive wins");
        let r = plain(
            json!({ "annotations": { "readOnlyHint": true, "reversibleHint": false }, "_meta": { "mcp.dev/effect": "write" } }),
        );
        assert_eq!(codes(&r), ["irreversible"], "an effect that writes makes reversibility count");
        let r =
            plain(json!({ "annotations": { "readOnlyHint": true, "inputMetadata": { "Outcomes": "Irreversible" } } }));
        assert_eq!(codes(&r), ["irreversible"]);
        let medium = Labels { sensitivity: Level::Medium, ..Labels::default() };
        for tool in [
            json!({ "annotations": { "readOnlyHint": true, "openWorldHint": true, "inputMetadata": { "Outcomes": "Consequential" } } }),
            json!({ "annotations": { "readOnlyHint": true, "openWorldHint": true }, "_meta": { "mcp.dev/effect": ["read", "write"] } }),
            json!({ "annotations": { "readOnlyHint": true, "inputMetadata": { "Destination": "Public" } } }),
            json!({ "annotations": { "readOnlyHint": true }, "_meta": { "mcp.dev/effect": "external" } }),
        ] {
            let r = decide(tool.clone(), json!({}), &medium, &KnownSecrets::default());
            assert!(codes(&r).contains(&"exfiltration"), "{tool}: {r:?}");
        }
        let bad = Labels { malicious: true, ..Labels::default() };
        for tool in [
            json!({ "annotations": { "readOnlyHint": true, "destructiveHint": true } }),
            json!({ "annotations": { "readOnlyHint": true, "inputMetadata": { "Outcomes": "Consequential" } } }),
            json!({ "annotations": { "readOnlyHint": true }, "_meta": { "mcp.dev/effect": "delete" } }),
        ] {
            let r = decide(tool.clone(), json!({}), &bad, &KnownSecrets::default());
            assert!(codes(&r).contains(&"malicious_content"), "{tool}: {r:?}");
        }
    }

    #[test]
    fn confirmation_and_privilege() {
        let r = plain(
            json!({ "_meta": { "mcp.dev/requiresConfirmation": true }, "annotations": { "privilegedAccessHint": true, "readOnlyHint": true } }),
        );
        assert_eq!(codes(&r), ["requires_confirmation", "privileged"]);
        assert_eq!(r.reasons[0].source, "/_meta/mcp.dev~1requiresConfirmation");
    }

    #[test]
    fn exfiltration_needs_sensitive_session_and_an_outward_tool() {
        let public = json!({ "annotations": { "inputMetadata": { "Destination": "Public", "Outcomes": "Benign" } } });
        let medium = Labels { sensitivity: Level::Medium, ..Labels::default() };
        let private = Labels { private: true, ..Labels::default() };
        let low = Labels { sensitivity: Level::Low, ..Labels::default() };
        assert_eq!(codes(&decide(public.clone(), json!({}), &medium, &KnownSecrets::default())), ["exfiltration"]);
        assert_eq!(codes(&decide(public.clone(), json!({}), &private, &KnownSecrets::default())), ["exfiltration"]);
        assert!(codes(&decide(public, json!({}), &low, &KnownSecrets::default())).is_empty());
        for tool in [
            json!({ "_meta": { "mcp.dev/effect": "external" }, "annotations": { "destructiveHint": false } }),
            json!({ "annotations": { "openWorldHint": true, "destructiveHint": false } }),
        ] {
            assert_eq!(
                codes(&decide(tool.clone(), json!({}), &medium, &KnownSecrets::default())),
                ["exfiltration"],
                "{tool}"
            );
        }
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
        let tool = json!({ "annotations": { "readOnlyHint": true } });
        for args in [
            json!({ "body": "here: sk_live_CANARY1" }),
            json!({ "u": "https://x/?k=sk_live_CANARY1" }),
            json!({ "nested": [{ "sk_live_CANARY1": 1 }] }),
        ] {
            let r = decide(tool.clone(), args.clone(), &Labels::default(), &known);
            assert_eq!((r.decision, codes(&r)), (Decision::Deny, vec!["secret_egress"]), "{args}");
        }
        let sink = json!({ "Sensitivity": "Credentials", "Destination": "Internal", "Outcomes": "Benign" });
        let vault = json!({ "annotations": { "inputMetadata": sink } });
        assert_eq!(
            decide(vault, json!({ "key": "sk_live_CANARY1" }), &Labels::default(), &known).decision,
            Decision::Allow,
            "a Destination speaks to where input goes: no open-world default"
        );
        for leaky in [
            json!({ "annotations": { "openWorldHint": true, "inputMetadata": sink } }),
            json!({ "_meta": { "mcp.dev/effect": "external" }, "annotations": { "inputMetadata": sink } }),
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
        // The sink said in the newest wire form.
        let extension =
            json!({ "annotations": { "io.modelcontextprotocol/action-metadata": { "inputMetadata": sink } } });
        assert_eq!(
            decide(extension, json!({ "key": "sk_live_CANARY1" }), &Labels::default(), &known).decision,
            Decision::Allow
        );
    }

    /// Class 12 with class 10's rule: a word this library does not know where a destination or
    /// an effect is named (a typo, a newer word) counts as the riskiest known one (`Public`,
    /// `external`), so a declared credentials sink that also says it takes input somewhere
    /// unknown is no exemption from `secret_egress` (found by review, F6).
    #[test]
    fn an_unknown_destination_or_effect_is_the_riskiest_for_secret_egress() {
        let mut known = KnownSecrets::default();
        known.note("sk_live_EGRESS_77", "API key");
        let args = json!({ "body": "sk_live_EGRESS_77" });
        let mut tools = Vec::new();
        for word in [json!("Elsewhere"), json!("Publc"), json!(7), json!({ "public": true })] {
            for destination in [word.clone(), json!(["Internal", word.clone()]), json!([word.clone(), "Ephemeral"])] {
                let input = json!({ "Sensitivity": "Credentials", "Destination": destination });
                for place in ["annotations", "_meta"] {
                    tools.push(json!({ place: { "readOnlyHint": true, "inputMetadata": input } }));
                    let ext = json!({ "io.modelcontextprotocol/action-metadata": { "inputMetadata": input }, "openWorldHint": false });
                    tools.push(json!({ place: ext }));
                }
            }
            for effect in [word.clone(), json!(["write", word.clone()]), json!([word, "read"])] {
                let sink = json!({ "Sensitivity": "Credentials", "Destination": "Internal" });
                tools.push(json!({ "annotations": { "inputMetadata": sink }, "_meta": { "mcp.dev/effect": effect } }));
            }
        }
        tools.push(
            json!({ "annotations": { "inputMetadata": { "Sensitivity": "Credentials", "Destination": "Internal" } },
            "_meta": { "mcp.dev/effect": "network" } }),
        );
        for tool in tools {
            let m = ToolModel::read(&tool);
            let r = check(&m, &args, &Labels::default(), &Policy::default(), &known);
            assert!(codes(&r).contains(&"secret_egress"), "{tool}: {:?}", codes(&r));
            assert_eq!(r.decision, Decision::Deny, "{tool}");
            assert!(m.problems.iter().any(|p| p.detail.contains("counted as")), "lint still flags it: {tool}");
        }
        // Known words keep their meaning: the declared internal sink stays exempt.
        let sink = json!({ "annotations": { "inputMetadata": { "Sensitivity": "Credentials", "Destination": ["Internal", "Ephemeral"] } },
            "_meta": { "mcp.dev/effect": ["write"] } });
        let r = check(&ToolModel::read(&sink), &args, &Labels::default(), &Policy::default(), &known);
        assert!(!codes(&r).contains(&"secret_egress"), "{:?}", codes(&r));
    }

    #[test]
    fn malicious_content_and_no_claims() {
        let bad = Labels { malicious: true, ..Labels::default() };
        assert_eq!(
            codes(&decide(
                json!({ "annotations": { "readOnlyHint": false, "destructiveHint": false, "openWorldHint": false } }),
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
