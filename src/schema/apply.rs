//! Which subschemas apply at an instance location, by the union rule: every subschema that
//! could apply counts, so a mark anywhere among them marks the value.
//!
//! [`Eval`] holds what one redaction has worked out, so that nothing is worked out twice:
//! - A *state* is a subschema and its dynamic context (which subschema each dynamic anchor
//!   stands for on the path evaluation took, for `$dynamicRef` / `$recursiveRef`); a *set* is an
//!   ordered list of states, interned. Schemas without dynamic references have one context.
//! - The closure of a set (everything that applies in place: `allOf`, `$ref`s, fitting branches,
//!   `dependentSchemas` whose key is present) is computed once per (set, kind of value).
//! - The subschemas of property `key` (or element `i`) under a closure are found once per
//!   (closure, key), by hash.
//!
//! Every step adds to a work count; past `Limits::max_work` evaluation stops with
//! [`Exhausted`] and the redaction fails closed (`work_limit`).

use std::rc::Rc;

use serde_json::Value;

use super::patterns::{Form, PatternIndex};
use super::{Kinds, NodeId, Schema};
use crate::hash::{IdMap, IdSet, TextMap};
use crate::{Error, Limits};

/// An interned set of states.
pub(crate) type SetId = u32;
/// A closure with what it says about a value.
pub(crate) type AppliedId = u32;

/// A subschema (high half) in a dynamic context (low half).
type State = u64;

fn state(node: NodeId, ctx: u32) -> State {
    ((node as u64) << 32) | u64::from(ctx)
}

fn node_of(s: State) -> NodeId {
    (s >> 32) as NodeId
}

fn ctx_of(s: State) -> u32 {
    s as u32
}

/// The work limit was reached.
#[derive(Debug)]
pub(crate) struct Exhausted;

/// Units of work spent, and the most allowed.
pub(crate) struct Budget {
    spent: u64,
    max: u64,
    /// The DFA states the evaluation's regexes built (`regex.rs`): work done once per
    /// evaluation, so kept where its count is.
    pub(super) regex: super::regex::Caches,
}

impl Budget {
    pub fn new(max: u64) -> Budget {
        Budget { spent: 0, max, regex: super::regex::Caches::default() }
    }

    pub fn spend(&mut self, units: u64) -> Result<(), Exhausted> {
        self.spent = self.spent.saturating_add(units);
        if self.spent > self.max {
            Err(Exhausted)
        } else {
            Ok(())
        }
    }

    pub fn spent(&self) -> u64 {
        self.spent
    }
}

/// What the subschemas that apply to one value say about it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Summary {
    /// Some applicable subschema carries `"x-sensitive"`.
    pub marked: bool,
    /// The value's type contradicts a subschema that has marks at or below it.
    pub mismatch: bool,
    /// The keys of this object are secret (`propertyNames` is marked).
    pub names_secret: bool,
    /// The best label the schema offers: a marked subschema's title, else any title.
    pub title: Option<NodeId>,
    /// The subschemas for the JSON inside this string (`contentSchema`), and whether it can be
    /// decoded as JSON.
    pub content: Option<(SetId, bool)>,
}

struct Applied {
    closure: SetId,
    summary: Summary,
    /// States of the closure with `dependentSchemas`, and the closure sorted to test membership.
    dependents: Option<(Vec<State>, Vec<State>)>,
}

/// The subschemas for the properties and elements of values under one closure.
#[derive(Default)]
struct Children {
    /// States of the closure with `properties`, `patternProperties` or `additionalProperties`.
    objects: Vec<State>,
    /// Every owner's properties by name, when there are many owners: (owner, subschema).
    merged: Option<TextMap<String, Vec<(u32, NodeId)>>>,
    /// Positions in `objects` of the owners with `properties`, `patternProperties`...
    with_properties: Vec<u32>,
    with_patterns: Vec<u32>,
    /// Every owner's patterns in one index, when there are many owners, and for each of its
    /// patterns (owner, order within the owner).
    merged_patterns: Option<(PatternIndex, Vec<(u32, u32)>)>,
    with_additional: Vec<u32>,
    by_key: TextMap<String, (SetId, bool)>,
    unmatched: Option<(SetId, bool)>,
    /// States of the closure with `prefixItems`, `items` or `contains`.
    arrays: Vec<State>,
    max_prefix: usize,
    by_index: IdMap<usize, (SetId, bool)>,
    rest: Option<(SetId, bool)>,
}

/// Above this many owners of properties, a closure's properties are merged into one table.
const MERGE_AT: usize = 8;

/// The memory of one redaction's walk over one schema, and its work count.
pub(crate) struct Eval {
    budget: Budget,
    max_depth: usize,
    failed: Option<Error>,
    sets: Vec<Rc<[State]>>,
    set_ids: IdMap<Rc<[State]>, SetId>,
    set_marks: Vec<Option<bool>>,
    ctxs: Vec<Rc<[(u32, NodeId)]>>,
    ctx_ids: IdMap<Rc<[(u32, NodeId)]>, u32>,
    entered: IdMap<(u32, u32), u32>,
    closures: IdMap<(SetId, u8), AppliedId>,
    /// A closure grown by the `dependentSchemas` an object triggers.
    grown: IdMap<(AppliedId, SetId), AppliedId>,
    applied: Vec<Applied>,
    children: IdMap<SetId, Children>,
    root: Option<SetId>,
    /// Scratch for pattern matches.
    scratch: Vec<u32>,
    /// Scratch for the states a closure has seen.
    seen: IdSet<State>,
    /// Many owners' patterns are matched through one index (off only to test it against
    /// matching owner by owner).
    merge: bool,
}

impl Eval {
    pub fn new(limits: &Limits) -> Eval {
        let empty: Rc<[(u32, NodeId)]> = Rc::from(Vec::new());
        Eval {
            budget: Budget::new(limits.max_work as u64),
            max_depth: limits.max_depth.min(Limits::DEPTH_CEILING),
            failed: None,
            sets: Vec::new(),
            set_ids: IdMap::default(),
            set_marks: Vec::new(),
            ctxs: vec![empty.clone()],
            ctx_ids: IdMap::from_iter([(empty, 0)]),
            entered: IdMap::default(),
            closures: IdMap::default(),
            grown: IdMap::default(),
            applied: Vec::new(),
            children: IdMap::default(),
            root: None,
            scratch: Vec::new(),
            seen: IdSet::default(),
            merge: true,
        }
    }

    /// Matches every owner's patterns by its own index, as before one index served many owners.
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn without_merged_patterns(mut self) -> Eval {
        self.merge = false;
        self
    }

    /// Counts work done on behalf of the walk (parsing a string's JSON content).
    pub fn spend(&mut self, units: u64) -> Result<(), Exhausted> {
        self.budget.spend(units)
    }

    /// Units of work spent so far.
    #[cfg(test)]
    pub fn work(&self) -> u64 {
        self.budget.spent()
    }

    pub fn max_work(&self) -> u64 {
        self.budget.max
    }

    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// Records the first error; the redaction then fails with it.
    pub fn fail(&mut self, e: Error) {
        self.failed.get_or_insert(e);
    }

    pub fn has_failed(&self) -> bool {
        self.failed.is_some()
    }

    pub fn take_error(&mut self) -> Option<Error> {
        self.failed.take()
    }

    /// The set that applies to the whole value.
    pub fn root(&mut self, schema: &Schema) -> Result<SetId, Exhausted> {
        if let Some(r) = self.root {
            return Ok(r);
        }
        let ctx = self.enter(schema, 0, schema.nodes[schema.root].resource)?;
        let r = self.intern(vec![state(schema.root, ctx)])?;
        self.root = Some(r);
        Ok(r)
    }

    pub fn is_empty(&self, set: SetId) -> bool {
        self.sets[set as usize].is_empty()
    }

    /// Could any subschema of `set`, or anything below it, mark a value?
    pub fn any_marks(&mut self, schema: &Schema, set: SetId) -> Result<bool, Exhausted> {
        if let Some(known) = self.set_marks[set as usize] {
            return Ok(known);
        }
        let states = &self.sets[set as usize];
        let any = states.iter().any(|&s| schema.reaches_mark[node_of(s)]);
        self.budget.spend(states.len() as u64)?;
        self.set_marks[set as usize] = Some(any);
        Ok(any)
    }

    fn intern(&mut self, states: Vec<State>) -> Result<SetId, Exhausted> {
        self.budget.spend(1 + states.len() as u64)?;
        if let Some(&id) = self.set_ids.get(states.as_slice()) {
            return Ok(id);
        }
        let id = self.sets.len() as SetId;
        let states: Rc<[State]> = Rc::from(states);
        self.sets.push(states.clone());
        self.set_ids.insert(states, id);
        self.set_marks.push(None);
        Ok(id)
    }

    /// The context after entering schema resource `resource` from context `ctx`: each dynamic
    /// anchor keeps the subschema of the outermost resource that declared it.
    fn enter(&mut self, schema: &Schema, ctx: u32, resource: u32) -> Result<u32, Exhausted> {
        let declared = &schema.anchors[resource as usize];
        if declared.is_empty() {
            return Ok(ctx);
        }
        if let Some(&c) = self.entered.get(&(ctx, resource)) {
            return Ok(c);
        }
        let current = &self.ctxs[ctx as usize];
        let mut next: Vec<(u32, NodeId)> = current.to_vec();
        for &(name, node) in declared {
            if current.binary_search_by_key(&name, |&(n, _)| n).is_err() {
                next.push((name, node));
            }
        }
        crate::sort::sort(&mut next);
        self.budget.spend((next.len() + declared.len()) as u64)?;
        let c = match self.ctx_ids.get(next.as_slice()) {
            Some(&c) => c,
            None => {
                let c = self.ctxs.len() as u32;
                let next: Rc<[(u32, NodeId)]> = Rc::from(next);
                self.ctxs.push(next.clone());
                self.ctx_ids.insert(next, c);
                c
            }
        };
        self.entered.insert((ctx, resource), c);
        Ok(c)
    }

    /// The state for subschema `to`, reached from state `from`.
    fn step(&mut self, schema: &Schema, from: State, to: NodeId) -> Result<State, Exhausted> {
        let ctx = ctx_of(from);
        let resource = schema.nodes[to].resource;
        if resource == schema.nodes[node_of(from)].resource {
            return Ok(state(to, ctx));
        }
        Ok(state(to, self.enter(schema, ctx, resource)?))
    }

    /// What applies to a value of `kind` when the subschemas of `start` do, for a reader that
    /// has not seen the value's keys yet (the streaming engine): `None` for an object when some
    /// subschema has `dependentSchemas`, which depend on them ([`Eval::apply`] reads them).
    /// The same work as `apply` otherwise, step for step.
    pub fn apply_kind(
        &mut self,
        schema: &Schema,
        start: SetId,
        kind: u8,
    ) -> Result<Option<(AppliedId, Summary)>, Exhausted> {
        let a = self.closure(schema, start, kind)?;
        let applied = &self.applied[a as usize];
        if Kinds::is_object(kind) && applied.dependents.is_some() {
            return Ok(None);
        }
        Ok(Some((a, applied.summary)))
    }

    /// Everything that applies to `value` when the subschemas of `start` do, and what it says.
    pub fn apply(&mut self, schema: &Schema, start: SetId, value: &Value) -> Result<(AppliedId, Summary), Exhausted> {
        let kind = Kinds::of(value);
        let mut a = self.closure(schema, start, kind)?;
        // `dependentSchemas` whose key is present join in, and what they apply, until none is new.
        while let Value::Object(obj) = value {
            let Some((owners, _)) = &self.applied[a as usize].dependents else { break };
            let mut found: Vec<(State, NodeId)> = Vec::new();
            let mut spent = 0;
            for &owner in owners {
                let node = &schema.nodes[node_of(owner)];
                let mut present: Vec<usize> = Vec::new();
                if node.dependent.len() <= obj.len() {
                    present.extend((0..node.dependent.len()).filter(|&i| obj.contains_key(&node.dependent[i].0)));
                } else {
                    present.extend(obj.keys().filter_map(|k| node.dependent_index.get(k)).flatten());
                    crate::sort::sort(&mut present);
                }
                spent += 1 + node.dependent.len().min(obj.len()) + present.len();
                found.extend(present.into_iter().map(|i| (owner, node.dependent[i].1)));
            }
            let mut extra = Vec::with_capacity(found.len());
            for (owner, target) in found {
                extra.push(self.step(schema, owner, target)?);
            }
            let Some((_, sorted)) = &self.applied[a as usize].dependents else { break };
            let mut fresh = Vec::with_capacity(extra.len());
            let mut seen = IdSet::default();
            for t in extra {
                if sorted.binary_search(&t).is_err() && seen.insert(t) {
                    fresh.push(t);
                }
            }
            self.budget.spend(spent as u64)?;
            if fresh.is_empty() {
                break;
            }
            let fresh = self.intern(fresh)?;
            a = match self.grown.get(&(a, fresh)) {
                Some(&g) => g,
                None => {
                    let closure = self.applied[a as usize].closure;
                    let mut all = self.sets[closure as usize].to_vec();
                    all.extend(self.sets[fresh as usize].iter());
                    let all = self.intern(all)?;
                    let g = self.closure(schema, all, kind)?;
                    self.grown.insert((a, fresh), g);
                    g
                }
            };
        }
        Ok((a, self.applied[a as usize].summary))
    }

    /// The closure of `start` for a value of `kind`: depth first, in document order, each state
    /// once. `dependentSchemas` are collected, not followed (they depend on the keys).
    fn closure(&mut self, schema: &Schema, start: SetId, kind: u8) -> Result<AppliedId, Exhausted> {
        if let Some(&a) = self.closures.get(&(start, kind)) {
            return Ok(a);
        }
        let mut order: Vec<State> = Vec::new();
        // Kept between closures: its table, grown once, is reused (see below).
        let mut seen = std::mem::take(&mut self.seen);
        seen.clear();
        let mut stack: Vec<State> = self.sets[start as usize].iter().rev().copied().collect();
        let mut dependents: Vec<State> = Vec::new();
        let mut next: Vec<NodeId> = Vec::new();
        let mut content: Vec<State> = Vec::new();
        let mut content_json = true;
        while let Some(s) = stack.pop() {
            if !seen.insert(s) {
                continue;
            }
            order.push(s);
            let node = &schema.nodes[node_of(s)];
            next.clear();
            // Members and targets that do nothing are not visited (see `Schema::inert`).
            next.extend(node.all_of.iter().chain(&node.refs).filter(|&&m| !schema.inert[m]));
            for d in &node.dynamic {
                let bound = &self.ctxs[ctx_of(s) as usize];
                let target = match bound.binary_search_by_key(&d.name, |&(n, _)| n) {
                    Ok(i) => bound[i].1,
                    Err(_) => d.fallback,
                };
                next.push(target);
            }
            let fitting = node.alternatives.iter().filter(|&&a| schema.fit[a] & kind != 0);
            let fits = fitting.clone().count();
            // No branch fits: keep them all, so that a marked branch still reports a mismatch.
            if fits == 0 {
                next.extend(&node.alternatives);
            } else {
                next.extend(fitting);
            }
            self.budget.spend(1 + (next.len() + node.alternatives.len()) as u64)?;
            if !node.dependent.is_empty() {
                dependents.push(s);
            }
            for &c in &node.content {
                content.push(self.step(schema, s, c)?);
                content_json &= node.content_json;
            }
            for i in (0..next.len()).rev() {
                let t = self.step(schema, s, next[i])?;
                if !seen.contains(&t) {
                    stack.push(t);
                }
            }
        }
        // Clearing the table costs its capacity: it is kept only when that is about the size of
        // this closure (counted), never for one much smaller after a large one.
        if seen.capacity() <= 4 * order.len() + 64 {
            self.seen = seen;
        }
        let summary = self.summarise(schema, &order, kind, content, content_json)?;
        let dependents = if dependents.is_empty() {
            None
        } else {
            let mut sorted = order.clone();
            crate::sort::sort(&mut sorted);
            Some((dependents, sorted))
        };
        let closure = self.intern(order)?;
        let a = self.applied.len() as AppliedId;
        self.applied.push(Applied { closure, summary, dependents });
        self.closures.insert((start, kind), a);
        Ok(a)
    }

    fn summarise(
        &mut self,
        schema: &Schema,
        order: &[State],
        kind: u8,
        content: Vec<State>,
        content_json: bool,
    ) -> Result<Summary, Exhausted> {
        let nodes = || order.iter().map(|&s| node_of(s));
        let marked = nodes().any(|n| schema.nodes[n].mark);
        let mismatch = kind != Kinds::of(&Value::Null)
            && nodes().any(|n| schema.reaches_mark[n] && schema.nodes[n].kinds.is_some_and(|k| k.mask() & kind == 0));
        let names_secret = Kinds::is_object(kind) && nodes().any(|n| schema.names_marked[n]);
        let titled = |n: &NodeId| schema.nodes[*n].title.is_some();
        let title = nodes().filter(|&n| schema.nodes[n].mark).find(titled).or_else(|| nodes().find(titled));
        let content = if content.is_empty() { None } else { Some((self.intern(content)?, content_json)) };
        Ok(Summary { marked, mismatch, names_secret, title, content })
    }

    fn children(&mut self, schema: &Schema, a: AppliedId) -> Result<SetId, Exhausted> {
        let closure = self.applied[a as usize].closure;
        if self.children.contains_key(&closure) {
            return Ok(closure);
        }
        let states = self.sets[closure as usize].clone();
        self.budget.spend(states.len() as u64)?;
        let mut c = Children::default();
        for &s in states.iter() {
            let node = &schema.nodes[node_of(s)];
            if node.has_object_children() {
                let pos = c.objects.len() as u32;
                c.objects.push(s);
                if !node.properties.is_empty() {
                    c.with_properties.push(pos);
                }
                if !node.patterns.is_empty() {
                    c.with_patterns.push(pos);
                }
                if !node.additional.is_empty() {
                    c.with_additional.push(pos);
                }
            }
            if node.has_array_children() {
                c.arrays.push(s);
                c.max_prefix = c.max_prefix.max(node.prefix_items.len());
            }
        }
        if c.with_properties.len() > MERGE_AT {
            let mut merged: TextMap<String, Vec<(u32, NodeId)>> = TextMap::default();
            for (pos, &s) in c.objects.iter().enumerate() {
                let properties = &schema.nodes[node_of(s)].properties;
                self.budget.spend(properties.len() as u64)?;
                for (name, &child) in properties {
                    merged.entry(name.clone()).or_default().push((pos as u32, child));
                }
            }
            c.merged = Some(merged);
        }
        if c.with_patterns.len() > MERGE_AT && self.merge {
            c.merged_patterns = Some(self.merge_patterns(schema, &c)?);
        }
        self.children.insert(closure, c);
        Ok(closure)
    }

    /// One index over the patterns of every owner in `c`: a key is then matched once, not once
    /// per owner. Building it costs what compiling the owners' own indexes did.
    fn merge_patterns(&mut self, schema: &Schema, c: &Children) -> Result<(PatternIndex, Vec<(u32, u32)>), Exhausted> {
        let mut forms = Vec::new();
        let mut origin = Vec::new();
        for &pos in &c.with_patterns {
            let node = &schema.nodes[node_of(c.objects[pos as usize])];
            for (i, form) in node.pattern_forms.iter().enumerate() {
                let size = match form {
                    Form::Literals(literals) => literals.iter().map(|l| 1 + l.text.len()).sum(),
                    Form::Regex(_, literal) => 1 + literal.text.len(),
                };
                self.budget.spend(1 + size as u64)?;
                forms.push(form.clone());
                origin.push((pos, i as u32));
            }
        }
        Ok((PatternIndex::new(&forms), origin))
    }

    /// The subschemas for property `key` of an object under `a`, and whether they declare it
    /// (named by a property, or matched by a pattern or covered by `additionalProperties` with
    /// a subschema that constrains something: what allowlist mode lets through).
    pub fn property(&mut self, schema: &Schema, a: AppliedId, key: &str) -> Result<(SetId, bool), Exhausted> {
        let closure = self.children(schema, a)?;
        let table = &self.children[&closure];
        if let Some(&known) = table.by_key.get(key) {
            return Ok(known);
        }
        // (owner, order within the owner, subschema, declares): sorted, the owners' own order.
        let mut hits: Vec<(u32, u32, NodeId, bool)> = Vec::new();
        let declares = |pos: u32, n: NodeId| schema.declares(node_of(table.objects[pos as usize]), n);
        // A pattern, like `additionalProperties`, names no one property: its subschema must
        // constrain something (`patternProperties: {"": true}` declares nothing).
        let describes = |pos: u32, n: NodeId| schema.describes_from(node_of(table.objects[pos as usize]), n);
        match &table.merged {
            Some(merged) => {
                if let Some(found) = merged.get(key) {
                    hits.extend(found.iter().map(|&(pos, n)| (pos, 0, n, declares(pos, n))));
                }
            }
            None => {
                for &pos in &table.with_properties {
                    if let Some(&n) = schema.nodes[node_of(table.objects[pos as usize])].properties.get(key) {
                        hits.push((pos, 0, n, declares(pos, n)));
                    }
                }
            }
        }
        let mut spent =
            1 + hits.len() as u64 + if table.merged.is_some() { 0 } else { table.with_properties.len() as u64 };
        let mut matches = std::mem::take(&mut self.scratch);
        if let Some((index, origin)) = &table.merged_patterns {
            matches.clear();
            index.matches(key, &schema.programs, &mut self.budget, &mut matches)?;
            hits.extend(matches.iter().map(|&m| {
                let (pos, i) = origin[m as usize];
                let n = schema.nodes[node_of(table.objects[pos as usize])].patterns[i as usize];
                (pos, 1 + i, n, describes(pos, n))
            }));
        }
        let owners = if table.merged_patterns.is_some() { &[][..] } else { &table.with_patterns[..] };
        for &pos in owners {
            let node = &schema.nodes[node_of(table.objects[pos as usize])];
            let Some(index) = &node.pattern_index else { continue };
            matches.clear();
            index.matches(key, &schema.programs, &mut self.budget, &mut matches)?;
            hits.extend(
                matches
                    .iter()
                    .map(|&i| (pos, 1 + i, node.patterns[i as usize], describes(pos, node.patterns[i as usize]))),
            );
        }
        self.scratch = matches;
        spent += owners.len() as u64;
        let result = if hits.is_empty() {
            self.budget.spend(spent)?;
            return self.unmatched(schema, closure, key);
        } else {
            let mut matched: Vec<u32> = hits.iter().map(|h| h.0).collect();
            crate::sort::sort(&mut matched);
            matched.dedup();
            for &pos in &table.with_additional {
                if matched.binary_search(&pos).is_err() {
                    let node = &schema.nodes[node_of(table.objects[pos as usize])];
                    let owner = node_of(table.objects[pos as usize]);
                    hits.extend(node.additional.iter().map(|&n| (pos, u32::MAX, n, schema.describes_from(owner, n))));
                }
            }
            spent += (table.with_additional.len() + hits.len()) as u64;
            crate::sort::sort_by_key_stable(&mut hits, |h| (h.0, h.1));
            let owners: Vec<State> = hits.iter().map(|h| table.objects[h.0 as usize]).collect();
            self.budget.spend(spent)?;
            self.child_set(schema, &owners, &hits)?
        };
        if let Some(t) = self.children.get_mut(&closure) {
            t.by_key.insert(key.to_string(), result);
        }
        Ok(result)
    }

    /// A property no owner names or matches: every owner's `additionalProperties`.
    fn unmatched(&mut self, schema: &Schema, closure: SetId, key: &str) -> Result<(SetId, bool), Exhausted> {
        let table = &self.children[&closure];
        let result = match table.unmatched {
            Some(r) => r,
            None => {
                let mut hits = Vec::new();
                for &pos in &table.with_additional {
                    let node = &schema.nodes[node_of(table.objects[pos as usize])];
                    let owner = node_of(table.objects[pos as usize]);
                    hits.extend(node.additional.iter().map(|&n| (pos, u32::MAX, n, schema.describes_from(owner, n))));
                }
                let owners: Vec<State> = hits.iter().map(|h| table.objects[h.0 as usize]).collect();
                let r = self.child_set(schema, &owners, &hits)?;
                if let Some(t) = self.children.get_mut(&closure) {
                    t.unmatched = Some(r);
                }
                r
            }
        };
        // Remembered by key too, so that a repeated key costs one look-up.
        if let Some(t) = self.children.get_mut(&closure) {
            t.by_key.insert(key.to_string(), result);
        }
        Ok(result)
    }

    fn child_set(
        &mut self,
        schema: &Schema,
        owners: &[State],
        hits: &[(u32, u32, NodeId, bool)],
    ) -> Result<(SetId, bool), Exhausted> {
        let mut states = Vec::with_capacity(hits.len());
        let mut seen = IdSet::default();
        let mut declared = false;
        for (&owner, &(_, _, n, declares)) in owners.iter().zip(hits) {
            let s = self.step(schema, owner, n)?;
            // Most keys have a subschema or two: those are compared, a table only past a few.
            let new = if hits.len() <= 8 { !states.contains(&s) } else { seen.insert(s) };
            if new {
                states.push(s);
            }
            declared |= declares;
        }
        Ok((self.intern(states)?, declared))
    }

    /// The subschemas for element `index` of an array under `a`, and whether they declare it.
    pub fn item(&mut self, schema: &Schema, a: AppliedId, index: usize) -> Result<(SetId, bool), Exhausted> {
        let closure = self.children(schema, a)?;
        let table = &self.children[&closure];
        let rest = index >= table.max_prefix;
        let known = if rest { table.rest } else { table.by_index.get(&index).copied() };
        if let Some(known) = known {
            return Ok(known);
        }
        let mut hits: Vec<(u32, u32, NodeId, bool)> = Vec::new();
        let mut owners = Vec::new();
        for &s in &table.arrays {
            let node = &schema.nodes[node_of(s)];
            let before = hits.len();
            match node.prefix_items.get(index) {
                // A position names no member either: `prefixItems: [true]` declares nothing.
                Some(&c) => hits.push((0, 0, c, schema.describes_from(node_of(s), c))),
                None => hits.extend(node.items.iter().map(|&c| (0, 0, c, schema.describes_from(node_of(s), c)))),
            }
            hits.extend(node.contains.iter().map(|&c| (0, 0, c, false)));
            owners.extend(std::iter::repeat(s).take(hits.len() - before));
        }
        self.budget.spend((1 + table.arrays.len() + hits.len()) as u64)?;
        let result = self.child_set(schema, &owners, &hits)?;
        if let Some(t) = self.children.get_mut(&closure) {
            if rest {
                t.rest = Some(result);
            } else {
                t.by_index.insert(index, result);
            }
        }
        Ok(result)
    }
}
