//! The JSON Schema keywords the compiler reads, written once: what each keyword's value holds
//! and where the subschemas in it apply. A keyword not listed here is ignored; it holds no
//! subschema, so it can carry no mark.

use serde_json::{Map, Value};

use crate::json::child;

/// The keyword that marks a subschema's values as sensitive.
pub(crate) const MARK: &str = "x-sensitive";

/// Is this `"x-sensitive"` value a mark? `true` or a class name such as `"credentials"` is;
/// `false` is a valid way to say "not sensitive"; anything else is an invalid value.
pub(crate) fn is_mark(value: &Value) -> bool {
    value == true || value.as_str().is_some_and(|s| !s.is_empty())
}

/// Where a subschema applies, relative to the value its parent schema describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// The same value, always.
    Here,
    /// The same value, when the branch's type fits it.
    Branch,
    /// `if`: a branch whose marks apply, but which only tests the value: a property it names
    /// is not declared by it (allowlist mode).
    Condition,
    /// The same value, when it is an object that has the subschema's key.
    IfKey,
    /// The property named by the subschema's key.
    Property,
    /// Every property whose name matches the subschema's key, a regular expression.
    Pattern,
    /// Every property that no `Property` or `Pattern` subschema names.
    OtherProperties,
    /// Every property name (the key itself, not its value).
    Names,
    /// The element at the subschema's index.
    PrefixItem,
    /// Every element past the `PrefixItem`s.
    Item,
    /// The JSON document inside a string (`contentSchema`).
    Content,
    /// Any element: it may be the one that matches.
    AnyItem,
    /// Nowhere, unless a `$ref` leads to it.
    Defined,
    /// Nowhere: a negated schema never marks what it rejects.
    Negated,
}

/// What a keyword's value holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Describes without constraining: a schema of only these is like `true`.
    Annotation,
    /// `"x-sensitive"`: a mark, or `false`, which describes nothing.
    Mark,
    /// Constrains the value without holding a subschema.
    Assertion,
    /// A string naming another subschema, which applies to the same value.
    Ref(Resolve),
    /// One subschema.
    Single(Place),
    /// An array of subschemas; `non_empty` when an empty one is an error.
    List { place: Place, non_empty: bool },
    /// One subschema (the first place) or, in drafts before 2020-12, an array of them (the second).
    SingleOrList(Place, Place),
    /// An object of subschemas by key.
    Map(Place),
    /// An object whose values are subschemas or (draft-07 `dependencies`) lists of property names.
    MapOrNames(Place),
}

/// How a reference keyword finds its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resolve {
    /// `$ref`: where the URI points.
    Static,
    /// `$dynamicRef` (2020-12): when the target it points at declares a `$dynamicAnchor` of the
    /// same name, the outermost schema resource on the evaluation path that declares one wins.
    Dynamic,
    /// `$recursiveRef` (2019-09): when the resource it points at has `$recursiveAnchor: true`,
    /// the outermost resource on the evaluation path with `$recursiveAnchor: true` wins.
    Recursive,
}

/// The type a keyword implies when a schema has no `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Implies {
    Nothing,
    Object,
    Array,
}

pub(crate) struct Keyword {
    pub name: &'static str,
    pub kind: Kind,
    pub implies: Implies,
}

const fn word(name: &'static str, kind: Kind, implies: Implies) -> Keyword {
    Keyword { name, kind, implies }
}

pub(crate) const KEYWORDS: &[Keyword] = &[
    // `$id` and `$anchor` also name where a schema lives; compile reads them for that first.
    word("title", Kind::Annotation, Implies::Nothing),
    word("description", Kind::Annotation, Implies::Nothing),
    word("$comment", Kind::Annotation, Implies::Nothing),
    word("examples", Kind::Annotation, Implies::Nothing),
    word("default", Kind::Annotation, Implies::Nothing),
    word("deprecated", Kind::Annotation, Implies::Nothing),
    word("readOnly", Kind::Annotation, Implies::Nothing),
    word("writeOnly", Kind::Annotation, Implies::Nothing),
    word("$schema", Kind::Annotation, Implies::Nothing),
    word("$id", Kind::Annotation, Implies::Nothing),
    word("$anchor", Kind::Annotation, Implies::Nothing),
    word("$dynamicAnchor", Kind::Annotation, Implies::Nothing),
    word("$recursiveAnchor", Kind::Annotation, Implies::Nothing),
    // Read by compile beside `contentSchema`: whether the string can be decoded as JSON.
    word("contentMediaType", Kind::Annotation, Implies::Nothing),
    word("contentEncoding", Kind::Annotation, Implies::Nothing),
    word(MARK, Kind::Mark, Implies::Nothing),
    word("$ref", Kind::Ref(Resolve::Static), Implies::Nothing),
    word("$dynamicRef", Kind::Ref(Resolve::Dynamic), Implies::Nothing),
    word("$recursiveRef", Kind::Ref(Resolve::Recursive), Implies::Nothing),
    word("allOf", Kind::List { place: Place::Here, non_empty: true }, Implies::Nothing),
    word("anyOf", Kind::List { place: Place::Branch, non_empty: true }, Implies::Nothing),
    word("oneOf", Kind::List { place: Place::Branch, non_empty: true }, Implies::Nothing),
    word("if", Kind::Single(Place::Condition), Implies::Nothing),
    word("then", Kind::Single(Place::Branch), Implies::Nothing),
    word("else", Kind::Single(Place::Branch), Implies::Nothing),
    word("not", Kind::Single(Place::Negated), Implies::Nothing),
    // Draft-07 `dependencies` implies no type, unlike `dependentSchemas`: a value of another type
    // under it is not a mismatch.
    word("dependentSchemas", Kind::Map(Place::IfKey), Implies::Object),
    word("dependencies", Kind::MapOrNames(Place::IfKey), Implies::Nothing),
    word("properties", Kind::Map(Place::Property), Implies::Object),
    word("patternProperties", Kind::Map(Place::Pattern), Implies::Object),
    word("additionalProperties", Kind::Single(Place::OtherProperties), Implies::Object),
    word("unevaluatedProperties", Kind::Single(Place::OtherProperties), Implies::Object),
    word("propertyNames", Kind::Single(Place::Names), Implies::Object),
    word("required", Kind::Assertion, Implies::Object),
    word("minProperties", Kind::Assertion, Implies::Object),
    word("maxProperties", Kind::Assertion, Implies::Object),
    word("prefixItems", Kind::List { place: Place::PrefixItem, non_empty: false }, Implies::Array),
    word("items", Kind::SingleOrList(Place::Item, Place::PrefixItem), Implies::Array),
    word("additionalItems", Kind::Single(Place::Item), Implies::Array),
    word("unevaluatedItems", Kind::Single(Place::Item), Implies::Array),
    word("contains", Kind::Single(Place::AnyItem), Implies::Array),
    word("minItems", Kind::Assertion, Implies::Array),
    // A string's content: applies to the JSON document the string holds, not to the string.
    word("contentSchema", Kind::Single(Place::Content), Implies::Nothing),
    word("maxItems", Kind::Assertion, Implies::Array),
    // Compiled, though they apply nowhere, so that their errors surface.
    word("$defs", Kind::Map(Place::Defined), Implies::Nothing),
    word("definitions", Kind::Map(Place::Defined), Implies::Nothing),
];

/// JSON Schema's other assertions (drafts 4 to 2020-12): they constrain a value but hold no
/// subschema, so the compiler skips them, save for reading `type`. A schema with one of them
/// describes something (allowlist mode); lint must not mistake one for a misspelt mark.
const UNREAD_ASSERTIONS: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "uniqueItems",
    "maxContains",
    "minContains",
    "dependentRequired",
];

/// JSON Schema's other keywords, which neither constrain nor hold a subschema.
#[cfg(feature = "lint")]
const UNREAD_OTHERS: &[&str] = &["$vocabulary", "id"];

/// Is `name` a JSON Schema keyword (one the compiler reads, or one it skips)?
#[cfg(feature = "lint")]
pub(crate) fn is_schema_keyword(name: &str) -> bool {
    keyword(name).is_some() || UNREAD_ASSERTIONS.contains(&name) || UNREAD_OTHERS.contains(&name)
}

/// Does keyword `name` constrain a value by itself, whatever its subschemas say (`type`,
/// `required`, `contains`...)? An unknown keyword does not: JSON Schema ignores it.
pub(crate) fn asserts(name: &str) -> bool {
    match keyword(name) {
        Some(k) => k.kind == Kind::Assertion || k.name == "contains",
        None => UNREAD_ASSERTIONS.contains(&name),
    }
}

/// Does assertion `name` hold for every value: `minLength: 0`, `required: []`, `type` naming
/// every type, `pattern: ""`, `uniqueItems: false`? Such a keyword constrains nothing, so it
/// declares nothing in allowlist mode (README rule 4; found by review:
/// `additionalProperties: {minLength: 0}` let every undeclared member through). Read loosely
/// where that only makes allowlist mode stricter (six type names that are not `integer`).
pub(crate) fn holds_always(name: &str, v: &Value) -> bool {
    match v {
        // Zero as its digits say, not through an f64 (`1e-400` is not 0).
        Value::Number(_) => name.starts_with("min") && name != "minimum" && !crate::json::truthy(v),
        Value::Array(a) if name == "type" => a.iter().filter(|t| t.as_str() != Some("integer")).count() >= 6,
        Value::Array(a) => name == "required" && a.is_empty(),
        Value::String(s) => name == "pattern" && s.is_empty(),
        Value::Bool(b) => !b && name == "uniqueItems",
        _ => false,
    }
}

/// The keyword called `name`, if the compiler reads it.
pub(crate) fn keyword(name: &str) -> Option<&'static Keyword> {
    // Read several times per key of every subschema: one probe of a table built at compile
    // time, rather than a scan of the list (measured: the scan was a sixth of compiling).
    let mut slot = slot_of(name.as_bytes());
    loop {
        let k = KEYWORDS.get(usize::from(BY_NAME[slot]))?; // past the end: an empty slot
        if k.name == name {
            return Some(k);
        }
        slot = (slot + 1) % SLOTS;
    }
}

/// Slots of [`BY_NAME`]: more than twice the keywords, so that probes stay short.
const SLOTS: usize = 128;
const EMPTY: u8 = u8::MAX;

/// [`KEYWORDS`] by a hash of the name (FNV-1a), open addressing with linear probing.
const BY_NAME: [u8; SLOTS] = {
    assert!(KEYWORDS.len() * 2 < SLOTS && KEYWORDS.len() < EMPTY as usize);
    let mut table = [EMPTY; SLOTS];
    let mut i = 0;
    while i < KEYWORDS.len() {
        let mut slot = slot_of(KEYWORDS[i].name.as_bytes());
        while table[slot] != EMPTY {
            slot = (slot + 1) % SLOTS;
        }
        table[slot] = i as u8;
        i += 1;
    }
    table
};

const fn slot_of(name: &[u8]) -> usize {
    let mut hash: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < name.len() {
        hash = (hash ^ name[i] as u32).wrapping_mul(0x0100_0193);
        i += 1;
    }
    hash as usize % SLOTS
}

/// One subschema inside a keyword's value.
pub(crate) struct Member<'v> {
    pub place: Place,
    /// The map key it sits under (a property name, a pattern); empty outside maps.
    pub key: &'v str,
    /// Where it sits in the keyword's value, spelled out only for a pointer ([`At::suffix`]).
    pub at: At<'v>,
    /// The subschema itself.
    pub value: &'v Value,
}

/// Where a member sits in its keyword's value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum At<'v> {
    /// It is the value.
    Whole,
    /// Element `i` of a list.
    Index(usize),
    /// Under this key of a map.
    Key(&'v str),
}

impl At<'_> {
    /// The pointer from the keyword to the member: empty, `/0` or `/key`.
    pub fn suffix(self) -> String {
        match self {
            At::Whole => String::new(),
            At::Index(i) => format!("/{i}"),
            At::Key(key) => child("", key),
        }
    }
}

impl Kind {
    /// The subschemas in `value`, in document order, or what the value should have been.
    /// A member is not checked to be a schema: compiling it says so where it is.
    pub fn members(self, value: &Value) -> Result<Vec<Member<'_>>, &'static str> {
        let whole = |place| vec![Member { place, key: "", at: At::Whole, value }];
        Ok(match (self, value) {
            (Kind::Annotation | Kind::Mark | Kind::Assertion, _) | (Kind::Ref(_), Value::String(_)) => Vec::new(),
            (Kind::Ref(_), _) => return Err("must be a string"),
            (Kind::Single(place), _) => whole(place),
            (Kind::List { non_empty: true, .. }, Value::Array(list)) if list.is_empty() => {
                return Err("must not be empty")
            }
            (Kind::List { place, .. } | Kind::SingleOrList(_, place), Value::Array(list)) => listed(place, list),
            (Kind::SingleOrList(place, _), _) => whole(place),
            (Kind::List { .. }, _) => return Err("must be an array of schemas"),
            (Kind::Map(place), Value::Object(map)) => keyed(place, map, |_| true),
            // The property-list form names no subschema.
            (Kind::MapOrNames(place), Value::Object(map)) => keyed(place, map, |v| v.is_object() || v.is_boolean()),
            (Kind::Map(_) | Kind::MapOrNames(_), _) => return Err("must be an object"),
        })
    }
}

fn listed(place: Place, list: &[Value]) -> Vec<Member<'_>> {
    list.iter().enumerate().map(|(i, value)| Member { place, key: "", at: At::Index(i), value }).collect()
}

fn keyed(place: Place, map: &Map<String, Value>, schema: impl Fn(&Value) -> bool) -> Vec<Member<'_>> {
    let schemas = map.iter().filter(|(_, v)| schema(v));
    schemas.map(|(key, value)| Member { place, key, at: At::Key(key), value }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marks_are_true_or_a_class_name() {
        for v in [json!(true), json!("credentials"), json!("pii")] {
            assert!(is_mark(&v), "{v}");
        }
        for v in [json!(false), json!(""), json!(null), json!(1), json!(["pii"]), json!({})] {
            assert!(!is_mark(&v), "{v}");
        }
    }

    #[test]
    fn each_keyword_is_written_once() {
        for (i, k) in KEYWORDS.iter().enumerate() {
            assert!(KEYWORDS[..i].iter().all(|other| other.name != k.name), "{} twice", k.name);
        }
        assert_eq!(keyword("properties").map(|k| k.kind), Some(Kind::Map(Place::Property)));
        assert!(keyword("enum").is_none());
        // The table finds every keyword, and nothing near one.
        for k in KEYWORDS {
            assert_eq!(keyword(k.name).map(|found| (found.name, found.kind)), Some((k.name, k.kind)));
            assert!(keyword(&format!("{}x", k.name)).is_none() && keyword(&k.name[1..]).is_none());
        }
        assert!(keyword("").is_none());
    }

    #[test]
    fn members_by_shape() {
        let suffixes = |kind: Kind, v: Value| -> Result<Vec<(Place, String, String)>, &'static str> {
            let members = kind.members(&v)?;
            Ok(members.into_iter().map(|m| (m.place, m.key.to_string(), m.at.suffix())).collect())
        };
        let items = keyword("items").unwrap().kind;
        assert_eq!(suffixes(items, json!({})), Ok(vec![(Place::Item, String::new(), String::new())]));
        let listed = suffixes(items, json!([{}, true])).unwrap();
        assert_eq!(
            listed.iter().map(|m| (m.0, m.2.as_str())).collect::<Vec<_>>(),
            [(Place::PrefixItem, "/0"), (Place::PrefixItem, "/1")]
        );
        let props = keyword("properties").unwrap().kind;
        assert_eq!(suffixes(props, json!({ "a/b": {} })), Ok(vec![(Place::Property, "a/b".into(), "/a~1b".into())]));
        assert_eq!(suffixes(props, json!([])), Err("must be an object"));
        let deps = keyword("dependencies").unwrap().kind;
        assert_eq!(suffixes(deps, json!({ "a": ["b"], "c": false })).unwrap().len(), 1);
        assert_eq!(suffixes(keyword("allOf").unwrap().kind, json!([])), Err("must not be empty"));
        assert_eq!(suffixes(keyword("prefixItems").unwrap().kind, json!([])), Ok(vec![]));
        assert_eq!(suffixes(keyword("anyOf").unwrap().kind, json!({})), Err("must be an array of schemas"));
        assert_eq!(suffixes(keyword("$ref").unwrap().kind, json!(1)), Err("must be a string"));
    }
}
