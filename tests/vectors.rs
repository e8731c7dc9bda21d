//! Runs the shared conformance vectors in `tests/vectors/` (the JS tests run the same files,
//! through the npm package: `tests/js/vectors.test.mjs`). `tests/vectors/README.md` documents
//! the format: each file is one vector, a tool and a raw result with this library's exact
//! `expect`ation (its wording, report, error codes, vault entries), `canaries` it never lets
//! through, and, where the proposal itself decides, a `proposal` any implementation must meet.
//!
//! Besides `expect`, every vector is checked against the invariants of rule 10: the canaries are
//! absent from the agent view, and so is every string value of 4 or more characters that was
//! redacted for a mark (`x_sensitive`, `schema_mismatch`), from every string that carries
//! content (see `content_strings`); the `proposal`'s hidden strings are absent and its kept
//! strings present; redacting the agent view again, with the same tool and a vault that now
//! holds this result's secrets, changes nothing; the same input gives the same output apart from
//! handles.
//!
//! `BLESS_VECTORS=1 cargo test --test vectors` rewrites each `expect` from what the core does
//! now (other fields are kept). Blessing drafts expectations; it never replaces reading them
//! against the contract. The invariants are checked while blessing too, so a leak cannot be
//! blessed. `VECTOR=substring` runs only the vectors whose file name contains it.

mod common;

use std::collections::HashMap;
use std::{env, fs};

use common::{string_leaves, Counter};
use serde_json::{json, Map, Value};
use webmcp_redact::policy::Policy;
use webmcp_redact::{
    parse_json, redact, redact_with, CompiledTool, Format, KnownSecret, KnownSecrets, Limits, Options,
};

const DIR: &str = "tests/vectors";

#[test]
fn conformance_vectors() {
    let bless = env::var("BLESS_VECTORS").is_ok_and(|v| v == "1");
    let filter = env::var("VECTOR").ok().filter(|f| !f.is_empty());
    let mut files: Vec<_> = fs::read_dir(DIR)
        .expect("tests/vectors exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    if filter.is_none() {
        assert!(files.len() >= 60, "expected at least 60 vectors, found {}", files.len());
    }
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in &files {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if filter.as_deref().is_some_and(|f| !stem.contains(f)) {
            continue;
        }
        ran += 1;
        let text = fs::read_to_string(path).unwrap();
        let mut vector: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let result = well_formed(&vector, &stem).and_then(|()| run(&vector)).and_then(|(actual, broken)| {
            if !broken.is_empty() {
                // An invariant failed: report it with whatever else differs, and never bless it.
                let mut all = broken;
                if !bless {
                    all.extend(compare(&vector["expect"], &actual).err());
                }
                return Err(all.join("\n  "));
            }
            if bless {
                vector["expect"] = blessed(&vector["expect"], &actual);
                let mut out = serde_json::to_string_pretty(&vector).unwrap();
                out.push('\n');
                if out != text {
                    fs::write(path, out).unwrap();
                    eprintln!("blessed {}", path.display());
                }
                Ok(())
            } else {
                compare(&vector["expect"], &actual)
            }
        });
        if let Err(msg) = result {
            failures.push(format!("{}: {msg}", path.display()));
        }
    }
    assert!(ran > 0, "no vector matched VECTOR={filter:?}");
    assert!(failures.is_empty(), "{} of {ran} vectors failed:\n{}", failures.len(), failures.join("\n"));
}

/// The fields every vector must have, so that the suite documents itself.
fn well_formed(v: &Value, stem: &str) -> Result<(), String> {
    if v["name"].as_str() != Some(stem) {
        return Err(format!("`name` must be the file name without .json ({stem:?})"));
    }
    for key in ["rule", "description"] {
        if !v[key].as_str().is_some_and(|s| !s.is_empty()) {
            return Err(format!("`{key}` must be a non-empty string"));
        }
    }
    if !v["expect"].is_object() {
        return Err("`expect` must be an object".into());
    }
    well_formed_text_only(v)?;
    well_formed_proposal(v)
}

/// `textOnly: true` says the `rawText` has no exact JavaScript value (`JSON.parse` would change
/// it: `1e400` becomes Infinity), so runners hand the text itself to `redactJson`, never a
/// value read from it. `runConformance` may hand an implementation a value, so such a vector
/// has no `proposal`.
fn well_formed_text_only(v: &Value) -> Result<(), String> {
    match v.get("textOnly") {
        None => Ok(()),
        Some(Value::Bool(true)) if v["rawText"].is_string() && v.get("proposal").is_none() => Ok(()),
        Some(_) => Err("`textOnly` is `true`, with a `rawText` and no `proposal`".into()),
    }
}

/// The proposal's strings, `(hidden, kept)`; both empty when the vector has no `proposal`.
fn proposal(v: &Value) -> (Vec<&str>, Vec<&str>) {
    let list = |k: &str| v["proposal"][k].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    (list("hidden"), list("kept"))
}

/// A `proposal` states what any implementation must do with the vector's input, so the input is
/// one any implementation takes, and each expectation can fail and is covered by this library's
/// own checks.
fn well_formed_proposal(v: &Value) -> Result<(), String> {
    let Some(p) = v.get("proposal") else { return Ok(()) };
    let fields = p.as_object().ok_or("`proposal` must be an object")?;
    for key in ["hidden", "kept"] {
        let list = fields.get(key).and_then(Value::as_array).ok_or(format!("`proposal.{key}` must be an array"))?;
        if !list.iter().all(|s| s.as_str().is_some_and(|s| !s.is_empty())) {
            return Err(format!("`proposal.{key}` must hold non-empty strings"));
        }
    }
    if fields.len() != 2 {
        return Err("`proposal` has `hidden` and `kept`, nothing else".into());
    }
    let (hidden, kept) = proposal(v);
    if hidden.is_empty() && kept.is_empty() {
        return Err("`proposal` expects nothing".into());
    }
    for key in ["known", "limits", "policy", "format"] {
        if v.get(key).is_some() {
            return Err(format!("a vector with `proposal` has no `{key}`: that option is this library's own"));
        }
    }
    let raw = match v.get("rawText").and_then(Value::as_str) {
        Some(text) => parse_json(text).map_err(|e| format!("a vector with `proposal` has a JSON rawText: {e}"))?,
        None => v["raw"].clone(),
    };
    let mut found = Vec::new();
    strings_and_keys(&raw, &mut found);
    for s in hidden.iter().chain(&kept) {
        if !found.iter().any(|f| f.contains(s)) {
            return Err(format!("proposal string {s:?} is not in the raw result, so it tests nothing"));
        }
    }
    let canaries: Vec<&str> = v["canaries"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    for h in &hidden {
        if !canaries.iter().any(|c| h.contains(c)) {
            return Err(format!("hidden {h:?} holds none of the canaries, which must be at least as strict"));
        }
    }
    for k in &kept {
        if let Some(h) = hidden.iter().find(|h| k.contains(**h)) {
            return Err(format!("kept {k:?} holds hidden {h:?}: no view can meet both"));
        }
    }
    Ok(())
}

/// Every string of a JSON value, keys included.
fn strings_and_keys(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings_and_keys(x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings_and_keys(x, out);
        }),
        _ => {}
    }
}

/// What the proposal's expectations say of an agent view (its JSON text): each hidden string
/// absent from the text and from every string and key, each kept string in one of them. Written
/// as `webmcp-redact/conformance` (js/conformance.js) checks another implementation's view.
fn proposal_problems(v: &Value, agent_json: &str, agent: &Value) -> Vec<String> {
    let (hidden, kept) = proposal(v);
    let mut found = Vec::new();
    strings_and_keys(agent, &mut found);
    let mut broken = Vec::new();
    for h in hidden {
        let escaped = Value::String(h.into()).to_string();
        if found.iter().any(|f| f.contains(h))
            || agent_json.contains(h)
            || agent_json.contains(&escaped[1..escaped.len() - 1])
        {
            broken.push(format!("proposal: the agent saw {h:?}: {agent_json}"));
        }
    }
    for k in kept {
        if !found.iter().any(|f| f.contains(k)) && !agent_json.contains(k) {
            broken.push(format!("proposal: {k:?} should reach the agent: {agent_json}"));
        }
    }
    broken
}

fn limits(v: &Value) -> Limits {
    let mut l = Limits::default();
    let get = |k: &str| v.get("limits").and_then(|x| x.get(k)).and_then(Value::as_u64).map(|n| n as usize);
    if let Some(n) = get("maxDepth") {
        l.max_depth = n;
    }
    if let Some(n) = get("maxInputBytes") {
        l.max_input_bytes = n;
    }
    if let Some(n) = get("maxRefHops") {
        l.max_ref_hops = n;
    }
    if let Some(n) = get("maxWork") {
        l.max_work = n;
    }
    l
}

/// What the core did with one vector.
enum Actual {
    CompileError { code: String, pointer: String },
    Ran(Box<Ran>),
}

struct Ran {
    raw_text: String,
    agent_json: String,
    /// The agent view with handles numbered.
    agent: Value,
    redactions: Value,
    withheld: bool,
    error: Option<(String, String)>,
    /// The side's secrets with handles numbered.
    secrets: Value,
}

/// Runs a vector and checks the invariants that hold whatever the expectation says; returns
/// what the core did and the invariants it broke.
fn run(v: &Value) -> Result<(Actual, Vec<String>), String> {
    let limits = limits(v);
    // The tool goes in as JSON text, as the wasm boundary receives it: the limits apply to it too.
    let policy = match v.get("policy") {
        Some(p) => Policy::from_json(p).map_err(|e| format!("bad policy: {e}"))?,
        None => Policy::default(),
    };
    let tool = match CompiledTool::compile_with(&v["tool"].to_string(), &limits, &policy) {
        Ok(t) => t,
        Err(e) => {
            // The agent then gets the withheld result: nothing the proposal wants kept reaches it.
            let broken = proposal(v)
                .1
                .iter()
                .map(|k| format!("proposal: {k:?} should reach the agent, but the tool does not compile"))
                .collect();
            return Ok((Actual::CompileError { code: e.code.as_str().into(), pointer: e.pointer }, broken));
        }
    };
    let raw_text = match (v.get("rawText").and_then(Value::as_str), v.get("raw")) {
        (Some(t), _) => t.to_string(),
        (None, Some(r)) => r.to_string(),
        (None, None) => return Err("vector has neither raw nor rawText".into()),
    };
    let format = Format::parse(v.get("format").and_then(Value::as_str).unwrap_or("webmcp")).ok_or("bad format")?;
    let known: Vec<KnownSecret> = v
        .get("known")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|k| KnownSecret { label: k["label"].as_str().unwrap().into(), value: k["value"].as_str().unwrap().into() })
        .collect();
    let options = Options { format, limits, ..Options::default() };
    // The redactor's own known-secret set, as the JS package uses it: primed with the vector's
    // known values, then holding this result's secrets for the second pass below.
    let mut set = KnownSecrets::default();
    for k in &known {
        set.note(&k.value, &k.label);
    }
    let out = redact_with(&tool, &raw_text, &options, &mut Counter(0), &mut set);
    let agent: Value = parse_json(&out.agent_json).map_err(|e| format!("agent view is not JSON: {e}"))?;
    let side: Value = serde_json::from_str(&out.side_json()).unwrap();

    let mut broken = Vec::new();
    // Rule 10: nothing redacted reaches the agent.
    for canary in v.get("canaries").and_then(Value::as_array).into_iter().flatten() {
        let c = canary.as_str().ok_or("canaries must be strings")?;
        if out.agent_json.contains(c) {
            broken.push(format!("canary {c} leaked: {}", out.agent_json));
        }
    }
    let carried = content_strings(&agent);
    for s in marked_strings(&side) {
        let escaped = Value::String(s.clone()).to_string();
        let escaped = &escaped[1..escaped.len() - 1];
        if let Some(c) = carried.iter().find(|c| c.contains(s.as_str()) || c.contains(escaped)) {
            broken.push(format!("redacted value {s:?} appears in {c:?} of the agent view: {}", out.agent_json));
        }
    }
    broken.extend(proposal_problems(v, &out.agent_json, &agent));
    // Rule 10: the same input gives the same output, apart from handles.
    let again = redact(&tool, &raw_text, &options, &mut Counter(500), &known);
    let mut handles = HashMap::new();
    let agent_n = number_handles(&agent, &mut handles);
    let again_agent: Value = parse_json(&again.agent_json).map_err(|e| format!("second run is not JSON: {e}"))?;
    if number_handles(&again_agent, &mut HashMap::new()) != number_handles(&agent, &mut HashMap::new()) {
        broken.push(format!("not deterministic:\n  first  {}\n  second {}", out.agent_json, again.agent_json));
    }
    // Rule 10: redacting the agent view again changes nothing, byte for byte, even once the
    // known-secret set holds this result's secrets (as it does in a redactor).
    if out.error.is_none() {
        let again = redact_with(&tool, &out.agent_json, &options, &mut Counter(1000), &mut set);
        if again.agent_json != out.agent_json {
            broken.push(format!("not idempotent:\n  first  {}\n  second {}", out.agent_json, again.agent_json));
        }
    }

    let redactions = Value::Array(
        out.redactions
            .iter()
            .map(|r| json!({ "pointer": r.pointer, "reason": r.reason.as_str(), "label": r.label }))
            .collect(),
    );
    let secrets =
        Value::Array(side["secrets"].as_array().unwrap().iter().map(|s| number_handles(s, &mut handles)).collect());
    let actual = Actual::Ran(Box::new(Ran {
        raw_text,
        agent_json: out.agent_json.clone(),
        agent: agent_n,
        redactions,
        withheld: out.withheld,
        error: out.error.as_ref().map(|e| (e.code.as_str().to_string(), e.pointer.clone())),
        secrets,
    }));
    Ok((actual, broken))
}

/// The string values of 4+ characters that were taken for a mark: none may reach the agent.
fn marked_strings(side: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let marked = |r: &&Value| matches!(r["reason"].as_str(), Some("x_sensitive" | "schema_mismatch"));
    for r in side["redactions"].as_array().unwrap().iter().filter(marked) {
        let Some(secret) = side["secrets"].as_array().unwrap().iter().find(|s| s["handle"] == r["handle"]) else {
            continue;
        };
        let value = match secret["kind"].as_str() {
            Some("value") => &secret["value"],
            Some("many") => match secret["values"].as_array().unwrap().iter().find(|x| x["pointer"] == r["pointer"]) {
                Some(x) => &x["value"],
                None => continue,
            },
            _ => continue,
        };
        string_leaves(value, &mut out);
    }
    out.retain(|s| s.chars().count() >= 4);
    out
}

/// The strings of an agent view that carry content (rule 5's list: text, resource text,
/// resource_link uri/name/title/description, `_meta` values, error text; structuredContent and
/// any other member), keys included. Block structure (`type`, `mimeType`, `annotations`, `data`)
/// and the library's own additions (stubs, notice, `webmcp-redact/*` keys) are left out: they
/// hold fixed words such as "text" or "user" that a redacted value may happen to equal.
fn content_strings(agent: &Value) -> Vec<String> {
    fn all(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| all(x, out)),
            Value::Object(m) => m.iter().for_each(|(k, x)| {
                out.push(k.clone());
                all(x, out)
            }),
            _ => {}
        }
    }
    let library = |b: &Value| {
        b["type"] == "secret_reference"
            || b.get("_meta")
                .and_then(Value::as_object)
                .is_some_and(|m| m.keys().any(|k| k.starts_with("webmcp-redact/")))
    };
    let mut out = Vec::new();
    let Value::Object(result) = agent else {
        all(agent, &mut out);
        return out;
    };
    for (key, value) in result {
        match key.as_str() {
            "content" => {
                for block in value.as_array().into_iter().flatten().filter(|b| !library(b)) {
                    for field in ["text", "uri", "name", "title", "description"] {
                        all(&block[field], &mut out);
                    }
                    all(&block["resource"]["uri"], &mut out);
                    all(&block["resource"]["text"], &mut out);
                    all(&block["_meta"], &mut out);
                }
            }
            "_meta" => {
                for (k, v) in value.as_object().into_iter().flatten().filter(|(k, _)| !k.starts_with("webmcp-redact/"))
                {
                    out.push(k.clone());
                    all(v, &mut out);
                }
            }
            "isError" => {}
            _ => all(value, &mut out),
        }
    }
    out
}

fn compare(expect: &Value, actual: &Actual) -> Result<(), String> {
    let run = match actual {
        Actual::CompileError { code, pointer } => {
            return match expect.get("compileError").and_then(Value::as_str) {
                Some(c) if c == code => check_pointer(expect, pointer),
                _ => Err(format!("compile failed unexpectedly: {code} at {pointer:?}")),
            };
        }
        Actual::Ran(run) => run,
    };
    if let Some(code) = expect.get("compileError") {
        return Err(format!("expected compile error {code}, compiled fine"));
    }
    let error = run.error.as_ref().map(|(c, _)| c.as_str());
    if expect.get("error").and_then(Value::as_str) != error {
        return Err(format!("error: expected {}, got {error:?}", expect["error"]));
    }
    if let Some((_, pointer)) = &run.error {
        check_pointer(expect, pointer)?;
    }
    if expect["withheld"].as_bool() != Some(run.withheld) {
        return Err(format!("withheld: expected {}, got {}", expect["withheld"], run.withheld));
    }
    if run.redactions != expect["redactions"] {
        return Err(format!("redactions:\n  expected {}\n  got      {}", expect["redactions"], run.redactions));
    }
    if expect.get("passthrough").and_then(Value::as_bool) == Some(true) {
        if run.agent_json != run.raw_text {
            return Err(format!("expected byte-identical passthrough, got {}", run.agent_json));
        }
    } else if run.agent != expect["agent"] {
        return Err(format!("agent view:\n  expected {}\n  got      {}", expect["agent"], run.agent));
    }
    if let Some(want) = expect.get("secrets") {
        if &run.secrets != want {
            return Err(format!("secrets:\n  expected {want}\n  got      {}", run.secrets));
        }
    }
    Ok(())
}

/// The expectation the core meets now, in the vector's own field order.
fn blessed(old: &Value, actual: &Actual) -> Value {
    let mut e = Map::new();
    match actual {
        Actual::CompileError { code, pointer } => {
            e.insert("compileError".into(), json!(code));
            e.insert("errorPointer".into(), json!(pointer));
        }
        Actual::Ran(run) => {
            if run.agent_json == run.raw_text {
                e.insert("passthrough".into(), json!(true));
            } else {
                e.insert("agent".into(), run.agent.clone());
            }
            e.insert("redactions".into(), run.redactions.clone());
            e.insert("withheld".into(), json!(run.withheld));
            e.insert("error".into(), run.error.as_ref().map_or(Value::Null, |(c, _)| json!(c)));
            if let Some((_, p)) = &run.error {
                e.insert("errorPointer".into(), json!(p));
            }
            if old.get("secrets").is_some() || !run.secrets.as_array().unwrap().is_empty() {
                e.insert("secrets".into(), run.secrets.clone());
            }
        }
    }
    Value::Object(e)
}

fn check_pointer(expect: &Value, pointer: &str) -> Result<(), String> {
    match expect.get("errorPointer").and_then(Value::as_str) {
        Some(p) if p != pointer => Err(format!("error pointer: expected {p:?}, got {pointer:?}")),
        _ => Ok(()),
    }
}

/// Replaces every `"handle"` string with `<handle:N>`, numbered by first appearance.
fn number_handles(v: &Value, seen: &mut HashMap<String, usize>) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let x = match (k.as_str(), x) {
                        ("handle", Value::String(h)) => {
                            let n = seen.len() + 1;
                            Value::String(format!("<handle:{}>", seen.entry(h.clone()).or_insert(n)))
                        }
                        _ => number_handles(x, seen),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| number_handles(x, seen)).collect()),
        _ => v.clone(),
    }
}
