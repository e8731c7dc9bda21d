//! Which subschemas apply at an instance location, by the union rule: every subschema that
//! could apply counts, so a mark anywhere among them marks the value.

use serde_json::Value;

use super::{NodeId, Pattern, Schema};

/// The subschemas that apply to one value, and what they say about it.
pub(crate) struct Applied<'s> {
    pub nodes: Vec<NodeId>,
    /// Some applicable subschema carries `"x-sensitive"`.
    pub marked: bool,
    /// The value's type contradicts a subschema that has marks at or below it.
    pub mismatch: bool,
    /// The keys of this object are secret (`propertyNames` is marked).
    pub names_secret: bool,
    /// The best label the schema offers: a marked subschema's title, else any title.
    pub title: Option<&'s str>,
}

/// The subschemas for a property or an array element.
pub(crate) struct Child {
    pub nodes: Vec<NodeId>,
    /// Named by a property or a prefix item, matched by a pattern, or covered by a non-trivial
    /// subschema for the other properties or items; what allowlist mode lets through.
    pub declared: bool,
}

impl Schema {
    /// Expands `start` through every subschema that applies at the same value: `Place::Here` ones and
    /// `$ref`s always, `Place::Branch`es whose type fits, `Place::IfKey` ones whose key is present.
    pub fn apply(&self, start: &[NodeId], value: &Value) -> Applied<'_> {
        let mut seen = vec![false; self.nodes.len()];
        let mut nodes = Vec::new();
        let mut stack: Vec<NodeId> = start.iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n], true) {
                continue;
            }
            nodes.push(n);
            let node = &self.nodes[n];
            let mut next: Vec<NodeId> = node.all_of.iter().chain(&node.refs).copied().collect();
            if let Value::Object(obj) = value {
                next.extend(node.dependent.iter().filter(|(k, _)| obj.contains_key(k)).map(|(_, d)| *d));
            }
            let fitting: Vec<NodeId> = node.alternatives.iter().copied().filter(|&a| self.fits(a, value)).collect();
            // No branch fits: keep them all, so that a marked branch still reports a mismatch.
            next.extend(if fitting.is_empty() { node.alternatives.clone() } else { fitting });
            stack.extend(next.into_iter().rev());
        }
        self.summarise(nodes, value)
    }

    fn summarise(&self, nodes: Vec<NodeId>, value: &Value) -> Applied<'_> {
        let node = |n: &NodeId| &self.nodes[*n];
        let marked = nodes.iter().any(|n| node(n).mark);
        let mismatch = !value.is_null()
            && nodes.iter().any(|&n| {
                let nd = &self.nodes[n];
                self.reaches_mark[n] && nd.kinds.is_some_and(|k| !k.fits(value))
            });
        let names_secret = value.is_object() && nodes.iter().any(|&n| self.names_marked[n]);
        let title = nodes.iter().filter(|n| node(n).mark).chain(nodes.iter()).find_map(|n| node(n).title.as_deref());
        Applied { nodes, marked, mismatch, names_secret, title }
    }

    /// Could branch `n` validate `value`, judging by types alone: its own, and those of what it
    /// always applies (`Place::Here` subschemas and `$ref`s)?
    fn fits(&self, n: NodeId, value: &Value) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![n];
        while let Some(m) = stack.pop() {
            if std::mem::replace(&mut seen[m], true) {
                continue;
            }
            let node = &self.nodes[m];
            if node.never || node.kinds.is_some_and(|k| !k.fits(value)) {
                return false;
            }
            stack.extend(node.all_of.iter().chain(&node.refs));
        }
        true
    }

    /// The subschemas for property `key` of an object whose applicable set is `applied`.
    pub fn property(&self, applied: &[NodeId], key: &str) -> Child {
        let mut child = Child { nodes: Vec::new(), declared: false };
        for &n in applied {
            let node = &self.nodes[n];
            let mut matched = false;
            for (name, c) in &node.properties {
                if name == key {
                    child.add(*c, !self.nodes[*c].never);
                    matched = true;
                }
            }
            for (pattern, c) in &node.patterns {
                match pattern {
                    Pattern::Regex(re) if re.is_match(key) => {
                        child.add(*c, !self.nodes[*c].never);
                        matched = true;
                    }
                    Pattern::Regex(_) => {}
                    Pattern::Opaque => child.add(*c, false),
                }
            }
            if !matched {
                for &c in &node.additional {
                    child.add(c, self.describes(c));
                }
            }
        }
        child
    }

    /// The subschemas for element `index` of an array whose applicable set is `applied`.
    pub fn item(&self, applied: &[NodeId], index: usize) -> Child {
        let mut child = Child { nodes: Vec::new(), declared: false };
        for &n in applied {
            let node = &self.nodes[n];
            match node.prefix_items.get(index) {
                Some(&c) => child.add(c, !self.nodes[c].never),
                None => node.items.iter().for_each(|&c| child.add(c, self.describes(c))),
            }
            node.contains.iter().for_each(|&c| child.add(c, false));
        }
        child
    }

    /// `true` and `false` as catch-alls describe nothing.
    fn describes(&self, n: NodeId) -> bool {
        !self.nodes[n].never && !self.nodes[n].trivial
    }
}

impl Child {
    fn add(&mut self, n: NodeId, declares: bool) {
        self.nodes.push(n);
        self.declared |= declares;
    }
}
