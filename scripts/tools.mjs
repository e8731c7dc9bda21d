// Where the build and fuzz scripts install the Rust tools they need (wasm-bindgen-cli,
// cargo-fuzz): one directory per tool and version, outside the clone, so that a second clone on
// the same machine (CI clones main afresh each time) finds them instead of compiling them again
// for minutes. `WEBMCP_REDACT_TOOLS` picks the directory; by default it is
// `$XDG_CACHE_HOME/webmcp-redact/tools` (or `~/.cache/...`). A clone's own `.tools/` (where
// earlier versions of these scripts installed) is still looked in first.

import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

function cacheDir(root) {
  if (process.env.WEBMCP_REDACT_TOOLS) return process.env.WEBMCP_REDACT_TOOLS;
  const base = process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), ".cache") : "");
  if (base) {
    const dir = join(base, "webmcp-redact", "tools");
    try {
      mkdirSync(dir, { recursive: true });
      return dir;
    } catch {
      // A read-only or missing home: fall back to the clone.
    }
  }
  return join(root, ".tools");
}

/**
 * The `--root` a tool is installed into, and the places its binary may already be, first found
 * first: the clone's `.tools/bin`, then the cache's directory for exactly this version. The
 * caller still checks `--version` on what it finds (a half-written install does not count).
 */
export function toolPaths(root, tool, version, binary) {
  const installRoot = join(cacheDir(root), `${tool}-${version}`);
  return { installRoot, candidates: [join(root, ".tools", "bin", binary), join(installRoot, "bin", binary)] };
}
