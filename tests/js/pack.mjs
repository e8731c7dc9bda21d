// The package as npm publishes it, for the tests that look at it as a consumer would
// (package.test.mjs, types.test.mjs). Not a test file itself.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../..", import.meta.url));

function npm(args, cwd = root) {
  const r = spawnSync("npm", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** The files `npm pack` would put in the package, as paths relative to it. */
export function packedFiles() {
  const [report] = JSON.parse(npm(["pack", "--dry-run", "--json"]));
  return report.files.map((f) => f.path).sort();
}

/**
 * A fresh ESM project (`"type": "module"`) with the packed tarball unpacked as
 * `node_modules/webmcp-redact`, and nothing else installed. Returns its directory.
 */
export function consumerProject() {
  const dir = mkdtempSync(join(tmpdir(), "webmcp-redact-consumer-"));
  const [report] = JSON.parse(npm(["pack", "--json", "--pack-destination", dir]));
  const target = join(dir, "node_modules", "webmcp-redact");
  mkdirSync(target, { recursive: true });
  const tar = spawnSync("tar", ["-xzf", join(dir, report.filename), "-C", target, "--strip-components=1"], { encoding: "utf8" });
  if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  return dir;
}
