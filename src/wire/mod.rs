//! Every JSON shape that crosses the boundary to JS: the options `createRedactor` takes (read
//! and validated here, once, for Rust and JS alike), and, in `records.rs`, what goes back: the
//! side record of a redaction, a check's answer, session labels, the settings JS acts on, and
//! the vocabulary JS mirrors in its types.

mod records;

pub use records::{check_json, labels_json, settings_json, side_json, unreadable_arguments_json, vocabulary_json};

use serde_json::Value;

use crate::policy::Policy;
use crate::{Config, Format, Limits};

/// Vault entries are revealable for this long after the result that made them (seconds).
pub const DEFAULT_VAULT_TTL: f64 = 600.0;
/// A `secret_reference`'s own `ttl` is capped at this (seconds); also the lifetime of one without.
pub const DEFAULT_MAX_REFERENCE_TTL: f64 = 600.0;
/// `maxInputBytes`, `maxRefHops` and `maxWork` fit a 32-bit `usize` (wasm32).
pub const COUNT_CEILING: usize = u32::MAX as usize;

/// A redactor's validated options: the core's configuration and the JS vault's.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub config: Config,
    pub vault: VaultSettings,
    pub redeem: RedeemSettings,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VaultSettings {
    pub ttl: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RedeemSettings {
    pub max_ttl: f64,
    pub allowed_paths: Option<Vec<String>>,
}

/// A mistake in the options: `Type` becomes a JS `TypeError` (wrong kind of value, unknown
/// key), `Range` a `RangeError` (right kind, value out of range).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    Type(String),
    Range(String),
}

impl OptionError {
    pub fn message(&self) -> &str {
        match self {
            OptionError::Type(m) | OptionError::Range(m) => m,
        }
    }
}

const WHO: &str = "createRedactor";

/// Reads `{ format?, limits?, policy?, vault?: { ttl? }, redeem?: { maxTtl?, allowedPaths? } }`.
/// `null` and absent are the same. Every message starts with the function the user called.
pub fn read_options(v: &Value) -> Result<Settings, OptionError> {
    let o = object(v, "options")?;
    let mut s = Settings {
        config: Config::default(),
        vault: VaultSettings { ttl: DEFAULT_VAULT_TTL },
        redeem: RedeemSettings { max_ttl: DEFAULT_MAX_REFERENCE_TTL, allowed_paths: None },
    };
    for (key, value) in o {
        match key.as_str() {
            "format" => s.config.format = read_format(value)?,
            "limits" => s.config.limits = read_limits(value)?,
            "policy" => s.config.policy = read_policy(value)?,
            "vault" => s.vault = read_vault(value)?,
            "redeem" => s.redeem = read_redeem(value)?,
            _ => return Err(OptionError::Type(format!("{WHO}: unknown option {key}"))),
        }
    }
    Ok(s)
}

/// The members of an options object (`null` has none), absent-valued ones left out.
fn object<'a>(v: &'a Value, what: &str) -> Result<impl Iterator<Item = (&'a String, &'a Value)>, OptionError> {
    let members = match v {
        Value::Null => None,
        Value::Object(o) => Some(o.iter()),
        _ => return Err(OptionError::Type(format!("{WHO}: {what} must be an object"))),
    };
    Ok(members.into_iter().flatten().filter(|(_, v)| !v.is_null()))
}

fn read_format(v: &Value) -> Result<Format, OptionError> {
    let names: Vec<String> = Format::ALL.iter().map(|f| format!("\"{}\"", f.as_str())).collect();
    v.as_str()
        .and_then(Format::parse)
        .ok_or_else(|| OptionError::Range(format!("{WHO}: format must be {}", names.join(" or "))))
}

fn read_limits(v: &Value) -> Result<Limits, OptionError> {
    let mut limits = Limits::default();
    for (key, value) in object(v, "limits")? {
        let (slot, max) = match key.as_str() {
            "maxDepth" => (&mut limits.max_depth, Limits::DEPTH_CEILING),
            "maxInputBytes" => (&mut limits.max_input_bytes, COUNT_CEILING),
            "maxRefHops" => (&mut limits.max_ref_hops, COUNT_CEILING),
            "maxWork" => (&mut limits.max_work, COUNT_CEILING),
            _ => return Err(OptionError::Type(format!("{WHO}: unknown limit {key}"))),
        };
        *slot = whole_number(value, max)
            .ok_or_else(|| OptionError::Range(format!("{WHO}: limits.{key} must be an integer from 1 to {max}")))?;
    }
    Ok(limits)
}

fn whole_number(v: &Value, max: usize) -> Option<usize> {
    let n = crate::json::float::of(v)?;
    (n.fract() == 0.0 && n >= 1.0 && n <= max as f64).then_some(n as usize)
}

fn read_policy(v: &Value) -> Result<Policy, OptionError> {
    if !v.is_object() {
        return Err(OptionError::Type(format!("{WHO}: policy must be an object")));
    }
    Policy::from_json(v).map_err(|e| OptionError::Type(format!("{WHO}: invalid policy: {e}")))
}

fn seconds(v: &Value, name: &str) -> Result<f64, OptionError> {
    crate::json::float::of(v)
        .filter(|s| s.is_finite() && *s > 0.0)
        .ok_or_else(|| OptionError::Range(format!("{WHO}: {name} must be a positive number of seconds")))
}

fn read_vault(v: &Value) -> Result<VaultSettings, OptionError> {
    let mut vault = VaultSettings { ttl: DEFAULT_VAULT_TTL };
    for (key, value) in object(v, "vault")? {
        match key.as_str() {
            "ttl" => vault.ttl = seconds(value, "vault.ttl")?,
            _ => return Err(OptionError::Type(format!("{WHO}: unknown vault option {key}"))),
        }
    }
    Ok(vault)
}

fn read_redeem(v: &Value) -> Result<RedeemSettings, OptionError> {
    let mut redeem = RedeemSettings { max_ttl: DEFAULT_MAX_REFERENCE_TTL, allowed_paths: None };
    for (key, value) in object(v, "redeem")? {
        match key.as_str() {
            "maxTtl" => redeem.max_ttl = seconds(value, "redeem.maxTtl")?,
            "allowedPaths" => redeem.allowed_paths = Some(path_prefixes(value)?),
            _ => return Err(OptionError::Type(format!("{WHO}: unknown redeem option {key}"))),
        }
    }
    Ok(redeem)
}

fn path_prefixes(v: &Value) -> Result<Vec<String>, OptionError> {
    let bad =
        || OptionError::Type(format!("{WHO}: redeem.allowedPaths must be an array of path prefixes starting with /"));
    let items = v.as_array().ok_or_else(bad)?;
    items.iter().map(|p| p.as_str().filter(|p| p.starts_with('/')).map(str::to_string).ok_or_else(bad)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Level;
    use serde_json::json;

    fn err(v: Value) -> OptionError {
        read_options(&v).err().unwrap_or_else(|| panic!("{v} was accepted"))
    }

    #[test]
    fn defaults_and_null_are_the_same() {
        let a = read_options(&json!({})).unwrap();
        assert_eq!(a, read_options(&Value::Null).unwrap());
        assert_eq!(a, read_options(&json!({ "format": null, "limits": { "maxDepth": null } })).unwrap());
        assert_eq!((a.vault.ttl, a.redeem.max_ttl, a.config.format), (600.0, 600.0, Format::Webmcp));
    }

    #[test]
    fn every_option_is_read() {
        let s = read_options(&json!({ "format": "mcp", "limits": { "maxDepth": 512, "maxInputBytes": 10, "maxRefHops": 3, "maxWork": 7 },
            "policy": { "withholdAt": "medium" }, "vault": { "ttl": 1.5 }, "redeem": { "maxTtl": 30, "allowedPaths": ["/r/"] } }))
        .unwrap();
        assert_eq!(s.config.limits, Limits { max_depth: 512, max_input_bytes: 10, max_ref_hops: 3, max_work: 7 });
        assert_eq!((s.config.format, s.config.policy.withhold_at), (Format::Mcp, Level::Medium));
        assert_eq!((s.vault.ttl, s.redeem.max_ttl), (1.5, 30.0));
        assert_eq!(s.redeem.allowed_paths, Some(vec!["/r/".to_string()]));
    }

    #[test]
    fn kinds_of_mistake() {
        for v in [
            json!({ "formats": "mcp" }),
            json!({ "limits": 5 }),
            json!({ "limits": { "maxdepth": 4 } }),
            json!({ "policy": [] }),
            json!({ "policy": { "withholdAt": "max" } }),
            json!({ "vault": { "nope": 1 } }),
            json!({ "redeem": { "allowedPaths": ["x"] } }),
            json!(7),
        ] {
            assert!(matches!(err(v.clone()), OptionError::Type(_)), "{v}");
        }
        for v in [
            json!({ "format": "json" }),
            json!({ "limits": { "maxDepth": 0 } }),
            json!({ "limits": { "maxDepth": 513 } }),
            json!({ "limits": { "maxRefHops": 1.5 } }),
            json!({ "limits": { "maxWork": 0 } }),
            json!({ "vault": { "ttl": -1 } }),
            json!({ "redeem": { "maxTtl": "10" } }),
        ] {
            assert!(matches!(err(v.clone()), OptionError::Range(_)), "{v}");
        }
        assert_eq!(err(json!({ "x": 1 })).message(), "createRedactor: unknown option x");
    }

    #[test]
    fn the_side_record_has_the_documented_shape() {
        let mut r = crate::Redactor::new(Config::default(), Box::new(Fixed));
        let tool = r#"{"name":"k","outputSchema":{"properties":{"s":{"x-sensitive":true}}}}"#;
        let out = r.redact(tool, r#"{"s":"sk_live_1"}"#, None);
        let side: Value = serde_json::from_str(&side_json(&out, None, None)).unwrap();
        assert_eq!(
            side,
            json!({ "redactions": [{ "pointer": "/s", "reason": "x_sensitive", "label": "s", "handle": "07".repeat(16) }],
                    "withheld": false,
                    "secrets": [{ "handle": "07".repeat(16), "label": "s", "kind": "value", "value": "sk_live_1" }],
                    "labels": { "sensitivity": "none", "private": false, "openWorld": false, "malicious": false, "attribution": [] },
                    "known": [{ "handle": "07".repeat(16), "label": "s", "values": ["sk_live_1"] }] })
        );
    }

    #[test]
    fn known_values_come_in_runs_of_one_handle_and_label() {
        let mut r = crate::Redactor::new(Config::default(), Box::new(Fixed));
        let tool = r#"{"name":"k","outputSchema":{"properties":{"s":{"x-sensitive":true},"t":{"x-sensitive":true}}}}"#;
        let out = r.redact(tool, r#"{"s":["sk_live_1","sk_live_2"],"t":"tok_live_3"}"#, None);
        let mut side: Value = serde_json::from_str(&side_json(&out, None, None)).unwrap();
        let h = "07".repeat(16);
        // In the order they were learned; sorted here, as that order is none of this test's business.
        side["known"][0]["values"].as_array_mut().unwrap().sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        assert_eq!(
            side["known"],
            json!([{ "handle": h, "label": "s", "values": ["sk_live_1", "sk_live_2"] },
                   { "handle": h, "label": "t", "values": ["tok_live_3"] }])
        );
    }

    struct Fixed;
    impl crate::HandleSource for Fixed {
        fn fill(&mut self, b: &mut [u8; 16]) {
            *b = [7; 16];
        }
    }
}
