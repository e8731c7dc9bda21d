#!/usr/bin/env node
// The worst cases of issue 8, in Node through the package (`npm run bench` runs it after the
// ratio bench): each adversarial (schema, result) family at about 1 MB, compiled and redacted,
// each family in a process of its own (so that no family runs on memory another left), and a
// 1 KB redaction once 100,000 values are known. The families come
// from the Rust example that times them natively (`examples/worst_cases.rs --emit`), so both
// run the same inputs. It prints medians and the goals beside them; it never fails on a
// goal: it measures.
//
//   node bench/worst.bench.mjs [--reps N] [--only SUBSTRING]
//
// The package must be built (pkg/); `npm run bench` builds it first.

import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { captureInstances } from "./cases.mjs";

const capture = captureInstances(); // before the package makes its instance
const { createRedactor } = await import(import.meta.resolve("webmcp-redact"));

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GOAL_MS = 100; // every family, compile plus redact
const KNOWN_GOAL_MS = 1; // a 1 KB redaction with 100,000 known values

const arg = (flag) => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1] : undefined);
const reps = Number(arg("--reps")) || 5;

/** Writes the families to a temporary file (see examples/worst_cases.rs); returns it and its directory. */
function emitFamilies() {
  const dir = mkdtempSync(join(tmpdir(), "webmcp-worst-"));
  const file = join(dir, "families.json");
  execFileSync("cargo", ["run", "--quiet", "--release", "--example", "worst_cases", "--", "--emit", file], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
  });
  return { dir, file };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const ms = (x) => (x < 1 ? `${(x * 1000).toFixed(0)} us` : `${x.toFixed(1)} ms`);

/**
 * One family, in this process: one redactor, the tool renamed for each repetition so that each
 * compiles it anew (the core caches compiled tools by their definition).
 */
async function family({ tool, raw }) {
  const compile = [];
  const redact = [];
  let outcome;
  let peak = 0; // the largest wasm memory of an instance live during a call
  const redactor = await createRedactor();
  for (let i = 0; i < reps; i++) {
    const named = { ...tool, name: `${tool.name}_${i}` };
    const during = [capture.latest.instance];
    capture.recording = during;
    const t0 = performance.now();
    redactor.compile(named);
    const t1 = performance.now();
    const report = redactor.redactJson(named, raw);
    const t2 = performance.now();
    capture.recording = null;
    peak = Math.max(peak, ...during.map((instance) => instance.exports.memory.buffer.byteLength));
    compile.push(t1 - t0);
    redact.push(t2 - t1);
    outcome = report.error ? `withheld: ${report.error.code}` : `${report.redactions.length} redactions`;
    redactor.vault.clear();
  }
  return { compile: median(compile), redact: median(redact), outcome, peak };
}

/** Runs family `index` of `file` in a child process (this script with --family), returns its row. */
function inChild(file, index) {
  const args = [fileURLToPath(import.meta.url), "--family", file, "--index", String(index), "--reps", String(reps)];
  const child = spawnSync(process.execPath, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (child.status !== 0) throw new Error(`family ${index} failed (exit ${child.status})`);
  return JSON.parse(child.stdout);
}

const keysTool = {
  name: "list_keys",
  outputSchema: {
    type: "object",
    properties: { keys: { type: "array", items: { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } } } },
  },
};

function keys(count, from = 0) {
  const list = [];
  for (let i = from; i < from + count; i++) list.push({ id: `key_${i}`, name: `key number ${i}`, secret: `sk_test_${String(i).padStart(24, "0")}` });
  return JSON.stringify({ keys: list });
}

/** 100,000 values made known by one earlier result, then 1 KB results: one of new records, one that marks nothing. */
async function manyKnown() {
  const redactor = await createRedactor();
  const first = redactor.redactJson(keysTool, keys(100_000));
  if (first.error || first.redactions.length !== 100_000) throw new Error(`the set-up call redacted ${first.redactions.length}`);
  const plainTool = { name: "list_plain", outputSchema: { type: "object" } };
  const times = { redacted: [], plain: [] };
  for (let i = 0; i < Math.max(reps, 21); i++) {
    const fresh = keys(8, 200_000 + i * 8); // about 1 KB, values not known yet
    let t = performance.now();
    const a = redactor.redactJson(keysTool, fresh);
    times.redacted.push(performance.now() - t);
    t = performance.now();
    const b = redactor.redactJson(plainTool, keys(8, 300_000));
    times.plain.push(performance.now() - t);
    if (a.redactions.length !== 8 || b.redactions.length !== 0) throw new Error("unexpected redactions");
  }
  return { bytes: keys(8, 200_000).length, redacted: median(times.redacted), plain: median(times.plain) };
}

if (arg("--family")) {
  // A child: one family, its row as JSON on stdout.
  const f = JSON.parse(readFileSync(arg("--family"), "utf8"))[Number(arg("--index"))];
  process.stdout.write(JSON.stringify(await family(f)));
  process.exit(0);
}

const { dir, file } = emitFamilies();
try {
  const list = JSON.parse(readFileSync(file, "utf8"));
  console.log(`Worst cases (issue 8), Node ${process.version}, medians of ${reps}; goal: compile + redact under ${GOAL_MS} ms`);
  console.log("");
  console.log("| family | compile | redact | total | peak wasm memory | outcome | goal |");
  console.log("| --- | ---: | ---: | ---: | ---: | --- | --- |");
  list.forEach((f, index) => {
    if (arg("--only") && !f.name.includes(arg("--only"))) return;
    const r = inChild(file, index);
    const total = r.compile + r.redact;
    const name = f.product ? `${f.name} (product)` : f.name;
    const memory = `${(r.peak / 2 ** 20).toFixed(0)} MiB`;
    console.log(`| ${name} | ${ms(r.compile)} | ${ms(r.redact)} | ${ms(total)} | ${memory} | ${r.outcome} | ${total < GOAL_MS ? "met" : "not met"} |`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const k = await manyKnown();
console.log("");
console.log(`With 100,000 known values, a ${k.bytes} B result (goal under ${KNOWN_GOAL_MS} ms):`);
console.log(`- 8 new marked values: ${ms(k.redacted)} (${k.redacted < KNOWN_GOAL_MS ? "met" : "not met"})`);
console.log(`- nothing marked (value matching only): ${ms(k.plain)} (${k.plain < KNOWN_GOAL_MS ? "met" : "not met"})`);
