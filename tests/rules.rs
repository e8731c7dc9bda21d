//! Native tests for the numbered rules of the contract (issue 2), one section per rule.

mod common;

use common::*;
use serde_json::{json, Value};
use webmcp_redact::{redact, CompiledTool, ErrorCode, Format, KnownSecret, Limits, Options};

fn key_tool() -> Value {
    json!({ "name": "generate_api_key", "outputSchema": { "type": "object", "properties": {
        "id": { "type": "string" }, "name": { "type": "string" },
        "secret": { "type": "string", "x-sensitive": true, "title": "API key" } } } })
}

fn reasons(o: &webmcp_redact::Outcome) -> Vec<(&str, &str)> {
    o.redactions.iter().map(|r| (r.pointer.as_str(), r.reason.as_str())).collect()
}

// Rule 2: shape and passthrough.

#[test]
fn nothing_sensitive_passes_through_byte_identical() {
    let raw = r#"{ "id" : "k1",  "n": 1.10, "big": 123456789012345678901234567890 }"#;
    let o = run_with(json!({ "name": "t" }), raw, Format::Webmcp, &[]);
    assert_eq!(o.agent_json, raw);
    assert!(o.redactions.is_empty() && o.secrets.is_empty() && !o.withheld);
}

#[test]
fn a_redacted_structured_value_becomes_a_call_tool_result() {
    let o = run(key_tool(), json!({ "id": "k1", "name": "prod", "secret": "sk_CANARY_2" }));
    let a = agent(&o);
    assert_eq!(a["structuredContent"], json!({ "id": "k1", "name": "prod" }));
    assert_eq!(a["content"][0], json!({ "type": "text", "text": r#"{"id":"k1","name":"prod"}"# }));
    assert_eq!(a["content"][1]["type"], "secret_reference");
    assert_eq!(a["content"][1]["label"], "API key");
    assert_no_canary(&o, "CANARY_2");
}

// Rule 3: marks, $ref, errors.

#[test]
fn recursive_schema_marks_at_every_depth() {
    let def = json!({ "name": "tree", "outputSchema": { "$ref": "#/$defs/node", "$defs": { "node": {
        "type": "object", "properties": { "token": { "x-sensitive": "credentials" },
        "children": { "type": "array", "items": { "$ref": "#/$defs/node" } } } } } } });
    let raw = json!({ "token": "CANARY_a", "children": [{ "token": "CANARY_b", "children": [{ "token": "CANARY_c", "children": [] }] }] });
    let o = run(def.clone(), raw);
    assert_no_canary(&o, "CANARY");
    let pointers: Vec<&str> = o.redactions.iter().map(|r| r.pointer.as_str()).collect();
    assert_eq!(pointers, ["/token", "/children/0/token", "/children/0/children/0/token"]);
    assert_idempotent(&def, &o, Format::Webmcp);
}

#[test]
fn a_ref_cycle_that_never_descends_is_ref_limit() {
    let def = json!({ "name": "t", "outputSchema": { "$defs": { "a": { "$ref": "#/$defs/b" }, "b": { "allOf": [{ "$ref": "#/$defs/a" }] } }, "$ref": "#/$defs/a" } });
    let e = CompiledTool::from_value(&def, &Limits::default()).err().unwrap();
    assert_eq!(e.code, ErrorCode::RefLimit);
    assert_eq!(e.tool, "t");
    assert!(e.pointer.starts_with("/outputSchema"), "{}", e.pointer);
}

#[test]
fn long_ref_chains_compile_iteratively_and_hit_the_hop_limit() {
    // 50,000 chained $refs: a recursive compiler would overflow the stack here.
    let n = 50_000;
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        defs.insert(format!("d{i}"), json!({ "$ref": format!("#/$defs/d{}", i + 1) }));
    }
    defs.insert(format!("d{n}"), json!({ "type": "string", "x-sensitive": true }));
    let def = json!({ "name": "t", "outputSchema": { "$defs": defs, "$ref": "#/$defs/d0" } });
    let e = CompiledTool::from_value(&def, &Limits::default()).err().unwrap();
    assert_eq!(e.code, ErrorCode::RefLimit);
    let generous = Limits { max_ref_hops: n + 1, ..Limits::default() };
    let tool = CompiledTool::from_value(&def, &generous).unwrap();
    let o =
        redact(&tool, r#""CANARY_chain""#, &Options { limits: generous, ..Options::default() }, &mut Counter(0), &[]);
    assert_no_canary(&o, "CANARY_chain");
}

#[test]
fn every_schema_error_code_names_tool_and_pointer() {
    let cases = [
        (
            json!({ "properties": { "a": { "x-sensitive": 5 } } }),
            ErrorCode::SchemaInvalid,
            "/outputSchema/properties/a/x-sensitive",
        ),
        (
            json!({ "properties": { "a": { "x-sensitive": "" } } }),
            ErrorCode::SchemaInvalid,
            "/outputSchema/properties/a/x-sensitive",
        ),
        (
            json!({ "properties": { "a": { "$ref": "https://evil.example/s.json" } } }),
            ErrorCode::RemoteRef,
            "/outputSchema/properties/a/$ref",
        ),
        (json!({ "$ref": "other.json#/x" }), ErrorCode::RemoteRef, "/outputSchema/$ref"),
        (json!({ "$ref": "#/$defs/missing" }), ErrorCode::SchemaInvalid, "/outputSchema/$ref"),
        (json!({ "$ref": "#nowhere" }), ErrorCode::SchemaInvalid, "/outputSchema/$ref"),
        (json!({ "type": "text" }), ErrorCode::SchemaInvalid, "/outputSchema/type"),
        (json!({ "anyOf": {} }), ErrorCode::SchemaInvalid, "/outputSchema/anyOf"),
        (json!({ "items": 3 }), ErrorCode::SchemaInvalid, "/outputSchema/items"),
    ];
    for (schema, code, pointer) in cases {
        let e = CompiledTool::from_value(&json!({ "name": "bad_tool", "outputSchema": schema }), &Limits::default())
            .err()
            .unwrap();
        assert_eq!((e.code, e.pointer.as_str()), (code, pointer), "{schema}");
        assert!(e.message().contains("bad_tool") && e.message().contains(pointer), "{}", e.message());
    }
}

#[test]
fn ids_and_anchors_resolve_inside_the_document() {
    let def = json!({ "name": "t", "outputSchema": {
        "$id": "https://app.example/schemas/root.json",
        "properties": { "a": { "$ref": "item.json" }, "b": { "$ref": "#secret" }, "c": { "$ref": "item.json#/properties/pin" } },
        "$defs": {
            "item": { "$id": "item.json", "type": "object", "properties": { "pin": { "x-sensitive": true } } },
            "s": { "$anchor": "secret", "x-sensitive": true } } } });
    let o = run(def, json!({ "a": { "pin": "CANARY_1" }, "b": "CANARY_2", "c": "CANARY_3" }));
    assert_no_canary(&o, "CANARY");
    assert_eq!(reasons(&o), [("/a/pin", "x_sensitive"), ("/b", "x_sensitive"), ("/c", "x_sensitive")]);
}

/// Rule 3: a schema the specifications leave undefined is `schema_invalid`, never a silent
/// choice between two readings (one of which could drop a mark).
#[test]
fn ambiguous_names_and_item_lists_are_schema_invalid() {
    let marked = json!({ "x-sensitive": true });
    let cases = [
        // A name declared twice in one schema resource, the marked one first or second.
        (
            json!({ "$defs": { "a": { "$anchor": "s" }, "b": { "$anchor": "s", "x-sensitive": true } },
                 "properties": { "p": { "$ref": "#s" } } }),
            "/$defs/",
            "$anchor",
        ),
        (
            json!({ "$defs": { "a": { "$anchor": "s", "x-sensitive": true }, "b": { "$anchor": "s" } },
                 "properties": { "p": { "$ref": "#s" } } }),
            "/$defs/",
            "$anchor",
        ),
        (
            json!({ "$defs": { "a": { "$dynamicAnchor": "s", "x-sensitive": true }, "b": { "$dynamicAnchor": "s" } },
                 "properties": { "p": { "$dynamicRef": "#s" } } }),
            "/$defs/",
            "$dynamicAnchor",
        ),
        (
            json!({ "$defs": { "a": { "$anchor": "s" }, "b": { "$dynamicAnchor": "s", "x-sensitive": true } },
                 "properties": { "p": { "$ref": "#s" } } }),
            "/$defs/",
            "anchor \"s\"",
        ),
        (
            json!({ "$id": "http://e/r", "$defs": { "a": { "$id": "s", "x-sensitive": true }, "b": { "$id": "s" } },
                 "properties": { "p": { "$ref": "s" } } }),
            "/$defs/",
            "$id",
        ),
        (json!({ "$id": "http://e/r", "$defs": { "a": { "$id": "http://e/r" } } }), "/$defs/a", "$id"),
        // `prefixItems` (2020-12) beside the array form of `items` (2019-09): which list
        // names element 0 depends on the draft.
        (json!({ "type": "array", "prefixItems": [{ "type": "string" }], "items": [marked] }), "", "prefixItems"),
        // A `$ref` into a keyword JSON Schema does not know, whose subschema starts a resource
        // of its own: its references would resolve against the wrong base.
        (
            json!({ "$defs": { "x": {} }, "properties": { "a": { "$ref": "#/foo" } },
                 "foo": { "$id": "http://o/", "$defs": { "x": marked }, "$ref": "#/$defs/x" } }),
            "/foo",
            "$id",
        ),
    ];
    for (schema, pointer, word) in cases {
        let def = json!({ "name": "t", "outputSchema": schema });
        let e =
            CompiledTool::from_value(&def, &Limits::default()).err().unwrap_or_else(|| panic!("compiles: {schema}"));
        assert_eq!(e.code, ErrorCode::SchemaInvalid, "{schema}");
        assert!(e.pointer.starts_with(&format!("/outputSchema{pointer}")), "{schema}: {}", e.pointer);
        assert!(e.message().contains(word), "{schema}: {}", e.message());
    }
    // The same name in two resources, an anchor and a `$dynamicAnchor` on one subschema, and
    // `prefixItems` beside `items` as one schema are fine.
    for schema in [
        json!({ "$defs": { "a": { "$id": "http://e/a", "$anchor": "s" }, "b": { "$id": "http://e/b", "$anchor": "s" } } }),
        json!({ "$defs": { "a": { "$anchor": "s", "$dynamicAnchor": "s" } }, "$ref": "#s" }),
        json!({ "prefixItems": [true], "items": marked }),
        json!({ "items": [true], "additionalItems": marked }),
    ] {
        let def = json!({ "name": "t", "outputSchema": schema });
        assert!(CompiledTool::from_value(&def, &Limits::default()).is_ok(), "{schema}");
    }
}

#[test]
fn a_false_mark_below_a_marked_parent_unmarks_nothing() {
    let def = json!({ "name": "t", "outputSchema": { "properties": { "creds": { "x-sensitive": true, "properties": { "user": { "x-sensitive": false } } } } } });
    let o = run(def, json!({ "creds": { "user": "CANARY_user" } }));
    assert_no_canary(&o, "CANARY_user");
}

#[test]
fn secret_property_names_redact_the_object_and_its_keys_everywhere() {
    let def = json!({ "name": "t", "outputSchema": { "properties": { "vault": { "propertyNames": { "x-sensitive": true } } } } });
    let raw = json!({ "content": [{ "type": "text", "text": "keys: CANARY_key" }], "structuredContent": { "vault": { "CANARY_key": 1 } } });
    let o = run(def, raw);
    assert_no_canary(&o, "CANARY_key");
    assert_eq!(o.redactions[0].pointer, "/structuredContent/vault");
}

#[test]
fn type_mismatch_under_marks_is_redacted_whole_and_null_is_left() {
    let def = json!({ "name": "t", "outputSchema": { "properties": { "creds": { "type": "object", "properties": { "key": { "x-sensitive": true } } } } } });
    let o = run(def.clone(), json!({ "creds": "CANARY_str" }));
    assert_eq!(reasons(&o), [("/creds", "schema_mismatch")]);
    assert_no_canary(&o, "CANARY_str");
    let o = run_with(def, r#"{"creds":null}"#, Format::Webmcp, &[]);
    assert_eq!(o.agent_json, r#"{"creds":null}"#);
}

// Rule 4: sensitiveHint.

#[test]
fn sensitive_hint_values() {
    // Under the default policy (withholdAt: high); "low" and "medium" are tested in policy.rs.
    for hint in [json!(true), json!("high"), json!("other"), json!(1), json!({})] {
        let o = run(json!({ "name": "t", "annotations": { "sensitiveHint": hint } }), json!({ "a": "CANARY_h" }));
        assert!(o.withheld, "{hint}");
        assert_no_canary(&o, "CANARY_h");
    }
    for hint in [json!(false), json!(0), json!(""), json!(null), json!("low"), json!("medium")] {
        let o = run(json!({ "name": "t", "annotations": { "sensitiveHint": hint } }), json!({ "a": "x" }));
        assert!(!o.withheld && o.redactions.is_empty(), "{hint}");
    }
}

#[test]
fn allowlist_mode_a_name_only_an_if_tests_is_not_declared() {
    // `if` tests the value without describing it; `then` and `else` describe it.
    let def = json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": {
        "type": "object",
        "properties": { "id": { "type": "string" }, "secret": { "type": "string", "x-sensitive": true } },
        "if": { "properties": { "debug": { "const": "on" }, "id": { "const": "k1" } },
                "allOf": [{ "properties": { "trace": {} } }], "additionalProperties": true },
        "then": { "properties": { "region": { "type": "string" } } } } });
    let raw = json!({ "id": "k1", "secret": "CANARY_s", "debug": "CANARY_d", "trace": "CANARY_t", "region": "eu" });
    let o = run(def.clone(), raw);
    assert_no_canary(&o, "CANARY");
    assert_eq!(agent(&o)["structuredContent"], json!({ "id": "k1", "region": "eu" }));
    assert_eq!(reasons(&o).iter().filter(|r| r.1 == "undeclared").count(), 2, "{:?}", reasons(&o));
    // A subschema that also applies outside the `if` (here through `$ref`) declares as usual.
    let def = json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": {
        "$defs": { "d": { "properties": { "debug": {} } } },
        "properties": { "secret": { "x-sensitive": true } },
        "allOf": [{ "$ref": "#/$defs/d" }], "if": { "$ref": "#/$defs/d" } } });
    let o = run(def, json!({ "secret": "CANARY_s", "debug": "shown" }));
    assert_eq!(agent(&o)["structuredContent"], json!({ "debug": "shown" }));
}

#[test]
fn allowlist_mode_a_catch_all_that_only_applies_true_describes_nothing() {
    for catch_all in [
        json!({ "anyOf": [true] }),
        json!({ "oneOf": [{}], "title": "anything" }),
        json!({ "allOf": [{ "$ref": "#/$defs/t" }], "anyOf": [true, {}] }),
        json!({ "if": true, "then": {}, "else": true }),
    ] {
        let def = json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": {
            "properties": { "card": { "x-sensitive": true } }, "additionalProperties": catch_all, "$defs": { "t": true } } });
        let o = run(def, json!({ "card": "4111", "address": "CANARY 1 Main St" }));
        assert_no_canary(&o, "CANARY");
    }
    // A branch that describes something declares what it covers.
    let def = json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": {
        "properties": { "card": { "x-sensitive": true } }, "additionalProperties": { "anyOf": [{ "type": "string" }] } } });
    let o = run(def, json!({ "card": "4111", "address": "1 Main St" }));
    assert_eq!(agent(&o)["structuredContent"], json!({ "address": "1 Main St" }));
}

/// Rule 4: a subschema that constrains nothing (whatever keywords spell it) declares nothing
/// wherever it applies to what a name does not single out: `patternProperties` and
/// `prefixItems` follow the rule of `additionalProperties` and `items`.
#[test]
fn allowlist_mode_a_subschema_that_constrains_nothing_declares_nothing_wherever_it_applies() {
    let sens = |s: Value| json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": s });
    let raw = json!({ "pw": "x", "apiKey": "CANARY_a", "list": ["CANARY_b"] });
    let pw = json!({ "x-sensitive": true });
    for s in [
        json!({ "properties": { "pw": pw }, "patternProperties": { "": true } }),
        json!({ "properties": { "pw": pw }, "patternProperties": { "^.*$": {} } }),
        json!({ "properties": { "pw": pw }, "patternProperties": { "^a": { "$ref": "#/$defs/t" } }, "$defs": { "t": {} } }),
        json!({ "properties": { "pw": pw, "list": { "prefixItems": [true] } } }),
        json!({ "properties": { "pw": pw, "list": { "items": [{ "description": "any" }] } } }),
        json!({ "properties": { "pw": pw }, "additionalProperties": { "not": false } }),
        json!({ "properties": { "pw": pw }, "additionalProperties": { "not": { "type": "null" } } }),
        json!({ "properties": { "pw": pw }, "additionalProperties": { "anyOf": [true, { "type": "string" }] } }),
        json!({ "properties": { "pw": pw }, "additionalProperties": { "oneOf": [{ "type": "string" }, {}] } }),
        json!({ "properties": { "pw": pw }, "additionalProperties": { "allOf": [{ "not": false }, true] } }),
        json!({ "properties": { "pw": pw }, "additionalProperties": { "properties": { "a": true }, "items": {} } }),
        json!({ "properties": { "pw": pw }, "additionalProperties": { "if": { "type": "string" }, "then": true } }),
        json!({ "properties": { "pw": pw }, "additionalProperties": { "x-vendor": { "type": "string" } } }),
        json!({ "properties": { "pw": pw }, "additionalProperties": { "$ref": "#/$defs/r" },
                "$defs": { "r": { "properties": { "next": { "$ref": "#/$defs/r" } } } } }),
    ] {
        let o = run(sens(s.clone()), raw.clone());
        assert_no_canary(&o, "CANARY");
        assert!(o.redactions.iter().any(|r| r.reason.as_str() == "undeclared"), "{s}");
    }
    // The schema the agent is shown agrees: a name only a trivial pattern matches may go, so it
    // is no longer `required`.
    let def = sens(json!({ "properties": { "pw": pw, "id": {} }, "patternProperties": { "^api": { "not": false } },
                           "required": ["id", "apiKey"] }));
    let shown = tool(def.clone()).agent_schema(&def, &Limits::default()).unwrap().unwrap();
    assert_eq!(shown["required"], json!(["id"]), "{shown}");
    // What constrains the value declares it; a named property declares its name, `true` or not.
    let s = json!({ "properties": { "pw": pw, "apiKey": true, "list": { "prefixItems": [{ "type": "string" }] } },
                    "patternProperties": { "^x": { "type": "string" } } });
    let o = run(sens(s), json!({ "pw": "x", "apiKey": "k", "list": ["e"], "xy": "z" }));
    assert_eq!(agent(&o)["structuredContent"], json!({ "apiKey": "k", "list": ["e"], "xy": "z" }));
}

#[test]
fn allowlist_mode_takes_everything_undescribed() {
    let mut def = key_tool();
    def["annotations"] = json!({ "sensitiveHint": true });
    let raw = json!({
        "content": [
            { "type": "text", "text": r#"{"id":"k1","secret":"CANARY_s","extra":"CANARY_e"}"# },
            { "type": "text", "text": "note CANARY_n" },
            { "type": "image", "data": "CANARYimage1", "mimeType": "image/png" }],
        "structuredContent": { "id": "k1", "secret": "CANARY_s", "extra": "CANARY_e" },
        "_meta": { "trace": "CANARY_m", "webmcp-redact/other": 1 },
        "debug": "CANARY_d" });
    let o = run(def.clone(), raw);
    assert_no_canary(&o, "CANARY");
    let a = agent(&o);
    assert_eq!(a["structuredContent"], json!({ "id": "k1" }));
    assert_eq!(a["_meta"].get("webmcp-redact/other"), None, "a key in our namespace the redactor did not write");
    let r: Vec<_> = reasons(&o);
    // The names of undeclared members never reach the agent: pointers stop at their parent.
    assert!(
        r.contains(&("/structuredContent", "undeclared"))
            && r.contains(&("/content/1", "undeclared"))
            && r.contains(&("/content/2", "undeclared"))
            && r.contains(&("/_meta", "undeclared"))
            && r.contains(&("", "undeclared")),
        "{r:?}"
    );
    assert_idempotent(&def, &o, Format::Webmcp);
}

// Rule 5: one canary test for each leak path.

fn leak(raw: Value) -> webmcp_redact::Outcome {
    let o = run(key_tool(), raw);
    assert_no_canary(&o, "CANARY_LEAK");
    assert_idempotent(&key_tool(), &o, Format::Webmcp);
    o
}

fn sc() -> Value {
    json!({ "id": "k1", "secret": "CANARY_LEAK/é+&x" })
}

#[test]
fn leak_path_duplicated_json_text() {
    for text in [
        sc().to_string(),
        serde_json::to_string_pretty(&sc()).unwrap(),
        r#"{"secret":"CANARY_LEAK/é+&x","id":"k1"}"#.to_string(),
    ] {
        let o = leak(json!({ "content": [{ "type": "text", "text": text }], "structuredContent": sc() }));
        assert_eq!(agent(&o)["content"][0]["text"], r#"{"id":"k1"}"#);
    }
}

#[test]
fn leak_path_other_text_blocks_in_each_encoding() {
    for text in [
        "key: CANARY_LEAK/é+&x",
        r#"{\"s\":\"CANARY_LEAK/é+&x\"}"#,
        "u?k=CANARY_LEAK%2F%C3%A9%2B%26x",
        "u?k=CANARY_LEAK%2f%c3%a9%2b%26x",
    ] {
        let o = leak(json!({ "content": [{ "type": "text", "text": text }], "structuredContent": sc() }));
        assert!(reasons(&o).contains(&("/content/0/text", "value_match")));
    }
}

#[test]
fn leak_path_resources_links_meta_and_error_text() {
    leak(
        json!({ "content": [{ "type": "resource", "resource": { "uri": "file:///CANARY_LEAK/é+&x", "text": "CANARY_LEAK/é+&x" } }], "structuredContent": sc() }),
    );
    leak(
        json!({ "content": [{ "type": "resource_link", "uri": "https://a.example/?k=CANARY_LEAK%2F%C3%A9%2B%26x", "name": "CANARY_LEAK/é+&x", "title": "CANARY_LEAK/é+&x", "description": "CANARY_LEAK/é+&x" }], "structuredContent": sc() }),
    );
    leak(
        json!({ "content": [{ "type": "text", "text": "ok", "_meta": { "x": ["CANARY_LEAK/é+&x"] } }], "structuredContent": sc(), "_meta": { "t": { "u": "CANARY_LEAK/é+&x" } } }),
    );
    let o = leak(
        json!({ "content": [{ "type": "text", "text": "failed for CANARY_LEAK/é+&x" }], "structuredContent": sc(), "isError": true }),
    );
    assert_eq!(agent(&o)["isError"], true);
}

#[test]
fn leak_path_json_text_without_structured_content() {
    let o = leak(json!({ "content": [{ "type": "text", "text": sc().to_string() }] }));
    assert_eq!(o.redactions[0].pointer, "/content/0/text");
}

#[test]
fn leak_path_user_only_and_unknown_blocks() {
    let o = leak(json!({ "content": [
        { "type": "text", "text": "CANARY_LEAK_user", "annotations": { "audience": ["user"] } },
        { "type": "x-custom", "payload": "CANARY_LEAK_unknown" },
        { "type": "text", "text": "both", "annotations": { "audience": ["user", "assistant"] } }] }));
    assert_eq!(reasons(&o), [("/content/0", "audience"), ("/content/1", "unknown_block")]);
    assert_eq!(agent(&o)["content"][0]["text"], "both");
}

#[test]
fn a_user_only_block_goes_to_the_vault_as_user_only_and_its_text_is_known() {
    let text = "Your one-time sign-in code is CANARY_USER_code.";
    let raw = json!({ "content": [
        { "type": "text", "text": "Forwarded: Your one-time sign-in code is CANARY_USER_code." },
        { "type": "text", "text": text, "annotations": { "audience": ["user"] } },
        { "type": "image", "data": "QUJDREVGR0g=", "mimeType": "image/png", "annotations": { "audience": [] } }] });
    for format in [Format::Webmcp, Format::Mcp] {
        let mut r = redactor(format);
        let o = r.redact(PLAIN, &raw.to_string(), None);
        assert!(!o.agent_json.contains("CANARY_USER"), "{format:?}: {}", o.agent_json);
        let side: Value = serde_json::from_str(&o.side_json()).unwrap();
        let entries: Vec<&Value> =
            side["secrets"].as_array().unwrap().iter().filter(|s| s["kind"] == "user_only").collect();
        assert_eq!(entries.len(), 2, "one entry per block, the image whole too");
        assert_eq!(entries[0]["value"], raw["content"][1]);
        assert_eq!(entries[0]["label"], "text for the user");
        assert_eq!(entries[1]["value"]["data"], "QUJDREVGR0g=");
        // Each has a handle in the report and a stub in the agent view.
        for e in &entries {
            let h = e["handle"].as_str().unwrap();
            assert!(o.redactions.iter().any(|x| x.reason.as_str() == "audience" && x.handle.as_deref() == Some(h)));
            assert!(o.agent_json.contains(h), "{format:?}: the stub carries the handle");
        }
        // The text is known: the echo in this result went, and so does one in a later result,
        // and a call that carries it is denied.
        assert!(reasons(&o).contains(&("/content/0/text", "value_match")));
        let later = r.redact(PLAIN, &text_result(&format!("quote: {text}")).to_string(), None);
        assert!(!later.agent_json.contains("CANARY_USER"), "{}", later.agent_json);
        let c = r.check(PLAIN, &json!({ "body": text }).to_string(), None).unwrap();
        assert_eq!(c.decision.as_str(), "deny");
        assert!(c.reasons.iter().any(|x| x.rule.code() == "secret_egress"));
        // The image's base64 payload is no known value: it does not fill the known set.
        let img = r.redact(PLAIN, &text_result("QUJDREVGR0g=").to_string(), None);
        assert!(img.unchanged);
    }
}

#[test]
fn user_only_blocks_each_get_their_own_entry_past_the_overflow_stub() {
    let def = r#"{"name":"many","outputSchema":{"properties":{"s":{"type":"array","items":{"x-sensitive":true}}}}}"#;
    let blocks: Vec<Value> = (0..40)
        .map(|i| json!({ "type": "text", "text": format!("private note {i:02}"), "annotations": { "audience": ["user"] } }))
        .collect();
    let values: Vec<String> = (0..40).map(|i| format!("secret value {i:02}")).collect();
    let raw = json!({ "content": blocks, "structuredContent": { "s": values } });
    let o = redactor(Format::Webmcp).redact(def, &raw.to_string(), None);
    let side: Value = serde_json::from_str(&o.side_json()).unwrap();
    let kinds: Vec<&str> = side["secrets"].as_array().unwrap().iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "user_only").count(), 40);
    assert_eq!(kinds.iter().filter(|k| **k == "value").count(), 32);
    assert_eq!(kinds.iter().filter(|k| **k == "many").count(), 1, "the 8 values past 32 share one stub");
    assert!(!o.agent_json.contains("private note") && !o.agent_json.contains("secret value"));
}

#[test]
fn leak_path_secret_reference_fields() {
    let o = leak(json!({ "content": [
        { "type": "text", "text": "Get it at /redeem/CANARY_LEAK_id" },
        { "type": "secret_reference", "id": "CANARY_LEAK_id", "label": "Deploy token", "redeemUrl": "/redeem/CANARY_LEAK_id", "ttl": 987654 },
        { "type": "secret_reference", "id": "CANARY_LEAK_bad", "redeemUrl": 7 }] }));
    assert!(!o.agent_json.contains("987654") && !o.agent_json.contains("redeemUrl"));
    let a = agent(&o);
    assert_eq!(a["content"][1].as_object().unwrap().keys().collect::<Vec<_>>(), ["type", "label", "handle"]);
    assert!(reasons(&o).contains(&("/content/2", "malformed_reference")));
}

#[test]
fn known_vault_values_are_scrubbed_from_later_results() {
    let known = [KnownSecret { label: "revealed key".into(), value: "CANARY_LEAK_known".into() }];
    let o = run_with(
        json!({ "name": "search" }),
        &json!({ "hits": ["found CANARY_LEAK_known here"] }).to_string(),
        Format::Webmcp,
        &known,
    );
    assert_no_canary(&o, "CANARY_LEAK_known");
    assert_eq!(reasons(&o), [("/hits/0", "value_match")]);
}

// Rule 6: stubs.

#[test]
fn array_elements_become_null_and_labels_fall_back() {
    let def = json!({ "name": "t", "outputSchema": { "properties": { "tokens": { "items": { "x-sensitive": true } } }, "additionalProperties": { "x-sensitive": true } } });
    let o = run(def, json!({ "tokens": ["CANARY_1", "CANARY_2"], "other": "CANARY_3" }));
    let a = agent(&o);
    assert_eq!(a["structuredContent"]["tokens"], json!([null, null]));
    let labels: Vec<&str> = o.redactions.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["tokens", "tokens", "other"]);
    assert_no_canary(&o, "CANARY");
}

#[test]
fn stubs_carry_only_label_and_a_fixed_length_handle() {
    let short = run(key_tool(), json!({ "secret": "abcd" }));
    let long = run(key_tool(), json!({ "secret": "x".repeat(5000) }));
    let stub = |o: &webmcp_redact::Outcome| agent(o)["content"][1].clone();
    assert_eq!(stub(&short).as_object().unwrap().len(), 3);
    assert_eq!(stub(&short)["handle"].as_str().unwrap().len(), 32);
    assert_eq!(stub(&short), stub(&long), "nothing about the value shows in the stub");
}

#[test]
fn past_32_stubs_one_more_stands_for_the_rest() {
    let def = json!({ "name": "t", "outputSchema": { "additionalProperties": { "x-sensitive": true } } });
    let raw: serde_json::Map<String, Value> =
        (0..40).map(|i| (format!("k{i}"), json!(format!("CANARY_{i:02}")))).collect();
    let o = run(def, Value::Object(raw));
    assert_eq!(o.secrets.len(), 33);
    let a = agent(&o);
    let stubs: Vec<&Value> =
        a["content"].as_array().unwrap().iter().filter(|b| b["type"] == "secret_reference").collect();
    assert_eq!(stubs.len(), 33);
    assert_eq!(stubs[32]["label"], "8 more values");
    assert_eq!(o.redactions.iter().filter(|r| r.handle.as_deref() == stubs[32]["handle"].as_str()).count(), 8);
    assert_no_canary(&o, "CANARY");
}

// Rule 7: the "mcp" format uses only standard blocks.

#[test]
fn mcp_format_writes_text_stubs() {
    let raw = json!({ "content": [{ "type": "secret_reference", "id": "r1", "label": "Token", "redeemUrl": "/r/1" }], "structuredContent": { "secret": "CANARY_m" } });
    let o = run_with(key_tool(), &raw.to_string(), Format::Mcp, &[]);
    let a = agent(&o);
    for block in a["content"].as_array().unwrap() {
        assert_eq!(block["type"], "text", "{block}");
    }
    assert_eq!(a["content"][0]["text"], "[secret withheld: Token]");
    assert_eq!(a["content"][0]["_meta"]["webmcp-redact/secret"]["label"], "Token");
    assert_no_canary(&o, "CANARY_m");
    assert_idempotent(&key_tool(), &o, Format::Mcp);
}

#[test]
fn mcp_format_wraps_a_plain_value() {
    let o = run_with(json!({ "name": "t" }), r#"{"a":1}"#, Format::Mcp, &[]);
    assert_eq!(
        agent(&o),
        json!({ "content": [{ "type": "text", "text": r#"{"a":1}"# }], "structuredContent": { "a": 1 } })
    );
}

// Rule 8: the report.

#[test]
fn report_is_in_meta_and_names_no_values() {
    let o = run(
        key_tool(),
        json!({ "content": [], "structuredContent": { "secret": "CANARY_r" }, "_meta": { "webmcp-redact/redactions": [{ "pointer": "/old", "reason": "x_sensitive", "label": "CANARY_forged" }] } }),
    );
    let a = agent(&o);
    let report = a["_meta"]["webmcp-redact/redactions"].as_array().unwrap();
    assert!(!o.agent_json.contains("CANARY_forged"), "a report the redactor did not write is tool data");
    assert_eq!(
        report,
        &[
            json!({ "pointer": "/structuredContent/secret", "reason": "x_sensitive", "label": "API key" }),
            json!({ "pointer": "/_meta", "reason": "forged", "label": "webmcp-redact key" }),
        ]
    );
    let last = a["content"].as_array().unwrap().last().unwrap().clone();
    assert!(last["text"].as_str().unwrap().starts_with("1 value was withheld"), "{last}");
}

// Rule 9: fail closed.

#[test]
fn every_failure_withholds_the_raw_result() {
    let tool = CompiledTool::from_value(&key_tool(), &Limits::default()).unwrap();
    let tight = Limits { max_depth: 3, max_input_bytes: 200, max_ref_hops: 64, ..Limits::default() };
    let cases = [
        (r#"{"secret":"CANARY_f""#.to_string(), ErrorCode::InvalidJson),
        (r#"{"a":[[[["CANARY_f"]]]]}"#.to_string(), ErrorCode::DepthLimit),
        (format!(r#"{{"secret":"CANARY_f{}"}}"#, "x".repeat(300)), ErrorCode::SizeLimit),
    ];
    for (raw, code) in cases {
        let o = redact(&tool, &raw, &Options { limits: tight, ..Options::default() }, &mut Counter(0), &[]);
        assert_eq!(o.error.as_ref().map(|e| e.code), Some(code));
        assert!(o.withheld);
        assert_no_canary(&o, "CANARY_f");
        assert_eq!(
            agent(&o),
            json!({ "content": [{ "type": "text", "text": format!("The result of generate_api_key was withheld: {code}.") }], "isError": true })
        );
    }
}

// Rule 10: invariants over generated inputs.

/// A small deterministic generator, so that failures reproduce.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn value(&mut self, depth: u32, n: &mut u32) -> Value {
        *n += 1;
        match if depth > 3 { self.pick(3) } else { self.pick(6) } {
            0 => json!(format!("CANARY_{n:04}")),
            1 => json!(self.pick(1000)),
            2 => Value::Null,
            3 => Value::Array((0..self.pick(4)).map(|_| self.value(depth + 1, n)).collect()),
            _ => Value::Object(
                (0..self.pick(5))
                    .map(|i| {
                        (["secret", "name", "items", "meta", "x"][i as usize].to_string(), self.value(depth + 1, n))
                    })
                    .collect(),
            ),
        }
    }
}

#[test]
fn invariants_hold_on_generated_results() {
    let schemas = [
        json!({ "properties": { "secret": { "x-sensitive": true }, "items": { "items": { "$ref": "#" } } } }),
        json!({ "type": "object", "additionalProperties": { "$ref": "#" }, "properties": { "name": { "x-sensitive": "pii" } } }),
        json!({ "anyOf": [{ "type": "array", "items": { "x-sensitive": true } }, { "type": "object", "properties": { "meta": { "type": "object", "properties": { "x": { "x-sensitive": true } } } } }] }),
    ];
    let mut g = Gen(0x9e3779b97f4a7c15);
    let mut redacted = 0;
    for round in 0..300 {
        let schema = &schemas[round % schemas.len()];
        for hint in [json!(false), json!(true)] {
            let def = json!({ "name": "gen", "annotations": { "sensitiveHint": hint }, "outputSchema": schema });
            let mut n = 0;
            let structured = g.value(0, &mut n);
            let raw = if g.pick(2) == 0 {
                structured.clone()
            } else {
                json!({ "content": [{ "type": "text", "text": structured.to_string() }, { "type": "text", "text": format!("see {}", structured) }], "structuredContent": { "v": structured } })
            };
            for format in [Format::Webmcp, Format::Mcp] {
                let o = run_with(def.clone(), &raw.to_string(), format, &[]);
                assert!(o.error.is_none(), "{:?}", o.error);
                let again = run_with(def.clone(), &raw.to_string(), format, &[]);
                assert_eq!(
                    again.agent_json, o.agent_json,
                    "same input, same output (handles come from the same counter)"
                );
                assert_idempotent(&def, &o, format);
                redacted += o.redactions.len();
                let side: Value = serde_json::from_str(&o.side_json()).unwrap();
                let mut vaulted = Vec::new();
                string_leaves(&side["secrets"], &mut vaulted);
                for st in vaulted.iter().filter(|st| st.starts_with("CANARY_")) {
                    assert!(!o.agent_json.contains(st.as_str()), "redacted {st} leaked: {}", o.agent_json);
                }
            }
        }
    }
    assert!(redacted > 500, "the generator should exercise redaction, got {redacted}");
}

#[test]
fn thousands_of_redacted_values_are_all_matched() {
    // 3,000 marked values, each mentioned again in text (npm run bench measures the speed).
    let def =
        json!({ "name": "t", "outputSchema": { "properties": { "keys": { "items": { "x-sensitive": true } } } } });
    let keys: Vec<String> = (0..3000).map(|i| format!("sk_CANARY_{i:05}")).collect();
    let text = keys.join(" ");
    let raw = json!({ "content": [{ "type": "text", "text": text }], "structuredContent": { "keys": keys } });
    let o = run(def, raw);
    assert_no_canary(&o, "CANARY");
    assert_eq!(o.redactions.iter().filter(|r| r.reason.as_str() == "value_match").count(), 1);
}

/// In allowlist mode an undeclared member is reported at its object, whatever its key: a key
/// of digits (a card number, a PIN used as a key) is a name too, not an array index (found by
/// review: the pointer kept it). An undeclared element of an array keeps its index.
#[test]
fn allowlist_mode_reports_an_undeclared_key_of_digits_at_its_object() {
    let def = json!({ "name": "t", "annotations": { "sensitiveHint": true }, "outputSchema": {
        "type": "object", "properties": { "pin": { "x-sensitive": true }, "cards": { "type": "object" },
        "list": { "prefixItems": [{}] } } } });
    let raw = json!({ "4111111111111111": 1, "cards": { "5500000000000004": "x" }, "list": ["a", "b"] });
    let o = run(def.clone(), raw.clone());
    assert_no_canary(&o, "4111111111111111");
    assert_no_canary(&o, "5500000000000004");
    let pointers: Vec<&str> =
        o.redactions.iter().filter(|r| r.reason.as_str() == "undeclared").map(|r| r.pointer.as_str()).collect();
    assert!(pointers.contains(&"") && pointers.contains(&"/cards") && pointers.contains(&"/list/1"), "{pointers:?}");
    // A call result's own members and `_meta` keys alike.
    let raw = json!({ "content": [{ "type": "text", "text": "hi" }], "31415926": 1, "_meta": { "27182818": 2 } });
    let o = run(def, raw);
    assert_no_canary(&o, "31415926");
    assert_no_canary(&o, "27182818");
}
