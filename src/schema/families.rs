//! Adversarial (schema, result) families whose cost used to grow faster than their size. Each
//! takes a scale `n` and grows linearly in it. Shared by the work-count tests
//! (`src/redact/walk.rs`) and the benchmark (`examples/worst_cases.rs`, which includes this file),
//! so it uses nothing but serde_json.

use serde_json::{json, Map, Value};

/// One family: its name, and (schema, result) at scale `n`.
pub type Family = (&'static str, fn(usize) -> (Value, Value));

/// Every family the work limit must keep linear.
pub const LINEAR: &[Family] = &[
    ("bounded-repetition pattern over many keys", bounded_repetition),
    ("many general regexes times many keys", regex_patterns),
    ("many literal patternProperties times many keys", literal_patterns),
    ("wide anyOf fan-out over many items", fan_out),
    ("one very wide anyOf", wide_any_of),
    ("many declared properties times many keys", many_properties),
    ("many dependentSchemas times many objects", many_dependents),
    ("dynamic-ref tree, wide", dynamic_tree),
    ("JSON in strings (contentSchema)", content_strings),
    ("many pattern owners times many keys", pattern_owners),
    ("many dynamic anchors times many dynamic references", dynamic_anchors),
    ("many dynamic anchor names in one resource", dynamic_names),
    ("many JSON objects in a text times a large schema", objects_in_prose),
    ("escapes of every kind nested in one string", nested_escapes),
];

/// Families whose work is a product of two sizes (no index or memo avoids it): the work limit
/// bounds them. At about 1 MB each ends with `work_limit`.
pub const PRODUCTS: &[Family] = &[
    ("many unprefixed regexes times many keys", unprefixed_regexes),
    ("wide anyOf grown by a distinct dependentSchemas per item", grown_closures),
];

/// `n` object branches of an `anyOf`, each with its own pattern, times `n` distinct keys: the
/// owners' patterns are matched through one index (`Eval`), once per key.
pub fn pattern_owners(n: usize) -> (Value, Value) {
    let any_of: Vec<Value> = (0..n)
        .map(|i| json!({ "type": "object", "patternProperties": { format!("^o{i}_"): { "x-sensitive": true } } }))
        .collect();
    let mut raw = Map::new();
    for i in 0..n {
        raw.insert(format!("o{i}_k"), json!(i));
    }
    (json!({ "anyOf": any_of }), Value::Object(raw))
}

/// `n` items under an `anyOf` of `n` branches, each item naming its own `dependentSchemas` key:
/// every item's closure differs, and each holds the `n` branches.
pub fn grown_closures(n: usize) -> (Value, Value) {
    let any_of: Vec<Value> = (0..n).map(|i| json!({ "type": "object", "title": format!("b{i}") })).collect();
    let mut dependents = Map::new();
    for i in 0..n {
        dependents.insert(format!("d{i}"), json!({ "properties": { "s": { "x-sensitive": true } } }));
    }
    let items: Vec<Value> = (0..n).map(|i| json!({ format!("d{i}"): 1, "s": "x" })).collect();
    (json!({ "type": "array", "items": { "anyOf": any_of, "dependentSchemas": dependents } }), Value::Array(items))
}

/// `^(?:a{1,30}){1,30}[0-9]*$` (a program of about 4,500 states) over `n` keys, half of
/// which almost match.
pub fn bounded_repetition(n: usize) -> (Value, Value) {
    let schema = json!({
        "type": "object",
        "patternProperties": { "^(?:a{1,30}){1,30}[0-9]*$": { "x-sensitive": true } }
    });
    let mut raw = Map::new();
    for i in 0..n {
        let almost = if i % 2 == 0 { "" } else { "b" };
        raw.insert(format!("{}{almost}{i}", "a".repeat(24)), json!(i));
    }
    (schema, Value::Object(raw))
}

/// `n` literal patterns (prefixes, suffixes, substrings, exact names), `n` keys.
pub fn literal_patterns(n: usize) -> (Value, Value) {
    let mut patterns = Map::new();
    let mut raw = Map::new();
    for i in 0..n {
        let (pattern, key) = match i % 4 {
            0 => (format!("^k{i}_"), format!("k{i}_v")),
            1 => (format!("_s{i}$"), format!("v_s{i}")),
            2 => (format!("-t{i}-"), format!("x-t{i}-x")),
            _ => (format!("^(?:id|key){i}$"), format!("key{i}")),
        };
        patterns.insert(pattern, json!({ "x-sensitive": i % 2 == 0 }));
        raw.insert(key, json!(format!("value {i}")));
        raw.insert(format!("plain{i}"), json!(i));
    }
    (json!({ "type": "object", "patternProperties": patterns }), Value::Object(raw))
}

/// `n` general regexes times `n` keys. Each starts with its own literal (`^k12`), so the
/// index of required prefixes runs only the few whose prefix a key starts with.
pub fn regex_patterns(n: usize) -> (Value, Value) {
    let mut patterns = Map::new();
    let mut raw = Map::new();
    for i in 0..n {
        patterns.insert(format!("^k{i}[a-z]*$"), json!({ "x-sensitive": true }));
        raw.insert(format!("k{i}abc"), json!(i));
    }
    (json!({ "type": "object", "patternProperties": patterns }), Value::Object(raw))
}

/// `n` general regexes that start with a class (`^[kK]12[a-z]*$`), so no literal prefix
/// indexes them, times `n` keys: each key runs every regex.
pub fn unprefixed_regexes(n: usize) -> (Value, Value) {
    let mut patterns = Map::new();
    let mut raw = Map::new();
    for i in 0..n {
        patterns.insert(format!("^[kK]{i}[a-z]*$"), json!({ "x-sensitive": true }));
        raw.insert(format!("k{i}abc"), json!(i));
    }
    (json!({ "type": "object", "patternProperties": patterns }), Value::Object(raw))
}

/// An array of `n` objects under `items: { anyOf: [n / 4 object branches] }`, each item with
/// its own key.
pub fn fan_out(n: usize) -> (Value, Value) {
    let branches = (n / 4).max(1);
    let any_of: Vec<Value> = (0..branches)
        .map(|b| json!({ "type": "object", "properties": { format!("f{b}"): { "x-sensitive": b % 3 == 0 }, "id": { "type": "integer" } } }))
        .collect();
    let items: Vec<Value> =
        (0..n).map(|i| json!({ "id": i, format!("f{}", i % branches): "v", format!("u{i}"): i })).collect();
    (json!({ "type": "array", "items": { "anyOf": any_of } }), Value::Array(items))
}

/// One `anyOf` of `n` branches of every type, applied to `n` elements of every type.
pub fn wide_any_of(n: usize) -> (Value, Value) {
    let any_of: Vec<Value> = (0..n)
        .map(|i| match i % 4 {
            0 => json!({ "type": "string", "title": format!("s{i}") }),
            1 => json!({ "type": "integer" }),
            2 => json!({ "type": "object", "properties": { "secret": { "x-sensitive": i % 8 == 2 } } }),
            _ => json!({ "allOf": [{ "type": ["array", "null"] }, { "items": { "type": "string" } }] }),
        })
        .collect();
    let items: Vec<Value> = (0..n)
        .map(|i| match i % 3 {
            0 => json!(format!("text {i}")),
            1 => json!(i),
            _ => json!({ "secret": format!("s{i}"), "other": i }),
        })
        .collect();
    (
        json!({ "type": "object", "properties": { "list": { "type": "array", "items": { "anyOf": any_of } } } }),
        json!({ "list": items }),
    )
}

/// `n` declared properties, an object with `n` keys.
pub fn many_properties(n: usize) -> (Value, Value) {
    let mut properties = Map::new();
    let mut raw = Map::new();
    for i in 0..n {
        properties.insert(format!("p{i}"), json!({ "type": "string", "x-sensitive": i % 3 == 0 }));
        raw.insert(format!("p{i}"), json!(format!("v{i}")));
    }
    (json!({ "type": "object", "properties": properties }), Value::Object(raw))
}

/// `n` `dependentSchemas`, `n` objects each holding one of their keys.
pub fn many_dependents(n: usize) -> (Value, Value) {
    let mut dependents = Map::new();
    for i in 0..n {
        dependents.insert(format!("d{i}"), json!({ "properties": { format!("s{i}"): { "x-sensitive": true } } }));
    }
    let items: Vec<Value> = (0..n).map(|i| json!({ format!("d{i}"): 1, format!("s{i}"): "x", "k": i })).collect();
    (json!({ "type": "array", "items": { "type": "object", "dependentSchemas": dependents } }), Value::Array(items))
}

/// The 2020-12 "extend a recursive schema" pattern, with a tree of `n` nodes three levels deep.
pub fn dynamic_tree(n: usize) -> (Value, Value) {
    let schema = json!({
        "$id": "https://example.com/strict-tree",
        "$dynamicAnchor": "node",
        "$ref": "tree",
        "properties": { "secret": { "x-sensitive": true } },
        "$defs": {
            "tree": {
                "$id": "tree",
                "$dynamicAnchor": "node",
                "type": "object",
                "properties": {
                    "data": true,
                    "children": { "type": "array", "items": { "$dynamicRef": "#node" } }
                }
            }
        }
    });
    let width = (n as f64).cbrt().ceil() as usize;
    let leaf = |i: usize| json!({ "data": i, "secret": format!("s{i}") });
    let mut made = 0;
    let mut level2 = Vec::new();
    while made < n {
        let leaves: Vec<Value> = (0..width).map(|j| leaf(made + j)).collect();
        made += width;
        level2.push(json!({ "data": made, "secret": "m", "children": leaves }));
    }
    let level1: Vec<Value> =
        level2.chunks(width).map(|c| json!({ "data": 0, "secret": "t", "children": c.to_vec() })).collect();
    (schema, json!({ "data": "root", "secret": "r", "children": level1 }))
}

/// `n` strings holding JSON, each with a marked member inside.
pub fn content_strings(n: usize) -> (Value, Value) {
    let schema = json!({
        "type": "array",
        "items": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": { "type": "object", "properties": { "token": { "x-sensitive": true } } }
        }
    });
    let items: Vec<Value> = (0..n).map(|i| json!(json!({ "id": i, "token": format!("t{i}") }).to_string())).collect();
    (schema, Value::Array(items))
}

/// `n` schema resources that each declare the dynamic anchor `node`, and `n` properties whose
/// `$dynamicRef: "#node"` may stand for any of them (compiling drew an edge from each reference
/// to each candidate: 1 MB of schema took gigabytes), in an object with all `n` properties.
pub fn dynamic_anchors(n: usize) -> (Value, Value) {
    let mut defs = Map::new();
    let mut properties = Map::new();
    let mut raw = Map::new();
    for i in 0..n {
        defs.insert(format!("r{i}"), json!({ "$id": format!("r{i}"), "$dynamicAnchor": "node", "type": "object" }));
        properties.insert(format!("p{i}"), json!({ "$dynamicRef": "#node" }));
        raw.insert(format!("p{i}"), json!({ "s": i }));
    }
    properties.insert("s".into(), json!({ "x-sensitive": true }));
    let schema =
        json!({ "$id": "https://example.com/root", "$dynamicAnchor": "node", "$defs": defs, "properties": properties });
    (schema, Value::Object(raw))
}

/// One schema resource that declares `n` dynamic anchor names, each named by the
/// `$dynamicRef` of one of `n` properties, in an object with all `n` properties (compiling
/// scanned the names used so far for each reference, and the resource's anchors for each).
pub fn dynamic_names(n: usize) -> (Value, Value) {
    let mut defs = Map::new();
    let mut properties = Map::new();
    let mut raw = Map::new();
    for i in 0..n {
        let anchor = json!({ "$dynamicAnchor": format!("a{i}"), "properties": { "s": { "x-sensitive": true } } });
        defs.insert(format!("d{i}"), anchor);
        properties.insert(format!("p{i}"), json!({ "$dynamicRef": format!("#a{i}") }));
        raw.insert(format!("p{i}"), json!({ "s": i }));
    }
    (json!({ "$id": "https://example.com/root", "$defs": defs, "properties": properties }), Value::Object(raw))
}

/// `n` declared properties and an `allOf` of `n` subschemas beside them, and a result whose
/// text block holds `n` JSON objects shaped like an empty CallToolResult, each read as the
/// value the schema describes (asking of each whether the schema marks MCP's member names
/// walked the schema: `n` objects times `n` subschemas).
pub fn objects_in_prose(n: usize) -> (Value, Value) {
    let mut properties = Map::new();
    for i in 0..n {
        properties.insert(format!("p{i}"), json!({ "type": "string", "x-sensitive": i == 0 }));
    }
    let all_of: Vec<Value> = (0..n).map(|i| json!({ "title": format!("t{i}") })).collect();
    let schema = json!({ "type": "object", "properties": properties, "allOf": all_of });
    let text = "{\"content\":[]} ".repeat(n);
    (schema, json!({ "content": [{ "type": "text", "text": text }], "p0": "secret" }))
}

/// A marked member, and a string of `n` runs of escapes of every kind nested in each other
/// (`%25252525`, `&amp;amp;amp;`, `\\\\`, `&amp;percnt;25`, `&bsol;`, Python's bytes repr
/// `\xc3\xbc` under a backslash escaped once more) around `_meta{`: the claims reader and value
/// matching decode each view again at every level of every chain, and each reference by name
/// read both HTML tables word by word (1 MB took 20 s, review s32).
pub fn nested_escapes(n: usize) -> (Value, Value) {
    let schema = json!({ "type": "object", "properties": { "s": { "x-sensitive": true } } });
    let text = "_meta{ %25252525 &amp;amp;amp; \\\\\\\\ &amp;percnt;25 &bsol;&bsol; &nope; \\\\xc3\\xbc ".repeat(n);
    (schema, json!({ "s": "secret", "v": [text] }))
}
