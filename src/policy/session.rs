//! Session labels (SEP-1913 propagation): what the results an agent has seen so far say about
//! the data in its context. Sensitivity only goes up, boolean hints are unions, attribution
//! accumulates; only `reset` goes back. Labels cross to JS and back (`labels()`, `restore()`),
//! so what a result can add is bounded: at most [`MAX_ENTRIES`] attribution entries and as many
//! evidence references, each at most [`MAX_ENTRY_BYTES`] of JSON; the rest is not kept.

use serde_json::{json, Map, Value};

use crate::json::truthy;
use crate::model::{Class, Hint, Level, Source, ToolModel};

/// The MCP extension's result `_meta` key: `{ sensitive?, untrusted?, evidenceRef? }`.
pub const TRUST_KEY: &str = "io.modelcontextprotocol/trust-annotations";
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
fn claims(v: Option<&Value>) -> bool {
    !matches!(v, None | Some(Value::Null | Value::Bool(false)))
}

impl Labels {
    /// What one result of a tool adds: the tool's declared labels (and attribution), then the
    /// result's own (see [`Labels::of_result`]).
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
            ..Labels::default()
        };
        admit(&mut l.attribution, model.attribution.iter().map(|c| &c.value));
        if let Some(raw) = raw {
            l.merge(&Labels::of_result(raw));
        }
        l
    }

    /// A result's own labels, from every place the proposals put them: `_meta` itself and
    /// `annotations` (the older forms), `_meta.annotations` (SEP-1913's wire example), and the
    /// trust-annotations extension under `_meta` of the result and of each content block (a
    /// block can only add: labels only go up).
    pub fn of_result(raw: &Value) -> Labels {
        let mut l = Labels::default();
        let meta = raw.get("_meta");
        for place in [meta, raw.get("annotations"), meta.and_then(|m| m.get("annotations"))] {
            if let Some(Value::Object(a)) = place {
                l.merge(&Labels::from_annotations(a));
            }
        }
        for trust in trust_annotations(raw) {
            l.merge(&Labels::from_trust(trust));
        }
        l
    }

    fn from_annotations(a: &Map<String, Value>) -> Labels {
        let flag = |k: &str| claims(a.get(k));
        let sensitivity = match a.get("sensitiveHint") {
            Some(Value::String(s)) if s.is_empty() => Level::None,
            Some(Value::String(s)) => Level::parse(s).unwrap_or(Level::High),
            Some(v) if truthy(v) => Level::High,
            _ => Level::None,
        };
        let mut attribution = Vec::new();
        match a.get("attribution") {
            Some(Value::Array(items)) => admit(&mut attribution, items.iter()),
            Some(v) => admit(&mut attribution, [v].into_iter()),
            None => {}
        }
        Labels {
            sensitivity,
            private: flag("privateHint"),
            open_world: flag("openWorldHint"),
            malicious: flag("maliciousActivityHint"),
            attribution,
            evidence: Vec::new(),
        }
    }

    /// `{ sensitive?, untrusted?, evidenceRef? }`: `sensitive` is high sensitivity, `untrusted`
    /// an open world. Anything but an object claims both (fail closed).
    fn from_trust(t: &Value) -> Labels {
        let Value::Object(o) = t else {
            return Labels { sensitivity: Level::High, open_world: true, ..Labels::default() };
        };
        let mut l = Labels {
            sensitivity: if claims(o.get("sensitive")) { Level::High } else { Level::None },
            open_world: claims(o.get("untrusted")),
            ..Labels::default()
        };
        admit(&mut l.evidence, o.get("evidenceRef").filter(|v| !v.is_null()).into_iter());
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
        let mut v = json!({ "sensitivity": self.sensitivity.as_str(), "private": self.private, "openWorld": self.open_world,
                "malicious": self.malicious, "attribution": self.attribution });
        if !self.evidence.is_empty() {
            v["evidence"] = Value::Array(self.evidence.clone());
        }
        v
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

/// Every trust-annotations object of a result: its own `_meta`'s, then each content block's.
pub fn trust_annotations(raw: &Value) -> impl Iterator<Item = &Value> {
    let blocks = raw.get("content").and_then(Value::as_array).into_iter().flatten();
    let block_meta = blocks.filter_map(|b| b.get("_meta"));
    raw.get("_meta").into_iter().chain(block_meta).filter_map(|m| m.get(TRUST_KEY)).filter(|t| !t.is_null())
}

/// Does the result (or one of its blocks) claim its content is untrusted?
pub fn claims_untrusted(raw: &Value) -> bool {
    trust_annotations(raw).any(|t| !t.is_object() || claims(t.get("untrusted")))
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
    fn trust_annotations_raise_sensitivity_and_open_world() {
        let trust = |t: Value| observed(json!({}), json!({ "content": [], "_meta": { TRUST_KEY: t } }));
        let l = trust(json!({ "sensitive": true, "untrusted": true }));
        assert_eq!((l.sensitivity, l.open_world), (Level::High, true));
        let l = trust(json!({ "sensitive": false, "untrusted": false }));
        assert_eq!((l.sensitivity, l.open_world), (Level::None, false), "false is no claim");
        for odd in [json!({ "sensitive": "yes", "untrusted": 1 }), json!(true), json!("sensitive")] {
            let l = trust(odd.clone());
            assert_eq!((l.sensitivity, l.open_world), (Level::High, true), "fails closed: {odd}");
        }
        let evidence = json!({ "type": "in-toto", "digest": "sha256:ab", "canonicalization": "jcs" });
        assert_eq!(trust(json!({ "evidenceRef": evidence })).evidence, [evidence]);
    }

    #[test]
    fn a_block_adds_to_the_result_never_takes_away() {
        let raw = json!({ "content": [
            { "type": "text", "text": "a", "_meta": { TRUST_KEY: { "sensitive": false } } },
            { "type": "text", "text": "b", "_meta": { TRUST_KEY: { "untrusted": true } } }
        ], "_meta": { TRUST_KEY: { "sensitive": true, "untrusted": false } } });
        let l = Labels::of_result(&raw);
        assert_eq!((l.sensitivity, l.open_world), (Level::High, true));
        assert!(claims_untrusted(&raw));
        assert!(!claims_untrusted(&json!({ "content": [], "_meta": { TRUST_KEY: { "sensitive": true } } })));
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
