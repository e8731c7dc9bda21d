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

/// The claims of one object that holds annotations, read as a tool's `annotations` are: the one
/// reader of the vocabulary, which a result's own annotations go through too (`_meta`, a
/// block's `annotations`, ...), so a result's words mean what a tool's mean, in any spelling
/// (found by review: `sensitive_hint` and `mcp.dev/resultSensitivity` were read on tools only).
pub(super) fn read_place(obj: &Map<String, Value>) -> ToolModel {
    let mut r = Reader::default();
    r.container(obj, "");
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
    scopes: Vec<Claim<Vec<String>>>,
    attribution: Vec<Claim<Value>>,
    problems: Vec<Problem>,
}

/// Any spelling of a vocabulary word type.
trait Word: Sized + Copy {
    fn parse(s: &str) -> Option<Self>;
    /// The canonical word, for a problem's detail.
    fn word(self) -> &'static str;
    /// The riskiest word of the vocabulary (each enum is ordered by risk).
    fn riskiest() -> Self;
    const WHAT: &'static str;
    /// A word as it stands in the definition: a string, for most.
    fn parse_value(v: &Value) -> Option<Self> {
        v.as_str().and_then(Self::parse)
    }
}

macro_rules! word {
    ($($t:ident: $what:literal),+) => {$(
        impl Word for $t {
            fn parse(s: &str) -> Option<Self> { $t::parse(s) }
            fn word(self) -> &'static str { self.as_str() }
            fn riskiest() -> Self { *$t::ALL.last().expect("a vocabulary has words") }
            const WHAT: &'static str = $what;
        }
    )+};
}
word!(Source: "source", Destination: "destination", Outcomes: "outcome", Effect: "effect", ResultSensitivity: "result sensitivity", Level: "sensitivity level");

impl Word for Class {
    fn parse(s: &str) -> Option<Self> {
        Class::parse(s)
    }
    fn word(self) -> &'static str {
        self.as_str()
    }
    fn riskiest() -> Self {
        Class::Credentials
    }
    const WHAT: &'static str = "data class";
    /// SEP-1913's `DataClass` also has `{ regulated: { scopes: [...] } }`: regulated data,
    /// under the regimes it names.
    fn parse_value(v: &Value) -> Option<Self> {
        match v {
            Value::Object(o) if o.len() == 1 && o.keys().all(|k| norm(k) == "regulated") => Some(Class::Regulated),
            v => v.as_str().and_then(Class::parse),
        }
    }
}

/// An unknown word: where it stands, and its problem's index in `Reader::problems`.
struct Unknown {
    problem: usize,
    pointer: String,
}

impl Reader {
    fn container(&mut self, obj: &Map<String, Value>, base: &str) {
        for (key, value) in obj {
            // The pointer is written only for a key that claims something: a result's `_meta`
            // can hold many others.
            let at = || child(base, key);
            match norm(key).as_str() {
                "sensitivehint" => self.sensitive_hint(value, &at()),
                "inputmetadata" => self.metadata(value, &at(), true),
                "returnmetadata" => self.metadata(value, &at(), false),
                "iomodelcontextprotocolactionmetadata" => self.action_metadata(value, &at()),
                "attribution" => self.attribution(value, &at()),
                "mcpdeveffect" => {
                    let unknown = self.words(value, &at(), |r, c| r.effects.push(c));
                    self.count_as_riskiest(unknown, |r, c| r.effects.push(c));
                }
                "mcpdevidempotent" => self.hint(Hint::Idempotent, value, &at()),
                "mcpdevrequiresconfirmation" | "requiresconfirmation" => {
                    self.hint(Hint::RequiresConfirmation, value, &at())
                }
                "mcpdevresultsensitivity" => {
                    let unknown = self.words(value, &at(), |r, c: Claim<ResultSensitivity>| {
                        r.levels.push(Claim { value: c.value.level(), source: c.source })
                    });
                    self.unknown_sensitivity(unknown);
                }
                k => {
                    // Without an allocation per key: a result's `_meta` can hold many.
                    let stem = k.strip_suffix("hint");
                    if let Some(&hint) =
                        Hint::ALL.iter().find(|h| stem.is_some_and(|s| h.as_str().eq_ignore_ascii_case(s)))
                    {
                        self.hint(hint, value, &at());
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

    /// The MCP extension `io.modelcontextprotocol/action-metadata`: `inputMetadata` and
    /// `returnMetadata` one level down, read as if they stood beside it.
    fn action_metadata(&mut self, value: &Value, at: &str) {
        let Value::Object(obj) = value else {
            return self.problem(at, "`io.modelcontextprotocol/action-metadata` must be an object");
        };
        for (key, v) in obj {
            let here = child(at, key);
            match norm(key).as_str() {
                "inputmetadata" => self.metadata(v, &here, true),
                "returnmetadata" => self.metadata(v, &here, false),
                _ => self.problem(&here, format!("unknown key `{key}`")),
            }
        }
    }

    /// SEP-1913 `attribution` on the tool: a string, an object, or a list of them, kept as said.
    fn attribution(&mut self, value: &Value, at: &str) {
        let list: Vec<(String, &Value)> = match value {
            Value::Null => return,
            Value::Array(items) => items.iter().enumerate().map(|(i, v)| (format!("{at}/{i}"), v)).collect(),
            v => vec![(at.to_string(), v)],
        };
        for (pointer, v) in list {
            if v.is_string() || v.is_object() {
                self.attribution.push(Claim { value: v.clone(), source: pointer });
            } else {
                self.problem(&pointer, "an attribution entry must be a string or an object");
            }
        }
    }

    /// A value that is not a boolean (`"true"`, `1`) is a problem, and claims the riskier
    /// value (fail closed: `destructiveHint: "true"` beside `readOnlyHint: true` is no
    /// read-only tool); `null` claims nothing.
    fn hint(&mut self, hint: Hint, value: &Value, at: &str) {
        let b = match value {
            Value::Null => return,
            Value::Bool(b) => b,
            _ => {
                self.problem(at, format!("`{hint}` must be a boolean (counted as {})", hint.risky()));
                &hint.risky()
            }
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
                    let unknown = self.words(v, &here, |r, c| r.destinations.push(c));
                    self.count_as_riskiest(unknown, |r, c| r.destinations.push(c));
                }
                ("outcomes", true) => {
                    let unknown = self.words(v, &here, |r, c| r.outcomes.push(c));
                    self.count_as_riskiest(unknown, |r, c| r.outcomes.push(c));
                }
                // An unknown input class stays a problem only: counted as `Credentials` it
                // would make the tool a credentials sink, exempt from `secret_egress`.
                ("sensitivity", true) => {
                    self.words(v, &here, |r, c| r.in_classes.push(c));
                }
                ("source", false) => {
                    let unknown = self.words(v, &here, |r, c| r.sources.push(c));
                    self.count_as_riskiest(unknown, |r, c| r.sources.push(c));
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
    /// ones stand, each with its problem.
    fn words<T: Word>(&mut self, value: &Value, at: &str, mut add: impl FnMut(&mut Self, Claim<T>)) -> Vec<Unknown> {
        let list: Vec<(String, &Value)> = match value {
            Value::Array(items) => items.iter().enumerate().map(|(i, v)| (format!("{at}/{i}"), v)).collect(),
            v => vec![(at.to_string(), v)],
        };
        let mut unknown = Vec::new();
        for (pointer, v) in list {
            match T::parse_value(v) {
                Some(w) => {
                    if let Value::Object(o) = v {
                        self.regulated_scopes(o.values().next(), &pointer);
                    }
                    add(self, Claim { value: w, source: pointer })
                }
                None => {
                    self.problem(&pointer, format!("unknown {} {}", T::WHAT, crate::json::write::text(v)));
                    unknown.push(Unknown { problem: self.problems.len() - 1, pointer });
                }
            }
        }
        unknown
    }

    /// The scopes of `{ regulated: { scopes: [...] } }` (regimes such as `GDPR`, any string),
    /// kept for `describe()`. A malformed form is a problem; it is still regulated data.
    fn regulated_scopes(&mut self, inner: Option<&Value>, at: &str) {
        let key = at.to_string() + "/regulated";
        let scopes = match inner {
            Some(Value::Object(o)) if o.keys().all(|k| k == "scopes") => match o.get("scopes") {
                None => Some(Vec::new()),
                Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                    Some(items.iter().filter_map(Value::as_str).map(str::to_string).collect())
                }
                Some(_) => None,
            },
            _ => None,
        };
        match scopes {
            Some(scopes) => self.scopes.push(Claim { value: scopes, source: at.into() }),
            None => self.problem(&key, "`regulated` must be `{ scopes: [string] }` (counted as regulated)"),
        }
    }

    /// A word in a place that names the output's sensitivity, which this library does not know
    /// (a typo such as `Credential`, a newer word): it could name the highest level, so it
    /// counts as high, as an unknown `sensitiveHint` word does. Fails closed.
    fn unknown_sensitivity(&mut self, unknown: Vec<Unknown>) {
        for Unknown { problem, pointer } in unknown {
            self.counted(problem, "high");
            self.levels.push(Claim { value: Level::High, source: pointer });
        }
    }

    /// A word this library does not know where a claim could only make the tool riskier (a
    /// destination `Publc`, an effect `network`, an outcome, a source): it could name the
    /// riskiest word, so it counts as that one (`Public`, `external`, `Irreversible`,
    /// `UntrustedPublic`), as an unknown sensitivity counts as high: an unknown word never
    /// makes a known one look safe beside it (found by review: `Destination: ["Internal",
    /// "Elsewhere"]` kept a credentials sink exempt from `secret_egress`). Lint still flags it.
    fn count_as_riskiest<T: Word>(&mut self, unknown: Vec<Unknown>, mut add: impl FnMut(&mut Self, Claim<T>)) {
        for Unknown { problem, pointer } in unknown {
            self.counted(problem, T::riskiest().word());
            add(self, Claim { value: T::riskiest(), source: pointer });
        }
    }

    /// Says in problem `i` what its unknown word counts as. By its index: looking it up by
    /// pointer from the end of the list was quadratic in a list of unknown words, which a
    /// result's `_meta` chooses (40,000 of them, 350 KB, took 2.7 s per result).
    fn counted(&mut self, i: usize, word: &str) {
        #[cfg(test)]
        tests::LOOKED.with(|n| n.set(n.get() + 1));
        self.problems[i].detail.push_str(&format!(" (counted as {word})"));
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
            scopes: self.scopes,
            attribution: self.attribution,
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

    thread_local! {
        /// Problems looked at to say what an unknown word counts as: the work of `counted`.
        pub(super) static LOOKED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// `n` unknown words in a list, in each place whose unknown words count as something (a
    /// result's `_meta` is read the same way, so its tool chooses them): saying what each counts
    /// as looked the problem up from the end of the list, n²/2 looks in all (40,000 words, 350
    /// KB, took 2.7 s per result). Now one look each.
    #[test]
    fn what_unknown_words_count_as_costs_one_look_each() {
        let n = 2_000;
        let words: Vec<Value> = (0..n).map(|i| json!(format!("w{i}"))).collect();
        let places = [
            json!({ "_meta": { "mcp.dev/resultSensitivity": words } }),
            json!({ "_meta": { "mcp.dev/effect": words } }),
            json!({ "annotations": { "returnMetadata": { "Sensitivity": words, "Source": words } } }),
            json!({ "annotations": { "inputMetadata": { "Destination": words, "Outcomes": words } } }),
        ];
        for tool in places {
            LOOKED.with(|l| l.set(0));
            let m = read(&tool);
            let looked = LOOKED.with(|l| l.get());
            let counted = m.problems.iter().filter(|p| p.detail.contains("(counted as")).count();
            assert_eq!(counted % n, 0, "{tool}");
            assert!(counted >= n, "every unknown word says what it counts as");
            assert!(looked <= counted, "{looked} looks for {counted} words");
        }
    }

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

    #[test]
    fn an_unknown_word_where_risk_is_named_counts_as_the_riskiest() {
        let input = |k: &str, v: Value| json!({ "annotations": { "inputMetadata": { k: v } } });
        for word in [json!("Elsewhere"), json!(7), json!(null), json!({ "x": 1 })] {
            for list in [word.clone(), json!(["Internal", word.clone()])] {
                let m = ToolModel::read(&input("Destination", list.clone()));
                assert_eq!(m.input_destination.unwrap().value, Destination::Public, "{list}");
                assert!(m.problems.iter().any(|p| p.detail.ends_with("(counted as public)")), "{list}");
            }
            let m = ToolModel::read(&input("Outcomes", json!(["Benign", word.clone()])));
            assert_eq!(m.outcomes.unwrap().value, Outcomes::Irreversible, "{word}");
            let m = ToolModel::read(&json!({ "_meta": { "mcp.dev/effect": ["read", word.clone()] } }));
            assert_eq!(m.effect.as_ref().unwrap().value, Effect::External, "{word}");
            assert!(!m.read_only(), "{word}");
            let m = ToolModel::read(
                &json!({ "annotations": { "returnMetadata": { "Source": ["System", word.clone()] } } }),
            );
            assert_eq!(m.output_source.unwrap().value, Source::UntrustedPublic, "{word}");
            // Counted as Credentials, an unknown input class would exempt the tool from
            // secret_egress: it stays a problem only.
            let m = ToolModel::read(&input("Sensitivity", word.clone()));
            assert!(!m.accepts_input_class(Class::Credentials) && m.input_classes.is_empty(), "{word}");
            assert_eq!(m.problems.len(), 1, "{word}");
        }
    }

    #[test]
    fn action_metadata_extension_reads_like_the_older_forms() {
        let meta = json!({ "inputMetadata": { "Destination": "Public", "Sensitivity": "Credentials" },
            "returnMetadata": { "Source": "UntrustedPublic", "Sensitivity": ["PII"] } });
        for place in ["annotations", "_meta"] {
            let m = ToolModel::read(&json!({ place: { "io.modelcontextprotocol/action-metadata": meta } }));
            let at = format!("/{place}/io.modelcontextprotocol~1action-metadata");
            assert_eq!(m.input_destination.as_ref().unwrap().value, Destination::Public);
            assert_eq!(
                m.input_destination.as_ref().unwrap().claims[0].source,
                format!("{at}/inputMetadata/Destination")
            );
            assert!(m.accepts_input_class(Class::Credentials));
            assert_eq!(m.output_source.as_ref().unwrap().value, Source::UntrustedPublic);
            assert_eq!(m.level(), Some(Level::Medium));
            assert_eq!(m.output_classes[0].source, format!("{at}/returnMetadata/Sensitivity/0"));
            assert!(m.problems.is_empty(), "{:?}", m.problems);
        }
        let m = ToolModel::read(
            &json!({ "annotations": { "io.modelcontextprotocol/action-metadata": { "inputMetdata": {} } } }),
        );
        assert_eq!(m.problems[0].pointer, "/annotations/io.modelcontextprotocol~1action-metadata/inputMetdata");
        let m = ToolModel::read(&json!({ "annotations": { "io.modelcontextprotocol/action-metadata": [] } }));
        assert_eq!(m.problems.len(), 1);
    }

    #[test]
    fn regulated_data_classes_have_a_level_and_keep_their_scopes() {
        let m = ToolModel::read(
            &json!({ "annotations": { "returnMetadata": { "Sensitivity": [{ "regulated": { "scopes": ["GDPR", "HIPAA"] } }] },
            "inputMetadata": { "Sensitivity": { "regulated": {} } } } }),
        );
        assert_eq!(m.level(), Some(Level::Medium), "regulated is medium, not unknown");
        assert!(m.has_output_class(Class::Regulated) && m.accepts_input_class(Class::Regulated));
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let described = m.to_json();
        let claim = &described["output"]["classes"]["claims"][0];
        assert_eq!(claim["scopes"], json!(["GDPR", "HIPAA"]));
        assert_eq!(claim["source"], "/annotations/returnMetadata/Sensitivity/0");
        assert_eq!(described["input"]["classes"]["claims"][0]["scopes"], json!([]));
        let bad = ToolModel::read(
            &json!({ "annotations": { "returnMetadata": { "Sensitivity": { "regulated": { "scopes": "GDPR" } } } } }),
        );
        assert_eq!(bad.level(), Some(Level::Medium), "still regulated");
        assert_eq!(bad.problems[0].pointer, "/annotations/returnMetadata/Sensitivity/regulated");
        let other =
            ToolModel::read(&json!({ "annotations": { "returnMetadata": { "Sensitivity": { "classified": {} } } } }));
        assert_eq!(other.level(), Some(Level::High), "an unknown object is an unknown class: high");
    }

    #[test]
    fn tool_attribution_is_kept_as_said() {
        let m = ToolModel::read(&json!({ "annotations": { "attribution": ["crm", { "source": "crm.example" }, 3] } }));
        let values: Vec<&Value> = m.attribution.iter().map(|c| &c.value).collect();
        assert_eq!(values, [&json!("crm"), &json!({ "source": "crm.example" })]);
        assert_eq!(m.problems[0].pointer, "/annotations/attribution/2");
        assert_eq!(m.to_json()["attribution"][1]["source"], "/annotations/attribution/1");
        assert!(
            ToolModel::read(&json!({ "annotations": { "attribution": "x" } })).is_empty(),
            "provenance is no claim"
        );
    }

    #[test]
    fn mcp_defaults_fill_what_a_claiming_tool_left_unsaid() {
        let m = ToolModel::read(&json!({ "annotations": { "readOnlyHint": false } }));
        assert_eq!(m.hint(Hint::Destructive), None, "a default is no claim");
        let wants = [(Hint::Destructive, true), (Hint::Idempotent, false), (Hint::OpenWorld, true)];
        for (hint, want) in wants {
            assert_eq!(m.effective_hint(hint), Some(want), "{hint}");
            assert_eq!(m.to_json()["effects"][hint.as_str()], json!({ "value": want, "claims": [], "default": true }));
        }
        assert_eq!(m.to_json()["effects"]["readOnly"]["claims"][0]["source"], "/annotations/readOnlyHint");
        assert!(m.to_json()["effects"]["readOnly"].get("default").is_none());
        // Read-only: destructive and idempotent mean nothing; the open world still defaults.
        let m = ToolModel::read(&json!({ "annotations": { "readOnlyHint": true } }));
        assert_eq!((m.default_hint(Hint::Destructive), m.default_hint(Hint::Idempotent)), (None, None));
        assert_eq!(m.default_hint(Hint::OpenWorld), Some(true));
        // Other vocabularies speak to the same facts.
        let m = ToolModel::read(
            &json!({ "annotations": { "inputMetadata": { "Destination": "Internal", "Outcomes": "Benign" } } }),
        );
        assert_eq!((m.default_hint(Hint::Destructive), m.default_hint(Hint::OpenWorld)), (None, None));
        assert_eq!(m.default_hint(Hint::ReadOnly), Some(false));
        let m = ToolModel::read(&json!({ "_meta": { "mcp.dev/effect": "read" } }));
        assert!(m.read_only());
        assert_eq!((m.default_hint(Hint::ReadOnly), m.default_hint(Hint::Destructive)), (None, None));
        // No claims, no defaults.
        let m = ToolModel::read(&json!({ "name": "x" }));
        assert!(Hint::ALL.iter().all(|h| m.default_hint(*h).is_none()));
        assert!(m.to_json()["effects"].as_object().unwrap().values().all(Value::is_null));
    }

    #[test]
    fn read_only_is_the_riskiest_reading() {
        for (tool, want) in [
            (json!({ "annotations": { "readOnlyHint": true } }), true),
            (json!({ "annotations": { "readOnlyHint": true, "destructiveHint": true } }), false),
            (json!({ "annotations": { "readOnlyHint": true }, "_meta": { "mcp.dev/effect": "write" } }), false),
            (
                json!({ "annotations": { "readOnlyHint": true, "inputMetadata": { "Outcomes": "Consequential" } } }),
                false,
            ),
            (json!({ "annotations": { "readOnlyHint": true }, "_meta": { "readOnlyHint": false } }), false),
            (json!({ "annotations": { "inputMetadata": { "Outcomes": "Benign" } } }), false),
        ] {
            assert_eq!(ToolModel::read(&tool).read_only(), want, "{tool}");
        }
    }
}
