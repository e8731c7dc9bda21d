//! One model of a tool, read from every proposal's vocabulary: #110's `sensitiveHint`,
//! SEP-1913 levels, action security metadata, `mcp.dev/*` policy hints and SEP-1984 hints.
//! Every fact keeps the claims behind it (a JSON Pointer into the definition and what it said);
//! a fact nobody claimed is absent, never `false`.

mod read;
mod vocab;

pub use vocab::{Class, Destination, Effect, Level, Outcomes, ResultSensitivity, Source};

use serde_json::{json, Map, Value};

/// One thing one source said: where it said it (a JSON Pointer into the tool definition) and
/// what it means in this model.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim<T> {
    pub value: T,
    pub source: String,
}

/// A fact and the claims behind it; the value is the riskiest claim.
#[derive(Clone, Debug, PartialEq)]
pub struct Fact<T> {
    pub value: T,
    pub claims: Vec<Claim<T>>,
}

/// A word the model could not read: an unknown vocabulary value or a value of the wrong type.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub pointer: String,
    pub detail: String,
}

/// The boolean hints, by their model name. Each has the value that is the riskier of the two,
/// which wins when sources disagree.
pub const HINTS: &[(&str, bool)] = &[
    ("readOnly", false),
    ("destructive", true),
    ("idempotent", false),
    ("reversible", false),
    ("privilegedAccess", true),
    ("requiresConfirmation", true),
    ("openWorld", true),
    ("untrustedContent", true),
    ("sensitiveData", true),
    ("aiProcessing", true),
    ("slowExecution", true),
    ("resourceIntensive", true),
    ("private", true),
    ("maliciousActivity", true),
];

/// Everything the proposals let a tool say about itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolModel {
    pub output_level: Option<Fact<Level>>,
    pub output_classes: Vec<Claim<Class>>,
    pub output_source: Option<Fact<Source>>,
    pub input_destination: Option<Fact<Destination>>,
    pub input_classes: Vec<Claim<Class>>,
    pub outcomes: Option<Fact<Outcomes>>,
    pub effect: Option<Fact<Effect>>,
    /// Boolean hints by model name (see [`HINTS`]), in that order.
    pub hints: Vec<(&'static str, Fact<bool>)>,
    pub problems: Vec<Problem>,
}

impl ToolModel {
    /// Reads a tool definition (`annotations`, `_meta`, `inputMetadata`, `returnMetadata`).
    pub fn read(tool: &Value) -> ToolModel {
        read::read(tool)
    }

    pub fn hint(&self, name: &str) -> Option<bool> {
        self.hints.iter().find(|(n, _)| *n == name).map(|(_, f)| f.value)
    }

    pub fn level(&self) -> Option<Level> {
        self.output_level.as_ref().map(|f| f.value)
    }

    pub fn has_output_class(&self, class: Class) -> bool {
        self.output_classes.iter().any(|c| c.value == class)
    }

    pub fn accepts_input_class(&self, class: Class) -> bool {
        self.input_classes.iter().any(|c| c.value == class)
    }

    /// Did the tool make any claim at all?
    pub fn is_empty(&self) -> bool {
        self.output_level.is_none()
            && self.output_classes.is_empty()
            && self.output_source.is_none()
            && self.input_destination.is_none()
            && self.input_classes.is_empty()
            && self.outcomes.is_none()
            && self.effect.is_none()
            && self.hints.is_empty()
    }

    /// The model as data (what `redactor.describe(tool)` returns).
    pub fn to_json(&self) -> Value {
        let mut effects = Map::new();
        for (name, _) in HINTS {
            let f = self.hints.iter().find(|(n, _)| n == name).map(|(_, f)| fact_json(f, |b| json!(b)));
            effects.insert((*name).into(), f.unwrap_or(Value::Null));
        }
        effects.insert("effect".into(), opt(&self.effect, |e| json!(e.as_str())));
        json!({
            "output": {
                "level": opt(&self.output_level, |l| json!(l.as_str())),
                "classes": classes_json(&self.output_classes),
                "source": opt(&self.output_source, |s| json!(s.as_str())),
            },
            "input": {
                "destination": opt(&self.input_destination, |d| json!(d.as_str())),
                "classes": classes_json(&self.input_classes),
                "outcomes": opt(&self.outcomes, |o| json!(o.as_str())),
            },
            "effects": effects,
            "problems": self.problems.iter().map(|p| json!({ "pointer": p.pointer, "detail": p.detail })).collect::<Vec<_>>(),
        })
    }
}

fn fact_json<T: Copy>(f: &Fact<T>, word: impl Fn(T) -> Value) -> Value {
    let claims: Vec<Value> = f.claims.iter().map(|c| json!({ "value": word(c.value), "source": c.source })).collect();
    json!({ "value": word(f.value), "claims": claims })
}

fn opt<T: Copy>(f: &Option<Fact<T>>, word: impl Fn(T) -> Value) -> Value {
    f.as_ref().map_or(Value::Null, |f| fact_json(f, word))
}

fn classes_json(claims: &[Claim<Class>]) -> Value {
    if claims.is_empty() {
        return Value::Null;
    }
    let mut value: Vec<&str> = Vec::new();
    for c in claims {
        if !value.contains(&c.value.as_str()) {
            value.push(c.value.as_str());
        }
    }
    let claims: Vec<Value> = claims.iter().map(|c| json!({ "value": c.value.as_str(), "source": c.source })).collect();
    json!({ "value": value, "claims": claims })
}
