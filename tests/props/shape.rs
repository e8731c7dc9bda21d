//! A generated `outputSchema` and an instance that conforms to it, with a unique canary string
//! at every position a mark covers.
//!
//! A [`Shape`] is the abstract tree proptest generates and shrinks; [`schema`] writes the JSON
//! Schema it stands for (subschemas behind `$ref`s go to `$defs` / `definitions`), [`instance`]
//! writes a conforming value, numbering canaries from a counter so that every one is unique.

use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Every canary is `CNRY<n>xq`, then a decoration from this table: the decorated ones differ
/// in every encoding the core claims to match (JSON escaping, percent-encoding, `\u` escapes).
pub const DECORATIONS: &[&str] = &["", "", "", " é/\"&", "+?=%#", "\\ <b>'", "\n😀~", "a b"];

/// The marker every canary starts with; `CNRY<digits>xq` anywhere in the agent view is a leak.
pub const CANARY_PREFIX: &str = "CNRY";

pub fn canary(n: usize, deco: u8) -> String {
    format!("{CANARY_PREFIX}{n}xq{}", DECORATIONS[usize::from(deco) % DECORATIONS.len()])
}

/// Every `CNRY<digits>xq` token in `text`.
pub fn canary_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(CANARY_PREFIX) {
        let after = &rest[at + CANARY_PREFIX.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with("xq") {
            out.push(format!("{CANARY_PREFIX}{}xq", &after[..digits]));
        }
        rest = after;
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// `"x-sensitive": true`
    True,
    /// `"x-sensitive": "credentials"` (a class name)
    Class,
    /// `"x-sensitive": true` without a `type` beside it
    Untyped,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// A canary string.
    Str,
    /// An object holding canaries (and a number, a boolean and a null), marked whole.
    Obj,
    /// An array of canaries, marked whole.
    Arr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plain {
    Str,
    Num,
    Bool,
    /// A declared string whose value the raw result fills in ([`SLOT`]); never generated, only
    /// put in by the open properties that need a declared place for a value of their own.
    Slot,
}

/// The instance value of [`Plain::Slot`], replaced when the raw result is written.
pub const SLOT: &str = "(slot)";

#[derive(Clone, Debug)]
pub enum Shape {
    /// A marked subschema: its value is secret.
    Secret { mark: Mark, body: Body, deco: u8, titled: bool },
    /// An unmarked leaf.
    Plain(Plain),
    /// `properties`: `p0`, `p1`, ...
    Object(Vec<Shape>),
    /// `patternProperties` with a literal-prefix pattern (`^sk_`, ...), `keys` matching keys, and
    /// one declared property beside it.
    Pattern { prefix: u8, child: Box<Shape>, keys: u8 },
    /// `properties` plus `additionalProperties`: `keys` extra keys `x0`, `x1`, ...
    Additional { declared: Vec<Shape>, extra: Box<Shape>, keys: u8 },
    /// `items` (one schema for every element).
    Items { child: Box<Shape>, len: u8 },
    /// `prefixItems`, then `items` for `len` more elements when `rest` is there.
    Prefix { items: Vec<Shape>, rest: Option<(Box<Shape>, u8)> },
    /// `allOf` of object schemas; the instance has every part's properties.
    AllOf(Vec<Vec<Shape>>),
    /// `anyOf`; the instance conforms to branch `pick`.
    AnyOf { branches: Vec<Shape>, pick: u8 },
    /// `oneOf` of objects told apart by a required `kind`; the instance is branch `pick`.
    OneOf { branches: Vec<Vec<Shape>>, pick: u8 },
    /// `if` (`kind` present) / `then` / `else`.
    IfThenElse { then: Vec<Shape>, otherwise: Vec<Shape>, take_then: bool },
    /// `dependentSchemas` keyed on `trig`; its properties are there only when `trig` is.
    Dependent { props: Vec<Shape>, present: bool },
    /// A local `$ref` into `$defs` (or draft-07 `definitions` when `legacy`).
    Ref { shape: Box<Shape>, legacy: bool },
    /// A recursive `$ref`: a tree of nodes, each with a marked `key`.
    Tree { depth: u8, fanout: u8 },
    /// An array of marked strings past the stub limit (one overflow stub for the rest).
    Many(u8),
}

impl Shape {
    pub fn is_object(&self) -> bool {
        match self {
            Shape::Object(_) | Shape::Pattern { .. } | Shape::Additional { .. } | Shape::AllOf(_) => true,
            Shape::OneOf { .. } | Shape::IfThenElse { .. } | Shape::Dependent { .. } | Shape::Tree { .. } => true,
            Shape::Secret { body: Body::Obj, .. } => true,
            Shape::Ref { shape, .. } => shape.is_object(),
            Shape::AnyOf { branches, pick } => branches[usize::from(*pick) % branches.len()].is_object(),
            _ => false,
        }
    }
}

impl Shape {
    /// Does the schema mark anything (anywhere, taken or not by the instance)?
    pub fn has_mark(&self) -> bool {
        match self {
            Shape::Secret { .. } | Shape::Tree { .. } | Shape::Many(_) => true,
            Shape::Plain(_) => false,
            Shape::Object(props) => props.iter().any(Shape::has_mark),
            Shape::AllOf(parts) | Shape::OneOf { branches: parts, .. } => parts.iter().flatten().any(Shape::has_mark),
            Shape::Pattern { child, .. } | Shape::Items { child, .. } => child.has_mark(),
            Shape::Additional { declared, extra, .. } => extra.has_mark() || declared.iter().any(Shape::has_mark),
            Shape::Prefix { items, rest } => {
                items.iter().any(Shape::has_mark) || rest.as_ref().is_some_and(|(r, _)| r.has_mark())
            }
            Shape::AnyOf { branches, .. } => branches.iter().any(Shape::has_mark),
            Shape::IfThenElse { then, otherwise, .. } => then.iter().chain(otherwise).any(Shape::has_mark),
            Shape::Dependent { props, .. } => props.iter().any(Shape::has_mark),
            Shape::Ref { shape, .. } => shape.has_mark(),
        }
    }

    /// Could the value itself be marked as a whole (a marked root, behind `$ref`s and `anyOf`
    /// branches)? Conservative: true whenever a branch could carry the mark.
    pub fn may_be_marked_whole(&self) -> bool {
        match self {
            Shape::Secret { .. } => true,
            Shape::Ref { shape, .. } => shape.may_be_marked_whole(),
            Shape::AnyOf { branches, .. } => branches.iter().any(Shape::may_be_marked_whole),
            _ => false,
        }
    }
}

fn secret() -> impl Strategy<Value = Shape> {
    let mark = prop_oneof![Just(Mark::True), Just(Mark::Class), Just(Mark::Untyped)];
    let body = prop_oneof![6 => Just(Body::Str), 1 => Just(Body::Obj), 1 => Just(Body::Arr)];
    (mark, body, 0..DECORATIONS.len() as u8, any::<bool>()).prop_map(|(mark, body, deco, titled)| Shape::Secret {
        mark,
        body,
        deco,
        titled,
    })
}

fn leaf() -> impl Strategy<Value = Shape> {
    let plain = prop_oneof![Just(Plain::Str), Just(Plain::Num), Just(Plain::Bool)].prop_map(Shape::Plain);
    prop_oneof![3 => secret(), 2 => plain]
}

/// Any shape, up to four containers deep.
pub fn shape() -> impl Strategy<Value = Shape> {
    leaf().prop_recursive(4, 40, 4, |inner| {
        let props = || vec(inner.clone(), 1..4);
        let boxed = || inner.clone().prop_map(Box::new);
        prop_oneof![
            6 => props().prop_map(Shape::Object),
            2 => (0..3u8, boxed(), 1..3u8).prop_map(|(prefix, child, keys)| Shape::Pattern { prefix, child, keys }),
            2 => (vec(inner.clone(), 0..3), boxed(), 1..3u8)
                .prop_map(|(declared, extra, keys)| Shape::Additional { declared, extra, keys }),
            2 => (boxed(), 0..4u8).prop_map(|(child, len)| Shape::Items { child, len }),
            2 => (vec(inner.clone(), 1..4), proptest::option::of((boxed(), 1..3u8)))
                .prop_map(|(items, rest)| Shape::Prefix { items, rest }),
            2 => vec(props(), 1..4).prop_map(Shape::AllOf),
            2 => (vec(inner.clone(), 1..4), any::<u8>()).prop_map(|(branches, pick)| Shape::AnyOf { branches, pick }),
            2 => (vec(props(), 1..4), any::<u8>()).prop_map(|(branches, pick)| Shape::OneOf { branches, pick }),
            2 => (props(), props(), any::<bool>())
                .prop_map(|(then, otherwise, take_then)| Shape::IfThenElse { then, otherwise, take_then }),
            2 => (props(), prop_oneof![3 => Just(true), 1 => Just(false)])
                .prop_map(|(props, present)| Shape::Dependent { props, present }),
            2 => (boxed(), any::<bool>()).prop_map(|(shape, legacy)| Shape::Ref { shape, legacy }),
            1 => (0..4u8, 1..3u8).prop_map(|(depth, fanout)| Shape::Tree { depth, fanout }),
            1 => (30..38u8).prop_map(Shape::Many),
        ]
    })
}

/// A root shape: mostly an object (a structured result), sometimes anything.
pub fn root_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        6 => vec(shape(), 1..5).prop_map(Shape::Object),
        1 => shape(),
    ]
}

const PREFIXES: &[&str] = &["sk_", "tok", "pw-"];
const TITLES: &[&str] = &["API key", "Password", "Recovery code"];

/// Where `$ref` targets are collected while writing a schema.
#[derive(Default)]
pub struct Defs {
    defs: Map<String, Value>,
    definitions: Map<String, Value>,
    next: usize,
}

/// The tool's `outputSchema` for `root`.
pub fn output_schema(root: &Shape) -> Value {
    let mut defs = Defs::default();
    let mut schema = schema(root, &mut defs);
    if !defs.defs.is_empty() {
        schema["$defs"] = Value::Object(defs.defs);
    }
    if !defs.definitions.is_empty() {
        schema["definitions"] = Value::Object(defs.definitions);
    }
    schema
}

fn props_schema(props: &[Shape], prefix: &str, defs: &mut Defs) -> Map<String, Value> {
    props.iter().enumerate().map(|(i, p)| (format!("{prefix}{i}"), schema(p, defs))).collect()
}

pub fn schema(s: &Shape, defs: &mut Defs) -> Value {
    match s {
        Shape::Secret { mark, body, titled, deco } => {
            let mut v = match mark {
                Mark::True | Mark::Untyped => json!({ "x-sensitive": true }),
                Mark::Class => json!({ "x-sensitive": "credentials" }),
            };
            if *mark != Mark::Untyped {
                v["type"] = json!(match body {
                    Body::Str => "string",
                    Body::Obj => "object",
                    Body::Arr => "array",
                });
            }
            if *titled {
                v["title"] = json!(TITLES[usize::from(*deco) % TITLES.len()]);
            }
            v
        }
        Shape::Plain(Plain::Str | Plain::Slot) => json!({ "type": "string" }),
        Shape::Plain(Plain::Num) => json!({ "type": "number" }),
        Shape::Plain(Plain::Bool) => json!({ "type": "boolean" }),
        Shape::Object(props) => json!({ "type": "object", "properties": props_schema(props, "p", defs) }),
        Shape::Pattern { prefix, child, .. } => {
            let pattern = format!("^{}", PREFIXES[usize::from(*prefix) % PREFIXES.len()]);
            json!({
                "type": "object",
                "properties": { "name": { "type": "string" } },
                "patternProperties": { pattern: schema(child, defs) },
            })
        }
        Shape::Additional { declared, extra, .. } => json!({
            "type": "object",
            "properties": props_schema(declared, "p", defs),
            "additionalProperties": schema(extra, defs),
        }),
        Shape::Items { child, .. } => json!({ "type": "array", "items": schema(child, defs) }),
        Shape::Prefix { items, rest } => {
            let mut v =
                json!({ "type": "array", "prefixItems": items.iter().map(|i| schema(i, defs)).collect::<Vec<_>>() });
            if let Some((rest, _)) = rest {
                v["items"] = schema(rest, defs);
            }
            v
        }
        Shape::AllOf(parts) => {
            let parts: Vec<Value> = parts
                .iter()
                .enumerate()
                .map(|(n, props)| json!({ "type": "object", "properties": props_schema(props, &format!("a{n}_"), defs) }))
                .collect();
            json!({ "allOf": parts })
        }
        Shape::AnyOf { branches, .. } => {
            json!({ "anyOf": branches.iter().map(|b| schema(b, defs)).collect::<Vec<_>>() })
        }
        Shape::OneOf { branches, .. } => {
            let branches: Vec<Value> = branches
                .iter()
                .enumerate()
                .map(|(n, props)| {
                    let mut p = props_schema(props, &format!("o{n}_"), defs);
                    p.insert("kind".into(), json!({ "const": format!("b{n}") }));
                    json!({ "type": "object", "properties": p, "required": ["kind"] })
                })
                .collect();
            json!({ "oneOf": branches })
        }
        Shape::IfThenElse { then, otherwise, .. } => json!({
            "type": "object",
            "if": { "required": ["kind"] },
            "then": { "properties": props_schema(then, "t", defs) },
            "else": { "properties": props_schema(otherwise, "e", defs) },
        }),
        Shape::Dependent { props, .. } => json!({
            "type": "object",
            "properties": { "trig": { "type": "string" } },
            "dependentSchemas": { "trig": { "properties": props_schema(props, "d", defs) } },
        }),
        Shape::Ref { shape, legacy } => {
            let name = format!("d{}", defs.next);
            defs.next += 1;
            let target = schema(shape, defs);
            if *legacy {
                defs.definitions.insert(name.clone(), target);
                json!({ "$ref": format!("#/definitions/{name}") })
            } else {
                defs.defs.insert(name.clone(), target);
                json!({ "$ref": format!("#/$defs/{name}") })
            }
        }
        Shape::Tree { .. } => {
            defs.defs.insert(
                "node".into(),
                json!({
                    "type": "object",
                    "properties": {
                        "name": { "type": "string" },
                        "key": { "type": "string", "x-sensitive": true },
                        "kids": { "type": "array", "items": { "$ref": "#/$defs/node" } },
                    },
                }),
            );
            json!({ "$ref": "#/$defs/node" })
        }
        Shape::Many(_) => json!({ "type": "array", "items": { "type": "string", "x-sensitive": true } }),
    }
}

/// Numbers the canaries of one case (across every call of it) and keeps them.
#[derive(Default)]
pub struct Canaries {
    pub next: usize,
    pub all: Vec<String>,
    plain: usize,
}

impl Canaries {
    pub fn fresh(&mut self, deco: u8) -> String {
        let c = canary(self.next, deco);
        self.next += 1;
        self.all.push(c.clone());
        c
    }

    fn plain(&mut self) -> usize {
        self.plain += 1;
        self.plain
    }
}

fn props_instance(props: &[Shape], prefix: &str, map: &mut Map<String, Value>, c: &mut Canaries) {
    for (i, p) in props.iter().enumerate() {
        map.insert(format!("{prefix}{i}"), instance(p, c));
    }
}

/// A value conforming to the schema of `s`, with a fresh canary wherever a mark covers it.
pub fn instance(s: &Shape, c: &mut Canaries) -> Value {
    match s {
        Shape::Secret { body: Body::Str, deco, .. } => json!(c.fresh(*deco)),
        Shape::Secret { body: Body::Obj, deco, .. } => {
            json!({ "k0": c.fresh(*deco), "k1": [c.fresh(*deco), 7, true, null], "k2": { "k3": c.fresh(*deco) } })
        }
        Shape::Secret { body: Body::Arr, deco, .. } => json!([c.fresh(*deco), c.fresh(*deco)]),
        Shape::Plain(Plain::Str) => json!(format!("plain {}", c.plain())),
        Shape::Plain(Plain::Num) => json!(c.plain() as f64 + 0.5),
        Shape::Plain(Plain::Bool) => json!(c.plain() % 2 == 0),
        Shape::Plain(Plain::Slot) => json!(SLOT),
        Shape::Object(props) => {
            let mut m = Map::new();
            props_instance(props, "p", &mut m, c);
            Value::Object(m)
        }
        Shape::Pattern { prefix, child, keys } => {
            let mut m = Map::new();
            m.insert("name".into(), json!("listed"));
            for k in 0..*keys {
                m.insert(format!("{}{k}", PREFIXES[usize::from(*prefix) % PREFIXES.len()]), instance(child, c));
            }
            Value::Object(m)
        }
        Shape::Additional { declared, extra, keys } => {
            let mut m = Map::new();
            props_instance(declared, "p", &mut m, c);
            for k in 0..*keys {
                m.insert(format!("x{k}"), instance(extra, c));
            }
            Value::Object(m)
        }
        Shape::Items { child, len } => Value::Array((0..*len).map(|_| instance(child, c)).collect()),
        Shape::Prefix { items, rest } => {
            let mut out: Vec<Value> = items.iter().map(|i| instance(i, c)).collect();
            if let Some((rest, len)) = rest {
                out.extend((0..*len).map(|_| instance(rest, c)));
            }
            Value::Array(out)
        }
        Shape::AllOf(parts) => {
            let mut m = Map::new();
            for (n, props) in parts.iter().enumerate() {
                props_instance(props, &format!("a{n}_"), &mut m, c);
            }
            Value::Object(m)
        }
        Shape::AnyOf { branches, pick } => instance(&branches[usize::from(*pick) % branches.len()], c),
        Shape::OneOf { branches, pick } => {
            let n = usize::from(*pick) % branches.len();
            let mut m = Map::new();
            m.insert("kind".into(), json!(format!("b{n}")));
            props_instance(&branches[n], &format!("o{n}_"), &mut m, c);
            Value::Object(m)
        }
        Shape::IfThenElse { then, otherwise, take_then } => {
            let mut m = Map::new();
            if *take_then {
                m.insert("kind".into(), json!("then"));
                props_instance(then, "t", &mut m, c);
            } else {
                props_instance(otherwise, "e", &mut m, c);
            }
            Value::Object(m)
        }
        Shape::Dependent { props, present } => {
            let mut m = Map::new();
            if *present {
                m.insert("trig".into(), json!("on"));
                props_instance(props, "d", &mut m, c);
            }
            Value::Object(m)
        }
        Shape::Ref { shape, .. } => instance(shape, c),
        Shape::Tree { depth, fanout } => tree(*depth, *fanout, c),
        Shape::Many(n) => Value::Array((0..*n).map(|_| json!(c.fresh(0))).collect()),
    }
}

fn tree(depth: u8, fanout: u8, c: &mut Canaries) -> Value {
    let kids: Vec<Value> =
        if depth == 0 { Vec::new() } else { (0..fanout).map(|_| tree(depth - 1, fanout, c)).collect() };
    json!({ "name": format!("node {}", c.plain()), "key": c.fresh(0), "kids": kids })
}
