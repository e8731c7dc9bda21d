//! Reads the model's claims out of a tool definition, under `annotations` and `_meta`.

use serde_json::{Map, Value};

use super::vocab::norm;
use super::{
    Claim, Class, Destination, Effect, Fact, Hint, Level, Outcomes, Problem, ResultSensitivity, Source, ToolModel,
};
use crate::json::{child, truthy};

pub(super) fn read(tool: &Value) -> ToolModel {
    let mut r = Reader::default();
    for place in ["annotations", "_meta"] {
        if let Some(Value::Object(obj)) = tool.get(place) {
            r.container(obj, &child("", place));
        }
    }
    r.finish()
}

#[derive(Default)]
struct Reader {
    levels: Vec<Claim<Level>>,
    out_classes: Vec<Claim<Class>>,
    sources: Vec<Claim<Source>>,
    destinations: Vec<Claim<Destination>>,
    in_classes: Vec<Claim<Class>>,
    outcomes: Vec<Claim<Outcomes>>,
    effects: Vec<Claim<Effect>>,
    hints: Vec<(Hint, Claim<bool>)>,
    problems: Vec<Problem>,
}

/// Any spelling of a vocabulary word type.
trait Word: Sized + Copy {
    fn parse(s: &str) -> Option<Self>;
    const WHAT: &'static str;
}

macro_rules! word {
    ($($t:ident: $what:literal),+) => {$(
        impl Word for $t {
            fn parse(s: &str) -> Option<Self> { $t::parse(s) }
            const WHAT: &'static str = $what;
        }
    )+};
}
word!(Class: "data class", Source: "source", Destination: "destination", Outcomes: "outcome", Effect: "effect", ResultSensitivity: "result sensitivity", Level: "sensitivity level");

impl Reader {
    fn container(&mut self, obj: &Map<String, Value>, base: &str) {
        for (key, value) in obj {
            let at = child(base, key);
            match norm(key).as_str() {
                "sensitivehint" => self.sensitive_hint(value, &at),
                "inputmetadata" => self.metadata(value, &at, true),
                "returnmetadata" => self.metadata(value, &at, false),
                "mcpdeveffect" => {
                    self.words(value, &at, |r, c| r.effects.push(c));
                }
                "mcpdevidempotent" => self.hint(Hint::Idempotent, value, &at),
                "mcpdevrequiresconfirmation" | "requiresconfirmation" => {
                    self.hint(Hint::RequiresConfirmation, value, &at)
                }
                "mcpdevresultsensitivity" => {
                    let unknown = self.words(value, &at, |r, c: Claim<ResultSensitivity>| {
                        r.levels.push(Claim { value: c.value.level(), source: c.source })
                    });
                    self.unknown_sensitivity(unknown);
                }
                k => {
                    if let Some(&hint) = Hint::ALL.iter().find(|h| norm(&format!("{h}Hint")) == k) {
                        self.hint(hint, value, &at);
                    }
                }
            }
        }
    }

    /// #110 (a boolean) and SEP-1913 (a level) share the name.
    fn sensitive_hint(&mut self, value: &Value, at: &str) {
        let level = match value {
            Value::Null => return,
            Value::Bool(b) => {
                if *b {
                    Level::High
                } else {
                    Level::None
                }
            }
            Value::String(s) if s.is_empty() => {
                self.problem(at, "an empty `sensitiveHint` claims nothing; use false or a level");
                Level::None
            }
            Value::String(s) => Level::parse(s).unwrap_or_else(|| {
                self.problem(
                    at,
                    format!("unknown sensitivity level \"{s}\" (counted as high); use low, medium or high"),
                );
                Level::High
            }),
            v => {
                self.problem(at, "`sensitiveHint` must be a boolean or a level");
                if truthy(v) {
                    Level::High
                } else {
                    Level::None
                }
            }
        };
        self.levels.push(Claim { value: level, source: at.into() });
    }

    fn hint(&mut self, hint: Hint, value: &Value, at: &str) {
        let Value::Bool(b) = value else {
            if !value.is_null() {
                self.problem(at, format!("`{hint}` must be a boolean"));
            }
            return;
        };
        self.hints.push((hint, Claim { value: *b, source: at.into() }));
        if hint == Hint::SensitiveData {
            let level = if *b { Level::Medium } else { Level::None };
            self.levels.push(Claim { value: level, source: at.into() });
        }
    }

    fn metadata(&mut self, value: &Value, at: &str, input: bool) {
        let Value::Object(obj) = value else {
            return self.problem(at, "metadata must be an object");
        };
        for (key, v) in obj {
            let here = child(at, key);
            match (norm(key).as_str(), input) {
                ("destination", true) => {
                    self.words(v, &here, |r, c| r.destinations.push(c));
                }
                ("outcomes", true) => {
                    self.words(v, &here, |r, c| r.outcomes.push(c));
                }
                ("sensitivity", true) => {
                    self.words(v, &here, |r, c| r.in_classes.push(c));
                }
                ("source", false) => {
                    self.words(v, &here, |r, c| r.sources.push(c));
                }
                ("sensitivity", false) => {
                    let unknown = self.words(v, &here, |r, c: Claim<Class>| {
                        r.levels.push(Claim { value: c.value.level(), source: c.source.clone() });
                        r.out_classes.push(c);
                    });
                    self.unknown_sensitivity(unknown);
                }
                _ => self.problem(&here, format!("unknown key `{key}`")),
            }
        }
    }

    /// A word or a list of words; each unknown one is a problem. Returns where the unknown
    /// ones stand.
    fn words<T: Word>(&mut self, value: &Value, at: &str, mut add: impl FnMut(&mut Self, Claim<T>)) -> Vec<String> {
        let list: Vec<(String, &Value)> = match value {
            Value::Array(items) => items.iter().enumerate().map(|(i, v)| (format!("{at}/{i}"), v)).collect(),
            v => vec![(at.to_string(), v)],
        };
        let mut unknown = Vec::new();
        for (pointer, v) in list {
            match v.as_str().and_then(T::parse) {
                Some(w) => add(self, Claim { value: w, source: pointer }),
                None => {
                    self.problem(&pointer, format!("unknown {} {v}", T::WHAT));
                    unknown.push(pointer);
                }
            }
        }
        unknown
    }

    /// A word in a place that names the output's sensitivity, which this library does not know
    /// (a typo such as `Credential`, a newer word): it could name the highest level, so it
    /// counts as high, as an unknown `sensitiveHint` word does. Fails closed.
    fn unknown_sensitivity(&mut self, unknown: Vec<String>) {
        for source in unknown {
            if let Some(p) = self.problems.iter_mut().rev().find(|p| p.pointer == source) {
                p.detail.push_str(" (counted as high)");
            }
            self.levels.push(Claim { value: Level::High, source });
        }
    }

    fn problem(&mut self, at: &str, detail: impl Into<String>) {
        self.problems.push(Problem { pointer: at.into(), detail: detail.into() });
    }

    fn finish(self) -> ToolModel {
        let mut hints = Vec::new();
        for &hint in Hint::ALL {
            let claims: Vec<Claim<bool>> =
                self.hints.iter().filter(|(h, _)| *h == hint).map(|(_, c)| c.clone()).collect();
            if !claims.is_empty() {
                let risky = hint.risky();
                let value = if claims.iter().any(|c| c.value == risky) { risky } else { !risky };
                hints.push((hint, Fact { value, claims }));
            }
        }
        ToolModel {
            output_level: riskiest(self.levels),
            output_classes: self.out_classes,
            output_source: riskiest(self.sources),
            input_destination: riskiest(self.destinations),
            input_classes: self.in_classes,
            outcomes: riskiest(self.outcomes),
            effect: riskiest(self.effects),
            hints,
            problems: self.problems,
        }
    }
}

/// Several sources: the riskiest claim wins (the enums are ordered by risk).
fn riskiest<T: Ord + Copy>(claims: Vec<Claim<T>>) -> Option<Fact<T>> {
    let value = claims.iter().map(|c| c.value).max()?;
    Some(Fact { value, claims })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn levels_from_every_source_highest_wins() {
        let cases = [
            (json!({ "annotations": { "sensitiveHint": true } }), Some(Level::High)),
            (json!({ "annotations": { "sensitiveHint": "medium" } }), Some(Level::Medium)),
            (json!({ "annotations": { "sensitiveHint": "extreme" } }), Some(Level::High)),
            (json!({ "annotations": { "sensitiveHint": false } }), Some(Level::None)),
            (json!({ "annotations": { "returnMetadata": { "Sensitivity": ["User", "PII"] } } }), Some(Level::Medium)),
            (json!({ "annotations": { "returnMetadata": { "sensitivity": "credentials" } } }), Some(Level::High)),
            (json!({ "_meta": { "mcp.dev/resultSensitivity": "confidential" } }), Some(Level::Medium)),
            (json!({ "annotations": { "sensitiveDataHint": true } }), Some(Level::Medium)),
            (
                json!({ "annotations": { "sensitiveHint": "low", "sensitiveDataHint": true }, "_meta": { "mcp.dev/resultSensitivity": "restricted" } }),
                Some(Level::High),
            ),
            (json!({ "annotations": {} }), None),
        ];
        for (tool, want) in cases {
            assert_eq!(ToolModel::read(&tool).level(), want, "{tool}");
        }
    }

    #[test]
    fn every_claim_keeps_its_source() {
        let m = ToolModel::read(
            &json!({ "annotations": { "sensitiveHint": "low", "returnMetadata": { "Sensitivity": ["PII"] } } }),
        );
        let f = m.output_level.unwrap();
        assert_eq!(f.value, Level::Medium);
        let sources: Vec<&str> = f.claims.iter().map(|c| c.source.as_str()).collect();
        assert_eq!(sources, ["/annotations/sensitiveHint", "/annotations/returnMetadata/Sensitivity/0"]);
    }

    #[test]
    fn absent_is_no_claim_and_disagreement_takes_the_riskier() {
        let m = ToolModel::read(
            &json!({ "annotations": { "idempotentHint": true, "readOnlyHint": true }, "_meta": { "mcp.dev/idempotent": false } }),
        );
        assert_eq!(m.hint(Hint::Idempotent), Some(false));
        assert_eq!(m.hint(Hint::ReadOnly), Some(true));
        assert_eq!(m.hint(Hint::Destructive), None);
    }

    #[test]
    fn unknown_words_are_problems() {
        let m = ToolModel::read(
            &json!({ "annotations": { "inputMetadata": { "Destination": "Moon", "Outcomes": "Irreversible" }, "readOnlyHint": "yes" } }),
        );
        let pointers: Vec<&str> = m.problems.iter().map(|p| p.pointer.as_str()).collect();
        assert_eq!(pointers, ["/annotations/inputMetadata/Destination", "/annotations/readOnlyHint"]);
        assert_eq!(m.outcomes.unwrap().value, Outcomes::Irreversible);
    }

    #[test]
    fn an_unknown_word_that_could_name_a_sensitivity_counts_as_high() {
        for tool in [
            json!({ "_meta": { "mcp.dev/resultSensitivity": "secret" } }),
            json!({ "_meta": { "mcp.dev/resultSensitivity": ["public", 7] } }),
            json!({ "annotations": { "returnMetadata": { "Sensitivity": "Credential" } } }),
            json!({ "annotations": { "returnMetadata": { "Sensitivity": ["User", "Passwords"] } } }),
        ] {
            let m = ToolModel::read(&tool);
            assert_eq!(m.level(), Some(Level::High), "{tool}");
            assert!(m.problems.iter().any(|p| p.detail.ends_with("(counted as high)")), "lint still flags it: {tool}");
        }
        let known = ToolModel::read(&json!({ "annotations": { "inputMetadata": { "Destination": "Elsewhere" } } }));
        assert_eq!(known.level(), None, "an unknown destination names no sensitivity");
    }
}
