//! The `outputSchema` an agent is shown: the tool's own, relaxed so that every redacted view
//! validates against it. An MCP runtime such as `@mcp-b/global` validates each result's
//! `structuredContent` against the schema it was registered with, and MCP clients validate it
//! against the schema `tools/list` gave them: the schema they get must describe the view the
//! redactor writes, not the raw result (README "MCP bridges").
//!
//! In `structuredContent` the walk leaves a redacted property out and a redacted array element
//! as `null`, and writes no `structuredContent` at all when the root value goes (or the tool
//! withholds every result, or the value is not an object). So, in every subschema wherever it
//! sits (`$defs`, `items`, branches, reference targets), at every place it can apply:
//! - `required` (and the name lists of `dependentRequired` and draft-07 `dependencies`) loses
//!   every name whose property may be redacted there, and `minProperties` goes where any may be;
//! - where an array element may be redacted, the subschemas that apply to elements accept
//!   `null`: `"null"` joins `type`, `null` joins `enum`, `const` becomes a two-value `enum`,
//!   through `allOf`, `$ref`s, `then` and `else`; `anyOf` gains a `{"type": "null"}` branch;
//!   `uniqueItems` and `maxContains` go there;
//! - where anything at or below may be redacted, the keywords whose outcome a removal can turn
//!   go: `if` (so `then` and `else` stop applying) and `not`;
//! - there, and where `null` must be accepted, `oneOf` becomes `anyOf` (with the `null` branch),
//!   since a removal or a `null` can make a value match several branches (a `oneOf` goes instead
//!   when the node has an `anyOf` too, or a `$ref` points into some `oneOf` by JSON Pointer);
//! - everything else stays, marks and titles included, so the schema still says what is
//!   withheld; a root without `type` gets `"type": "object"`, which is what every view with a
//!   schema carries.
//!
//! Places are worked out as the walk works them out, on sets of subschemas (a property's
//! subschemas are those every subschema at the parent's place gives it), but with every branch
//! taken whatever its type, so "may be redacted" over-approximates the walk, never the other
//! way: a value may go when a subschema at its place is marked, marks its property names, holds
//! JSON whose schema has marks (`contentSchema`), or has marks below while its type could differ
//! from what the walk expects: no explicit `type`, or it applies where a valid value need not
//! satisfy it (under a branch, `contains` or `contentSchema`, at any depth). In allowlist mode a
//! property may also go unless a subschema that surely applies with the `required` beside it
//! declares it, and every element may go. A value the known-secret scrubbing rewrites (rule 5)
//! keeps its place but may no longer match `pattern`, `format` or `type`.

use serde_json::{Map, Value};

use super::apply::{Budget, Exhausted};
use super::compile::compile_mapped;
use super::{Kinds, Node, NodeId, Schema};
use crate::hash::{IdMap, IdSet, TextMap};
use crate::{Error, ErrorCode, Limits};

/// Units of work the analysis may take per compiled subschema (and a floor): past them, the
/// agent is shown the weakest schema instead (`weakest`). Linear in the schema's size, so that a
/// schema whose places multiply (a `$ref` chain that branches at every step) cannot hold up
/// `registerTool`; ordinary schemas use a small part of it.
const WORK_PER_SUBSCHEMA: u64 = 64;
const WORK_FLOOR: u64 = 1 << 16;

/// The schema an agent is shown for results of a tool with `doc` as its `outputSchema`, or
/// `None` when no view carries `structuredContent` (the root can go whole, or its type is not
/// only `object`). `at` is the schema's pointer in the tool definition, for errors.
pub(crate) fn agent_schema(doc: &Value, at: &str, allowlist: bool, limits: &Limits) -> Result<Option<Value>, Error> {
    agent_schema_counted(doc, at, allowlist, limits).map(|(schema, _)| schema)
}

/// [`agent_schema`], with the units of work it took.
fn agent_schema_counted(
    doc: &Value,
    at: &str,
    allowlist: bool,
    limits: &Limits,
) -> Result<(Option<Value>, u64), Error> {
    let (schema, values) = compile_mapped(doc, at, limits)?;
    let max = WORK_FLOOR.saturating_add(WORK_PER_SUBSCHEMA.saturating_mul(schema.nodes.len() as u64));
    let mut a = Analysis::new(&schema, &values, allowlist, max.min(limits.max_work as u64));
    let root = a.close(vec![schema.root]).map_err(|Exhausted| {
        let detail = format!("working out the agent's schema took more than {max} units of work");
        Error::new(ErrorCode::WorkLimit, at, detail)
    })?;
    if !a.root_kept(root) {
        return Ok((None, a.budget.spent()));
    }
    let relaxed = a.walk().and_then(|()| a.write(doc));
    let mut out = match relaxed {
        // A reference may point into what was dropped or renamed (by pointer, `$anchor` or
        // `$id`), and `unevaluated*` read what `if` and the branches evaluated: with either
        // beside a rewrite, the relaxed schema could refuse views or not compile.
        Ok(out) if !(a.rewrote && refers_or_reads_evaluation(doc)) => out,
        Ok(_) | Err(Exhausted) => weakest(doc),
    };
    // The view's structuredContent is always an object: say so where the root does not (MCP
    // asks for `"type": "object"` there, and SDK servers wrap anything else in `{ result }`).
    if let Value::Object(root) = &mut out {
        root.entry("type").or_insert_with(|| Value::from("object"));
    }
    Ok((Some(out), a.budget.spent()))
}

/// The weakest schema every view with `structuredContent` meets: an object, with the root's
/// words for people (`title`, `description`) kept.
fn weakest(doc: &Value) -> Value {
    let mut out = Map::new();
    for key in ["title", "description"] {
        if let Some(v) = doc.get(key).filter(|v| v.is_string()) {
            out.insert(key.into(), v.clone());
        }
    }
    out.insert("type".into(), Value::from("object"));
    Value::Object(out)
}

/// Does `doc` hold a reference keyword, or one that reads what other keywords evaluated?
fn refers_or_reads_evaluation(doc: &Value) -> bool {
    const KEYS: [&str; 5] = ["$ref", "$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems"];
    let mut stack = vec![doc];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if KEYS.iter().any(|k| map.contains_key(*k)) {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(list) => stack.extend(list),
            _ => {}
        }
    }
    false
}

struct Analysis<'s, 'v> {
    schema: &'s Schema,
    values: &'s [&'v Value],
    allowlist: bool,
    by_address: IdMap<usize, NodeId>,
    /// The subschemas each one applies at the same place, and whether always (`allOf`,
    /// references, a dynamic one to each candidate) or maybe (branches, `dependentSchemas`).
    edges: Vec<Vec<(NodeId, bool)>>,
    /// May the walk take a value this subschema applies to whole?
    risky: Vec<bool>,
    /// By hub (dynamic anchor name, from the first id past the nodes): the relevant subschemas
    /// of its closure, worked out once (each of n references to a name with n candidates
    /// walked the n candidates again: n² for a schema of size n). Each list ends with
    /// `usize::MAX` once worked out (a list of a type the module has already).
    hub_sets: Vec<Vec<NodeId>>,
    /// Places: the (closed) set of subschemas at each, interned.
    sets: Vec<Vec<NodeId>>,
    /// By the set's ids written out (a key type the compiler already hashes: less code).
    set_ids: TextMap<String, NodeId>,
    /// By subschema, over every place it applies at: the names of `required` (and of
    /// `dependentRequired`...) that may go (a set, as a map of a type the module has already:
    /// a list of n names was looked up n times);
    /// whether some property may go, some element may go, and anything at or below may change.
    dropped: Vec<TextMap<String, NodeId>>,
    properties_go: Vec<bool>,
    elements_go: Vec<bool>,
    changes: Vec<bool>,
    /// Subschemas that must accept `null`.
    nullable: Vec<bool>,
    /// Some reference may point into a `oneOf` by JSON Pointer: renaming one could break it.
    pointer_into_one_of: bool,
    /// `write` dropped an `if`, a `not` or a `oneOf`, or renamed a `oneOf`.
    rewrote: bool,
    budget: Budget,
    scratch: Vec<u32>,
}

impl<'s, 'v> Analysis<'s, 'v> {
    fn new(schema: &'s Schema, values: &'s [&'v Value], allowlist: bool, max_work: u64) -> Self {
        let n = schema.nodes.len();
        let mut candidates: IdMap<u32, Vec<NodeId>> = IdMap::default();
        for &(name, node) in schema.anchors.iter().flatten() {
            candidates.entry(name).or_default().push(node);
        }
        // A dynamic reference reaches its candidates through its name's hub (ids past the
        // nodes, see `compile::Graph`): edges to each were references times candidates.
        let hubs = super::compile::Hubs::new(&candidates, n);
        let mut edges: Vec<Vec<(NodeId, bool)>> = vec![Vec::new(); n];
        edges.extend(hubs.lists.iter().map(|list| list.iter().map(|&m| (m, true)).collect()));
        for (to, node) in edges.iter_mut().zip(&schema.nodes) {
            to.extend(node.all_of.iter().chain(&node.refs).map(|&m| (m, true)));
            for d in &node.dynamic {
                to.push((d.fallback, true));
                to.extend(hubs.of(d.name).map(|h| (h, true)));
            }
            to.extend(node.alternatives.iter().chain(node.dependent.iter().map(|(_, m)| m)).map(|&m| (m, false)));
        }
        let mut by_address = IdMap::default();
        for (id, v) in values.iter().enumerate() {
            by_address.insert(address(v), id);
        }
        // Any string of the document will do (a reference under `not` counts too): when in doubt
        // a `oneOf` goes rather than being renamed.
        let pointer_into_one_of = crate::json::write::text(values[schema.root]).contains("/oneOf/");
        let mut a = Analysis {
            schema,
            values,
            allowlist,
            by_address,
            edges,
            risky: Vec::new(),
            hub_sets: vec![Vec::new(); hubs.lists.len()],
            sets: Vec::new(),
            set_ids: TextMap::default(),
            dropped: vec![TextMap::default(); n],
            properties_go: vec![false; n],
            elements_go: vec![false; n],
            changes: vec![false; n],
            nullable: vec![false; n + hubs.lists.len()],
            pointer_into_one_of,
            rewrote: false,
            budget: Budget::new(max_work),
            scratch: Vec::new(),
        };
        a.risky = a.risky();
        a
    }

    /// Does `place` or `write` read anything of subschema `n` but its edges? A place's set holds
    /// only these: one that only forwards (`$ref`, `$dynamicRef`, `allOf`, a type, a title)
    /// adds nothing, and sets that differ only by such subschemas are one place.
    fn relevant(&self, n: NodeId) -> bool {
        const READ: [&str; 10] = [
            "required",
            "dependentRequired",
            "dependencies",
            "minProperties",
            "uniqueItems",
            "maxContains",
            "if",
            "not",
            "oneOf",
            "anyOf",
        ];
        let node = &self.schema.nodes[n];
        self.risky[n]
            || !parts(node, true, true).is_empty()
            || self.values[n].as_object().is_some_and(|o| READ.iter().any(|k| o.contains_key(*k)))
    }

    /// For every subschema: may the walk take a value it applies to whole?
    fn risky(&self) -> Vec<bool> {
        let s = self.schema;
        // Loose: may apply where a valid value does not satisfy it, so its `type` proves nothing.
        let mut loose = vec![false; self.edges.len()];
        let mut queue: Vec<NodeId> = Vec::new();
        for node in &s.nodes {
            queue.extend_from_slice(&node.alternatives);
            queue.extend_from_slice(&node.contains);
            queue.extend_from_slice(&node.content);
            queue.extend_from_slice(&node.property_names);
        }
        while let Some(n) = queue.pop() {
            if !std::mem::replace(&mut loose[n], true) {
                queue.extend(self.edges[n].iter().map(|e| e.0));
                let Some(node) = s.nodes.get(n) else { continue }; // a hub
                queue.extend(parts(node, true, true));
                queue.extend_from_slice(&s.nodes[n].content);
                queue.extend_from_slice(&s.nodes[n].property_names);
            }
        }
        let risky = |n: NodeId| {
            let node = &s.nodes[n];
            let typed = self.values[n].get("type").is_some() && !loose[n];
            node.mark
                || s.names_marked[n]
                || node.content.iter().any(|&c| s.reaches_mark[c])
                || (s.reaches_mark[n] && node.kinds.is_some() && !typed)
        };
        (0..s.nodes.len()).map(risky).collect()
    }

    /// The place of the subschemas `start` and of all they apply in place: its set's id.
    fn close(&mut self, start: Vec<NodeId>) -> Result<usize, Exhausted> {
        let mut set = self.reach(start, true)?;
        crate::sort::sort(&mut set);
        set.dedup();
        self.budget.spend(1 + set.len() as u64)?;
        let key: String = set.iter().map(|n| format!("{n},")).collect();
        if let Some(&id) = self.set_ids.get(&key) {
            return Ok(id);
        }
        self.set_ids.insert(key, self.sets.len());
        self.sets.push(set);
        Ok(self.sets.len() - 1)
    }

    /// The relevant subschemas `start` reaches in place, a unit of work each visited. A hub's
    /// are read from `hub_sets`, filled first (with `memo`: its own reach does not fill others).
    fn reach(&mut self, mut start: Vec<NodeId>, memo: bool) -> Result<Vec<NodeId>, Exhausted> {
        let nodes = self.schema.nodes.len();
        let mut set = Vec::new();
        let mut seen = IdSet::default();
        while let Some(n) = start.pop() {
            if !seen.insert(n) {
                continue;
            }
            self.budget.spend(1)?;
            if n >= nodes && (memo || !self.hub_sets[n - nodes].is_empty()) {
                if self.hub_sets[n - nodes].is_empty() {
                    let mut own = self.reach(vec![n], false)?;
                    own.push(usize::MAX);
                    self.hub_sets[n - nodes] = own;
                }
                let own = &self.hub_sets[n - nodes];
                self.budget.spend(own.len() as u64)?;
                set.extend_from_slice(&own[..own.len() - 1]);
                continue;
            }
            if n < nodes && self.relevant(n) {
                set.push(n);
            }
            start.extend(self.edges[n].iter().map(|e| e.0));
        }
        Ok(set)
    }

    /// Does the view of a valid value still carry an object `structuredContent`? Only if the
    /// schema takes nothing but objects, and nothing that applies to an object marks it whole.
    fn root_kept(&self, root: usize) -> bool {
        let s = self.schema;
        let object = Kinds::object().mask();
        let whole = |&m: &NodeId| (s.nodes[m].mark || s.names_marked[m]) && s.fit[m] & object != 0;
        s.fit[s.root] == object && !self.sets[root].iter().any(whole)
    }

    /// Visits every place from the root's (the first), and records what may go where.
    fn walk(&mut self) -> Result<(), Exhausted> {
        let mut below: Vec<Vec<usize>> = Vec::new();
        let mut local: Vec<bool> = Vec::new();
        let mut next = 0;
        while next < self.sets.len() {
            let (change, children) = self.place(next)?;
            local.push(change);
            below.push(children);
            next += 1;
        }
        // A place changes when something at it or at any place below it may go.
        let mut changed = vec![false; self.sets.len()];
        let mut above: Vec<Vec<usize>> = vec![Vec::new(); self.sets.len()];
        for (p, children) in below.iter().enumerate() {
            for &c in children {
                above[c].push(p);
            }
        }
        let mut queue: Vec<usize> = (0..local.len()).filter(|&p| local[p]).collect();
        while let Some(p) = queue.pop() {
            if !std::mem::replace(&mut changed[p], true) {
                queue.extend(&above[p]);
            }
        }
        for (p, set) in self.sets.iter().enumerate() {
            for &n in set {
                self.changes[n] |= changed[p];
            }
        }
        // What applies to an element that may be `null` must accept it; so must what it always
        // applies, and its `then` and `else`.
        let mut queue: Vec<NodeId> = Vec::new();
        for (o, node) in self.schema.nodes.iter().enumerate() {
            if self.elements_go[o] {
                queue.extend(parts(node, false, true));
            }
        }
        while let Some(n) = queue.pop() {
            if std::mem::replace(&mut self.nullable[n], true) {
                continue;
            }
            self.budget.spend(1)?;
            queue.extend(self.edges[n].iter().filter(|e| e.1).map(|e| e.0));
            if n >= self.schema.nodes.len() {
                continue; // a hub
            }
            for key in ["then", "else"] {
                queue.extend(self.values[n].get(key).and_then(|v| self.by_address.get(&address(v))));
            }
        }
        Ok(())
    }

    /// One place: which of its properties and elements may go. Returns whether any may, and
    /// the places of its properties and elements.
    fn place(&mut self, p: usize) -> Result<(bool, Vec<usize>), Exhausted> {
        let s = self.schema;
        let set = self.sets[p].clone();
        let mut children = Vec::new();
        // Every name a subschema here gives a subschema or a rule, then any other name.
        // (A map of the type `properties` is, by name to its index: no new code to hash them.)
        let mut names: Vec<String> = Vec::new();
        let mut index: TextMap<String, NodeId> = TextMap::default();
        let mut add = |k: &str| {
            if !index.contains_key(k) {
                index.insert(k.to_string(), names.len());
                names.push(k.to_string());
            }
        };
        for &n in &set {
            s.nodes[n].properties.keys().for_each(|k| add(k));
            for_names(self.values[n], &mut add);
        }
        let mut properties_go = self.allowlist;
        let mut goes = vec![false; names.len()];
        for (i, name) in names.iter().map(Some).chain([None]).enumerate() {
            let mut start = Vec::new();
            for &o in &set {
                start.extend(self.children_named(o, name)?.0);
            }
            if !start.is_empty() {
                let child = self.close(start)?;
                children.push(child);
                let risky = self.sets[child].iter().any(|&n| self.risky[n]);
                properties_go |= risky;
                if let Some(g) = goes.get_mut(i) {
                    *g = risky;
                }
            }
        }
        for &n in &set {
            let mut listed = Vec::new();
            for_names(self.values[n], &mut |k| listed.push(k.to_string()));
            self.budget.spend(listed.len() as u64)?;
            for name in listed {
                let here = index.get(&name).is_some_and(|&i| goes[i]);
                if !self.dropped[n].contains_key(&name)
                    && (here || (self.allowlist && !self.surely_declared(n, &name)?))
                {
                    self.dropped[n].insert(name, 0);
                }
            }
        }
        let prefix = set.iter().map(|&o| s.nodes[o].prefix_items.len()).max().unwrap_or(0);
        let mut elements_go = self.allowlist;
        for i in 0..=prefix {
            let mut start = Vec::new();
            for &o in &set {
                let node = &s.nodes[o];
                start.extend_from_slice(node.prefix_items.get(i).map_or(&node.items[..], std::slice::from_ref));
                start.extend_from_slice(&node.contains);
            }
            if !start.is_empty() {
                let child = self.close(start)?;
                children.push(child);
                elements_go |= self.sets[child].iter().any(|&n| self.risky[n]);
            }
        }
        for &n in &set {
            self.properties_go[n] |= properties_go;
            self.elements_go[n] |= elements_go;
        }
        Ok((properties_go || elements_go, children))
    }

    /// The subschemas `o` gives property `name` (`None`: a name nobody names or matches): by
    /// name and by pattern, or else as one of the other properties (`additionalProperties`),
    /// and how many of them, first, name it (by `properties`; the rest name no one property).
    fn children_named(&mut self, o: NodeId, name: Option<&String>) -> Result<(Vec<NodeId>, usize), Exhausted> {
        self.budget.spend(1)?;
        let node = &self.schema.nodes[o];
        let Some(name) = name else {
            let mut found = node.patterns.clone();
            found.extend_from_slice(&node.additional);
            return Ok((found, 0));
        };
        let mut found: Vec<NodeId> = node.properties.get(name).copied().into_iter().collect();
        let named = found.len();
        if let Some(index) = &node.pattern_index {
            self.scratch.clear();
            index.matches(name, &self.schema.programs, &mut self.budget, &mut self.scratch)?;
            found.extend(self.scratch.iter().map(|&i| node.patterns[i as usize]));
        }
        if found.is_empty() {
            found.extend_from_slice(&node.additional);
        }
        Ok((found, named))
    }

    /// Allowlist mode keeps a property only where it is declared. Is `name` declared by `n` or
    /// by what always applies with it (`allOf`, `$ref`s), which the walk reaches whenever `n`?
    fn surely_declared(&mut self, n: NodeId, name: &String) -> Result<bool, Exhausted> {
        let s = self.schema;
        let mut seen: IdSet<NodeId> = [n].into_iter().collect();
        let mut stack = vec![n];
        while let Some(d) = stack.pop() {
            let (children, named) = self.children_named(d, Some(name))?;
            let declares =
                |(i, &c): (usize, &NodeId)| if i < named { s.declares(d, c) } else { s.describes_from(d, c) };
            if children.iter().enumerate().any(declares) {
                return Ok(true);
            }
            for &m in s.nodes[d].all_of.iter().chain(&s.nodes[d].refs) {
                if seen.insert(m) {
                    stack.push(m);
                }
            }
        }
        Ok(false)
    }

    /// The document written again with the edits.
    fn write(&mut self, v: &Value) -> Result<Value, Exhausted> {
        let obj = match v {
            Value::Object(obj) => obj,
            Value::Array(list) => {
                let mut out = Vec::with_capacity(list.len());
                for x in list {
                    out.push(self.write(x)?);
                }
                return Ok(Value::Array(out));
            }
            _ => return Ok(v.clone()),
        };
        // Not a subschema (a `properties` map, a `default`...): only what is inside may change.
        let Some(&n) = self.by_address.get(&address(v)) else {
            let mut out = Map::new();
            for (key, x) in obj {
                out.insert(key.clone(), self.write(x)?);
            }
            return Ok(Value::Object(out));
        };
        // A unit per subschema written, as the budget is per subschema: the values around them
        // (an `enum` or a `default` of 100,000 values) are copied once each, uncounted, so
        // that they cannot spend a budget they do not grow and cost the schema its precision.
        self.budget.spend(1)?;
        let (nullable, changes) = (self.nullable[n], self.changes[n]);
        let mut out = Map::new();
        for (key, x) in obj {
            let mut key = key.as_str();
            let written = match (key, x) {
                ("required", Value::Array(names)) => match self.keep(n, names) {
                    kept if kept.is_empty() => continue,
                    kept => Value::Array(kept),
                },
                ("dependentRequired" | "dependencies", Value::Object(map)) => {
                    let mut lists = Map::new();
                    for (k, x) in map {
                        let kept = match x {
                            Value::Array(names) => Value::Array(self.keep(n, names)),
                            _ => self.write(x)?,
                        };
                        lists.insert(k.clone(), kept);
                    }
                    Value::Object(lists)
                }
                ("minProperties", _) if self.properties_go[n] => continue,
                ("uniqueItems" | "maxContains", _) if self.elements_go[n] => continue,
                ("if" | "not", _) if changes => {
                    self.rewrote = true;
                    continue;
                }
                ("oneOf", _) if (changes || nullable) && (self.pointer_into_one_of || obj.contains_key("anyOf")) => {
                    self.rewrote = true;
                    continue;
                }
                ("type", _) if nullable => with_null(x, &Value::from("null")),
                ("enum", _) if nullable => with_null(x, &Value::Null),
                ("const", _) if nullable && !x.is_null() => {
                    // As `enum` [x, null]; beside an `enum` (which takes `null` now) it only goes.
                    if !obj.contains_key("enum") {
                        out.insert("enum".into(), Value::Array(vec![x.clone(), Value::Null]));
                    }
                    continue;
                }
                ("anyOf" | "oneOf", Value::Array(branches)) => {
                    if changes || nullable {
                        self.rewrote |= key == "oneOf";
                        key = "anyOf";
                    }
                    let mut written = Vec::with_capacity(branches.len() + 1);
                    for b in branches {
                        written.push(self.write(b)?);
                    }
                    if nullable && key == "anyOf" {
                        written.push(crate::json::write::obj(vec![("type", "null".into())]));
                    }
                    Value::Array(written)
                }
                _ => self.write(x)?,
            };
            out.insert(key.to_string(), written);
        }
        Ok(Value::Object(out))
    }

    /// `names` without those whose property may go.
    fn keep(&self, n: NodeId, names: &[Value]) -> Vec<Value> {
        let gone = |v: &&Value| v.as_str().is_some_and(|k| self.dropped[n].contains_key(k));
        names.iter().filter(|v| !gone(v)).cloned().collect()
    }
}

/// Calls `f` with every name `v`'s `required`, `dependentRequired` and draft-07 `dependencies`
/// lists hold.
fn for_names(v: &Value, f: &mut dyn FnMut(&str)) {
    let lists = ["dependentRequired", "dependencies"].into_iter().filter_map(|k| v.get(k)?.as_object());
    let lists = lists.flat_map(|m| m.values()).chain(v.get("required"));
    for name in lists.filter_map(Value::as_array).flatten().filter_map(Value::as_str) {
        f(name);
    }
}

/// `t` with `null` added (`t` a type name or a list of names, or a list of values).
fn with_null(t: &Value, null: &Value) -> Value {
    match t {
        Value::Array(list) if !list.contains(null) => {
            let mut list = list.clone();
            list.push(null.clone());
            Value::Array(list)
        }
        Value::String(_) if t != null => Value::Array(vec![t.clone(), null.clone()]),
        _ => t.clone(),
    }
}

/// The subschemas `node` applies to properties (`object`) or to elements (`array`).
fn parts(node: &Node, object: bool, array: bool) -> Vec<NodeId> {
    let mut out = Vec::new();
    if object {
        out.extend(node.properties.values());
        out.extend_from_slice(&node.patterns);
        out.extend_from_slice(&node.additional);
    }
    if array {
        out.extend_from_slice(&node.prefix_items);
        out.extend_from_slice(&node.items);
        out.extend_from_slice(&node.contains);
    }
    out
}

fn address(v: &Value) -> usize {
    v as *const Value as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agent(schema: Value) -> Option<Value> {
        agent_schema(&schema, "", false, &Limits::default()).unwrap()
    }

    fn allowlisted(schema: Value) -> Option<Value> {
        agent_schema(&schema, "", true, &Limits::default()).unwrap()
    }

    const SECRET: fn() -> Value = || json!({ "type": "string", "title": "API key", "x-sensitive": true });

    #[test]
    fn a_marked_property_is_no_longer_required_and_keeps_its_mark() {
        let s = json!({ "type": "object", "required": ["id", "secret"], "properties": { "id": { "type": "string" }, "secret": SECRET() } });
        let out = agent(s.clone()).unwrap();
        assert_eq!(out["required"], json!(["id"]));
        assert_eq!(out["properties"], s["properties"], "marks and titles stay");
        let only = json!({ "type": "object", "required": ["secret"], "properties": { "secret": SECRET() } });
        assert!(agent(only).unwrap().get("required").is_none(), "an empty `required` goes");
    }

    #[test]
    fn nothing_marked_nothing_changed() {
        let s = json!({ "type": "object", "required": ["a"], "minProperties": 1, "properties": { "a": { "type": "array", "uniqueItems": true, "items": { "const": 1 } } } });
        assert_eq!(agent(s.clone()), Some(s));
    }

    #[test]
    fn a_typed_object_with_a_marked_member_stays_but_loses_the_member() {
        let s = json!({
            "type": "object",
            "required": ["creds"],
            "properties": { "creds": { "type": "object", "required": ["user", "password"], "properties": { "user": { "type": "string" }, "password": SECRET() } } }
        });
        let out = agent(s).unwrap();
        assert_eq!(out["required"], json!(["creds"]));
        assert_eq!(out["properties"]["creds"]["required"], json!(["user"]));
    }

    #[test]
    fn an_untyped_parent_of_marks_may_go_whole_as_a_mismatch() {
        // A string is valid here, and the walk takes it whole (it may be the password itself).
        let s = json!({ "type": "object", "required": ["creds"], "properties": { "creds": { "properties": { "password": SECRET() } } } });
        assert!(agent(s).unwrap().get("required").is_none());
        // Under a branch a type proves nothing either: the branch need not hold.
        let branch = json!({
            "type": "object", "required": ["c"],
            "properties": { "c": { "anyOf": [{ "type": "object", "properties": { "p": SECRET() } }, { "type": "string" }] } }
        });
        assert!(agent(branch).unwrap().get("required").is_none());
    }

    #[test]
    fn through_refs_defs_and_all_of() {
        let s = json!({
            "type": "object",
            "required": ["key", "cred", "plain"],
            "properties": { "key": { "$ref": "#/$defs/Secret" }, "cred": { "$ref": "#/$defs/Cred" }, "plain": { "type": "number" } },
            "$defs": {
                "Secret": SECRET(),
                "Cred": { "type": "object", "required": ["user", "token"], "properties": { "user": { "type": "string" }, "token": { "$ref": "#/$defs/Secret" } } }
            }
        });
        let out = agent(s).unwrap();
        assert_eq!(out["required"], json!(["cred", "plain"]));
        assert_eq!(out["$defs"]["Cred"]["required"], json!(["user"]));
        // A mark beside `required`, in another `allOf` member.
        let s = json!({
            "type": "object",
            "properties": { "t": { "type": "string" } },
            "allOf": [{ "properties": { "s": { "x-sensitive": true } } }, { "required": ["s", "t"] }]
        });
        assert_eq!(agent(s).unwrap()["allOf"][1]["required"], json!(["t"]));
    }

    #[test]
    fn patterns_additional_properties_and_secret_keys() {
        let s = json!({
            "type": "object",
            "required": ["api_secret", "name", "extra", "o"],
            "properties": { "name": { "type": "string" }, "o": { "type": "object", "propertyNames": { "x-sensitive": true } } },
            "patternProperties": { "_secret$": { "x-sensitive": true } },
            "additionalProperties": SECRET(),
            "minProperties": 2,
            "dependentRequired": { "name": ["api_secret", "o"] }
        });
        let out = agent(s).unwrap();
        assert_eq!(out["required"], json!(["name"]));
        assert_eq!(out["dependentRequired"], json!({ "name": [] }));
        assert!(out.get("minProperties").is_none());
    }

    #[test]
    fn a_marked_element_becomes_null_so_elements_accept_null() {
        let s = json!({
            "type": "object",
            "properties": {
                "keys": { "type": "array", "uniqueItems": true, "minItems": 1, "items": SECRET() },
                "pair": { "type": "array", "prefixItems": [{ "type": "string" }, { "$ref": "#/$defs/Pin" }] },
                "codes": { "type": "array", "items": { "const": "x", "x-sensitive": true } },
                "plain": { "type": "array", "uniqueItems": true, "items": { "type": "string" } }
            },
            "$defs": { "Pin": { "type": "integer", "enum": [1, 2], "x-sensitive": true } }
        });
        let out = agent(s).unwrap();
        let p = &out["properties"];
        assert_eq!(p["keys"]["items"]["type"], json!(["string", "null"]));
        assert!(p["keys"].get("uniqueItems").is_none(), "two nulls are not unique");
        assert_eq!(p["keys"]["minItems"], json!(1), "the length stays");
        assert_eq!(p["pair"]["prefixItems"][0]["type"], json!(["string", "null"]), "any element of such an array");
        assert_eq!(out["$defs"]["Pin"]["type"], json!(["integer", "null"]));
        assert_eq!(out["$defs"]["Pin"]["enum"], json!([1, 2, null]));
        assert_eq!(p["codes"]["items"]["enum"], json!(["x", null]));
        assert!(p["codes"]["items"].get("const").is_none());
        assert_eq!(p["plain"]["uniqueItems"], json!(true), "an array nothing is taken from keeps its rules");
    }

    #[test]
    fn branches_of_an_element_gain_a_null_branch() {
        let any = json!({ "type": "array", "items": { "anyOf": [SECRET(), { "type": "number" }] } });
        let out = agent(json!({ "type": "object", "properties": { "l": any } })).unwrap();
        let items = &out["properties"]["l"]["items"];
        assert_eq!(items["anyOf"][2], json!({ "type": "null" }));
        assert_eq!(items["anyOf"][0]["type"], json!("string"), "the branches themselves stay");
        let branch = |kind: &str, extra: Value| json!({ "type": "object", "properties": { "kind": { "const": kind }, "secret": extra } });
        // Without its secret, an element may match both branches: `oneOf` becomes `anyOf`.
        let one = json!({ "type": "array", "items": { "oneOf": [branch("a", SECRET()), branch("b", json!({}))] } });
        let out = agent(json!({ "type": "object", "properties": { "l": one } })).unwrap();
        let items = &out["properties"]["l"]["items"];
        assert_eq!((items["anyOf"].as_array().unwrap().len(), items.get("oneOf")), (3, None));
        // A `oneOf` where `null` must pass: as `anyOf`, a branch that takes `null` already is no
        // second match.
        let taken = json!({ "type": "array", "items": { "x-sensitive": true, "oneOf": [{ "type": "null" }, { "type": "string" }] } });
        let out = agent(json!({ "type": "object", "properties": { "l": taken } })).unwrap();
        let items = &out["properties"]["l"]["items"];
        assert_eq!((items.get("oneOf"), &items["anyOf"][2]), (None, &json!({ "type": "null" })));
        let cond = json!({ "type": "array", "items": { "if": { "type": "string" }, "then": SECRET(), "else": { "type": "number" } } });
        let out = agent(json!({ "type": "object", "properties": { "l": cond } })).unwrap();
        let items = &out["properties"]["l"]["items"];
        assert_eq!(
            (&items["then"]["type"], &items["else"]["type"]),
            (&json!(["string", "null"]), &json!(["number", "null"]))
        );
    }

    #[test]
    fn a_property_gets_the_subschemas_of_every_owner_at_its_place() {
        // `a` has two subschemas, from two `allOf` members: the mark in one frees the other's `required`.
        let s = json!({
            "type": "object",
            "allOf": [
                { "properties": { "a": { "type": "object", "properties": { "b": SECRET() } } } },
                { "properties": { "a": { "type": "object", "required": ["b", "c"] } } }
            ]
        });
        assert_eq!(agent(s).unwrap()["allOf"][1]["properties"]["a"]["required"], json!(["c"]));
    }

    #[test]
    fn conditions_a_removal_can_turn_go() {
        // Without `secret`, `if` would pick `else` for a value that satisfied `then`, and both
        // branches of the `oneOf` could match; a condition on nothing that goes stays.
        let s = json!({
            "type": "object",
            "properties": { "secret": SECRET(), "kind": { "type": "string" }, "o": { "type": "object", "if": { "required": ["k"] }, "then": { "required": ["v"] } } },
            "if": { "required": ["secret"] },
            "then": { "required": ["kind"] },
            "not": { "required": ["other"] },
            "oneOf": [{ "required": ["secret"] }, { "required": ["kind"] }]
        });
        let out = agent(s.clone()).unwrap();
        assert!(out.get("if").is_none() && out.get("not").is_none());
        assert_eq!(out["then"], s["then"], "inert without its `if`, and left as written");
        assert_eq!((out.get("oneOf"), &out["anyOf"]), (None, &json!([{}, { "required": ["kind"] }])));
        assert_eq!(out["properties"]["o"], s["properties"]["o"]);
        // A `$ref` into a `oneOf` would dangle after a rename: then it only goes.
        let pointed = json!({
            "type": "object",
            "properties": { "s": SECRET(), "t": { "$ref": "#/oneOf/1" } },
            "oneOf": [{ "required": ["s"] }, { "type": "object" }]
        });
        let out = agent(pointed).unwrap();
        assert!(out.get("oneOf").is_none() && out.get("anyOf").is_none());
    }

    #[test]
    fn a_recursive_tree() {
        let s = json!({
            "$ref": "#/$defs/node",
            "$defs": { "node": {
                "type": "object",
                "required": ["name", "key", "kids"],
                "properties": { "name": { "type": "string" }, "key": SECRET(), "kids": { "type": "array", "items": { "$ref": "#/$defs/node" } } }
            } }
        });
        let out = agent(s).unwrap();
        assert_eq!(out["$defs"]["node"]["required"], json!(["name", "kids"]));
        assert_eq!(out["$defs"]["node"]["type"], json!("object"), "a node is never taken whole");
        assert_eq!(out["type"], json!("object"), "the root says what every view is");
    }

    #[test]
    fn no_schema_when_no_view_has_structured_content() {
        assert_eq!(agent(json!({ "type": "object", "x-sensitive": true })), None, "the root goes whole");
        assert_eq!(agent(json!({ "type": "object", "propertyNames": { "x-sensitive": true } })), None);
        assert_eq!(agent(json!({ "type": "array", "items": SECRET() })), None, "not an object");
        assert_eq!(agent(json!({ "properties": { "a": {} } })).map(|_| ()), Some(()), "implied object");
        assert_eq!(agent(json!({})), None, "anything at all");
    }

    #[test]
    fn allowlist_mode_keeps_what_is_surely_declared() {
        let s = json!({
            "type": "object",
            "required": ["a", "b", "s", "undeclared"],
            "properties": { "a": { "type": "string" }, "s": SECRET(), "l": { "type": "array", "items": { "type": "string" } } },
            "allOf": [{ "$ref": "#/$defs/B" }],
            "$defs": { "B": { "properties": { "b": { "type": "number" } } } }
        });
        let out = allowlisted(s).unwrap();
        assert_eq!(out["required"], json!(["a", "b"]));
        // An element no `items` declares goes too, in allowlist mode: elements accept null.
        assert_eq!(out["properties"]["l"]["items"]["type"], json!(["string", "null"]));
    }

    #[test]
    fn work_is_bounded() {
        let names: Vec<String> = (0..2000).map(|i| format!("k{i}")).collect();
        let s = json!({ "type": "object", "title": "t", "required": names, "patternProperties": { "^k": SECRET() } });
        // Past the budget: the weakest schema, which every view meets, never an error.
        let tight = Limits { max_work: 500, ..Limits::default() };
        assert_eq!(
            agent_schema(&s, "/outputSchema", false, &tight).unwrap(),
            Some(json!({ "title": "t", "type": "object" }))
        );
        assert!(agent_schema(&s, "", false, &Limits::default()).unwrap().unwrap().get("required").is_none());
    }

    /// A `$ref` chain that branches at every step gives a distinct set of subschemas on each of
    /// 2^n paths (review 1100: a 1.9 KB schema took 1.3 s natively, 2 KB ran into maxWork after
    /// seconds in wasm). The work stays linear in the schema's size, and the answer is the
    /// weakest schema once the budget is spent.
    #[test]
    fn work_is_linear_in_the_schema_even_where_places_multiply() {
        let chain = |n: usize| {
            let mut defs = Map::new();
            let both = json!({ "allOf": [{ "$ref": "#/$defs/Q0" }, { "$ref": "#/$defs/Q1" }] });
            defs.insert(
                "Q0".into(),
                json!({ "type": "object", "properties": { "a": both, "b": { "$ref": "#/$defs/Q0" } } }),
            );
            for i in 1..n {
                let next = json!({ "$ref": format!("#/$defs/Q{}", i + 1) });
                defs.insert(
                    format!("Q{i}"),
                    json!({ "type": "object", "required": ["s"], "properties": { "a": next, "b": next } }),
                );
            }
            defs.insert(format!("Q{n}"), json!({ "type": "object", "properties": { "s": SECRET() } }));
            json!({ "$ref": "#/$defs/Q0", "$defs": defs })
        };
        for n in [8, 16, 32, 64] {
            let doc = chain(n);
            let (out, work) = agent_schema_counted(&doc, "", false, &Limits::default()).unwrap();
            let nodes = compile_mapped(&doc, "", &Limits::default()).unwrap().0.nodes.len() as u64;
            // The budget, and the one charge that crosses it (counted whole).
            let budget = WORK_FLOOR + WORK_PER_SUBSCHEMA * nodes;
            assert!(work <= budget + budget / 16, "n = {n}: {work} units for {nodes} subschemas");
            assert_eq!(out.unwrap()["type"], "object");
        }
    }

    /// Review s26: every adversarial family's agent schema takes work linear in the schema,
    /// a few units per subschema, and keeps its precision (the weakest schema is not shown).
    /// The dynamic-anchor family (n references to a name with n candidates) spent the whole
    /// budget, 1024 units per subschema (2-4 s at 1 MB), because each reference's place held
    /// every candidate; the `allOf` beside many properties (objects in prose) the same way.
    #[test]
    fn every_family_is_linear_and_precise() {
        use crate::schema::families::{LINEAR, PRODUCTS};
        for (name, family) in LINEAR.iter().chain(PRODUCTS) {
            let mut last = 0;
            for n in [250, 500, 1000] {
                let (doc, _) = family(n);
                let (out, work) = agent_schema_counted(&doc, "", false, &Limits::default()).unwrap();
                let nodes = compile_mapped(&doc, "", &Limits::default()).unwrap().0.nodes.len() as u64;
                assert!(work <= 64 + 12 * nodes, "{name}, n = {n}: {work} units for {nodes} subschemas");
                assert!(last == 0 || work <= 2 * last + 64, "{name}: {last} then {work} units as n doubles to {n}");
                last = work;
                assert_ne!(out, Some(weakest(&doc)), "{name}: the weakest schema");
            }
        }
    }

    /// Review s26: writing the schema spent a unit per JSON value, the budget being 64 per
    /// subschema: an `enum`, `const` or `default` of 100,000 values spent it, and the agent
    /// was shown the weakest schema for no reason of cost.
    #[test]
    fn large_values_in_a_schema_do_not_spend_its_budget() {
        let values: Vec<Value> = (0..100_000).map(|i| json!(format!("v{i}"))).collect();
        let s = json!({ "type": "object", "required": ["s", "k"], "properties": {
            "s": SECRET(), "k": { "enum": values, "default": values[0] }, "d": { "default": values } } });
        let out = agent(s).unwrap();
        assert_eq!(out["required"], json!(["k"]));
        assert_eq!(out["properties"]["k"]["enum"].as_array().map(Vec::len), Some(100_000));
    }

    /// Review s26: n references to a dynamic anchor with n candidates that each read something
    /// (`required`) are n distinct places of n subschemas: no memo avoids the product, so the
    /// budget bounds it at 64 units per subschema (it was 1024: seconds at 1 MB).
    #[test]
    fn a_product_of_dynamic_places_ends_within_the_budget() {
        let doc = |n: usize| {
            let mut defs = Map::new();
            let mut properties = Map::new();
            for i in 0..n {
                let r = json!({ "$id": format!("r{i}"), "$dynamicAnchor": "node", "required": [format!("q{i}")] });
                defs.insert(format!("r{i}"), r);
                properties.insert(format!("p{i}"), json!({ "$dynamicRef": "#node", "required": ["y"] }));
            }
            properties.insert("s".into(), SECRET());
            json!({ "$id": "https://e.com/root", "$dynamicAnchor": "node", "$defs": defs, "properties": properties })
        };
        for n in [2000, 4000] {
            let doc = doc(n);
            let (out, work) = agent_schema_counted(&doc, "", false, &Limits::default()).unwrap();
            let nodes = compile_mapped(&doc, "", &Limits::default()).unwrap().0.nodes.len() as u64;
            let budget = WORK_FLOOR + 64 * nodes;
            assert!(work <= budget + budget / 16, "n = {n}: {work} units for {nodes} subschemas");
            assert_eq!(out, Some(json!({ "type": "object" })));
        }
    }

    /// Review 1100: a reference into what the relaxation drops or renames (`if`, `not`,
    /// `oneOf`, by pointer, `$anchor` or `$id`), or `unevaluated*` reading what `if` evaluated,
    /// left a schema that refused views or did not compile. There the weakest schema is shown.
    #[test]
    fn a_rewrite_beside_references_or_unevaluated_keywords_shows_the_weakest_schema() {
        let s = SECRET();
        for doc in [
            json!({ "type": "object", "properties": { "s": s, "a": { "$ref": "#/if" } }, "if": { "type": "object" }, "then": {} }),
            json!({ "type": "object", "properties": { "s": s, "a": { "$ref": "#/not" } }, "not": { "type": "string" } }),
            json!({ "type": "object", "properties": { "s": s, "a": { "$ref": "#/oneOf/0" } }, "oneOf": [{ "type": "object" }, { "type": "array" }] }),
            json!({ "type": "object", "properties": { "s": s, "a": { "$ref": "#cond" } }, "if": { "$anchor": "cond", "type": "integer" }, "then": {} }),
            json!({ "type": "object", "properties": { "s": s }, "if": { "properties": { "kind": { "const": "a" } } }, "then": { "properties": { "extra": {} } }, "unevaluatedProperties": false }),
        ] {
            assert_eq!(
                agent_schema(&doc, "", false, &Limits::default()).unwrap(),
                Some(json!({ "type": "object" })),
                "{doc}"
            );
        }
        // Without a rewrite, references stay as they are.
        let plain = json!({ "type": "object", "properties": { "s": s, "a": { "$ref": "#/$defs/a" } }, "$defs": { "a": { "type": "integer" } } });
        assert_eq!(
            agent_schema(&plain, "", false, &Limits::default()).unwrap().unwrap()["properties"]["a"],
            json!({ "$ref": "#/$defs/a" })
        );
    }
}
