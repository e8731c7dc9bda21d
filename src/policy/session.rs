//! Session labels (SEP-1913 propagation): what the results an agent has seen so far say about
//! the data in its context. Sensitivity only goes up, boolean hints are unions, attribution
//! accumulates; only `reset` goes back. Labels cross to JS and back (`labels()`, `restore()`),
//! so what a result can add is bounded: at most [`MAX_ENTRIES`] attribution entries and as many
//! evidence references, each at most [`MAX_ENTRY_BYTES`] of JSON; the rest is not kept.

use crate::json::write::obj;
use serde_json::Value;

use crate::model::{Class, Hint, Level, Source, ToolModel};

/// How many attribution entries (and evidence references) a session keeps.
pub const MAX_ENTRIES: usize = 32;
/// The largest attribution entry or evidence reference kept, as compact JSON.
pub const MAX_ENTRY_BYTES: usize = 1024;

/// The labels of a session, or of one result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    pub sensitivity: Level,
    pub private: bool,
    pub open_world: bool,
    pub malicious: bool,
    /// SEP-1913 attribution: strings or objects, in order seen.
    pub attribution: Vec<Value>,
    /// The trust-annotations extension's `evidenceRef`s, as given.
    pub evidence: Vec<Value>,
}

/// A claim in a result: absent, `null` and `false` claim nothing; any other value, `true` or
/// not, counts as the claim (fail closed: `"yes"` or `1` is not a way to say "no").
pub(crate) fn claims(v: Option<&Value>) -> bool {
    !matches!(v, None | Some(Value::Null | Value::Bool(false)))
}

impl Labels {
    /// What the claims of a model add: a tool's declared labels (and attribution), or those of
    /// one place of a result's own annotations (read by the same reader, `claims.rs`).
    pub fn declared(model: &ToolModel) -> Labels {
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
            ..Labels::default()
        };
        admit(&mut l.attribution, model.attribution.iter().map(|c| &c.value));
        l
    }

    /// Propagation: the highest sensitivity, the union of flags, attribution in order seen.
    pub fn merge(&mut self, other: &Labels) {
        self.sensitivity = self.sensitivity.max(other.sensitivity);
        self.private |= other.private;
        self.open_world |= other.open_world;
        self.malicious |= other.malicious;
        admit(&mut self.attribution, other.attribution.iter());
        admit(&mut self.evidence, other.evidence.iter());
    }

    /// `evidence` is written only when there is some.
    pub fn to_json(&self) -> Value {
        let mut v = vec![
            ("sensitivity", self.sensitivity.as_str().into()),
            ("private", self.private.into()),
            ("openWorld", self.open_world.into()),
            ("malicious", self.malicious.into()),
            ("attribution", self.attribution.clone().into()),
        ];
        if !self.evidence.is_empty() {
            v.push(("evidence", Value::Array(self.evidence.clone())));
        }
        obj(v)
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
        Ok(Labels {
            sensitivity,
            private: flag("private")?,
            open_world: flag("openWorld")?,
            malicious: flag("malicious")?,
            attribution: entries(v, "attribution")?,
            evidence: entries(v, "evidence")?,
        })
    }
}

/// Adds each entry (a string or an object) not already there, within the bounds; the rest is
/// not kept.
fn admit<'a>(list: &mut Vec<Value>, entries: impl Iterator<Item = &'a Value>) {
    for e in entries {
        if list.len() >= MAX_ENTRIES {
            return;
        }
        if is_entry(e) && fits(e) && !list.contains(e) {
            list.push(e.clone());
        }
    }
}

fn is_entry(e: &Value) -> bool {
    e.is_string() || e.is_object()
}

/// At most [`MAX_ENTRY_BYTES`] of compact JSON (strings counted without their escapes), counted
/// without writing a large value out and stopping as soon as it is over.
fn fits(e: &Value) -> bool {
    let mut size = 0usize;
    let mut stack = vec![e];
    while let Some(v) = stack.pop() {
        size += match v {
            Value::Null | Value::Bool(_) => 5,
            Value::Number(_) => 24,
            Value::String(s) => s.len() + 2,
            Value::Array(items) => 2 + items.len(),
            Value::Object(map) => 2 + map.keys().map(|k| k.len() + 4).sum::<usize>(),
        };
        if size > MAX_ENTRY_BYTES {
            return false;
        }
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    true
}

/// A bounded list of labels data in `to_json`'s shape.
fn entries(v: &Value, key: &str) -> Result<Vec<Value>, String> {
    match v.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) if a.len() <= MAX_ENTRIES && a.iter().all(|e| is_entry(e) && fits(e)) => Ok(a.clone()),
        Some(Value::Array(_)) => Err(format!(
            "labels.{key} must hold at most {MAX_ENTRIES} strings or objects of at most {MAX_ENTRY_BYTES} bytes of JSON each"
        )),
        Some(_) => Err(format!("labels.{key} must be an array")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What one result of `tool` adds: the tool's labels and the result's own claims.
    fn observed(tool: Value, result: Value) -> Labels {
        let mut l = Labels::declared(&ToolModel::read(&tool));
        let mut read_text = |t: &str| Ok(serde_json::from_str(t).ok());
        l.merge(&crate::policy::claims::of_result(&result, &mut read_text).unwrap().labels);
        l
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
        assert_eq!(s.attribution, [json!("a"), json!("b"), json!("c")]);
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
            attribution: vec!["x".into(), json!({ "source": "mail.example", "retrieved": "2026-01-01" })],
            evidence: vec![json!({ "type": "sha256", "digest": "ab" })],
        };
        assert_eq!(Labels::from_json(&l.to_json()).unwrap(), l);
        assert!(Labels::default().to_json().get("evidence").is_none(), "evidence only when there is some");
        assert!(Labels::from_json(&json!({ "sensitivity": "max" })).is_err());
        assert!(Labels::from_json(&json!(7)).is_err(), "not an object");
        assert!(Labels::from_json(&json!({ "attribution": [1] })).is_err());
        let many: Vec<String> = (0..=MAX_ENTRIES).map(|i| i.to_string()).collect();
        assert!(Labels::from_json(&json!({ "attribution": many })).is_err(), "over the bound");
        assert!(Labels::from_json(&json!({ "attribution": ["x".repeat(MAX_ENTRY_BYTES)] })).is_err());
    }

    #[test]
    fn sep_1913_result_annotations_under_meta_annotations() {
        let l = observed(
            json!({}),
            json!({ "content": [], "_meta": { "annotations": { "sensitiveHint": "medium", "privateHint": true,
                "openWorldHint": true, "maliciousActivityHint": true, "attribution": ["a.example"] } } }),
        );
        assert_eq!((l.sensitivity, l.private, l.open_world, l.malicious), (Level::Medium, true, true, true));
        assert_eq!(l.attribution, [json!("a.example")]);
        let l = observed(json!({}), json!({ "content": [], "_meta": { "privateHint": "yes", "sensitiveHint": 1 } }));
        assert_eq!((l.private, l.sensitivity), (true, Level::High), "a non-boolean claim fails closed");
    }

    #[test]
    fn attribution_objects_and_the_tools_own_are_kept_within_bounds() {
        let tool = json!({ "annotations": { "attribution": [{ "source": "crm.example" }, "crm"] } });
        let l = observed(tool, json!({ "content": [], "_meta": { "attribution": { "source": "row 7" } } }));
        assert_eq!(l.attribution, [json!({ "source": "crm.example" }), json!("crm"), json!({ "source": "row 7" })]);
        let hostile: Vec<Value> = (0..1000).map(|i| json!({ "n": i })).collect();
        let mut s = Labels::default();
        s.merge(&observed(json!({}), json!({ "content": [], "_meta": { "attribution": hostile } })));
        s.merge(&observed(json!({}), json!({ "content": [], "_meta": { "attribution": ["late"] } })));
        assert_eq!(s.attribution.len(), MAX_ENTRIES);
        assert!(!s.attribution.contains(&json!("late")));
        let big = observed(json!({}), json!({ "_meta": { "attribution": ["x".repeat(MAX_ENTRY_BYTES), 7, "ok"] } }));
        assert_eq!(big.attribution, [json!("ok")], "too large, or not a string or object: not kept");
        assert!(Labels::from_json(&s.to_json()).is_ok(), "what a session keeps can be restored");
    }
}
