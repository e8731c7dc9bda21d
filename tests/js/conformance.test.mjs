// `webmcp-redact/conformance` and `webmcp-redact conformance`: the runner other implementations
// point at their own redact. It must pass this library, and fail broken implementations by
// naming the vector and what went wrong.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createRedactor } from "webmcp-redact";
import { checkProposal, loadVectors, runConformance } from "webmcp-redact/conformance";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixture = (name) => `tests/js/fixtures/conformance/${name}.mjs`;
const withProposal = loadVectors().filter((v) => v.proposal);

function cli(args) {
  return spawnSync(process.execPath, ["bin/webmcp-redact.mjs", "conformance", ...args], { cwd: root, encoding: "utf8" });
}

test("most vectors state what any implementation must do; each names what it hides or keeps", () => {
  assert.ok(withProposal.length >= 50, `${withProposal.length} vectors with a proposal`);
  for (const v of withProposal) {
    assert.ok(v.proposal.hidden.length + v.proposal.kept.length > 0, v.name);
  }
  // The ones without depend on this library's options or choices.
  const library = loadVectors().filter((v) => !v.proposal);
  assert.ok(library.some((v) => v.format === "mcp") && library.some((v) => v.known) && library.some((v) => v.limits));
});

test("the README counts the vectors as they are", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  assert.match(readme, new RegExp(`\\(${loadVectors().length} of them: tool, raw result`));
  assert.match(readme, new RegExp(`\\b${withProposal.length} of them also say what any implementation`));
});

test("this library meets every proposal expectation, as a function and through the CLI", async () => {
  const report = await runConformance(async (tool, raw) => (await createRedactor()).redact(tool, raw).result);
  assert.deepEqual(report.failed, []);
  assert.deepEqual(report.passed, withProposal.map((v) => v.name));

  for (const args of [[], ["--module", fixture("self")]]) {
    const r = cli(args);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal(r.stdout, `${withProposal.length} of ${withProposal.length} vectors met the proposal's expectations\n`);
  }
});

test("a redact that only drops top-level marked properties fails, naming each vector and leak", () => {
  const r = cli(["--module", fixture("naive")]);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^not ok 022-ref-root: the agent saw "CANARY_022_b", in the string at \/child\/token$/m);
  assert.match(r.stdout, /^not ok 160-secret-reference-fields-never-forwarded: the agent saw "ref_CANARY_160_id", in the string at \/content\/1\/id$/m);
  assert.doesNotMatch(r.stdout, /not ok 004-structured-value-wrapped/, "the top-level case it handles passes");
  assert.match(r.stdout, /\d+ of \d+ vectors met the proposal's expectations; failed: .*022-ref-root/);

  const json = cli(["--module", fixture("naive"), "--vector", "022", "--json"]);
  assert.equal(json.status, 1);
  const report = JSON.parse(json.stdout);
  assert.deepEqual(report.passed, []);
  assert.deepEqual(report.failed.map((f) => f.name), ["022-ref-root"]);
});

test("a redact that withholds everything fails the values that must reach the agent", async () => {
  const { default: withholdAll } = await import(`../../${fixture("withhold-all")}`);
  const report = await runConformance({ default: withholdAll });
  const failed = new Map(report.failed.map((f) => [f.name, f.problems]));
  assert.deepEqual(failed.get("004-structured-value-wrapped"), [
    '"key_3" should reach the agent but does not',
    '"prod" should reach the agent but does not',
  ]);
  // Hiding everything meets the vectors that keep nothing.
  assert.ok(report.passed.includes("160-secret-reference-fields-never-forwarded"));
  assert.ok(report.passed.includes("039-hint-true-no-schema-withheld"));
});

test("an implementation that throws gave the agent nothing: hidden is met, kept is not", async () => {
  const report = await runConformance({
    redactJson() {
      throw new Error("unsupported schema");
    },
  });
  assert.ok(report.passed.includes("010-pattern-look-ahead-is-schema-invalid"));
  const problems = report.failed.find((f) => f.name === "008-properties")?.problems;
  assert.deepEqual(problems, ['"ana@example.com" should reach the agent but does not (it threw: unsupported schema)']);
});

test("checkProposal looks in the JSON text, in decoded strings and in keys", () => {
  const v = { proposal: { hidden: ['pa"ss', "sk_1"], kept: ["ana"] } };
  assert.deepEqual(checkProposal(v, JSON.stringify({ user: "ana" })), []);
  assert.deepEqual(checkProposal(v, JSON.stringify({ user: "ana", note: 'x pa"ss y' })), [
    'the agent saw "pa\\"ss", in the string at /note',
  ]);
  assert.deepEqual(checkProposal(v, JSON.stringify({ n: { sk_1: 1 }, u: "ana" })), ['the agent saw "sk_1", in the key at /n/sk_1']);
  assert.deepEqual(checkProposal(v, JSON.stringify({ text: JSON.stringify({ p: 'pa"ss' }), u: "ana" })).length, 0,
    "an escaped copy inside JSON text is this library's business (canaries), not the proposal's");
  assert.deepEqual(checkProposal(v, "{}"), ['"ana" should reach the agent but does not']);
  assert.deepEqual(checkProposal(v, "not json"), ["the agent view is not JSON: not json"]);
});

test("usage errors: a module without a redact, a filter that matches nothing, a positional", () => {
  for (const [args, message] of [
    [["--module", "tests/js/helpers.mjs"], /--module tests\/js\/helpers\.mjs exports no redactJson, redact or default function/],
    [["--module", "tests/js/fixtures/conformance/missing.mjs"], /cannot import --module/],
    [["--vector", "no-such-vector"], /no vector with proposal expectations has a name containing "no-such-vector"/],
    [["impl.mjs"], /conformance takes no file "impl\.mjs"/],
    [["--tool", "t.json"], /--tool is not an option of conformance/],
  ]) {
    const r = cli(args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /^webmcp-redact: [^\n]+ \(see webmcp-redact --help\)\n$/);
    assert.match(r.stderr, message);
  }
});
