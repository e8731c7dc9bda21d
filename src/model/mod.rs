//! One model of a tool, read from every proposal's vocabulary: #110's `sensitiveHint`,
//! SEP-1913 levels, action security metadata, `mcp.dev/*` policy hints and SEP-1984 hints.
//! Every fact keeps the claims behind it (a JSON Pointer into the definition and what it said);
//! a fact nobody claimed is absent, never `false`. MCP's own defaults for its four behaviour
//! hints are kept apart from claims ([`ToolModel::default_hint`]): a tool that makes claims
//! gets them for what it left unsaid; a tool that says nothing gets none (`no_claims`).

mod read;
mod vocab;

pub(crate) use vocab::norm;
pub use vocab::{Class, Destination, Effect, Level, Outcomes, ResultSensitivity, Source};

use std::fmt;

use crate::hash::TextMap;

use crate::json::write::obj;
use serde_json::{Map, Value};

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

macro_rules! hints {
    ($($variant:ident = $name:literal),+ $(,)?) => {
        /// A boolean hint, by its model name: the annotation without its `Hint` suffix.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Hint { $($variant),+ }

        impl Hint {
            /// Every hint, in the order `describe()` lists them.
            pub const ALL: &'static [Hint] = &[$(Hint::$variant),+];

            /// The model name, as `describe()` writes it.
            pub fn as_str(self) -> &'static str {
                match self { $(Hint::$variant => $name),+ }
            }
        }
    };
}

hints! {
    ReadOnly = "readOnly",
    Destructive = "destructive",
    Idempotent = "idempotent",
    Reversible = "reversible",
    PrivilegedAccess = "privilegedAccess",
    RequiresConfirmation = "requiresConfirmation",
    OpenWorld = "openWorld",
    UntrustedContent = "untrustedContent",
    SensitiveData = "sensitiveData",
    AiProcessing = "aiProcessing",
    SlowExecution = "slowExecution",
    ResourceIntensive = "resourceIntensive",
    Private = "private",
    MaliciousActivity = "maliciousActivity",
}

impl Hint {
    /// The riskier of the two values, which wins when sources disagree: a tool that might not
    /// be read-only, idempotent or reversible is treated as if it is not.
    pub fn risky(self) -> bool {
        !matches!(self, Hint::ReadOnly | Hint::Idempotent | Hint::Reversible)
    }
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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
    /// The boolean hints anyone claimed, in the order of [`Hint::ALL`].
    pub hints: Vec<(Hint, Fact<bool>)>,
    /// The scopes of each `{ regulated: { scopes } }` data class, at the class's pointer.
    pub scopes: Vec<Claim<Vec<String>>>,
    /// SEP-1913 `attribution` on the tool itself: strings or objects, as said.
    pub attribution: Vec<Claim<Value>>,
    pub problems: Vec<Problem>,
}

impl ToolModel {
    /// Reads a tool definition (`annotations`, `_meta`, `inputMetadata`, `returnMetadata`).
    pub fn read(tool: &Value) -> ToolModel {
        read::read(tool)
    }

    /// The claims of one object of annotations (a tool's `annotations`, a result's `_meta`),
    /// read with the same vocabulary and spellings as a tool's; pointers are relative to it.
    pub fn read_place(place: &Map<String, Value>) -> ToolModel {
        read::read_place(place)
    }

    pub fn hint(&self, hint: Hint) -> Option<bool> {
        self.hint_fact(hint).map(|f| f.value)
    }

    /// The hint's value and the claims behind it.
    pub fn hint_fact(&self, hint: Hint) -> Option<&Fact<bool>> {
        self.hints.iter().find(|(h, _)| *h == hint).map(|(_, f)| f)
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

    /// MCP's default for a behaviour hint the tool did not claim (spec 2025-11-25: `readOnlyHint`
    /// false, `destructiveHint` true, `idempotentHint` false, `openWorldHint` true; the middle two
    /// only for a tool that is not read-only). A default stands only where no claim of any
    /// vocabulary speaks to the same thing: `mcp.dev/effect` to read-only-ness and the open world,
    /// `Outcomes` to destructiveness, `Destination` to the open world. A tool with no claims at
    /// all gets no defaults: the `no_claims` rule decides for it.
    pub fn default_hint(&self, hint: Hint) -> Option<bool> {
        if self.is_empty() || self.hint_fact(hint).is_some() {
            return None;
        }
        let unsaid = |spoken: bool| (!spoken).then_some(());
        match hint {
            Hint::ReadOnly => unsaid(self.effect.is_some()).map(|_| false),
            Hint::Destructive => unsaid(self.read_only() || self.outcomes.is_some()).map(|_| true),
            Hint::Idempotent => unsaid(self.read_only()).map(|_| false),
            Hint::OpenWorld => unsaid(self.effect.is_some() || self.input_destination.is_some()).map(|_| true),
            _ => None,
        }
    }

    /// The claimed value of a hint, else MCP's default.
    pub fn effective_hint(&self, hint: Hint) -> Option<bool> {
        self.hint(hint).or_else(|| self.default_hint(hint))
    }

    /// Read-only by the riskiest reading: some claim says so (`readOnlyHint: true`, or
    /// `mcp.dev/effect: "read"`) and no claim says it changes things (`readOnlyHint: false`,
    /// another effect, an outcome that is consequential or worse, `destructiveHint: true`).
    pub fn read_only(&self) -> bool {
        let claimed =
            self.hint(Hint::ReadOnly) == Some(true) || self.effect.as_ref().is_some_and(|e| e.value == Effect::Read);
        let writes = self.hint(Hint::ReadOnly) == Some(false)
            || self.effect.as_ref().is_some_and(|e| e.value != Effect::Read)
            || self.outcomes.as_ref().is_some_and(|o| o.value >= Outcomes::Consequential)
            || self.hint(Hint::Destructive) == Some(true);
        claimed && !writes
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
        for &hint in Hint::ALL {
            let f = self.hint_fact(hint).map(|f| fact_json(f, Value::Bool));
            // A default has no claims behind it, and says so.
            let d = || {
                let v = |b| {
                    obj(vec![("value", Value::Bool(b)), ("claims", Value::Array(vec![])), ("default", true.into())])
                };
                self.default_hint(hint).map(v)
            };
            effects.insert(hint.as_str().into(), f.or_else(d).unwrap_or(Value::Null));
        }
        effects.insert("effect".into(), opt(&self.effect, |e| e.as_str().into()));
        let attribution =
            |c: &Claim<Value>| obj(vec![("value", c.value.clone()), ("source", c.source.as_str().into())]);
        let problem =
            |p: &Problem| obj(vec![("pointer", p.pointer.as_str().into()), ("detail", p.detail.as_str().into())]);
        obj(vec![
            (
                "output",
                obj(vec![
                    ("level", opt(&self.output_level, |l| l.as_str().into())),
                    ("classes", classes_json(&self.output_classes, &self.scopes)),
                    ("source", opt(&self.output_source, |s| s.as_str().into())),
                ]),
            ),
            (
                "input",
                obj(vec![
                    ("destination", opt(&self.input_destination, |d| d.as_str().into())),
                    ("classes", classes_json(&self.input_classes, &self.scopes)),
                    ("outcomes", opt(&self.outcomes, |o| o.as_str().into())),
                ]),
            ),
            ("effects", Value::Object(effects)),
            (
                "attribution",
                if self.attribution.is_empty() {
                    Value::Null
                } else {
                    self.attribution.iter().map(attribution).collect()
                },
            ),
            ("problems", self.problems.iter().map(problem).collect()),
        ])
    }
}

fn fact_json<T: Copy>(f: &Fact<T>, word: impl Fn(T) -> Value) -> Value {
    let claims = f.claims.iter().map(|c| obj(vec![("value", word(c.value)), ("source", c.source.as_str().into())]));
    obj(vec![("value", word(f.value)), ("claims", claims.collect())])
}

fn opt<T: Copy>(f: &Option<Fact<T>>, word: impl Fn(T) -> Value) -> Value {
    f.as_ref().map_or(Value::Null, |f| fact_json(f, word))
}

/// The classes said, each claim with its source; a `regulated` class written with scopes keeps
/// them (`{ value: "regulated", source, scopes: ["GDPR"] }`).
fn classes_json(claims: &[Claim<Class>], scopes: &[Claim<Vec<String>>]) -> Value {
    if claims.is_empty() {
        return Value::Null;
    }
    let mut value: Vec<&str> = Vec::new();
    for c in claims {
        if !value.contains(&c.value.as_str()) {
            value.push(c.value.as_str());
        }
    }
    // Each class's scopes by its pointer, the first said there: a search of the list per
    // class was quadratic (40,000 classes, 1.1 MB of definition, took 8.5 s).
    let mut at: TextMap<&str, u32> = TextMap::default();
    for (i, s) in scopes.iter().enumerate().rev() {
        at.insert(s.source.as_str(), i as u32);
    }
    let claims: Vec<Value> = claims
        .iter()
        .map(|c| {
            let mut v = vec![("value", c.value.as_str().into()), ("source", c.source.as_str().into())];
            #[cfg(test)]
            tests::LOOKED.with(|n| n.set(n.get() + 1));
            if let Some(&i) = at.get(c.source.as_str()) {
                v.push(("scopes", scopes[i as usize].value.iter().map(|s| Value::from(s.as_str())).collect()));
            }
            obj(v)
        })
        .collect();
    obj(vec![("value", value.into_iter().map(Value::from).collect()), ("claims", Value::Array(claims))])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    thread_local! {
        /// Scopes looked at to find a class's own: the work of `classes_json`.
        pub(super) static LOOKED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// `n` regulated classes, each with its scopes: `describe()` (which the JS layer asks of a
    /// tool for each call's consent question) looked each class's scopes up in the list of all
    /// of them, n²/2 looks (40,000 classes, 1.1 MB of definition, took 8.5 s). Now one each,
    /// in both the input and the output classes.
    #[test]
    fn each_class_finds_its_scopes_with_one_look() {
        let n = 2_000;
        let classes: Vec<Value> = (0..n).map(|i| json!({ "regulated": { "scopes": [format!("S{i}")] } })).collect();
        let tool = json!({ "name": "t", "annotations": {
            "returnMetadata": { "Sensitivity": classes }, "inputMetadata": { "Sensitivity": classes } } });
        let model = ToolModel::read(&tool);
        LOOKED.with(|l| l.set(0));
        let d = model.to_json();
        let looked = LOOKED.with(|l| l.get());
        for side in ["output", "input"] {
            let claims = d[side]["classes"]["claims"].as_array().unwrap();
            assert_eq!(claims.len(), n, "{side}");
            assert_eq!(claims[n - 1]["scopes"], json!([format!("S{}", n - 1)]), "{side}: each keeps its own scopes");
        }
        assert!(looked <= 2 * n, "{looked} looks for {} classes", 2 * n);
    }

    #[test]
    fn hint_names_and_order_are_what_describe_writes() {
        let names: Vec<&str> = Hint::ALL.iter().map(|h| h.as_str()).collect();
        assert_eq!(
            names,
            [
                "readOnly",
                "destructive",
                "idempotent",
                "reversible",
                "privilegedAccess",
                "requiresConfirmation",
                "openWorld",
                "untrustedContent",
                "sensitiveData",
                "aiProcessing",
                "slowExecution",
                "resourceIntensive",
                "private",
                "maliciousActivity",
            ]
        );
        let effects =
            ToolModel::default().to_json()["effects"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(effects, names.iter().map(|n| n.to_string()).chain(["effect".to_string()]).collect::<Vec<_>>());
        let safe: Vec<Hint> = Hint::ALL.iter().copied().filter(|h| !h.risky()).collect();
        assert_eq!(safe, [Hint::ReadOnly, Hint::Idempotent, Hint::Reversible]);
    }

    #[test]
    fn every_hint_reads_back_from_its_annotation() {
        for &hint in Hint::ALL {
            assert_eq!(hint.to_string(), hint.as_str());
            let annotations = Map::from_iter([(format!("{hint}Hint"), json!(true))]);
            let m = ToolModel::read(&json!({ "annotations": annotations }));
            assert_eq!(m.hint(hint), Some(true), "{hint}");
            let source = &m.hint_fact(hint).unwrap().claims[0].source;
            assert_eq!(source, &format!("/annotations/{hint}Hint"));
            assert_eq!(m.to_json()["effects"][hint.as_str()]["value"], json!(true));
        }
    }
}
