#!/usr/bin/env node
// Measures the detectors' false positives (docs/detectors.md): runs them, through the public
// API and the default policy, over ordinary text and code found on this machine (packages'
// own files), and reports how much was scanned and every hit, for a person to judge.
//
//   node scripts/detector-corpus.mjs [--full] [dir...]
//
// Default dirs: ./node_modules (*.js, *.mjs, *.cjs, *.ts, *.md, *.json), ~/.cargo/registry/src
// (*.rs, *.md, *.toml), /usr/share/doc (text, and .gz decompressed). Each file is one text block
// of a tool with no marks; a hit is a report entry `detected:<kind>`. Values are shown
// shortened unless --full.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, extname } from "node:path";
import { gunzipSync } from "node:zlib";
import { createRedactor } from "webmcp-redact";

const args = process.argv.slice(2);
const full = args.includes("--full");
const dirs = args.filter((a) => !a.startsWith("--"));
const EXT = new Set([".js", ".mjs", ".cjs", ".ts", ".md", ".json", ".rs", ".toml", ".txt", ".gz", ""]);
const roots = dirs.length ? dirs : ["node_modules", join(homedir(), ".cargo/registry/src"), "/usr/share/doc"];
const MAX_FILE = 8 << 20; // larger files (bundles, data) are skipped, and counted

/** Every regular file under `dir` with a wanted extension, in a stable order. */
function* files(dir) {
  let names;
  try {
    names = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return;
  }
  for (const d of names) {
    const path = join(dir, d.name);
    if (d.isDirectory()) yield* files(path);
    else if (d.isFile() && EXT.has(extname(d.name))) yield path;
  }
}

/** The file as text, or undefined (binary, too large, unreadable). */
function text(path) {
  try {
    if (statSync(path).size > MAX_FILE) return undefined;
    let bytes = readFileSync(path);
    if (path.endsWith(".gz")) bytes = gunzipSync(bytes);
    if (bytes.includes(0)) return undefined; // binary
    return bytes.toString("utf8");
  } catch {
    return undefined;
  }
}

const tool = { name: "corpus_reader" };
const totals = { files: 0, bytes: 0, skipped: 0, hits: 0 };
const byKind = {};
for (const root of roots) {
  const before = { ...totals };
  for (const path of files(root)) {
    const t = text(path);
    if (t === undefined) {
      totals.skipped++;
      continue;
    }
    totals.files++;
    totals.bytes += Buffer.byteLength(t);
    // A fresh redactor per file: a value found in one file is not a value match in the next.
    const r = await createRedactor();
    const out = r.redact(tool, { content: [{ type: "text", text: t }] });
    if (out.error) {
      console.log(`error ${out.error.code}: ${path}`);
      continue;
    }
    for (const x of out.redactions.filter((x) => x.reason.startsWith("detected:"))) {
      const kind = x.reason.slice("detected:".length);
      const value = String(r.vault.get(x.handle)?.value ?? "");
      const shown = full || value.length <= 24 ? value : `${value.slice(0, 16)}…(${value.length} chars)`;
      console.log(`hit ${kind}: ${path}: ${JSON.stringify(shown)}`);
      byKind[kind] = (byKind[kind] ?? 0) + 1;
      totals.hits++;
    }
  }
  const mb = ((totals.bytes - before.bytes) / 1e6).toFixed(1);
  console.log(`scanned ${root}: ${totals.files - before.files} files, ${mb} MB, ${totals.hits - before.hits} hits`);
}
console.log(`total: ${totals.files} files, ${(totals.bytes / 1e6).toFixed(1)} MB, ${totals.skipped} skipped, ${totals.hits} hits`);
console.log(JSON.stringify(byKind));
