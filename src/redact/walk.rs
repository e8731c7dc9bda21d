//! Walks a structured value against the compiled schema and takes out what must not reach
//! the agent: marked values, type mismatches under marks, and (allowlist) undeclared values.

use serde_json::Value;

use crate::json::push_token;
use crate::schema::{NodeId, Schema};
use crate::Reason;

/// A value taken out of the structured result.
pub(crate) struct Taken {
    /// JSON Pointer relative to the structured value.
    pub pointer: String,
    pub reason: Reason,
    pub label: String,
    pub value: Value,
    /// The keys were secret too (`propertyNames` marked): they count as redacted strings.
    pub secret_keys: bool,
}

/// Walks `value` in place; returns what was taken, in document order.
/// Recursion is bounded by the depth limit that the parser already enforced.
pub(crate) fn walk(schema: &Schema, value: &mut Value, allowlist: bool) -> Vec<Taken> {
    let mut w = Walker { schema, allowlist, taken: Vec::new(), pointer: String::new() };
    if let Some((reason, label, secret_keys)) = w.visit(value, &[schema.root()], None) {
        let value = std::mem::take(value);
        w.taken.push(Taken { pointer: String::new(), reason, label, value, secret_keys });
    }
    w.taken
}

struct Walker<'s> {
    schema: &'s Schema,
    allowlist: bool,
    taken: Vec<Taken>,
    pointer: String,
}

type Verdict = Option<(Reason, String, bool)>;

impl Walker<'_> {
    /// Decides about `value`; descends into it when it stays. `name` is the nearest property
    /// name, the fallback label.
    fn visit(&mut self, value: &mut Value, start: &[NodeId], name: Option<&str>) -> Verdict {
        if value.is_null() {
            return None; // nothing to hide, and re-redacting the nulls we leave stays stable
        }
        let applied = self.schema.apply(start, value);
        let label = || applied.title.or(name).unwrap_or("value").to_string();
        if applied.marked {
            return Some((Reason::XSensitive, label(), false));
        }
        if applied.mismatch {
            return Some((Reason::SchemaMismatch, label(), false));
        }
        if applied.names_secret {
            let title = applied.title.or(name).unwrap_or("value").to_string();
            return Some((Reason::XSensitive, title, true));
        }
        match value {
            Value::Object(map) => {
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    let child = self.schema.property(&applied.nodes, &key);
                    let slot = map.get_mut(&key).expect("key listed above");
                    if let Some(v) = self.decide(slot, child.nodes, child.declared, &key, Some(&key)) {
                        map.shift_remove(&key);
                        self.taken.push(v);
                    }
                }
            }
            Value::Array(items) => {
                for (i, slot) in items.iter_mut().enumerate() {
                    let child = self.schema.item(&applied.nodes, i);
                    if let Some(v) = self.decide(slot, child.nodes, child.declared, &i.to_string(), name) {
                        self.taken.push(v); // the slot was left as null, so indexes keep their meaning
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// Visits one child; returns what to take out, leaving `null` in its slot.
    fn decide(
        &mut self,
        slot: &mut Value,
        nodes: Vec<NodeId>,
        declared: bool,
        token: &str,
        name: Option<&str>,
    ) -> Option<Taken> {
        let mark = self.pointer.len();
        push_token(&mut self.pointer, token);
        let verdict = if self.allowlist && !declared && !slot.is_null() {
            Some((Reason::Undeclared, name.unwrap_or("value").to_string(), false))
        } else if nodes.is_empty() || (!self.allowlist && !self.schema.any_marks(&nodes)) {
            None // nothing below can mark anything: skip the subtree
        } else {
            self.visit(slot, &nodes, name)
        };
        let taken = verdict.map(|(reason, label, secret_keys)| Taken {
            pointer: self.pointer.clone(),
            reason,
            label,
            value: std::mem::take(slot),
            secret_keys,
        });
        self.pointer.truncate(mark);
        taken
    }
}
