//! Adversarial review of issue 11 (page side): the check's reading of secret references, at the
//! sizes an agent can reach (many placeholders against a vault of many handles).
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use webmcp_redact::model::ToolModel;
use webmcp_redact::policy::check::check_with;
use webmcp_redact::policy::reference::Vault;
use webmcp_redact::policy::session::Labels;
use webmcp_redact::policy::{Decision, Policy};
use webmcp_redact::KnownSecrets;

fn sink() -> Value {
    json!({ "annotations": { "destructiveHint": false, "inputMetadata": { "Sensitivity": ["Credentials"], "Destination": "Internal" } } })
}

/// Many handles, each written several times: the answer lists each once, in the order first
/// written, and asks only while one is not approved (the sets that replaced the lists' scans
/// keep both).
#[test]
fn many_placeholders_against_many_handles() {
    let n = 20_000;
    let handles: Vec<String> = (0..n).map(|i| format!("{i:032x}")).collect();
    let text: String = handles.iter().rev().map(|h| format!("{{{{secret:{h}}}}}")).collect::<String>().repeat(3);
    let args = json!({ "body": text });
    let model = ToolModel::read(&sink());
    let run = |approved: Vec<String>| {
        let vault = Vault { handles: handles.clone(), approved };
        check_with(&model, &args, &Labels::default(), &Policy::default(), &KnownSecrets::default(), &vault)
    };
    let fresh = run(handles[1..].to_vec());
    assert_eq!(fresh.decision, Decision::Confirm, "one handle is not approved yet");
    let want: Vec<String> = handles.iter().rev().cloned().collect();
    assert_eq!(fresh.references, want);
    let approved = run(handles.clone());
    assert_eq!((approved.decision, approved.references.len()), (Decision::Allow, n));
}
