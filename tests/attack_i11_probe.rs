mod common;
use common::*;
use serde_json::json;
#[test]
fn probe() {
    let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n";
    let pem = format!("-----BEGIN PRIVATE KEY-----\n{body}-----END PRIVATE KEY-----");
    let g = "AIzaSyD8kQ3vX2pLmN7tRb1YcW9sHd3FgJ0aZx4";
    let g2 = "AIzaSyD8kQ3vX2pLmN7tRb1YcW9sHd3FgJ0aZx5";
    let hook = "https://hooks.slack.com/services/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";
    let texts = vec![
        ("crlf", pem.replace('\n', "\r\n")),
        ("indented", pem.replace('\n', "\n    ")),
        ("log escaped", format!("key: \"{}\" end", pem.replace('\n', "\\n"))),
        ("log double escaped", format!("key: \"{}\" end", pem.replace('\n', "\\\\n"))),
        ("html br", pem.replace('\n', "<br>")),
        ("two googles", format!("{g} and {g2}, {g}{g2}")),
        ("many", (0..50).map(|_| g).collect::<Vec<_>>().join(",")),
        ("hook pct", hook.replace("/", "%2F")),
        ("hook in url", format!("https://x/?u={}", hook.replace(":", "%3A").replace("/", "%2F"))),
        ("google html ent", format!("&#34;{g}&#34;")),
        ("google b64 ctx", format!("data:text/plain,{g}")),
        ("google after url-plus", format!("q=a+{g}")),
        ("google utf16", format!("\\u0041{}", &g[1..])),
    ];
    for (name, t) in texts {
        let raw = json!({ "content": [{ "type": "text", "text": t }] });
        let o = run(json!({"name":"plain"}), raw);
        let leaked = [g, g2, hook, &pem[28..60], "Xk3v9QmZ2pLr8sTw1YbnQ7vH"].iter().any(|c| o.agent_json.contains(c));
        println!("{name}: leaked={leaked} n={}", o.redactions.len());
    }
    let raw = json!({ "content": [], "isError": true, "structuredContent": { "error": { "message": format!("bad key {g}") } } });
    let o = run(json!({"name":"plain"}), raw);
    println!("err leaked={}", o.agent_json.contains(g));
}
