#!/usr/bin/env node
// `npm run test:properties`: the property-based tests at CI size, more than 100,000 generated
// cases in all (the issue "Nothing gets through" asks for that many per CI run):
//   - Rust (tests/properties.rs, proptest) in the `props` profile (optimised, with debug
//     assertions and overflow checks): WEBMCP_PROPTEST_CASES per property, 12,000 by default;
//   - Rust (tests/engines.rs): the streaming engine against the DOM engine, its oracle,
//     WEBMCP_ENGINES_CASES per property, 5,000 by default;
//   - JS (tests/js/properties.test.mjs, fast-check, through the npm package):
//     WEBMCP_FASTCHECK_RUNS per property, 2,000 by default.
// `npm test` runs the same properties at their small default sizes. Seeds are fixed and printed
// (WEBMCP_PROPTEST_SEED, WEBMCP_FASTCHECK_SEED). Builds pkg/ first if needed.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const env = {
  ...process.env,
  WEBMCP_PROPTEST_CASES: process.env.WEBMCP_PROPTEST_CASES ?? "12000",
  WEBMCP_FASTCHECK_RUNS: process.env.WEBMCP_FASTCHECK_RUNS ?? "2000",
};

function run(cmd, argv, opts = {}) {
  console.error(`[properties] $ ${cmd} ${argv.join(" ")}`);
  const started = Date.now();
  const r = spawnSync(cmd, argv, { cwd: root, env, stdio: "inherit", ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    console.error(`[properties] ${cmd} exited with ${r.status}`);
    process.exit(r.status ?? 1);
  }
  return (Date.now() - started) / 1000;
}

/** How many property tests a file holds (each runs the configured number of cases). */
function count(cmd, argv, pattern) {
  const r = spawnSync(cmd, argv, { cwd: root, env, encoding: "utf8" });
  return (r.stdout ?? "").split("\n").filter((l) => pattern.test(l)).length;
}

run(process.execPath, ["scripts/build.mjs"]);
const cargo = ["test", "--profile", "props", "--test", "properties"];
const build = run("cargo", [...cargo, "--no-run"]);
const rustProperties = count("cargo", [...cargo, "--", "--list"], /^(?!props::)\w+: test$/);
const rust = run("cargo", cargo);
const enginesCases = process.env.WEBMCP_ENGINES_CASES ?? "5000";
const engineArgs = ["test", "--profile", "props", "--test", "engines"];
const engineProperties = count("cargo", [...engineArgs, "--", "--list"], /^the_engines_agree_(on_generated|on_odd|on_call|after)\w*: test$/);
const engines = run("cargo", engineArgs, { env: { ...env, WEBMCP_PROPTEST_CASES: enginesCases } });
const jsProperties = readFileSync(new URL("../tests/js/properties.test.mjs", import.meta.url), "utf8").match(/^test\(/gm).length;
const js = run(process.execPath, ["--test", "tests/js/properties.test.mjs"]);

const rustCases = rustProperties * Number(env.WEBMCP_PROPTEST_CASES) + engineProperties * Number(enginesCases);
const jsCases = jsProperties * Number(env.WEBMCP_FASTCHECK_RUNS);
console.error(
  `[properties] Rust: ${rustProperties} properties x ${env.WEBMCP_PROPTEST_CASES} = ${rustCases} cases in ${rust.toFixed(0)} s ` +
    `(build ${build.toFixed(0)} s), engines: ${engineProperties} x ${enginesCases} in ${engines.toFixed(0)} s; JS: ${jsProperties} properties x ${env.WEBMCP_FASTCHECK_RUNS} = ${jsCases} cases in ` +
    `${js.toFixed(0)} s; ${rustCases + jsCases} generated cases in all`,
);
