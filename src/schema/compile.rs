//! Builds the node arena from a schema document without recursion: a work queue of
//! (document pointer, base URI) pairs, then `$ref` resolution, then graph checks.

use std::collections::HashMap;

use regex_lite::Regex;
use serde_json::{Map, Value};

use super::{uri, Kinds, Node, NodeId, Pattern, Schema};
use crate::json::child;
use crate::{Error, ErrorCode, Limits};

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "if",
    "then",
    "else",
    "not",
];
/// Keywords whose value is an array of subschemas.
const LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value is an object of subschemas.
const MAPS: &[&str] = &["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

/// Keywords that describe without constraining: a schema of only these is like `true`.
const ANNOTATION_WORDS: &[&str] = &[
    "title",
    "description",
    "$comment",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$anchor",
];

const OBJECT_WORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "required",
    "minProperties",
    "maxProperties",
    "dependentSchemas",
];
const ARRAY_WORDS: &[&str] =
    &["items", "prefixItems", "additionalItems", "unevaluatedItems", "contains", "minItems", "maxItems"];

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
            Some(Value::Bool(true)) => {
                self.nodes[id].trivial = true;
                return Ok(());
            }
            Some(Value::Bool(false)) => {
                self.nodes[id].never = true;
                return Ok(());
            }
            Some(Value::Object(obj)) => obj,
            _ => return Err(self.error(pointer, "a schema must be an object or a boolean")),
        };
        let base = self.scope(obj, base, pointer)?;
        let mut node = Node { mark: self.mark(obj, pointer)?, kinds: self.kinds(obj, pointer)?, ..Node::default() };
        node.title = obj.get("title").and_then(Value::as_str).map(str::to_string);
        node.trivial =
            obj.iter().all(|(k, v)| ANNOTATION_WORDS.contains(&k.as_str()) || (k == "x-sensitive" && v == false));
        for (word, value) in obj {
            let here = child(pointer, word);
            match word.as_str() {
                "properties" | "dependentSchemas" | "dependencies" | "patternProperties" => {
                    let Value::Object(map) = value else {
                        return Err(self.error(&here, format!("`{word}` must be an object")));
                    };
                    for (key, sub) in map {
                        if word == "dependencies" && !matches!(sub, Value::Object(_) | Value::Bool(_)) {
                            continue; // the property-list form names no subschema
                        }
                        let n = self.node_for(&child(&here, key), &base);
                        match word.as_str() {
                            "properties" => node.properties.push((key.clone(), n)),
                            "patternProperties" => node.patterns.push((pattern(key), n)),
                            _ => node.dependent.push((key.clone(), n)),
                        }
                    }
                }
                "$defs" | "definitions" => {
                    let Value::Object(map) = value else {
                        return Err(self.error(&here, format!("`{word}` must be an object")));
                    };
                    for key in map.keys() {
                        self.node_for(&child(&here, key), &base); // built so their errors surface
                    }
                }
                "allOf" | "anyOf" | "oneOf" | "prefixItems" | "items" if value.is_array() => {
                    let list = value.as_array().into_iter().flatten();
                    let ids: Vec<NodeId> =
                        list.enumerate().map(|(i, _)| self.node_for(&child(&here, &i.to_string()), &base)).collect();
                    if ids.is_empty() && word != "items" && word != "prefixItems" {
                        return Err(self.error(&here, format!("`{word}` must not be empty")));
                    }
                    match word.as_str() {
                        "allOf" => node.all_of.extend(ids),
                        "anyOf" | "oneOf" => node.alternatives.extend(ids),
                        _ => node.prefix_items.extend(ids),
                    }
                }
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                    return Err(self.error(&here, format!("`{word}` must be an array of schemas")));
                }
                "$ref" | "$dynamicRef" | "$recursiveRef" => {
                    let Value::String(r) = value else {
                        return Err(self.error(&here, format!("`{word}` must be a string")));
                    };
                    self.refs.push((id, r.clone(), base.clone(), here));
                }
                w if w == "items" || SINGLE.contains(&w) => {
                    if w == "not" {
                        continue; // a negated schema never marks what it rejects
                    }
                    let n = self.node_for(&here, &base);
                    match w {
                        "additionalProperties" | "unevaluatedProperties" => node.additional.push(n),
                        "propertyNames" => node.property_names.push(n),
                        "items" | "additionalItems" | "unevaluatedItems" => node.items.push(n),
                        "contains" => node.contains.push(n),
                        _ => node.alternatives.push(n), // if / then / else
                    }
                }
                _ => {}
            }
        }
        self.nodes[id] = node;
        Ok(())
    }

    fn mark(&self, obj: &Map<String, Value>, pointer: &str) -> Result<bool, Error> {
        match obj.get("x-sensitive") {
            None | Some(Value::Bool(false)) => Ok(false),
            Some(Value::Bool(true)) => Ok(true),
            Some(Value::String(s)) if !s.is_empty() => Ok(true),
            Some(_) => Err(self.error(
                &child(pointer, "x-sensitive"),
                "`x-sensitive` must be true, false or a non-empty class name such as \"credentials\"",
            )),
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
                let object = OBJECT_WORDS.iter().any(|w| obj.contains_key(*w));
                let array = ARRAY_WORDS.iter().any(|w| obj.contains_key(*w));
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
        let dangling = || self.error(pointer, format!("`$ref` \"{reference}\" points at nothing in the schema"));
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

/// The pointer suffix of each subschema directly inside `obj`.
fn subschemas(obj: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for (word, value) in obj {
        let (w, here) = (word.as_str(), child("", word));
        match value {
            Value::Object(map) if MAPS.contains(&w) || w == "dependencies" => {
                out.extend(map.keys().map(|k| child(&here, k)));
            }
            Value::Array(list) if LISTS.contains(&w) || w == "items" => {
                out.extend((0..list.len()).map(|i| format!("{here}/{i}")));
            }
            Value::Object(_) | Value::Bool(_) if SINGLE.contains(&w) || w == "items" => out.push(here),
            _ => {}
        }
    }
    out
}

fn pattern(source: &str) -> Pattern {
    Regex::new(source).map_or(Pattern::Opaque, Pattern::Regex)
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
