//! Which subschemas constrain nothing about a value: in allowlist mode (README rule 4) such a
//! subschema declares nothing wherever it covers what no name singles out (`additionalProperties`,
//! `patternProperties`, `items`, `prefixItems`), however it is spelt: `true`, `{}`, a schema of
//! annotations or unknown keywords, `not` (it only rules values out), an `anyOf` or `oneOf` with
//! such a branch (a `oneOf` with one still constrains, `oneOf: [true, {type: string}]` refuses
//! strings, but describes nothing a value is: counted as nothing, failing closed), `allOf`,
//! `$ref`s, `then`/`else` or applicators (`properties`, `items`...) whose every subschema is such
//! a schema, or one that refers to itself that way (`{properties: {next: {$ref: "#"}}}`).
//!
//! A subschema constrains a value when it asserts something itself (`type`, `enum`, `required`,
//! `contains`..., or a mark), or something it always applies does, or every branch of one of its
//! `anyOf`/`oneOf` lists does, or every subschema a dynamic reference may stand for does. That is
//! a least fixed point over the node graph, worked out backwards from the asserting nodes, each
//! edge once; what it never reaches constrains nothing.

use super::{Node, NodeId};
use crate::hash::IdMap;

/// An edge that makes its parent constrain as soon as its child does.
const ALWAYS: usize = usize::MAX;

/// Sets [`Node::trivial`] on every node. `candidates`: every subschema each dynamic anchor name
/// may stand for. Returns the units of work it took (one per edge and node).
pub(super) fn settle(nodes: &mut [Node], candidates: &IdMap<u32, Vec<NodeId>>) -> u64 {
    // Each dynamic anchor name's candidates are one group, of a hub past the nodes (see
    // `compile::Graph`): a dynamic reference's group is its fallback and that hub, so the
    // edges are as many as the references plus the candidates, not their product.
    let hubs = super::compile::Hubs::new(candidates, nodes.len());
    let total = nodes.len() + hubs.lists.len();
    // (parent, ALWAYS or the group of alternatives the edge belongs to), by child.
    let mut parents: Vec<Vec<(NodeId, usize)>> = vec![Vec::new(); total];
    // How many members of each group do not constrain yet.
    let mut open: Vec<usize> = Vec::new();
    let mut edges = 0;
    for (p, node) in nodes.iter().enumerate() {
        for c in always(node) {
            parents[c].push((p, ALWAYS));
            edges += 1;
        }
    }
    // Each node's groups of alternatives (its choices, its dynamic references'), then the hubs'.
    let of_nodes = nodes.iter().enumerate().flat_map(|(p, node)| {
        let dynamic = node.dynamic.iter().map(|d| std::iter::once(d.fallback).chain(hubs.of(d.name)).collect());
        node.choices.iter().cloned().chain(dynamic).map(move |group: Vec<NodeId>| (p, group))
    });
    let of_hubs = hubs.lists.iter().enumerate().map(|(h, list)| (nodes.len() + h, list.to_vec()));
    for (p, group) in of_nodes.chain(of_hubs) {
        let g = open.len();
        open.push(group.len());
        edges += group.len();
        for c in group {
            parents[c].push((p, g));
        }
    }
    let mut constrains: Vec<bool> =
        (0..total).map(|n| nodes.get(n).is_some_and(|n| n.asserts || n.mark || n.never)).collect();
    let mut queue: Vec<NodeId> = (0..total).filter(|&n| constrains[n]).collect();
    while let Some(c) = queue.pop() {
        for &(p, g) in &parents[c] {
            if constrains[p] {
                continue;
            }
            let now = g == ALWAYS || {
                open[g] -= 1;
                open[g] == 0
            };
            if now {
                constrains[p] = true;
                queue.push(p);
            }
        }
    }
    for (node, c) in nodes.iter_mut().zip(constrains) {
        node.trivial = !c;
    }
    (edges + total) as u64
}

/// The subschemas that apply whenever the node does, at the value or below it (an `if` only
/// tests; `anyOf`/`oneOf` are groups; dynamic references are resolved among candidates).
fn always(node: &Node) -> impl Iterator<Item = NodeId> + '_ {
    let below = node.properties.values().chain(&node.patterns).chain(&node.additional).chain(&node.property_names);
    let items = node.prefix_items.iter().chain(&node.items).chain(&node.content);
    let here = node.all_of.iter().chain(&node.refs).chain(node.dependent.iter().map(|(_, m)| m)).chain(&node.outcomes);
    below.chain(items).chain(here).copied()
}

#[cfg(test)]
mod tests {
    use crate::schema::compile;
    use crate::Limits;
    use serde_json::{json, Value};

    fn trivial(schema: Value) -> bool {
        let doc = json!({ "properties": { "x": schema }, "$defs": { "t": {}, "s": { "type": "string" } } });
        let compiled = compile(&doc, "", &Limits::default()).unwrap();
        let root = &compiled.nodes[compiled.root];
        compiled.nodes[root.properties["x"]].trivial
    }

    #[test]
    fn what_constrains_nothing_is_trivial_however_it_is_spelt() {
        for s in [
            json!(true),
            json!({}),
            json!({ "title": "t", "x-vendor": { "type": "string" }, "x-sensitive": false }),
            json!({ "not": false }),
            json!({ "not": { "type": "null" } }),
            json!({ "anyOf": [true, { "type": "string" }] }),
            json!({ "oneOf": [{ "type": "string" }, { "$ref": "#/$defs/t" }] }),
            json!({ "allOf": [{}, { "not": false }] }),
            json!({ "$ref": "#/$defs/t" }),
            json!({ "if": { "type": "string" }, "then": true }),
            json!({ "properties": { "a": true }, "patternProperties": { "": {} }, "items": [{}], "additionalItems": {} }),
            json!({ "additionalProperties": true, "propertyNames": {}, "dependentSchemas": { "a": {} } }),
            json!({ "$defs": { "r": { "properties": { "next": { "$ref": "#/properties/x/$defs/r" } } } }, "$ref": "#/properties/x/$defs/r" }),
            // Assertions that hold for every value.
            json!({ "required": [], "minLength": 0, "minItems": 0, "minProperties": 0, "pattern": "" }),
            json!({ "type": ["string", "integer", "number", "boolean", "null", "array", "object"] }),
            json!({ "uniqueItems": false, "minContains": 0, "dependencies": { "a": [] } }),
        ] {
            assert!(trivial(s.clone()), "{s}");
        }
    }

    #[test]
    fn what_asserts_anything_constrains() {
        for s in [
            json!(false),
            json!({ "type": "string" }),
            json!({ "x-sensitive": true }),
            json!({ "required": ["a"] }),
            json!({ "contains": true }),
            json!({ "minimum": 0 }),
            json!({ "type": ["string", "integer", "boolean", "null", "array", "object"] }),
            json!({ "anyOf": [{ "type": "string" }, { "$ref": "#/$defs/s" }] }),
            json!({ "allOf": [true, { "enum": [1] }] }),
            json!({ "if": true, "else": { "const": 1 } }),
            json!({ "properties": { "a": { "minLength": 1 } } }),
            json!({ "items": { "format": "email" } }),
            json!({ "dependencies": { "a": ["b"] } }),
        ] {
            assert!(!trivial(s.clone()), "{s}");
        }
    }

    /// A `min*` bound holds always only when its digits say zero: `1e-400` has no f64 but 0
    /// (review s32 found `holds_always` reading it so: `minLength: 1e-400` counted as no
    /// assertion, which an empty string does not meet).
    #[test]
    fn a_bound_past_f64_is_not_zero() {
        for (text, holds) in
            [("0", true), ("-0", true), ("0.000e5", true), ("0E-400", true), ("1e-400", false), ("-1e-400", false)]
        {
            for word in ["minLength", "minItems", "minProperties", "minContains"] {
                let s: Value = serde_json::from_str(&format!(r#"{{ "{word}": {text} }}"#)).unwrap();
                assert_eq!(trivial(s), holds, "{word}: {text}");
            }
        }
    }
}
