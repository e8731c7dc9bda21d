//! Builds the node arena from a schema document without recursion: a work queue of
//! (document pointer, base URI) pairs, then `$ref` resolution, then graph checks.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::keywords::{is_mark, keyword, Implies, Kind, Place, MARK};
use super::{uri, Kinds, Node, NodeId, Schema};
use crate::error::SchemaFault;
use crate::json::child;
use crate::{Error, ErrorCode, Limits};

/// Compiles `doc` (the `outputSchema`). `at` is the pointer of the schema inside the tool
/// definition, used only to make error pointers point into what the author wrote.
pub(crate) fn compile(doc: &Value, at: &str, limits: &Limits) -> Result<Schema, Error> {
    let mut c = Compiler {
        doc,
        at,
        nodes: Vec::new(),
        by_pointer: HashMap::new(),
        queue: Vec::new(),
        refs: Vec::new(),
        resources: HashMap::new(),
        anchors: HashMap::new(),
    };
    c.index_resources()?;
    let root = c.node_for("", "");
    loop {
        while let Some((id, pointer, base)) = c.queue.pop() {
            c.build(id, &pointer, &base)?;
        }
        if c.refs.is_empty() {
            break;
        }
        for (id, reference, base, pointer) in std::mem::take(&mut c.refs) {
            let target = c.resolve(&reference, &base, &pointer)?;
            c.nodes[id].refs.push(target);
        }
    }
    check_ref_chains(&c.nodes, limits.max_ref_hops).map_err(|(node, detail)| {
        let pointer = c.by_pointer.iter().find(|(_, &n)| n == node).map(|(p, _)| p.as_str()).unwrap_or("");
        Error::new(ErrorCode::RefLimit, format!("{at}{pointer}"), detail)
    })?;
    let reaches_mark = reaches_mark(&c.nodes);
    let names_marked = c.nodes.iter().map(|n| names_marked(&c.nodes, n)).collect();
    Ok(Schema { nodes: c.nodes, root, reaches_mark, names_marked })
}

struct Compiler<'a> {
    doc: &'a Value,
    at: &'a str,
    nodes: Vec<Node>,
    by_pointer: HashMap<String, NodeId>,
    queue: Vec<(NodeId, String, String)>,
    /// Unresolved `$ref`s: (node, reference, base URI, pointer of the keyword).
    refs: Vec<(NodeId, String, String, String)>,
    /// Absolute URI of each schema resource (`$id`) -> its document pointer.
    resources: HashMap<String, String>,
    /// `uri#anchor` -> document pointer.
    anchors: HashMap<String, String>,
}

impl Compiler<'_> {
    fn error(&self, pointer: &str, detail: impl Into<String>) -> Error {
        Error::new(ErrorCode::SchemaInvalid, format!("{}{pointer}", self.at), detail)
    }

    fn node_for(&mut self, pointer: &str, base: &str) -> NodeId {
        if let Some(&id) = self.by_pointer.get(pointer) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_pointer.insert(pointer.to_string(), id);
        self.queue.push((id, pointer.to_string(), base.to_string()));
        id
    }

    /// First pass: where each `$id` and `$anchor` lives, so that `$ref`s can be resolved
    /// whatever order subschemas are built in.
    fn index_resources(&mut self) -> Result<(), Error> {
        self.resources.insert(String::new(), String::new());
        let mut stack = vec![(String::new(), String::new())];
        while let Some((pointer, base)) = stack.pop() {
            let Some(Value::Object(obj)) = self.doc.pointer(&pointer) else { continue };
            let base = self.scope(obj, &base, &pointer)?;
            for word in ["$anchor", "$dynamicAnchor"] {
                if let Some(Value::String(a)) = obj.get(word) {
                    self.anchors.insert(format!("{base}#{a}"), pointer.clone());
                }
            }
            for sub in subschemas(obj) {
                stack.push((format!("{pointer}{sub}"), base.clone()));
            }
        }
        Ok(())
    }

    /// The base URI inside `obj`, registering it (and a draft-07 `$id: "#name"` anchor).
    fn scope(&mut self, obj: &Map<String, Value>, base: &str, pointer: &str) -> Result<String, Error> {
        let Some(id) = obj.get("$id") else { return Ok(base.to_string()) };
        let Value::String(id) = id else { return Err(self.error(&child(pointer, "$id"), "`$id` must be a string")) };
        let (uri_part, fragment) = id.split_once('#').unwrap_or((id, ""));
        let scoped = if uri_part.is_empty() { base.to_string() } else { uri::resolve(base, uri_part) };
        if uri_part.is_empty() && !fragment.is_empty() {
            self.anchors.insert(format!("{scoped}#{fragment}"), pointer.to_string());
        } else {
            self.resources.entry(scoped.clone()).or_insert_with(|| pointer.to_string());
        }
        Ok(scoped)
    }

    fn build(&mut self, id: NodeId, pointer: &str, base: &str) -> Result<(), Error> {
        let obj = match self.doc.pointer(pointer) {
            Some(Value::Object(obj)) => obj,
            Some(Value::Bool(b)) => {
                (self.nodes[id].trivial, self.nodes[id].never) = (*b, !*b);
                return Ok(());
            }
            _ => return Err(self.error(pointer, "a schema must be an object or a boolean")),
        };
        let base = self.scope(obj, base, pointer)?;
        let mut node = Node { mark: self.mark(obj, pointer)?, kinds: self.kinds(obj, pointer)?, ..Node::default() };
        node.title = obj.get("title").and_then(Value::as_str).map(str::to_string);
        node.trivial = describes_nothing(obj);
        for (word, value) in obj {
            let Some(kind) = keyword(word).map(|k| k.kind) else { continue };
            let here = child(pointer, word);
            let members = kind.members(value).map_err(|want| self.error(&here, format!("`{word}` {want}")))?;
            if let (Kind::Ref, Value::String(r)) = (kind, value) {
                self.refs.push((id, r.clone(), base.clone(), here.clone()));
            }
            for m in members.into_iter().filter(|m| m.place != Place::Negated) {
                let n = self.node_for(&format!("{here}{}", m.suffix), &base);
                node.add(m.place, m.key, n);
            }
        }
        self.nodes[id] = node;
        Ok(())
    }

    fn mark(&self, obj: &Map<String, Value>, pointer: &str) -> Result<bool, Error> {
        match obj.get(MARK) {
            None => Ok(false),
            Some(v) if is_mark(v) => Ok(true),
            Some(v) if v == false => Ok(false),
            Some(_) => {
                let detail = "`x-sensitive` must be true, false or a non-empty class name such as \"credentials\"";
                Err(self.error(&child(pointer, MARK), detail).with_fault(SchemaFault::InvalidMark))
            }
        }
    }

    fn kinds(&self, obj: &Map<String, Value>, pointer: &str) -> Result<Option<Kinds>, Error> {
        let bad = || self.error(&child(pointer, "type"), "`type` must be a JSON Schema type name or a list of them");
        let named = |v: &Value| v.as_str().and_then(Kinds::from_name);
        match obj.get("type") {
            Some(Value::String(_)) => Ok(Some(named(&obj["type"]).ok_or_else(bad)?)),
            Some(Value::Array(list)) => {
                let mut kinds = None::<Kinds>;
                for v in list {
                    let k = named(v).ok_or_else(bad)?;
                    kinds = Some(kinds.map_or(k, |acc| acc.union(k)));
                }
                Ok(kinds)
            }
            Some(_) => Err(bad()),
            None => {
                let implied = |kind| obj.keys().any(|w| keyword(w).is_some_and(|k| k.implies == kind));
                let (object, array) = (implied(Implies::Object), implied(Implies::Array));
                Ok(match (object, array) {
                    (true, false) => Some(Kinds::object()),
                    (false, true) => Some(Kinds::array()),
                    _ => None,
                })
            }
        }
    }

    /// Resolves a `$ref` to a node, refusing anything outside this document.
    fn resolve(&mut self, reference: &str, base: &str, pointer: &str) -> Result<NodeId, Error> {
        let (uri_part, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let target = if uri_part.is_empty() { base.to_string() } else { uri::resolve(base, uri_part) };
        let Some(resource) = self.resources.get(&target).cloned() else {
            return Err(Error::new(
                ErrorCode::RemoteRef,
                format!("{}{pointer}", self.at),
                format!("`$ref` \"{reference}\" leaves the schema document; remote schemas are never fetched: move the definition under `$defs`"),
            ));
        };
        let dangling = || {
            let detail = format!("`$ref` \"{reference}\" points at nothing in the schema");
            self.error(pointer, detail).with_fault(SchemaFault::DanglingRef)
        };
        let location = if fragment.is_empty() {
            resource
        } else if fragment.starts_with('/') {
            format!("{resource}{}", percent_decode(fragment).ok_or_else(dangling)?)
        } else {
            self.anchors.get(&format!("{target}#{fragment}")).cloned().ok_or_else(dangling)?
        };
        if self.doc.pointer(&location).is_none() {
            return Err(dangling());
        }
        Ok(self.node_for(&location, &target))
    }
}

/// A schema of annotations only (and no mark) is like `true`.
fn describes_nothing(obj: &Map<String, Value>) -> bool {
    obj.iter().all(|(word, value)| match keyword(word).map(|k| k.kind) {
        Some(Kind::Annotation) => true,
        Some(Kind::Mark) => value == false,
        _ => false,
    })
}

/// The pointer suffix of each subschema directly inside `obj`, whatever its shape errors:
/// building the nodes reports those.
fn subschemas(obj: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for (word, value) in obj {
        let members = keyword(word).and_then(|k| k.kind.members(value).ok()).unwrap_or_default();
        out.extend(members.into_iter().map(|m| format!("{}{}", child("", word), m.suffix)));
    }
    out
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Fails on a loop of in-place edges that contains a `$ref` (it never consumes input), or a
/// chain of more than `max` `$ref`s at one instance location. Iterative DFS, O(nodes + edges).
fn check_ref_chains(nodes: &[Node], max: usize) -> Result<(), (NodeId, String)> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; nodes.len()];
    let mut hops = vec![0usize; nodes.len()];
    for start in 0..nodes.len() {
        if state[start] != NEW {
            continue;
        }
        let mut stack: Vec<(NodeId, usize)> = vec![(start, 0)];
        state[start] = OPEN;
        while let Some(&mut (n, ref mut next)) = stack.last_mut() {
            let edges: Vec<(NodeId, usize)> = in_place_weighted(&nodes[n]);
            if let Some(&(m, _)) = edges.get(*next) {
                *next += 1;
                match state[m] {
                    NEW => {
                        state[m] = OPEN;
                        stack.push((m, 0));
                    }
                    OPEN => return Err((m, "`$ref` loops back to itself without moving into the result".into())),
                    _ => {}
                }
                continue;
            }
            hops[n] = edges.iter().map(|&(m, w)| hops[m] + w).max().unwrap_or(0);
            if hops[n] > max {
                return Err((n, format!("more than {max} `$ref` hops at one location")));
            }
            state[n] = DONE;
            stack.pop();
        }
    }
    Ok(())
}

/// In-place edges, weighted 1 for a `$ref` and 0 otherwise.
fn in_place_weighted(node: &Node) -> Vec<(NodeId, usize)> {
    let refs = node.refs.iter().map(|&m| (m, 1));
    refs.chain(
        node.all_of.iter().chain(&node.alternatives).chain(node.dependent.iter().map(|(_, m)| m)).map(|&m| (m, 0)),
    )
    .collect()
}

/// For every node, whether a mark is reachable from it: a breadth-first walk backwards from
/// the marked nodes.
fn reaches_mark(nodes: &[Node]) -> Vec<bool> {
    let mut parents: Vec<Vec<NodeId>> = vec![Vec::new(); nodes.len()];
    for (n, node) in nodes.iter().enumerate() {
        for m in node.edges() {
            parents[m].push(n);
        }
    }
    let mut reach: Vec<bool> = nodes.iter().map(|n| n.mark).collect();
    let mut queue: Vec<NodeId> = (0..nodes.len()).filter(|&n| reach[n]).collect();
    while let Some(n) = queue.pop() {
        for &p in &parents[n] {
            if !reach[p] {
                reach[p] = true;
                queue.push(p);
            }
        }
    }
    reach
}

/// Is a mark reachable in place from `node`'s `propertyNames`?
fn names_marked(nodes: &[Node], node: &Node) -> bool {
    let mut seen = vec![false; nodes.len()];
    let mut stack: Vec<NodeId> = node.property_names.clone();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n], true) {
            continue;
        }
        if nodes[n].mark {
            return true;
        }
        stack.extend(nodes[n].in_place());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn negated_subschemas_are_indexed_but_never_compiled() {
        let limits = Limits::default();
        assert!(compile(&json!({ "not": 5 }), "", &limits).is_ok());
        let anchored = json!({ "not": { "$anchor": "a", "x-sensitive": true }, "$ref": "#a" });
        assert!(compile(&anchored, "", &limits).unwrap().has_marks());
    }
}
