// The shared conformance vectors (tests/vectors/*.json) run through the npm package's API, with
// the same checks as the native runner (tests/vectors.rs, which documents the vector format):
// expected agent view with handles numbered `<handle:N>` (first appearance in the agent view),
// report, withheld, error code and pointer, vault entries, canaries, and the invariants of
// rule 10 (no redacted value in the output, idempotence, same output for the same input apart
// from handles). In addition, every agent view in the "mcp" format must validate against the
// MCP SDK's CallToolResultSchema (rule 7): the vectors written for that format, and every other
// vector's input redacted once more in that format.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRedactor, RedactionError } from "webmcp-redact";

const dir = new URL("../vectors/", import.meta.url);
const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")).sort() : [];
const vectors = files.map((f) => ({ file: f, v: JSON.parse(readFileSync(new URL(f, dir), "utf8")) }));

/** Replaces every `"handle"` string with `<handle:N>`, numbered by first appearance in `seen`. */
function numberHandles(value, seen) {
  if (Array.isArray(value)) return value.map((x) => numberHandles(x, seen));
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const [k, x] of Object.entries(value)) {
    if (k === "handle" && typeof x === "string") {
      if (!seen.has(x)) seen.set(x, seen.size + 1);
      out[k] = `<handle:${seen.get(x)}>`;
    } else {
      out[k] = numberHandles(x, seen);
    }
  }
  return out;
}

/**
 * The strings of an agent view that carry content (rule 5's list: text, resource text,
 * resource_link uri/name/title/description, `_meta` values, error text; structuredContent and any
 * other member), keys included. Block structure (`type`, `mimeType`, `annotations`, `data`) and
 * the library's own additions (stubs, notice, `webmcp-redact/*` keys) are left out: they hold
 * fixed words such as "text" or "user" that a redacted value may happen to equal.
 */
function contentStrings(agent) {
  const out = [];
  const all = (v) => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(all);
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) { out.push(k); all(x); }
  };
  if (agent === null || typeof agent !== "object" || Array.isArray(agent)) {
    all(agent);
    return out;
  }
  const library = (b) =>
    b?.type === "secret_reference" || Object.keys(b?._meta ?? {}).some((k) => k.startsWith("webmcp-redact/"));
  for (const [key, value] of Object.entries(agent)) {
    if (key === "content") {
      for (const block of (Array.isArray(value) ? value : []).filter((b) => !library(b))) {
        for (const field of ["text", "uri", "name", "title", "description"]) all(block?.[field]);
        all(block?.resource?.uri);
        all(block?.resource?.text);
        all(block?._meta);
      }
    } else if (key === "_meta") {
      for (const [k, v] of Object.entries(value ?? {})) if (!k.startsWith("webmcp-redact/")) { out.push(k); all(v); }
    } else if (key !== "isError") {
      all(value);
    }
  }
  return out;
}

function stringLeaves(value, out = []) {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) value.forEach((x) => stringLeaves(x, out));
  else if (value !== null && typeof value === "object") Object.values(value).forEach((x) => stringLeaves(x, out));
  return out;
}

/**
 * A redactor for the vector, its vault primed with the vector's `known` values. The core hears
 * of known values only through the vault, so each is put there by redacting it once, under a
 * marked property whose title is the known value's label.
 */
async function redactorFor(v, format = v.format ?? "webmcp") {
  const redactor = await createRedactor({ format, ...(v.limits ? { limits: v.limits } : {}), ...(v.policy ? { policy: v.policy } : {}) });
  for (const { label, value } of v.known ?? []) {
    const tool = { name: "prime_vault", outputSchema: { type: "object", properties: { v: { title: label, "x-sensitive": true } } } };
    const primed = redactor.redactJson(tool, JSON.stringify({ v: value }));
    assert.equal(primed.error, undefined, `priming the vault failed: ${primed.error?.message}`);
  }
  return redactor;
}

const rawTextOf = (v) => v.rawText ?? JSON.stringify(v.raw);
const withheldJson = (tool, code) =>
  JSON.stringify({ content: [{ type: "text", text: `The result of ${tool} was withheld: ${code}.` }], isError: true });

function assertNoCanaries(v, json) {
  for (const canary of v.canaries ?? []) {
    assert.equal(json.includes(canary), false, `canary ${canary} leaked: ${json}`);
  }
}

function assertValidMcp(json, what) {
  const parsed = JSON.parse(json);
  try {
    CallToolResultSchema.parse(parsed);
  } catch (err) {
    assert.fail(`${what}: not a valid MCP CallToolResult: ${err.message}\n${json}`);
  }
}

async function checkCompileError(v) {
  const expect = v.expect;
  const redactor = await redactorFor(v);
  let thrown;
  try {
    redactor.compile(v.tool);
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown, `expected compile error ${expect.compileError}, compiled fine`);
  assert.ok(thrown instanceof RedactionError, `compile threw ${thrown}`);
  assert.ok(thrown instanceof Error, "RedactionError is an Error");
  assert.equal(thrown.code, expect.compileError, `compile error code (${thrown.message})`);
  if (expect.errorPointer !== undefined) assert.equal(thrown.pointer, expect.errorPointer, "error pointer");
  assert.ok(thrown.message.includes(v.tool.name), `the message names the tool: ${thrown.message}`);

  // Fail closed: a result of a tool that does not compile is withheld, never passed through.
  const out = redactor.redactJson(v.tool, rawTextOf(v));
  assert.equal(out.json, withheldJson(v.tool.name, expect.compileError), "withheld result");
  assert.equal(out.withheld, true, "withheld");
  assert.equal(out.error?.code, expect.compileError, "error code of the withheld result");
  assertNoCanaries(v, out.json);
}

async function checkVector(v) {
  const expect = v.expect;
  if (expect.compileError !== undefined) return checkCompileError(v);
  const text = rawTextOf(v);
  const redactor = await redactorFor(v);
  redactor.compile(v.tool);
  const out = redactor.redactJson(v.tool, text);
  const agent = JSON.parse(out.json); // rule 10: the output is valid JSON

  // Rule 10: nothing redacted reaches the agent.
  assertNoCanaries(v, out.json);
  const carried = contentStrings(agent);
  for (const r of out.redactions) {
    if (r.reason !== "x_sensitive" && r.reason !== "schema_mismatch") continue;
    const entry = r.handle === undefined ? undefined : redactor.vault.get(r.handle);
    if (!entry) continue;
    const value = entry.kind === "value" ? entry.value : entry.kind === "many" ? entry.values.find((x) => x.pointer === r.pointer)?.value : undefined;
    for (const s of stringLeaves(value)) {
      if ([...s].length < 4) continue;
      const escaped = JSON.stringify(s).slice(1, -1);
      const found = carried.find((c) => c.includes(s) || c.includes(escaped));
      assert.equal(found, undefined, `redacted value ${JSON.stringify(s)} appears in ${JSON.stringify(found)} of the agent view: ${out.json}`);
    }
  }

  assert.equal(out.error?.code ?? null, expect.error ?? null, `error (${out.error?.message})`);
  if (out.error) {
    assert.ok(out.error instanceof RedactionError, "the error is a RedactionError");
    if (expect.errorPointer !== undefined) assert.equal(out.error.pointer, expect.errorPointer, "error pointer");
  }
  assert.equal(out.withheld, expect.withheld, "withheld");
  assert.deepEqual(out.redactions.map(({ pointer, reason, label }) => ({ pointer, reason, label })), expect.redactions, "redactions");

  const seen = new Map();
  const numbered = numberHandles(agent, seen);
  if (expect.passthrough === true) assert.equal(out.json, text, "byte-identical passthrough");
  else assert.deepEqual(numbered, expect.agent, "agent view");

  if (expect.secrets !== undefined) {
    // The vault entries this call made: one per distinct handle in the report.
    const made = [...new Set(out.redactions.map((r) => r.handle).filter((h) => h !== undefined))];
    assert.equal(made.length, expect.secrets.length, "number of vault entries");
    const byNumber = new Map([...seen].map(([handle, n]) => [`<handle:${n}>`, handle]));
    for (const want of expect.secrets) {
      const handle = byNumber.get(want.handle);
      assert.ok(handle, `${want.handle} of the expected secrets is not in the agent view`);
      const entry = redactor.vault.get(handle);
      assert.ok(entry, `no vault entry for ${want.handle}`);
      assert.deepEqual({ ...entry, handle: want.handle }, want, `vault entry ${want.handle}`);
    }
  }

  if ((v.format ?? "webmcp") === "mcp") assertValidMcp(out.json, "agent view");

  // Rule 10: the same input gives the same output, apart from handles.
  const other = (await redactorFor(v)).redactJson(v.tool, text);
  assert.deepEqual(numberHandles(JSON.parse(other.json), new Map()), numberHandles(agent, new Map()), "deterministic apart from handles");

  // Rule 10: redacting the agent view again (same redactor: its vault now holds this
  // result's secrets, as in real use) changes nothing, byte for byte.
  if (!out.error) {
    const again = redactor.redactJson(v.tool, out.json);
    assert.equal(again.json, out.json, "idempotent");
  }

  // The value path (redact) agrees with the text path (redactJson), apart from handles.
  if (v.rawText === undefined) {
    const viaValue = (await redactorFor(v)).redact(v.tool, v.raw);
    assert.deepEqual(numberHandles(viaValue.result, new Map()), numberHandles(agent, new Map()), "redact and redactJson agree");
  }
}

test("there are at least 60 conformance vectors, each named after its file", () => {
  assert.ok(vectors.length >= 60, `expected at least 60 vectors, found ${vectors.length}`);
  for (const { file, v } of vectors) {
    assert.equal(`${v.name}.json`, file);
    assert.ok(typeof v.rule === "string" && v.rule.length > 0, `${file}: rule`);
    assert.ok(typeof v.description === "string" && v.description.length > 0, `${file}: description`);
  }
});

for (const { file, v } of vectors) {
  test(`vector ${file} (rule ${v.rule})`, () => checkVector(v));
}

// Rule 7: "In the mcp format every result validates against CallToolResultSchema." Every
// vector's input, redacted in the "mcp" format, must give a valid CallToolResult, whatever the
// vector expects in its own format (errors included: the withheld result is one too).
for (const { file, v } of vectors) {
  if ((v.format ?? "webmcp") === "mcp") continue;
  test(`vector ${file} in the "mcp" format is a valid CallToolResult`, async () => {
    const redactor = await redactorFor(v, "mcp");
    const out = redactor.redactJson(v.tool, rawTextOf(v));
    assertNoCanaries(v, out.json);
    assertValidMcp(out.json, "agent view in the mcp format");
  });
}
