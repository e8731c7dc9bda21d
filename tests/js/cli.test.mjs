import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const TOOL = "examples/generate_api_key.tool.json";
const RESULT = "examples/generate_api_key.result.json";
const SECRET = JSON.parse(readFileSync(join(root, RESULT), "utf8")).secret;

function cli(args, input) {
  return spawnSync(process.execPath, ["bin/webmcp-redact.mjs", ...args], { cwd: root, input, encoding: "utf8" });
}

test("the example: agent view on stdout without the key, report on stderr", () => {
  const r = cli(["redact", "--tool", TOOL, "--result", RESULT]);
  assert.equal(r.status, 0, r.stderr);
  const agent = JSON.parse(r.stdout);
  assert.equal(r.stdout.includes(SECRET), false);
  assert.equal(r.stderr.includes(SECRET), false);
  assert.deepEqual(agent.structuredContent, { id: "key_123", name: "production" });
  assert.equal(agent.content[1].type, "secret_reference");
  assert.equal(agent.content[1].label, "API key");
  assert.match(r.stdout, /\n  "content": \[/, "pretty-printed");
  assert.match(r.stderr, /1 redaction from "generate_api_key"/);
  assert.match(r.stderr, /\/secret {2}x_sensitive {2}label "API key" {2}handle [0-9a-f]{32}/);
});

test("--json prints one object; --format mcp; the result can come from stdin", () => {
  const r = cli(["redact", "--tool", TOOL, "--format", "mcp", "--json"], readFileSync(join(root, RESULT)));
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
  const out = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(out), ["tool", "format", "agent", "redactions", "withheld", "error"]);
  assert.equal(out.tool, "generate_api_key");
  assert.equal(out.format, "mcp");
  assert.equal(out.agent.content[1].text, "[secret withheld: API key]");
  assert.deepEqual(out.redactions.map((x) => [x.pointer, x.reason, x.label]), [["/secret", "x_sensitive", "API key"]]);
  assert.equal(out.withheld, false);
  assert.equal(out.error, null);
  assert.equal(r.stdout.includes(SECRET), false);
});

test("numbers are printed exactly as the tool wrote them", () => {
  const dir = mkdtempSync(join(tmpdir(), "webmcp-redact-"));
  writeFileSync(join(dir, "t.json"), JSON.stringify({ name: "n" }));
  const r = cli(["redact", "--tool", join(dir, "t.json")], '{"big":12345678901234567890,"f":1.50}');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '{\n  "big": 12345678901234567890,\n  "f": 1.50\n}\n');
});

test("a bad schema exits 1 with the error code; usage errors exit 2", () => {
  const dir = mkdtempSync(join(tmpdir(), "webmcp-redact-"));
  const bad = join(dir, "bad.json");
  writeFileSync(bad, JSON.stringify({ name: "bad", outputSchema: { properties: { s: { "x-sensitive": 5 } } } }));
  const r = cli(["redact", "--tool", bad, "--result", RESULT]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /error schema_invalid: tool "bad": schema_invalid at \/outputSchema\/properties\/s\/x-sensitive/);
  assert.equal(JSON.parse(r.stdout).isError, true);
  assert.equal(r.stdout.includes(SECRET), false);

  const json = cli(["redact", "--tool", bad, "--result", RESULT, "--json"]);
  assert.equal(json.status, 1);
  assert.equal(JSON.parse(json.stdout).error.code, "schema_invalid");

  assert.equal(cli(["redact"]).status, 2);
  assert.equal(cli(["frobnicate", "--tool", TOOL]).status, 2);
  assert.equal(cli(["redact", "--tool", TOOL, "--format", "xml"], "{}").status, 2);
  assert.equal(cli(["redact", "--tool", join(dir, "missing.json")], "{}").status, 2);
});

test("the CLI ships as the package's bin and imports only the public API", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  assert.equal(pkg.bin["webmcp-redact"], "bin/webmcp-redact.mjs");
  assert.ok(pkg.files.includes("bin/"), "bin/ is in the package's files");
  const source = readFileSync(join(root, pkg.bin["webmcp-redact"]), "utf8");
  const imports = [...source.matchAll(/\bimport\s*(?:[^"'()]*\bfrom\s*)?\(?\s*["']([^"']+)["']/g)].map((m) => m[1]);
  // By its own name (a self-reference): the "node" entry of package.json "exports", as users get it.
  assert.deepEqual(imports.filter((s) => !s.startsWith("node:")), ["webmcp-redact"]);
});
