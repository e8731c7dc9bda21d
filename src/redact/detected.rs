//! The safety net: credentials a tool never declared, found by their format
//! (`scrub::detect`), are taken like any marked value: each gets a vault entry, a handle and a
//! stub (reason `detected:<kind>`), and joins the known set, so that value matching replaces
//! it wherever it stands in this result and in later ones, and `check` catches it in arguments.

use serde_json::Value;

use super::blocks::STRUCTURAL;
use super::fields::fixed_texts;
use super::Run;
use crate::json::child;
use crate::scrub::detect::Kind;
use crate::scrub::detected;
use crate::Reason;

impl Run<'_> {
    /// Detection on every string of `value` (at `pointer`) and every key, as value matching
    /// reads them: a hit in a key points at its object.
    pub(super) fn detect(&mut self, value: &Value, pointer: &str) {
        let on = self.tool.detect();
        if on.is_none() {
            return;
        }
        let mut found = Vec::new();
        let mut stack = vec![(value, pointer.to_string())];
        let mut work = 0;
        while let Some((v, at)) = stack.pop() {
            match v {
                Value::String(s) => found.extend(detected(s, on, &mut work).into_iter().map(|h| (at.clone(), h))),
                Value::Array(items) => {
                    stack.extend(items.iter().enumerate().map(|(i, v)| (v, child(&at, &i.to_string()))))
                }
                Value::Object(map) => {
                    for (key, v) in map {
                        found.extend(detected(key, on, &mut work).into_iter().map(|h| (at.clone(), h)));
                        stack.push((v, child(&at, key)));
                    }
                }
                _ => {}
            }
        }
        for (at, (kind, secret)) in found {
            self.detected(at, kind, secret);
        }
    }

    /// Detection on a block's content fields: what value matching reads in it.
    pub(super) fn detect_block(&mut self, block: &Value, pointer: &str) {
        let Value::Object(fields) = block else { return };
        for (key, value) in fields.iter().filter(|(k, _)| !STRUCTURAL.contains(&k.as_str())) {
            let at = child(pointer, key);
            match value {
                Value::Object(resource) if key == "resource" => {
                    for (rk, rv) in resource.iter().filter(|(rk, _)| !STRUCTURAL.contains(&rk.as_str())) {
                        self.detect(rv, &child(&at, rk));
                    }
                }
                _ => self.detect(value, &at),
            }
        }
        // The fields never rewritten: a hit there becomes known, and the block then goes as a
        // value match, as for any known value in them.
        for (at, text) in fixed_texts(block) {
            self.detect(&Value::String(text), &format!("{pointer}{at}"));
        }
    }

    /// The report's labels and pointers are copied from tool data (a dropped block's `type`, a
    /// key), and the notice repeats the labels: the detectors read them too, so that a credential
    /// there is taken, and the label and pointer holding it are then rewritten like any that holds
    /// a known value. (Labels from the library's own words hold nothing to find.)
    pub(super) fn detect_in_report(&mut self) {
        let texts: Vec<(String, String)> = self
            .collect
            .report()
            .iter()
            .flat_map(|r| [r.label.clone(), r.pointer.clone()].map(|t| (r.pointer.clone(), t)))
            .collect();
        for (at, text) in texts {
            self.detect(&Value::String(text), &at);
        }
    }

    /// One hit: taken to the vault, unless it is a known value already (an earlier hit of this
    /// result, or a value the vault holds): value matching takes care of that one.
    fn detected(&mut self, pointer: String, kind: Kind, secret: String) {
        if self.known.contains(&secret) {
            return;
        }
        self.detections.entry(pointer.clone()).or_default().push(kind.label().to_string());
        self.take(pointer, Reason::Detected(kind), kind.label().to_string(), Value::String(secret));
    }
}
