//! A compiled `outputSchema`: an arena of nodes, one per subschema, with `$ref`s resolved to
//! node ids. Cycles are edges, not recursion, so recursive schemas cost nothing extra.

mod apply;
mod compile;
mod ecma;
mod keywords;
mod uri;

pub(crate) use compile::compile;
pub(crate) use keywords::is_mark;

use regex_lite::Regex;
use serde_json::Value;

use keywords::Place;

pub(crate) type NodeId = usize;

/// The JSON types a subschema expects (from `type`, or implied by its keywords).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kinds(u8);

impl Kinds {
    const NULL: u8 = 1;
    const BOOLEAN: u8 = 2;
    const OBJECT: u8 = 4;
    const ARRAY: u8 = 8;
    const NUMBER: u8 = 16;
    const INTEGER: u8 = 32;
    const STRING: u8 = 64;

    pub fn object() -> Kinds {
        Kinds(Self::OBJECT)
    }

    pub fn array() -> Kinds {
        Kinds(Self::ARRAY)
    }

    pub fn from_name(name: &str) -> Option<Kinds> {
        Some(Kinds(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "object" => Self::OBJECT,
            "array" => Self::ARRAY,
            "number" => Self::NUMBER,
            "integer" => Self::INTEGER,
            "string" => Self::STRING,
            _ => return None,
        }))
    }

    pub fn union(self, other: Kinds) -> Kinds {
        Kinds(self.0 | other.0)
    }

    pub fn fits(self, v: &Value) -> bool {
        let bit = match v {
            Value::Null => Self::NULL,
            Value::Bool(_) => Self::BOOLEAN,
            Value::Object(_) => Self::OBJECT,
            Value::Array(_) => Self::ARRAY,
            Value::String(_) => Self::STRING,
            Value::Number(n) => {
                if self.0 & Self::NUMBER != 0 || (self.0 & Self::INTEGER != 0 && is_integer(n)) {
                    return true;
                }
                Self::NUMBER
            }
        };
        self.0 & bit != 0
    }
}

/// JSON Schema's "integer": any number with a zero fractional part (`1.0` included).
fn is_integer(n: &serde_json::Number) -> bool {
    // arbitrary_precision keeps the number's text: read it rather than format it again.
    if !n.as_str().contains(['.', 'e', 'E']) {
        return true;
    }
    n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// A `patternProperties` key. A pattern our engine cannot compile (ECMA-262 look-around, say)
/// is `Opaque`: it may apply to any property for marking, and declares none in allowlist mode.
pub(crate) enum Pattern {
    Regex(Regex),
    Opaque,
}

impl Pattern {
    fn new(source: &str) -> Pattern {
        Regex::new(source).map_or(Pattern::Opaque, Pattern::Regex)
    }
}

/// One subschema. Vectors hold child node ids by the [`Place`] they apply at.
#[derive(Default)]
pub(crate) struct Node {
    /// The `false` schema: nothing is valid here.
    pub never: bool,
    /// The `true` schema: anything, described by nothing.
    pub trivial: bool,
    /// `"x-sensitive"` was `true` or a class name.
    pub mark: bool,
    pub title: Option<String>,
    pub kinds: Option<Kinds>,
    pub properties: Vec<(String, NodeId)>,
    pub patterns: Vec<(Pattern, NodeId)>,
    /// [`Place::OtherProperties`].
    pub additional: Vec<NodeId>,
    pub property_names: Vec<NodeId>,
    pub prefix_items: Vec<NodeId>,
    /// [`Place::Item`].
    pub items: Vec<NodeId>,
    /// [`Place::AnyItem`].
    pub contains: Vec<NodeId>,
    /// [`Place::Here`]: always applies at the same location.
    pub all_of: Vec<NodeId>,
    /// `$ref` targets: like `all_of`, but each one is a hop of a reference chain.
    pub refs: Vec<NodeId>,
    /// [`Place::Branch`]: apply when their type fits the value.
    pub alternatives: Vec<NodeId>,
    /// [`Place::IfKey`]: apply when the key is present.
    pub dependent: Vec<(String, NodeId)>,
}

impl Node {
    /// Adds the subschema `n`, found under `key` (empty outside maps), where it applies.
    fn add(&mut self, place: Place, key: &str, n: NodeId) {
        match place {
            Place::Here => self.all_of.push(n),
            Place::Branch => self.alternatives.push(n),
            Place::IfKey => self.dependent.push((key.to_string(), n)),
            Place::Property => self.properties.push((key.to_string(), n)),
            Place::Pattern => self.patterns.push((Pattern::new(key), n)),
            Place::OtherProperties => self.additional.push(n),
            Place::Names => self.property_names.push(n),
            Place::PrefixItem => self.prefix_items.push(n),
            Place::Item => self.items.push(n),
            Place::AnyItem => self.contains.push(n),
            Place::Defined | Place::Negated => {}
        }
    }

    /// Every edge that stays at the same instance location.
    fn in_place(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.all_of
            .iter()
            .chain(&self.refs)
            .chain(&self.alternatives)
            .chain(self.dependent.iter().map(|(_, n)| n))
            .copied()
    }

    /// Every edge, in place or into the instance.
    fn edges(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.in_place()
            .chain(self.properties.iter().map(|(_, n)| *n))
            .chain(self.patterns.iter().map(|(_, n)| *n))
            .chain(self.additional.iter().copied())
            .chain(self.property_names.iter().copied())
            .chain(self.prefix_items.iter().copied())
            .chain(self.items.iter().copied())
            .chain(self.contains.iter().copied())
    }
}

/// A compiled output schema.
pub(crate) struct Schema {
    nodes: Vec<Node>,
    root: NodeId,
    /// `reaches_mark[n]`: some mark can be reached from `n` (itself included).
    reaches_mark: Vec<bool>,
    /// `names_marked[n]`: `n`'s `propertyNames` is marked, so the keys themselves are secret.
    names_marked: Vec<bool>,
}

impl Schema {
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// Does the schema mark anything a result could reach?
    pub fn has_marks(&self) -> bool {
        self.reaches_mark[self.root]
    }

    pub fn title(&self) -> Option<&str> {
        self.nodes[self.root].title.as_deref()
    }

    /// Could any node of `set`, or anything below it, mark a value?
    pub fn any_marks(&self, set: &[NodeId]) -> bool {
        set.iter().any(|&n| self.reaches_mark[n])
    }
}
