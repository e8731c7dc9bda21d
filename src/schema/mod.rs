//! A compiled `outputSchema`: an arena of nodes, one per subschema, with `$ref`s resolved to
//! node ids. Cycles are edges, not recursion, so recursive schemas cost nothing extra.
//!
//! Cost. Compiling is linear in the schema's size (pointers are built only for errors, base URIs
//! and anchors are interned, every graph pass is one linear walk). Applying it to a result is
//! done by [`Eval`], which decides each (set of subschemas, kind of value) pair once, looks
//! properties up by hash, runs each regex in time linear in the key (our lazy DFA, `regex.rs`,
//! with a bounded program), and counts every step against `Limits::max_work`.

mod agent;
mod apply;
mod compile;
mod ecma;
mod keywords;
mod patterns;
mod regex;
mod trivial;
mod uri;

/// Our regex matcher beside regex-lite's reading of the same pattern, for the fuzz target that
/// compares them (cargo-fuzz builds with `--cfg fuzzing`); not part of the API.
#[cfg(fuzzing)]
pub mod fuzzing {
    /// The pattern as regex-lite syntax, and our matcher's answer for each key; `None` when the
    /// pattern is refused (`schema_invalid`).
    pub fn regex(pattern: &str, keys: &[&str]) -> Option<(String, Vec<bool>)> {
        let t = super::ecma::translate(pattern).ok()?;
        let ours = super::regex::Regex::new(&t.ast);
        let mut budget = super::apply::Budget::new(u64::MAX);
        let answers = keys.iter().map(|k| ours.is_match(k, &mut budget).expect("no limit")).collect();
        Some((t.source, answers))
    }
}

#[cfg(test)]
pub(crate) mod families;

pub(crate) use agent::agent_schema;
pub(crate) use apply::{AppliedId, Eval, Exhausted, SetId};
pub(crate) use compile::compile;
#[cfg(feature = "lint")]
pub(crate) use keywords::{is_mark, is_schema_keyword, keyword, At, Member, MARK};

use serde_json::Value;

use crate::hash::TextMap;

use keywords::Place;
use patterns::{Form, PatternIndex, Program};

pub(crate) type NodeId = usize;

/// The most, in estimated NFA states plus class ranges, that all the regexes of one schema
/// may compile to together (each one is at most [`ecma::MAX_PATTERN_SIZE`]).
pub(crate) const MAX_TOTAL_PATTERN_SIZE: usize = 1_000_000;

/// The JSON types a subschema expects (from `type`, or implied by its keywords). The same bits
/// name the kind of one value (see [`Kinds::of`]), with `NUMBER` for a number that is not an
/// integer.
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
    /// Every kind of value.
    pub const ANY: u8 = 127;

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

    /// The kinds of value this accepts, as a mask of [`Kinds::of`] bits ("number" takes integers).
    pub fn mask(self) -> u8 {
        if self.0 & Self::NUMBER != 0 {
            self.0 | Self::INTEGER
        } else {
            self.0
        }
    }

    /// The one bit that names the kind of `v`.
    pub fn of(v: &Value) -> u8 {
        match v {
            Value::Null => Self::NULL,
            Value::Bool(_) => Self::BOOLEAN,
            Value::Object(_) => Self::OBJECT,
            Value::Array(_) => Self::ARRAY,
            Value::String(_) => Self::STRING,
            Value::Number(n) => Self::of_number(n.as_str()),
        }
    }

    /// The kind of a number written as `text`: integer or not.
    pub fn of_number(text: &str) -> u8 {
        if is_integer(text) {
            Self::INTEGER
        } else {
            Self::NUMBER
        }
    }

    /// The kind of the value whose JSON text starts with `first` (not a number).
    pub fn of_first_byte(first: u8) -> u8 {
        match first {
            b'{' => Self::OBJECT,
            b'[' => Self::ARRAY,
            b'"' => Self::STRING,
            b'n' => Self::NULL,
            _ => Self::BOOLEAN,
        }
    }

    pub fn is_object(kind: u8) -> bool {
        kind == Self::OBJECT
    }
}

/// JSON Schema's "integer": any number with a zero fractional part (`1.0`, `1e400` included),
/// read from the number's text (arbitrary_precision keeps it), digit by digit: through an f64,
/// `1e400` (infinite) was no integer and `1e-400` or `4.00000000000000000001` (rounded) were
/// one, so a number could miss the marked `integer` branch of an `anyOf` and reach the agent
/// (found by review s29).
fn is_integer(text: &str) -> bool {
    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let whole = whole.trim_start_matches('-');
    // The exponent saturates: past any digit count, it only says "all" or "none".
    let exponent = exponent.trim_start_matches('+').parse::<i64>().unwrap_or(if exponent.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    });
    let digits = whole.bytes().chain(fraction.bytes());
    // Digits at this index and after stand after the decimal point.
    let point = (whole.len() as i64).saturating_add(exponent);
    digits.enumerate().all(|(i, d)| d == b'0' || (i as i64) < point)
}

/// A `$dynamicRef` or `$recursiveRef` whose static target declares the anchor it names: which
/// subschema it reaches depends on the schema resources evaluation went through.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DynRef {
    /// The interned anchor name ([`RECURSIVE`] for `$recursiveAnchor`).
    pub name: u32,
    /// Where it points when no resource on the path declares the anchor.
    pub fallback: NodeId,
}

/// The anchor name `$recursiveRef` / `$recursiveAnchor: true` stand for (2019-09).
pub(crate) const RECURSIVE: u32 = 0;

/// One subschema. Vectors hold child node ids by the [`Place`] they apply at.
#[derive(Default)]
pub(crate) struct Node {
    /// Nothing is valid here: `false`, or a schema that always applies one (`$ref`, `allOf`),
    /// or whose `anyOf`/`oneOf` has only such branches (`Graph::settle_references`).
    pub never: bool,
    /// Constrains nothing about a value (`true`, `{}`, `not: false`, an `anyOf` with such a
    /// branch...): settled after compiling, see `trivial.rs`.
    pub trivial: bool,
    /// Constrains a value by itself: an assertion (`type`, `required`, `contains`...) or a mark.
    pub asserts: bool,
    /// The lists of `anyOf` and `oneOf`: one branch that constrains nothing makes its keyword so.
    pub choices: Vec<Vec<NodeId>>,
    /// `then` and `else` (also among `alternatives`).
    pub outcomes: Vec<NodeId>,
    /// `"x-sensitive"` was `true` or a class name.
    pub mark: bool,
    pub title: Option<String>,
    pub kinds: Option<Kinds>,
    /// The schema resource (`$id`) this subschema belongs to.
    pub resource: u32,
    /// By property name.
    pub properties: TextMap<String, NodeId>,
    /// One per `patternProperties` entry, in document order; `pattern_index` finds them.
    pub patterns: Vec<NodeId>,
    pub pattern_index: Option<Box<PatternIndex>>,
    /// How each of `patterns` is matched, for an index over several owners (`Eval`).
    pub pattern_forms: Vec<Form>,
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
    /// `$ref` targets (and dynamic references that resolve statically): like `all_of`, but
    /// each one is a hop of a reference chain.
    pub refs: Vec<NodeId>,
    /// Dynamic references, resolved during evaluation.
    pub dynamic: Vec<DynRef>,
    /// [`Place::Branch`] and [`Place::Condition`]: apply when their type fits the value.
    pub alternatives: Vec<NodeId>,
    /// The `if` subschema, also among `alternatives`.
    pub condition: Option<NodeId>,
    /// [`Place::IfKey`]: apply when the key is present, in document order...
    pub dependent: Vec<(String, NodeId)>,
    /// ...and their positions there by key.
    pub dependent_index: TextMap<String, Vec<usize>>,
    /// [`Place::Content`]: applies to the JSON a string holds.
    pub content: Vec<NodeId>,
    /// The string can be decoded as JSON: `contentMediaType` absent or a JSON type, and no
    /// `contentEncoding`. Otherwise marks in `content` take the whole string.
    pub content_json: bool,
}

impl Node {
    /// Adds the subschema `n`, found under `key` (empty outside maps), where it applies.
    /// (`Place::Pattern` is added by the compiler, which also indexes the pattern.)
    fn add(&mut self, place: Place, key: &str, n: NodeId) {
        match place {
            Place::Here => self.all_of.push(n),
            Place::Branch => self.alternatives.push(n),
            Place::Condition => {
                self.alternatives.push(n);
                self.condition = Some(n);
            }
            Place::IfKey => self.dependent.push((key.to_string(), n)),
            Place::Property => {
                self.properties.insert(key.to_string(), n);
            }
            Place::Pattern => self.patterns.push(n),
            Place::OtherProperties => self.additional.push(n),
            Place::Names => self.property_names.push(n),
            Place::PrefixItem => self.prefix_items.push(n),
            Place::Item => self.items.push(n),
            Place::AnyItem => self.contains.push(n),
            Place::Content => self.content.push(n),
            Place::Defined | Place::Negated => {}
        }
    }

    /// Does a property of an object get subschemas from this node?
    fn has_object_children(&self) -> bool {
        !self.properties.is_empty() || !self.patterns.is_empty() || !self.additional.is_empty()
    }

    fn has_array_children(&self) -> bool {
        !self.prefix_items.is_empty() || !self.items.is_empty() || !self.contains.is_empty()
    }

    /// Does nothing wherever it applies but through its `allOf` members and `$ref` targets: no
    /// mark, assertion, title or other subschema (`{}`, `true`, a schema of annotations).
    fn inert_alone(&self) -> bool {
        let none = [&self.alternatives, &self.content, &self.property_names];
        let acts = self.never || self.asserts || self.mark || self.title.is_some() || self.kinds.is_some();
        !(acts || self.has_object_children() || self.has_array_children())
            && none.iter().all(|v| v.is_empty())
            && self.dynamic.is_empty()
            && self.dependent.is_empty()
            && self.choices.is_empty()
    }
}

/// Which nodes do nothing wherever they apply ([`Node::inert_alone`], and so does every `allOf`
/// member and `$ref` target, at any depth): applying one marks, declares and evaluates nothing,
/// so a walk need not visit it as a member or target. Carried through members and targets, as
/// `{"allOf": [{}]}` or a `$ref` to `{}` do nothing either (found by review s30: 20,000 of them
/// were visited per call). A cycle of references stays visited (the least fixed point), and
/// each node and edge is read once.
pub(crate) fn inert_nodes(nodes: &[Node]) -> Vec<bool> {
    // For each node that does nothing alone: how many of its members are not known inert yet,
    // and, for each member, the nodes waiting on it.
    let mut waiting: Vec<usize> = vec![usize::MAX; nodes.len()];
    let mut waiters: Vec<Vec<NodeId>> = (0..nodes.len()).map(|_| Vec::new()).collect();
    let mut ready = Vec::new();
    for (i, node) in nodes.iter().enumerate().filter(|(_, n)| n.inert_alone()) {
        waiting[i] = node.all_of.len() + node.refs.len();
        node.all_of.iter().chain(&node.refs).for_each(|&m| waiters[m].push(i));
        if waiting[i] == 0 {
            ready.push(i);
        }
    }
    let mut inert = vec![false; nodes.len()];
    while let Some(i) = ready.pop() {
        inert[i] = true;
        for &w in &waiters[i] {
            waiting[w] -= 1;
            if waiting[w] == 0 {
                ready.push(w);
            }
        }
    }
    inert
}

/// A compiled output schema.
pub(crate) struct Schema {
    nodes: Vec<Node>,
    root: NodeId,
    /// `reaches_mark[n]`: some mark can be reached from `n` (itself included).
    reaches_mark: Vec<bool>,
    /// `names_marked[n]`: `n`'s `propertyNames` is marked, so the keys themselves are secret.
    names_marked: Vec<bool>,
    /// `declaring[n]`: what `n` names (properties, items) it declares; false when `n` applies
    /// only inside an `if`, which tests a value without describing it.
    declaring: Vec<bool>,
    /// `fit[n]`: the kinds of value (a [`Kinds::of`] mask) that `n` and everything it always
    /// applies could accept, judging by types alone.
    fit: Vec<u8>,
    /// `inert[n]`: `n` does nothing wherever it applies ([`inert_nodes`]): a walk skips it
    /// among `allOf` members and `$ref` targets. A 1 MB `allOf` of 340,000 `{}` cost 370 to 440 ms per call, each
    /// member visited in `Eval::closure`, whatever the result (found by review s28).
    inert: Vec<bool>,
    /// For each schema resource, the dynamic anchors it declares that some dynamic reference
    /// names: (name, subschema), sorted by name.
    anchors: Vec<Vec<(u32, NodeId)>>,
    programs: Vec<Program>,
    /// Units of work compiling took (see `Limits::max_work`), for tests.
    #[cfg_attr(not(test), allow(dead_code))]
    compile_work: u64,
}

impl Schema {
    /// Does the schema mark anything a result could reach?
    pub fn has_marks(&self) -> bool {
        self.reaches_mark[self.root]
    }

    pub fn title(&self) -> Option<&str> {
        self.nodes[self.root].title.as_deref()
    }

    /// Could the root accept `value`, judging by types alone?
    pub fn root_fits(&self, value: &Value) -> bool {
        self.fit[self.root] & Kinds::of(value) != 0
    }

    /// Does the root (through the subschemas that apply where it does) name `key` among its
    /// `properties`, with a mark under it? Linear in the schema's size.
    pub fn marks_property(&self, key: &str) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut todo = vec![self.root];
        while let Some(n) = todo.pop() {
            if std::mem::replace(&mut seen[n], true) {
                continue;
            }
            #[cfg(test)]
            MARKS_VISITS.with(|v| v.set(v.get() + 1));
            let node = &self.nodes[n];
            if node.properties.get(key).is_some_and(|&p| self.reaches_mark[p]) {
                return true;
            }
            let here = node.all_of.iter().chain(&node.refs).chain(&node.alternatives);
            todo.extend(here.copied().chain(node.dynamic.iter().map(|d| d.fallback)));
        }
        false
    }

    pub fn node_title(&self, n: NodeId) -> Option<&str> {
        self.nodes[n].title.as_deref()
    }

    /// Units of work compiling this schema took.
    #[cfg(test)]
    pub fn compile_work(&self) -> u64 {
        self.compile_work
    }

    /// A subschema that applies to what no name singles out (`patternProperties`,
    /// `additionalProperties`, `prefixItems`, `items`) declares what it covers unless it
    /// constrains nothing (`true`, `{}`, `not: false`, an `anyOf` with a `true` branch...) or is
    /// `false`, which describe nothing, or its owner applies only inside an `if`.
    fn describes_from(&self, owner: NodeId, n: NodeId) -> bool {
        !self.nodes[n].trivial && self.declares(owner, n)
    }

    /// Does `n`, applied by `owner` to the property it names, declare it? A name is declared
    /// whatever its subschema (`"id": true` names `id`), but not by `false`, nor when its owner
    /// applies only inside an `if`.
    fn declares(&self, owner: NodeId, n: NodeId) -> bool {
        !self.nodes[n].never && self.declaring[owner]
    }
}

#[cfg(test)]
thread_local! {
    /// Subschemas `marks_property` visited on this thread, for a test that counts them.
    pub(crate) static MARKS_VISITS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod integer_tests {
    use super::Kinds;

    /// "integer" is the number's value, whatever its notation: the f64 reading missed numbers
    /// past f64's range and rounded tiny or long fractions away (fails on the f64 reading: `1e400`
    /// was a number, `1e-400` an integer).
    #[test]
    fn an_integer_is_read_from_the_digits() {
        let integers = [
            "0",
            "-0",
            "5",
            "-12",
            "5.0",
            "5.000",
            "1e2",
            "1E+2",
            "1.5e1",
            "1e400",
            "1.5e400",
            "-2.5E999",
            "0e-9",
            "0.0e-400",
            "120e-1",
            "1e99999999999999999999",
            "0.00e99999999999999999999",
        ];
        let numbers = [
            "0.5",
            "-1.5",
            "1e-1",
            "1e-400",
            "4.00000000000000000001",
            "12.5e-1",
            "1.23456789E-04",
            "1e-99999999999999999999",
            "1.25e1",
        ];
        for text in integers {
            assert_eq!(Kinds::of_number(text), Kinds::INTEGER, "{text} is an integer");
        }
        for text in numbers {
            assert_eq!(Kinds::of_number(text), Kinds::NUMBER, "{text} is not an integer");
        }
    }
}
