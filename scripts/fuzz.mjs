#!/usr/bin/env node
// `npm run fuzz`: coverage-guided fuzzing of the core with cargo-fuzz (libFuzzer), every target
// for a few seconds each (`-- --seconds N`, default 10; `--target NAME` to pick, repeatable).
// Works from a fresh clone: installs what is missing first, the nightly toolchain
// (`rustup toolchain install nightly --profile minimal`) and cargo-fuzz at the version pinned
// below (into the tools directory of scripts/tools.mjs: about 2 minutes the first time), then writes the seed corpora from the
// conformance vectors and example tools, builds the targets once and runs them.
//
// Targets (fuzz/fuzz_targets/): compile (tool definitions), redact (tool + raw result, both
// formats), redact_json (the door's path: options, tool, raw, session), check (pre-call checks
// after a result), engines (tool + raw result through the streaming engine and the DOM engine,
// which must agree). Inputs are UTF-8 parts separated by NUL bytes (see fuzz/src/lib.rs). The
// corpora grow in fuzz/corpus/<target>/ (not committed); a crash is saved by libFuzzer in
// fuzz/artifacts/<target>/ and this script prints how to reproduce it, then exits 1 once every
// target has run. WEBMCP_FUZZ_SEED fixes libFuzzer's seed (else it picks one and prints it).

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { toolPaths } from "./tools.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const FUZZ = join(root, "fuzz");
const CARGO_FUZZ_VERSION = "0.13.2";
const CARGO_FUZZ = toolPaths(root, "cargo-fuzz", CARGO_FUZZ_VERSION, "cargo-fuzz");
const TARGETS = ["compile", "redact", "redact_json", "check", "engines", "regex"];

function log(msg) {
  console.error(`[fuzz] ${msg}`);
}

function parseArgs(argv) {
  const out = { seconds: 10, targets: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--seconds") out.seconds = Number(argv[++i]);
    else if (a.startsWith("--seconds=")) out.seconds = Number(a.slice(10));
    else if (a === "--target") out.targets.push(argv[++i]);
    else if (a.startsWith("--target=")) out.targets.push(a.slice(9));
    else throw new Error(`unknown argument ${a} (use --seconds N, --target NAME)`);
  }
  if (!(out.seconds > 0)) throw new Error("--seconds must be a positive number");
  for (const t of out.targets) if (!TARGETS.includes(t)) throw new Error(`unknown target ${t} (${TARGETS.join(", ")})`);
  if (!out.targets.length) out.targets = TARGETS;
  return out;
}

// `cargo fuzz` runs the first cargo-fuzz on PATH: the pinned version's own directory first.
const binDirs = CARGO_FUZZ.candidates.map((bin) => join(bin, "..")).reverse();
const env = { ...process.env, PATH: [...binDirs, process.env.PATH].join(":") };

function run(cmd, argv, opts = {}) {
  log(`$ ${cmd} ${argv.join(" ")}`);
  const r = spawnSync(cmd, argv, { cwd: root, env, stdio: "inherit", ...opts });
  if (r.error) throw r.error;
  return r.status;
}

function ok(cmd, argv) {
  const r = spawnSync(cmd, argv, { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return r.status === 0 ? r.stdout.trim() : null;
}

function ensureNightly() {
  if (ok("rustup", ["run", "nightly", "rustc", "--version"]) !== null) return;
  if (run("rustup", ["toolchain", "install", "nightly", "--profile", "minimal"]) !== 0) throw new Error("could not install the nightly toolchain");
}

function ensureCargoFuzz() {
  if (ok("cargo-fuzz", ["--version"]) === `cargo-fuzz ${CARGO_FUZZ_VERSION}`) return;
  const install = ["install", "cargo-fuzz", "--version", CARGO_FUZZ_VERSION, "--root", CARGO_FUZZ.installRoot];
  if (run("cargo", [...install, "--locked"]) !== 0 && run("cargo", install) !== 0) throw new Error("could not install cargo-fuzz");
}

/** Every `patternProperties` pattern in a schema, at any depth. */
function patternsOf(schema, out = []) {
  if (schema === null || typeof schema !== "object") return out;
  for (const [k, v] of Object.entries(schema)) {
    if (k === "patternProperties" && v && typeof v === "object" && !Array.isArray(v)) out.push(...Object.keys(v));
    patternsOf(v, out);
  }
  return out;
}

/** Seeds: every conformance vector (tool, raw, format, limits) and every example tool. */
function writeSeeds() {
  const corpus = Object.fromEntries(TARGETS.map((t) => [t, join(FUZZ, "corpus", t)]));
  for (const dir of Object.values(corpus)) mkdirSync(dir, { recursive: true });
  const put = (target, name, parts) => writeFileSync(join(corpus[target], `seed-${name}`), parts.join("\0"));
  const vectors = join(root, "tests", "vectors");
  let n = 0;
  for (const file of readdirSync(vectors).filter((f) => f.endsWith(".json")).sort()) {
    const v = JSON.parse(readFileSync(join(vectors, file), "utf8"));
    const name = file.replace(/\.json$/, "");
    const tool = JSON.stringify(v.tool);
    const raw = v.rawText ?? JSON.stringify(v.raw ?? null);
    const options = JSON.stringify({ format: v.format ?? "webmcp", ...(v.limits ? { limits: v.limits } : {}) });
    const args = JSON.stringify(v.raw?.structuredContent ?? v.raw ?? {});
    put("compile", name, [tool]);
    put("redact", name, [tool, raw]);
    put("engines", name, [tool, raw]);
    put("redact_json", name, [options, tool, raw]);
    put("check", name, [tool, args, raw]);
    // regex: each pattern of the vector's schema, with the keys of its raw result.
    const keys = [...new Set(JSON.stringify(v.raw ?? null).match(/"[^"\\]*":/g) ?? [])].map((k) => k.slice(1, -2)).slice(0, 15);
    patternsOf(v.tool.outputSchema).forEach((p, i) => put("regex", `${name}-${i}`, [p, ...keys]));
    n++;
  }
  const fixtures = join(root, "tests", "fixtures", "tools");
  const examples = [
    ...readdirSync(fixtures).filter((f) => f.endsWith(".json")).map((f) => join(fixtures, f)),
    join(root, "examples", "generate_api_key.tool.json"),
  ];
  for (const path of examples) {
    const doc = JSON.parse(readFileSync(path, "utf8"));
    const tools = Array.isArray(doc.tools) ? doc.tools : [doc];
    tools.forEach((t, i) => {
      const name = `${path.split("/").pop().replace(/\.json$/, "")}-${i}`;
      put("compile", name, [JSON.stringify(t)]);
      put("check", name, [JSON.stringify(t), JSON.stringify({ to: "someone@example.com", body: "hello" }), "{}"]);
    });
  }
  // What fuzzing found once (fixed since) stays in every run: libFuzzer replays the corpus first.
  let found = 0;
  for (const target of TARGETS) {
    const dir = join(FUZZ, "artifacts-found", target);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir)) {
      copyFileSync(join(dir, file), join(corpus[target], `found-${file}`));
      found++;
    }
  }
  log(`seeded ${TARGETS.length} corpora from ${n} vectors, ${examples.length} tool files and ${found} past findings`);
}

const opts = parseArgs(process.argv.slice(2));
try {
  ensureNightly();
  ensureCargoFuzz();
  writeSeeds();
  const build = ["+nightly", "fuzz", "build", "--sanitizer", "none", "--debug-assertions"];
  if (run("cargo", build) !== 0) throw new Error("the fuzz targets did not build");
} catch (err) {
  log(`failed: ${err.message}`);
  process.exit(1);
}

const failed = [];
for (const target of opts.targets) {
  const libfuzzer = [
    `-max_total_time=${opts.seconds}`,
    `-dict=${join(FUZZ, "json.dict")}`,
    "-timeout=10",
    "-rss_limit_mb=2048",
    "-max_len=16384",
    "-print_final_stats=1",
    ...(process.env.WEBMCP_FUZZ_SEED ? [`-seed=${process.env.WEBMCP_FUZZ_SEED}`] : []),
  ];
  const started = Date.now();
  const status = run("cargo", ["+nightly", "fuzz", "run", target, "--sanitizer", "none", "--debug-assertions", "--", ...libfuzzer]);
  log(`${target}: ${status === 0 ? "no crash" : "CRASH"} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (status !== 0) failed.push(target);
}
if (failed.length) {
  for (const t of failed) {
    const dir = join(FUZZ, "artifacts", t);
    const files = existsSync(dir) ? readdirSync(dir) : [];
    log(`${t} crashed; reproduce with: cargo +nightly fuzz run ${t} --sanitizer none --debug-assertions fuzz/artifacts/${t}/${files.at(-1) ?? "<file>"}`);
  }
  process.exit(1);
}
log(`every target ran ${opts.seconds} s without a crash: ${opts.targets.join(", ")}`);
