//! Session labels (SEP-1913 propagation): what the results an agent has seen so far say about
//! the data in its context. Sensitivity only goes up, boolean hints are unions, attribution
//! accumulates; only `reset` goes back.

use serde_json::{json, Value};

use crate::model::{Class, Hint, Level, Source, ToolModel};

/// The labels of a session, or of one result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    pub sensitivity: Level,
    pub private: bool,
    pub open_world: bool,
    pub malicious: bool,
    pub attribution: Vec<String>,
}

impl Labels {
    /// What one result of a tool adds: the tool's declared labels, then any result-level
    /// annotations in the result's `_meta` or `annotations`.
    pub fn observe(model: &ToolModel, raw: Option<&Value>) -> Labels {
        let is = |hint| model.hint(hint) == Some(true);
        let mut l = Labels {
            sensitivity: model.level().unwrap_or(Level::None),
            private: is(Hint::Private)
                || [Class::Pii, Class::Financial, Class::Regulated, Class::Credentials]
                    .iter()
                    .any(|c| model.has_output_class(*c)),
            open_world: is(Hint::OpenWorld)
                || is(Hint::UntrustedContent)
                || model.output_source.as_ref().is_some_and(|s| s.value == Source::UntrustedPublic),
            malicious: is(Hint::MaliciousActivity),
            attribution: Vec::new(),
        };
        for place in ["_meta", "annotations"] {
            if let Some(Value::Object(a)) = raw.and_then(|r| r.get(place)) {
                l.merge(&Labels::from_annotations(a));
            }
        }
        l
    }

    fn from_annotations(a: &serde_json::Map<String, Value>) -> Labels {
        let flag = |k: &str| a.get(k) == Some(&Value::Bool(true));
        let sensitivity = match a.get("sensitiveHint") {
            Some(Value::String(s)) => Level::parse(s).unwrap_or(Level::High),
            Some(Value::Bool(true)) => Level::High,
            _ => Level::None,
        };
        let attribution = match a.get("attribution") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            _ => Vec::new(),
        };
        Labels {
            sensitivity,
            private: flag("privateHint"),
            open_world: flag("openWorldHint"),
            malicious: flag("maliciousActivityHint"),
            attribution,
        }
    }

    /// Propagation: the highest sensitivity, the union of flags, attribution in order seen.
    pub fn merge(&mut self, other: &Labels) {
        self.sensitivity = self.sensitivity.max(other.sensitivity);
        self.private |= other.private;
        self.open_world |= other.open_world;
        self.malicious |= other.malicious;
        for a in &other.attribution {
            if !self.attribution.contains(a) {
                self.attribution.push(a.clone());
            }
        }
    }

    pub fn to_json(&self) -> Value {
        json!({ "sensitivity": self.sensitivity.as_str(), "private": self.private, "openWorld": self.open_world,
                "malicious": self.malicious, "attribution": self.attribution })
    }

    /// Reads what `to_json` wrote (the JS session keeps its labels as this data).
    pub fn from_json(v: &Value) -> Result<Labels, String> {
        if !v.is_object() {
            return Err("labels must be an object".into());
        }
        let flag = |k: &str| v.get(k).map_or(Ok(false), |x| x.as_bool().ok_or(format!("labels.{k} must be a boolean")));
        let sensitivity = match v.get("sensitivity") {
            None => Level::None,
            Some(s) => s.as_str().and_then(Level::parse).ok_or("labels.sensitivity must be a level")?,
        };
        let attribution = match v.get("attribution") {
            None => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().map(str::to_string).ok_or("labels.attribution must hold strings"))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("labels.attribution must be an array".into()),
        };
        Ok(Labels {
            sensitivity,
            private: flag("private")?,
            open_world: flag("openWorld")?,
            malicious: flag("malicious")?,
            attribution,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed(tool: Value, result: Value) -> Labels {
        Labels::observe(&ToolModel::read(&tool), Some(&result))
    }

    #[test]
    fn sensitivity_only_goes_up() {
        let mut s = Labels::default();
        for (level, want) in
            [("medium", Level::Medium), ("low", Level::Medium), ("high", Level::High), ("none", Level::High)]
        {
            s.merge(&observed(json!({}), json!({ "_meta": { "sensitiveHint": level } })));
            assert_eq!(s.sensitivity, want, "after {level}");
        }
    }

    #[test]
    fn flags_are_unions_and_attribution_accumulates_in_order() {
        let mut s = Labels::default();
        s.merge(&observed(json!({}), json!({ "annotations": { "privateHint": true, "attribution": ["a", "b"] } })));
        s.merge(&observed(
            json!({}),
            json!({ "_meta": { "privateHint": false, "maliciousActivityHint": true, "attribution": "b" } }),
        ));
        s.merge(&observed(json!({}), json!({ "_meta": { "attribution": ["c", "a"] } })));
        assert!(s.private && s.malicious && !s.open_world);
        assert_eq!(s.attribution, ["a", "b", "c"]);
    }

    #[test]
    fn tool_declarations_count_as_labels() {
        let l = observed(
            json!({ "annotations": { "returnMetadata": { "Source": "UntrustedPublic", "Sensitivity": ["PII"] } } }),
            json!({}),
        );
        assert_eq!((l.sensitivity, l.private, l.open_world), (Level::Medium, true, true));
        let l = observed(json!({ "annotations": { "untrustedContentHint": true } }), json!({}));
        assert!(l.open_world);
    }

    #[test]
    fn json_round_trip() {
        let l = Labels {
            sensitivity: Level::Medium,
            private: true,
            open_world: false,
            malicious: true,
            attribution: vec!["x".into()],
        };
        assert_eq!(Labels::from_json(&l.to_json()).unwrap(), l);
        assert!(Labels::from_json(&json!({ "sensitivity": "max" })).is_err());
        assert!(Labels::from_json(&json!(7)).is_err(), "not an object");
    }
}
