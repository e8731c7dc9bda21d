//! Walks a structured value against the compiled schema and takes out what must not reach
//! the agent: marked values, type mismatches under marks, and (allowlist) undeclared values.
//! Which subschemas apply where is decided by [`Eval`], once per (set, kind of value) and per
//! (closure, key); every step is counted, and past `Limits::max_work` the walk stops and the
//! redaction fails closed with `work_limit`.
//!
//! A string with a `contentSchema` (JSON inside a string): when the schema marks something in
//! it, the string is parsed and walked like any value; if something is taken, the agent gets
//! the string written again from what is left (compact JSON), and every redaction inside it
//! points at the string (a pointer cannot go inside a string). If the inner value is taken as a
//! whole, or the string cannot be read as JSON (not JSON, or a `contentEncoding` / non-JSON
//! `contentMediaType`), the whole string is taken. JSON the core gives up on (a repeated key,
//! nesting past the depth limit) fails the result, as in a JSON text block: it is never taken
//! for a string that is not JSON, which allowlist mode with no marks inside would let through.

use serde_json::Value;

use crate::json::{parse_limited, push_index, push_token};
use crate::schema::{Eval, Exhausted, Schema, SetId};
use crate::{Error, ErrorCode, Limits, Reason};

/// A value taken out of the structured result.
pub(crate) struct Taken {
    /// JSON Pointer relative to the structured value.
    pub pointer: String,
    pub reason: Reason,
    pub label: String,
    pub value: Value,
    /// The keys were secret too (`propertyNames` marked): they count as redacted strings.
    pub secret_keys: bool,
}

/// Walks `value` in place; returns what was taken, in document order. When the work limit is
/// reached, `eval` records a `work_limit` error (at `base` plus the pointer where it happened)
/// and the caller must withhold the result.
/// Recursion is bounded by the depth limit that the parser already enforced. `own`: the result
/// is a view this redactor wrote (see [`Walker::content`]).
pub(crate) fn walk(
    schema: &Schema,
    value: &mut Value,
    allowlist: bool,
    own: bool,
    eval: &mut Eval,
    base: &str,
) -> Vec<Taken> {
    if eval.has_failed() {
        return Vec::new();
    }
    let mut w = Walker { schema, eval, allowlist, own, taken: Vec::new(), pointer: String::new(), depth: 0, base };
    let verdict = w.eval.root(schema).and_then(|root| w.visit(value, root, None));
    match verdict {
        Ok(Some((reason, label, secret_keys))) => {
            let value = std::mem::take(value);
            w.taken.push(Taken { pointer: String::new(), reason, label, value, secret_keys });
        }
        Ok(None) => {}
        Err(Exhausted) => {
            let error = work_limit(w.eval.max_work(), format!("{base}{}", w.pointer));
            w.eval.fail(error);
        }
    }
    w.taken
}

/// What taking a value costs, charged by both engines as they take it: a unit, one per 16 bytes
/// of its report entry's pointer, and one per byte of pointer and label together past the first
/// 128. The agent view, the side record and the vault each write them again, so a long label or
/// path repeated over thousands of takes must not make the output thousands of times the input
/// (a 10 KB schema title over 20,000 marked elements was a 200 MB agent view).
pub(crate) fn entry_units(pointer: &str, label: &str) -> u64 {
    let long = (pointer.len() + label.len()).saturating_sub(128);
    1 + pointer.len() as u64 / 16 + long as u64
}

/// The error of a walk that ran out of work at `pointer` (both engines give it).
pub(crate) fn work_limit(max_work: u64, pointer: String) -> Error {
    let detail = format!("applying the output schema took more than {max_work} units of work (limits.maxWork)");
    Error::new(ErrorCode::WorkLimit, pointer, detail)
}

struct Walker<'s, 'e> {
    schema: &'s Schema,
    eval: &'e mut Eval,
    allowlist: bool,
    own: bool,
    /// Where the structured value is in the result, for an error's pointer.
    base: &'s str,
    taken: Vec<Taken>,
    /// Where the walk is; on [`Exhausted`] it is left where the limit was reached.
    pointer: String,
    depth: usize,
}

type Verdict = Option<(Reason, String, bool)>;

/// The token a child adds to the pointer.
#[derive(Clone, Copy)]
enum Token<'k> {
    Key(&'k str),
    Index(usize),
}

impl Walker<'_, '_> {
    /// Decides about `value`; descends into it when it stays. `name` is the nearest property
    /// name, the fallback label.
    fn visit(&mut self, value: &mut Value, start: SetId, name: Option<&str>) -> Result<Verdict, Exhausted> {
        if value.is_null() {
            return Ok(None); // nothing to hide, and re-redacting the nulls we leave stays stable
        }
        let (applied, summary) = self.eval.apply(self.schema, start, value)?;
        let schema = self.schema;
        let title = summary.title.and_then(|n| schema.node_title(n));
        let label = || title.or(name).unwrap_or("value").to_string();
        if summary.marked {
            return Ok(Some((Reason::XSensitive, label(), false)));
        }
        if summary.mismatch {
            return Ok(Some((Reason::SchemaMismatch, label(), false)));
        }
        if summary.names_secret {
            return Ok(Some((Reason::XSensitive, label(), true)));
        }
        match value {
            Value::Object(map) => {
                let mut gone: Vec<bool> = Vec::new();
                for (i, (key, slot)) in map.iter_mut().enumerate() {
                    let (nodes, declared) = self.eval.property(self.schema, applied, key).inspect_err(|_| {
                        push_token(&mut self.pointer, key); // where the limit was reached
                    })?;
                    if let Some(v) = self.decide(slot, nodes, declared, Token::Key(key), Some(key))? {
                        gone.resize(i + 1, false);
                        gone[i] = true;
                        self.taken.push(v);
                    }
                }
                if !gone.is_empty() {
                    // One pass: removing keys one by one would shift the rest each time.
                    let mut i = 0;
                    map.retain(|_, _| {
                        i += 1;
                        !gone.get(i - 1).copied().unwrap_or(false)
                    });
                }
            }
            Value::Array(items) => {
                for (i, slot) in items.iter_mut().enumerate() {
                    let (nodes, declared) = self.eval.item(self.schema, applied, i).inspect_err(|_| {
                        push_index(&mut self.pointer, i);
                    })?;
                    if let Some(v) = self.decide(slot, nodes, declared, Token::Index(i), name)? {
                        self.taken.push(v); // the slot was left as null, so indexes keep their meaning
                    }
                }
            }
            Value::String(_) => {
                if let Some((content, json)) = summary.content {
                    return self.content(value, content, json, title.or(name));
                }
            }
            _ => {}
        }
        Ok(None)
    }

    /// Visits one child; returns what to take out, leaving `null` in its slot.
    fn decide(
        &mut self,
        slot: &mut Value,
        nodes: SetId,
        declared: bool,
        token: Token,
        name: Option<&str>,
    ) -> Result<Option<Taken>, Exhausted> {
        let mark = self.pointer.len();
        match token {
            Token::Key(key) => push_token(&mut self.pointer, key),
            // An index needs no escaping, and is written without a string of its own.
            Token::Index(i) => push_index(&mut self.pointer, i),
        }
        let verdict = if self.allowlist && !declared && !slot.is_null() {
            Some((Reason::Undeclared, name.unwrap_or("value").to_string(), false))
        } else if self.eval.is_empty(nodes) || (!self.allowlist && !self.eval.any_marks(self.schema, nodes)?) {
            None // nothing below can mark anything: skip the subtree
        } else {
            self.depth += 1;
            let verdict = self.visit(slot, nodes, name)?;
            self.depth -= 1;
            verdict
        };
        if let Some((_, label, _)) = &verdict {
            self.eval.spend(entry_units(&self.pointer, label))?;
        }
        let taken = verdict.map(|(reason, label, secret_keys)| Taken {
            // An undeclared member is reported at its object (its key is tool data).
            pointer: match (reason, token) {
                (Reason::Undeclared, Token::Key(_)) => self.pointer[..mark].to_string(),
                _ => self.pointer.clone(),
            },
            reason,
            label,
            value: std::mem::take(slot),
            secret_keys,
        });
        self.pointer.truncate(mark);
        Ok(taken)
    }

    /// A string under a `contentSchema` (see the module documentation).
    fn content(
        &mut self,
        value: &mut Value,
        content: SetId,
        json: bool,
        name: Option<&str>,
    ) -> Result<Verdict, Exhausted> {
        let marks = self.eval.any_marks(self.schema, content)?;
        if !marks && !self.allowlist {
            return Ok(None);
        }
        let whole = || marks.then(|| (Reason::SchemaMismatch, name.unwrap_or("value").to_string(), false));
        let Value::String(text) = value else { return Ok(None) };
        if !json {
            return Ok(whole());
        }
        self.eval.spend(text.len().div_ceil(16) as u64)?; // the parse: about 16 bytes a unit
        let room = Limits { max_depth: self.eval.max_depth().saturating_sub(self.depth), ..Limits::default() };
        let mut inner = match parse_limited(text, &Limits { max_input_bytes: usize::MAX, ..room }) {
            Ok(inner) => inner,
            // In a view we wrote, a repeated key is value matching's doing (two keys rewritten
            // to one placeholder), as in a JSON text block: the string stays (value matching
            // reads it), so that a second pass changes nothing.
            Err(e) if e.code == ErrorCode::DuplicateKey && self.own => return Ok(None),
            Err(e) if matches!(e.code, ErrorCode::DuplicateKey | ErrorCode::DepthLimit) => {
                // A pointer cannot go inside a string: the error names the string.
                let detail = format!("JSON under a `contentSchema`: {}", e.detail);
                self.eval.fail(Error::new(e.code, format!("{}{}", self.base, self.pointer), detail));
                return Ok(None);
            }
            Err(_) => return Ok(whole()),
        };
        let outer = std::mem::take(&mut self.taken);
        let verdict = self.visit(&mut inner, content, name);
        let found = std::mem::replace(&mut self.taken, outer);
        match verdict? {
            Some(verdict) => Ok(Some(verdict)),
            None if found.is_empty() => Ok(None),
            None => {
                *value = Value::String(crate::json::write::text(&inner));
                let at = self.pointer.clone();
                self.eval.spend(found.len() as u64 * (1 + at.len() as u64 / 16))?;
                self.taken.extend(found.into_iter().map(|t| Taken { pointer: at.clone(), ..t }));
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{compile, families};
    use serde_json::json;

    struct Walked {
        taken: Vec<Taken>,
        value: Value,
        /// Compiling plus walking.
        work: u64,
        error: Option<Error>,
    }

    fn walk_with(schema: &Value, value: &Value, limits: &Limits, allowlist: bool) -> Walked {
        let compiled = compile(schema, "", limits).unwrap_or_else(|e| panic!("{}", e.message()));
        let mut eval = Eval::new(limits);
        let mut value = value.clone();
        let taken = walk(&compiled, &mut value, allowlist, false, &mut eval, "");
        let work = compiled.compile_work() + eval.work();
        Walked { taken, value, work, error: eval.take_error() }
    }

    fn run(schema: Value, value: Value) -> Walked {
        walk_with(&schema, &value, &Limits::default(), false)
    }

    fn pointers(w: &Walked) -> Vec<&str> {
        w.taken.iter().map(|t| t.pointer.as_str()).collect()
    }

    /// Doubling the input at most doubles the work (2.2x, for hash tables and rounding), on
    /// every family that used to take seconds to minutes under 1 MB.
    #[test]
    fn work_grows_linearly_on_every_adversarial_family() {
        for (name, family) in families::LINEAR {
            let works: Vec<u64> = [250, 500, 1000, 2000]
                .iter()
                .map(|&n| {
                    let (schema, value) = family(n);
                    let w = run(schema, value);
                    assert!(w.error.is_none(), "{name} at {n}: {:?}", w.error);
                    assert!(!w.taken.is_empty(), "{name} at {n} takes something");
                    w.work
                })
                .collect();
            eprintln!("{name}: work {works:?}");
            for pair in works.windows(2) {
                let ratio = pair[1] as f64 / pair[0] as f64;
                assert!(ratio <= 2.2, "{name}: doubling the input multiplied the work by {ratio:.2} ({works:?})");
            }
        }
    }

    /// Products no index or memo avoids (general regexes times keys, ...): the work limit bounds
    /// them, failing closed where it ran out; smaller ones get through.
    #[test]
    fn products_hit_the_work_limit() {
        let limits = Limits { max_work: 200_000, ..Limits::default() };
        for (name, family) in families::PRODUCTS {
            let (schema, value) = family(600);
            let w = walk_with(&schema, &value, &limits, false);
            let e = w.error.unwrap_or_else(|| panic!("{name}: no work_limit after {} units", w.work));
            assert_eq!(e.code, ErrorCode::WorkLimit, "{name}");
            assert!(e.detail.contains("200000 units of work (limits.maxWork)"), "{}", e.detail);
            let (schema, value) = family(20);
            let small = walk_with(&schema, &value, &limits, false);
            assert!(small.error.is_none() && !small.taken.is_empty(), "{name}");
        }
        let (schema, value) = families::unprefixed_regexes(600);
        let e = walk_with(&schema, &value, &limits, false).error.unwrap();
        assert!(e.pointer.starts_with("/k"), "the key where it ran out: {}", e.pointer);
    }

    #[test]
    fn each_location_and_set_is_decided_once() {
        // 2,000 identical records under a 1,000-branch anyOf: the branches are expanded once.
        let any_of: Vec<Value> =
            (0..1000).map(|i| json!({ "properties": { format!("p{i}"): { "x-sensitive": true } } })).collect();
        let schema = json!({ "type": "array", "items": { "anyOf": any_of } });
        let one = run(schema.clone(), json!(vec![json!({ "p7": "s", "q": 1 }); 1]));
        let many = run(schema, json!(vec![json!({ "p7": "s", "q": 1 }); 2000]));
        assert_eq!(many.taken.len(), 2000);
        let per_record = (many.work - one.work) / 1999;
        assert!(per_record < 40, "each further record costs {per_record} units");
    }

    #[test]
    fn dynamic_ref_resolves_to_the_outermost_dynamic_anchor() {
        let (schema, value) = families::dynamic_tree(8);
        let w = run(schema, value);
        // Every node's secret, at every depth, not just the root's.
        assert!(pointers(&w).contains(&"/children/0/children/0/children/0/secret"), "{:?}", pointers(&w));
        assert!(w.taken.iter().all(|t| t.pointer.ends_with("/secret")));
        assert_eq!(w.taken.len(), 1 + 2 + 4 + 8);
        // The base tree alone marks nothing: its $dynamicRef stays in its own resource.
        let base = json!({
            "$id": "https://example.com/tree", "$dynamicAnchor": "node", "type": "object",
            "properties": { "children": { "type": "array", "items": { "$dynamicRef": "#node" } } },
            "$defs": { "strict": { "$id": "strict", "$dynamicAnchor": "node", "$ref": "tree",
                                   "properties": { "secret": { "x-sensitive": true } } } }
        });
        let w = run(base, json!({ "secret": "s", "children": [{ "secret": "s" }] }));
        assert!(w.taken.is_empty(), "{:?}", pointers(&w));
    }

    #[test]
    fn dynamic_ref_without_a_matching_dynamic_anchor_is_a_plain_ref() {
        // Its target has `$anchor`, not `$dynamicAnchor`: no dynamic scope lookup. (In a
        // resource of its own: one name as both in one resource is `schema_invalid`.)
        let schema = json!({
            "$id": "https://example.com/root", "$dynamicAnchor": "items",
            "properties": { "list": { "$ref": "list" } },
            "$defs": { "list": { "$id": "list", "type": "array", "items": { "$dynamicRef": "#items" },
                "$defs": { "foo": { "$anchor": "items", "properties": { "k": { "x-sensitive": true } } } } } }
        });
        let w = run(schema, json!({ "list": [{ "k": "secret", "list": [] }] }));
        assert_eq!(pointers(&w), ["/list/0/k"]);
    }

    #[test]
    fn recursive_ref_resolves_to_the_outermost_recursive_anchor() {
        let extended = |anchor: bool| {
            json!({
                "$id": "https://example.com/strict", "$recursiveAnchor": anchor, "$ref": "tree",
                "properties": { "secret": { "x-sensitive": true } },
                "$defs": { "tree": { "$id": "tree", "$recursiveAnchor": true, "type": "object",
                    "properties": { "children": { "type": "array", "items": { "$recursiveRef": "#" } } } } }
            })
        };
        let value = json!({ "secret": "a", "children": [{ "secret": "b", "children": [{ "secret": "c" }] }] });
        let w = run(extended(true), value.clone());
        assert_eq!(pointers(&w), ["/secret", "/children/0/secret", "/children/0/children/0/secret"]);
        // Without `$recursiveAnchor` on the outer resource, recursion stays in the base tree.
        let w = run(extended(false), value);
        assert_eq!(pointers(&w), ["/secret"]);
    }

    #[test]
    fn dynamic_anchors_must_be_strings_and_recursive_anchors_booleans() {
        for (schema, at) in [
            (json!({ "$dynamicAnchor": 5 }), "/$dynamicAnchor"),
            (json!({ "$defs": { "a": { "$recursiveAnchor": "yes" } } }), "/$defs/a/$recursiveAnchor"),
        ] {
            let e = compile(&schema, "", &Limits::default()).err().unwrap();
            assert_eq!((e.code, e.pointer.as_str()), (ErrorCode::SchemaInvalid, at));
        }
    }

    #[test]
    fn ecma_patterns_decide_which_properties_are_marked() {
        let schema = json!({ "type": "object", "patternProperties": {
            "^\\s": { "x-sensitive": true },
            "^\\w+$": { "type": "string" },
            "^x.y$": { "x-sensitive": true }
        }});
        let value =
            json!({ "\u{a0}nbsp": "1", "\u{feff}bom": "2", "clé": 3, "x\u{2028}y": "4", "x-y": "5", "ok": "6" });
        let w = run(schema.clone(), value.clone());
        assert_eq!(pointers(&w), ["/\u{a0}nbsp", "/\u{feff}bom", "/x-y"]);
        // In allowlist mode, a key no pattern matches is undeclared: `\w` is ASCII, `.` stops at U+2028.
        let w = walk_with(&schema, &value, &Limits::default(), true);
        // (Named by their labels: an undeclared member is reported at its object.)
        let reasons: Vec<(&str, &str, Reason)> =
            w.taken.iter().map(|t| (t.pointer.as_str(), t.label.as_str(), t.reason)).collect();
        assert!(
            reasons.contains(&("", "clé", Reason::Undeclared))
                && reasons.contains(&("", "x\u{2028}y", Reason::Undeclared)),
            "{reasons:?}"
        );
        assert_eq!(w.value, json!({ "ok": "6" }));
    }

    #[test]
    fn unsupported_and_oversized_patterns_are_schema_invalid() {
        for (pattern, why) in
            [("^(?!public_)", "look-ahead"), ("(a{1,1000}){1,1000}", "over the limit of 10000"), ("\\p{L}", "property")]
        {
            let schema =
                json!({ "properties": { "p": { "patternProperties": { pattern: { "x-sensitive": true } } } } });
            let e = compile(&schema, "/outputSchema", &Limits::default()).err().unwrap();
            assert_eq!(e.code, ErrorCode::SchemaInvalid);
            assert_eq!(
                e.pointer,
                format!("/outputSchema/properties/p/patternProperties/{}", pattern.replace('/', "~1"))
            );
            assert!(e.detail.contains(why) && e.detail.contains("ECMA-262"), "{}", e.detail);
        }
        // All the patterns of a schema together are bounded too.
        let many: serde_json::Map<String, Value> =
            (0..250).map(|i| (format!("^k{i}(?:a{{1,1000}})$"), json!({ "x-sensitive": true }))).collect();
        let e = compile(&json!({ "patternProperties": many }), "", &Limits::default()).err().unwrap();
        assert!(e.detail.contains("1000000 states and class ranges in all"), "{}", e.detail);
    }

    #[test]
    fn content_schema_marks_inside_a_json_string() {
        let schema = json!({ "type": "object", "properties": { "payload": {
            "type": "string", "contentMediaType": "application/json",
            "contentSchema": { "type": "object", "properties": { "token": { "title": "Token", "x-sensitive": true }, "list": { "items": { "x-sensitive": true } } } }
        }}});
        let w =
            run(schema.clone(), json!({ "payload": "{\"user\": \"ana\", \"token\": \"tk_1\", \"list\": [\"a\"]}" }));
        assert_eq!(w.value, json!({ "payload": "{\"user\":\"ana\",\"list\":[null]}" }));
        assert_eq!(pointers(&w), ["/payload", "/payload"]);
        assert_eq!((w.taken[0].label.as_str(), &w.taken[0].value), ("Token", &json!("tk_1")));
        // Again: nothing inside is marked any more, so the string stays byte for byte.
        let again = run(schema.clone(), w.value.clone());
        assert!(again.taken.is_empty() && again.value == w.value);
        // Not JSON: the whole string, as a mismatch.
        let w = run(schema.clone(), json!({ "payload": "token=tk_1" }));
        assert_eq!((pointers(&w), w.taken[0].reason), (vec!["/payload"], Reason::SchemaMismatch));
        assert_eq!(w.value, json!({}));
        // JSON of the wrong type inside: the whole string, as the mismatch it is.
        let w = run(schema.clone(), json!({ "payload": "[\"tk_1\"]" }));
        assert_eq!((pointers(&w), w.taken[0].reason), (vec!["/payload"], Reason::SchemaMismatch));
        // JSON nested deeper than the depth limit allows inside is JSON the core gives up on,
        // never a string that is not JSON: the result fails, at the string.
        let deep = format!("{{\"token\": {}1{}}}", "[".repeat(200), "]".repeat(200));
        let w = run(schema, json!({ "payload": deep }));
        let e = w.error.expect("depth_limit");
        assert_eq!((e.code, e.pointer.as_str()), (ErrorCode::DepthLimit, "/payload"));
    }

    #[test]
    fn content_that_cannot_be_decoded_is_taken_whole_when_it_holds_marks() {
        let schema = |extra: Value| {
            let mut s =
                json!({ "type": "string", "contentSchema": { "properties": { "k": { "x-sensitive": true } } } });
            s.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            json!({ "properties": { "p": s } })
        };
        let value = json!({ "p": "{\"k\":\"v\",\"o\":1}" });
        for extra in [json!({ "contentEncoding": "base64" }), json!({ "contentMediaType": "text/plain" })] {
            let w = run(schema(extra.clone()), value.clone());
            assert_eq!((pointers(&w), w.taken[0].reason), (vec!["/p"], Reason::SchemaMismatch), "{extra}");
        }
        for extra in [json!({}), json!({ "contentMediaType": "application/vnd.api+json; charset=utf-8" })] {
            let w = run(schema(extra.clone()), value.clone());
            assert_eq!(w.value, json!({ "p": "{\"o\":1}" }), "{extra}");
        }
        // Without marks below, nothing is decoded at all.
        let plain =
            json!({ "properties": { "p": { "contentEncoding": "base64", "contentSchema": { "type": "object" } } } });
        assert!(run(plain, value).taken.is_empty());
    }

    #[test]
    fn removing_many_keys_keeps_the_rest_in_order() {
        let (schema, value) = families::many_properties(30);
        let w = run(schema, value);
        let kept: Vec<&String> = w.value.as_object().unwrap().keys().collect();
        assert_eq!(kept.len(), 20);
        assert_eq!(kept[..3], ["p1", "p2", "p4"]);
    }

    /// Many owners' patterns matched through one index give what matching them owner by owner
    /// gave: the same values taken, for the same reasons, in both modes.
    #[cfg(not(target_arch = "wasm32"))]
    mod merged_patterns {
        use super::*;
        use proptest::prelude::*;

        fn pattern() -> impl Strategy<Value = String> {
            let literal = prop::collection::vec(prop::sample::select(&['a', 'b', '/'][..]), 0..3)
                .prop_map(|c| c.into_iter().collect::<String>());
            let anchors = prop::sample::select(&[("", ""), ("^", ""), ("", "$"), ("^", "$")][..]);
            let regex = prop::sample::select(&["a+b", "^[ab]{2}$", "b|^a"][..]).prop_map(str::to_string);
            prop_oneof![(anchors, literal).prop_map(|((a, z), l)| format!("{a}{l}{z}")), regex]
        }

        fn owner() -> impl Strategy<Value = Value> {
            let patterns = prop::collection::vec((pattern(), any::<bool>()), 0..3);
            let extra = prop::sample::select(&[0u8, 1, 2][..]);
            (patterns, extra).prop_map(|(patterns, extra)| {
                let patterns: serde_json::Map<String, Value> =
                    patterns.into_iter().map(|(p, mark)| (p, json!({ "x-sensitive": mark, "title": "t" }))).collect();
                let mut owner = json!({ "type": "object", "patternProperties": patterns });
                match extra {
                    1 => owner["properties"] = json!({ "ab": { "type": "string" } }),
                    2 => owner["additionalProperties"] = json!({ "type": "integer" }),
                    _ => {}
                }
                owner
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

            #[test]
            fn one_index_matches_what_each_owner_matched(
                owners in prop::collection::vec(owner(), 1..14),
                keys in prop::collection::vec(prop::collection::vec(prop::sample::select(&['a', 'b', '/'][..]), 0..4), 0..8),
                allowlist in any::<bool>(),
            ) {
                let schema = json!({ "anyOf": owners });
                let value: serde_json::Map<String, Value> =
                    keys.into_iter().enumerate().map(|(i, k)| (k.into_iter().collect(), json!(i))).collect();
                let value = Value::Object(value);
                let limits = Limits::default();
                let compiled = compile(&schema, "", &limits).unwrap();
                let outcome = |mut eval: Eval| {
                    let mut v = value.clone();
                    let taken = walk(&compiled, &mut v, allowlist, false, &mut eval, "");
                    let taken: Vec<(String, Reason, String)> =
                        taken.into_iter().map(|t| (t.pointer, t.reason, t.label)).collect();
                    (taken, v)
                };
                prop_assert_eq!(outcome(Eval::new(&limits)), outcome(Eval::new(&limits).without_merged_patterns()));
            }
        }
    }
}
