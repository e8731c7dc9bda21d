//! `src/wasm/` is the one door between the core and JS: no file of the core names it, nor
//! wasm-bindgen and the JS bindings it uses. What the core needs from the page (entropy, the
//! heap's count, JavaScript's reading of numbers) the door gives it; a core that reached for the
//! door itself could not be built or tested without it.

use std::fs;
use std::path::Path;

const DOOR_NAMES: &[&str] = &["crate::wasm", "wasm_bindgen", "js_sys", "web_sys"];

fn core_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.ends_with("wasm") {
                core_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_core_file_names_the_door() {
    let mut files = Vec::new();
    core_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    assert!(files.len() > 50, "the core's files were not found ({})", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for name in DOOR_NAMES.iter().filter(|name| code.contains(*name)) {
                found.push(format!("{}:{}: {name}", file.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "the core names the door:\n{}", found.join("\n"));
}
