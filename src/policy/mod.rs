//! The policy: when a tool's output is withheld, and what each pre-call rule decides.

pub mod check;
pub mod claims;
pub mod reference;
pub mod session;

use serde_json::Value;

use crate::model::{Class, Level};
use crate::scrub::detect::Detect;

/// What a browser agent (or a page) should do before a call, ordered by strictness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Decision {
    Allow,
    Confirm,
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Confirm => "confirm",
            Decision::Deny => "deny",
        }
    }

    pub const ALL: [Decision; 3] = [Decision::Allow, Decision::Confirm, Decision::Deny];

    fn parse(s: &str) -> Option<Decision> {
        Self::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

/// The pre-call rules, each with a stable code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Irreversible,
    RequiresConfirmation,
    Privileged,
    Exfiltration,
    SecretEgress,
    MaliciousContent,
    NoClaims,
    SecretReference,
    SecretReferenceRefused,
}

impl Rule {
    pub const ALL: [Rule; 9] = [
        Rule::Irreversible,
        Rule::RequiresConfirmation,
        Rule::Privileged,
        Rule::Exfiltration,
        Rule::SecretEgress,
        Rule::MaliciousContent,
        Rule::NoClaims,
        Rule::SecretReference,
        Rule::SecretReferenceRefused,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Rule::Irreversible => "irreversible",
            Rule::RequiresConfirmation => "requires_confirmation",
            Rule::Privileged => "privileged",
            Rule::Exfiltration => "exfiltration",
            Rule::SecretEgress => "secret_egress",
            Rule::MaliciousContent => "malicious_content",
            Rule::NoClaims => "no_claims",
            Rule::SecretReference => "secret_reference",
            Rule::SecretReferenceRefused => "secret_reference_refused",
        }
    }

    fn default_decision(self) -> Option<Decision> {
        Some(match self {
            Rule::SecretEgress | Rule::SecretReferenceRefused => Decision::Deny,
            Rule::NoClaims => Decision::Allow,
            _ => Decision::Confirm,
        })
    }
}

/// Options of `createRedactor({ policy })`; every field has a default.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    /// An output level at or above this makes the tool sensitive (contract rule 4).
    pub withhold_at: Level,
    /// Output data classes that make the tool sensitive too.
    pub redact_classes: Vec<Class>,
    /// Each rule's decision; `None` turns the rule off.
    pub rules: Vec<(Rule, Option<Decision>)>,
    /// Wrap the text of untrusted tools' results in delimiters ("spotlighting").
    pub spotlight: bool,
    /// Which credential formats are detected in every result (`docs/detectors.md`).
    pub detect: Detect,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            withhold_at: Level::High,
            redact_classes: vec![Class::Credentials],
            rules: Rule::ALL.iter().map(|r| (*r, r.default_decision())).collect(),
            spotlight: false,
            detect: Detect::ALL,
        }
    }
}

impl Policy {
    /// What `rule` decides, or `None` if it is off.
    pub fn decision(&self, rule: Rule) -> Option<Decision> {
        self.rules.iter().find(|(r, _)| *r == rule).and_then(|(_, d)| *d)
    }

    /// Reads `{ withholdAt?, redactClasses?, unknownTools?, rules?: { code: "allow" | "confirm" |
    /// "deny" | "off" }, spotlight?, detect?: boolean | { kind: boolean } }`. Errors name the
    /// offending key.
    pub fn from_json(v: &Value) -> Result<Policy, String> {
        let mut p = Policy::default();
        let Value::Object(obj) = v else { return Err("policy must be an object".into()) };
        for (key, value) in obj {
            let bad = || format!("policy.{key} has an invalid value {}", crate::json::write::text(value));
            match key.as_str() {
                "withholdAt" => p.withhold_at = value.as_str().and_then(Level::parse).ok_or_else(bad)?,
                "redactClasses" => {
                    let list = value.as_array().ok_or_else(bad)?;
                    p.redact_classes = list
                        .iter()
                        .map(|c| c.as_str().and_then(Class::parse).ok_or_else(bad))
                        .collect::<Result<_, _>>()?;
                }
                "unknownTools" => {
                    let d =
                        value.as_str().and_then(Decision::parse).filter(|d| *d != Decision::Deny).ok_or_else(bad)?;
                    p.set(Rule::NoClaims, Some(d));
                }
                "spotlight" => p.spotlight = value.as_bool().ok_or_else(bad)?,
                "detect" => p.detect = Detect::from_json(value)?,
                "rules" => {
                    let rules = value.as_object().ok_or_else(bad)?;
                    for (code, d) in rules {
                        let rule = Rule::ALL
                            .into_iter()
                            .find(|r| r.code() == code)
                            .ok_or_else(|| format!("policy.rules has an unknown rule {code}"))?;
                        let decision =
                            match d.as_str() {
                                Some("off") => None,
                                Some(s) => Some(Decision::parse(s).ok_or_else(|| {
                                    format!("policy.rules.{code} must be allow, confirm, deny or off")
                                })?),
                                None => return Err(format!("policy.rules.{code} must be a string")),
                            };
                        p.set(rule, decision);
                    }
                }
                _ => return Err(format!("unknown policy option {key}")),
            }
        }
        Ok(p)
    }

    fn set(&mut self, rule: Rule, decision: Option<Decision>) {
        if let Some(slot) = self.rules.iter_mut().find(|(r, _)| *r == rule) {
            slot.1 = decision;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults() {
        let p = Policy::default();
        assert_eq!((p.withhold_at, p.redact_classes.clone()), (Level::High, vec![Class::Credentials]));
        assert_eq!(p.decision(Rule::SecretEgress), Some(Decision::Deny));
        assert_eq!(p.decision(Rule::Exfiltration), Some(Decision::Confirm));
        assert_eq!(p.decision(Rule::NoClaims), Some(Decision::Allow));
    }

    #[test]
    fn every_option_reads_and_bad_values_are_named() {
        let p = Policy::from_json(
            &json!({ "withholdAt": "medium", "redactClasses": ["PII", "credentials"], "unknownTools": "confirm",
            "rules": { "privileged": "off", "exfiltration": "deny" }, "spotlight": true }),
        )
        .unwrap();
        assert_eq!(p.withhold_at, Level::Medium);
        assert_eq!(p.redact_classes, [Class::Pii, Class::Credentials]);
        assert_eq!(p.decision(Rule::NoClaims), Some(Decision::Confirm));
        assert_eq!(p.decision(Rule::Privileged), None);
        assert_eq!(p.decision(Rule::Exfiltration), Some(Decision::Deny));
        assert!(p.spotlight);
        assert!(Policy::default().detect.has(crate::scrub::detect::Kind::Jwt), "on by default");
        let off = Policy::from_json(&json!({ "detect": false })).unwrap();
        assert!(off.detect.is_none());
        let err = Policy::from_json(&json!({ "detect": { "aws": false } })).unwrap_err();
        assert_eq!(err, "policy.detect has an unknown kind aws");
        for bad in [
            json!({ "withholdAt": "extreme" }),
            json!({ "rules": { "nope": "deny" } }),
            json!({ "unknownTools": "deny" }),
            json!({ "colour": 1 }),
            json!({ "detect": "yes" }),
            json!({ "detect": { "aws": false } }),
        ] {
            assert!(Policy::from_json(&bad).is_err(), "{bad}");
        }
    }
}
