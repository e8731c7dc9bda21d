#!/usr/bin/env node
// Builds pkg/ (the wasm module and its glue), installing what is missing first:
// the wasm32 target, wasm-bindgen-cli at exactly the version pinned in Cargo.toml, and the npm
// dev dependencies (binaryen's wasm-opt among them), so that a fresh clone needs no separate
// `npm install`.
// `--force` rebuilds even when pkg/ is newer than every input.

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { toolPaths } from "./tools.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = new Set(process.argv.slice(2));
const TARGET = "wasm32-unknown-unknown";
const WASM = join(root, "pkg", "webmcp_redact_bg.wasm");
const GLUE = join(root, "pkg", "webmcp_redact.js");
// The same core with lint, for lintTools and the CLI; pages load only the module above.
const LINT_WASM = join(root, "pkg", "webmcp_redact_lint_bg.wasm");
const LINT_GLUE = join(root, "pkg", "webmcp_redact_lint.js");
// The page's module again, as base64 inside a JS module, for the "webmcp-redact/inline" entry
// (extensions, workers, CDNs: no second file to fetch). Its .d.ts lets tsc skip the long string.
const INLINE = join(root, "pkg", "webmcp_redact_inline.js");
const INLINE_DTS = join(root, "pkg", "webmcp_redact_inline.d.ts");
const OUTPUTS = [WASM, GLUE, LINT_WASM, LINT_GLUE, INLINE, INLINE_DTS];
// wasm-opt comes from the npm `binaryen` package, pinned in package.json: Debian's binaryen
// (108) writes every table export as table 0 (binaryen #4711, fixed in 110), which breaks
// wasm-bindgen's externref table. The features are the ones current rustc output uses.
const WASM_OPT = join(root, "node_modules", "binaryen", "bin", "wasm-opt");
const WASM_OPT_FEATURES = [
  "--enable-bulk-memory", "--enable-reference-types", "--enable-multivalue",
  "--enable-sign-ext", "--enable-nontrapping-float-to-int", "--enable-mutable-globals",
];

function log(msg) {
  console.error(`[build] ${msg}`);
}

function run(cmd, argv, opts = {}) {
  log(`$ ${cmd} ${argv.join(" ")}`);
  const r = spawnSync(cmd, argv, { cwd: root, stdio: "inherit", ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} exited with ${r.status}`);
}

function output(cmd, argv) {
  try {
    return execFileSync(cmd, argv, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}

function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

function upToDate() {
  if (!OUTPUTS.every(existsSync)) return false;
  const inputs = ["src", "Cargo.toml", "Cargo.lock", "scripts/build.mjs"].map((p) => join(root, p)).filter(existsSync);
  const newestInput = Math.max(...inputs.map(newestMtime));
  return Math.min(...OUTPUTS.map((f) => statSync(f).mtimeMs)) > newestInput;
}

function pinnedBindgenVersion() {
  const toml = readFileSync(join(root, "Cargo.toml"), "utf8");
  const m = toml.match(/^wasm-bindgen\s*=\s*(?:\{[^}]*version\s*=\s*)?"=([0-9][^"]*)"/m);
  if (!m) throw new Error('Cargo.toml must pin wasm-bindgen exactly (wasm-bindgen = "=X.Y.Z")');
  return m[1];
}

function ensureTarget() {
  const installed = output("rustup", ["target", "list", "--installed"]);
  if (installed === null) {
    log("rustup not found; assuming the wasm32 target is installed");
    return;
  }
  if (!installed.split("\n").includes(TARGET)) run("rustup", ["target", "add", TARGET]);
}

// The CLI must match the wasm-bindgen crate exactly, or the glue and the module disagree.
function ensureBindgen(version) {
  // Our own installs (not a global wasm-bindgen, left alone), then one on PATH if it matches.
  const { installRoot, candidates } = toolPaths(root, "wasm-bindgen-cli", version, "wasm-bindgen");
  for (const bin of [...candidates, "wasm-bindgen"]) {
    if (output(bin, ["--version"]) === `wasm-bindgen ${version}`) return bin;
  }
  const install = ["install", "wasm-bindgen-cli", "--version", version, "--root", installRoot];
  try {
    run("cargo", [...install, "--locked"]);
  } catch {
    // The CLI's lockfile can name a dependency version the registry in use does not offer;
    // resolving afresh still builds the same CLI version.
    log("`cargo install --locked` failed; retrying without --locked");
    run("cargo", install);
  }
  return candidates.at(-1);
}

function ensureNpmDeps() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
  const needed = names.map((name) => join(root, "node_modules", ...name.split("/"), "package.json"));
  if (needed.every(existsSync)) return;
  const ci = existsSync(join(root, "package-lock.json")) ? "ci" : "install";
  run("npm", [ci, "--no-audit", "--no-fund"]);
}

function printSizes() {
  const bytes = readFileSync(WASM);
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  log(`pkg/webmcp_redact_bg.wasm: ${kb(bytes.length)} raw, ${kb(gzipSync(bytes, { level: 9 }).length)} gzip -9`);
}

/** One module: the crate built with `features`, bound and optimized as `pkg/<name>_bg.wasm`. */
function buildModule(bindgen, name, features) {
  run("cargo", ["build", "--release", "--lib", "--target", TARGET, "--no-default-features", ...features]);
  // Where cargo wrote it: its target directory, moved by CARGO_TARGET_DIR (relative to the
  // clone, where cargo runs) as cargo itself reads it.
  const targetDir = process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, "target");
  const raw = join(targetDir, TARGET, "release", "webmcp_redact.wasm");
  // --target web: plain ES module glue that loads in browsers without a bundler and in Node
  // (js/engine.js hands it the compiled module, so nothing is fetched by the glue itself).
  // The glue's own .d.ts is kept: tsc checks js/ against it. `__wbg_reset_state` gives a fresh
  // instance of the same module after a trap (js/engine.js), with no second copy of the glue.
  // `--omit-default-module-path` drops the glue's own `new URL("<name>_bg.wasm", import.meta.url)`:
  // the entry points say where the module is (js/index.js), and a bundler that saw the glue's
  // reference would emit the .wasm even into a build of the inline entry, which never fetches it.
  const bind = [
    "--target", "web", "--out-dir", join(root, "pkg"), "--out-name", name,
    "--experimental-reset-state-function", "--omit-default-module-path",
  ];
  run(bindgen, [raw, ...bind]);
  // strip = true in Cargo.toml would drop the target-features section; strip here instead.
  // `--converge` runs -Oz again while it still shrinks the module: 0.3 KiB raw, 0.9 KiB gzip
  // (measured at stop 36; `-Oz -Oz`, `--gufa`, `--dce`, `-Os` and `--inlining-optimizing` cut less
  // or grew it).
  const wasm = join(root, "pkg", `${name}_bg.wasm`);
  run(process.execPath, [WASM_OPT, "-Oz", "--converge", ...WASM_OPT_FEATURES, "--strip-debug", "--strip-producers", wasm, "-o", wasm]);
}

/** pkg/webmcp_redact_inline.js: the optimized page module as one base64 string. */
function writeInline() {
  const base64 = readFileSync(WASM).toString("base64");
  writeFileSync(
    INLINE,
    "// Generated by scripts/build.mjs from webmcp_redact_bg.wasm, for js/inline.js. Do not edit.\n" +
      `export const wasmBase64 = "${base64}";\n`,
  );
  writeFileSync(INLINE_DTS, "/** webmcp_redact_bg.wasm as base64 (generated by scripts/build.mjs). */\nexport const wasmBase64: string;\n");
}

function build() {
  ensureTarget();
  const bindgen = ensureBindgen(pinnedBindgenVersion());
  buildModule(bindgen, "webmcp_redact_lint", ["--features", "lint"]);
  buildModule(bindgen, "webmcp_redact", []);
  writeInline();
}

try {
  ensureNpmDeps();
  if (!args.has("--force") && upToDate()) {
    log("pkg/ is up to date");
  } else {
    try {
      build();
    } catch (err) {
      // A half-finished pkg/ must not look up to date next time.
      for (const f of OUTPUTS) if (existsSync(f)) unlinkSync(f);
      throw err;
    }
  }
  printSizes();
} catch (err) {
  log(`failed: ${err.message}`);
  process.exit(1);
}
