// The outputSchema a runtime is given (redactor.agentSchema, which installRedaction and wrapTool
// register tools with) must accept what the redactor writes: an MCP runtime such as
// @mcp-b/global validates every result's structuredContent against it, and turns a mismatch
// into an error. Checked with a real JSON Schema validator (ajv, the one the MCP SDK uses), on
// every conformance vector and on generated tools (tests/js/arbitraries.mjs) whose object
// schemas require every property: for a raw value valid against the tool's own schema, the
// agent view's structuredContent is valid against the published one, in both formats.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import fc from "fast-check";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import { createRedactor, RedactionError } from "webmcp-redact";
import * as gen from "./arbitraries.mjs";

const SEED = Number(process.env.WEBMCP_FASTCHECK_SEED ?? 20260522);
const RUNS = Number(process.env.WEBMCP_FASTCHECK_RUNS ?? 150);

// strict: false lets "x-sensitive" and the other annotations through; formats are not the point.
const AJV = { strict: false, validateFormats: false, allErrors: true };
const ajv2019 = new Ajv2019(AJV);
const ajv2020 = new Ajv2020(AJV);

/** Does `value` validate against `schema`, in the draft its keywords say (2020-12 for prefixItems and $dynamicRef)? */
function validates(schema, value) {
  const text = JSON.stringify(schema);
  const ajv = /"(prefixItems|\$dynamicRef|\$dynamicAnchor)"/.test(text) || /2020-12/.test(schema?.$schema ?? "") ? ajv2020 : ajv2019;
  try {
    const validate = ajv.compile(schema);
    return validate(value) ? true : validate.errors;
  } finally {
    ajv.removeSchema(); // every schema is new: keep no $id for the next one
  }
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/** The structured value of a raw result (rule 2): `structuredContent` of a CallToolResult, or the value. */
const structuredOf = (raw) =>
  isObject(raw) && Array.isArray(raw.content) && raw.content.every((b) => isObject(b) && typeof b.type === "string")
    ? raw.structuredContent
    : raw;

/**
 * Redacts `raw` for `tool` and checks the view against the published schema. Returns whether
 * the check applied (the raw value was valid and the view carries structuredContent).
 */
function check(redactor, tool, raw, where, textOnly) {
  const published = redactor.agentSchema(tool);
  const structured = structuredOf(raw);
  if (structured === undefined || validates(tool.outputSchema, structured) !== true) return false;
  // A `textOnly` vector's text has no exact JS value (1e400 reads as Infinity): redacted as text.
  const result = textOnly === undefined ? redactor.redact(tool, raw).result : JSON.parse(redactor.redactJson(tool, textOnly).json);
  const show = `${where}\n  tool: ${JSON.stringify(tool)}\n  raw: ${JSON.stringify(raw)}\n  agent: ${JSON.stringify(result)}\n  published: ${JSON.stringify(published)}`;
  if (result.isError) return false; // a withheld error: runtimes do not validate errors
  if (published === null) return false; // nothing for a runtime to validate against
  // A plain value passes through the "webmcp" format when nothing is redacted: the runtime
  // makes it the structuredContent. A runtime refuses a result without one when the tool has
  // a schema.
  const view = structuredOf(result);
  assert.ok(isObject(view), `no structuredContent although a schema is published: ${show}`);
  const verdict = validates(published, view);
  assert.equal(verdict, true, `${JSON.stringify(verdict)}: ${show}`);
  return true;
}

test("agentSchema on every conformance vector: each view validates against the published schema", async (t) => {
  const dir = new URL("../vectors/", import.meta.url);
  let checked = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    const v = JSON.parse(readFileSync(new URL(file, dir), "utf8"));
    if (v.tool.outputSchema === undefined) continue;
    for (const format of ["webmcp", "mcp"]) {
      const redactor = await createRedactor({ format, ...(v.limits ? { limits: v.limits } : {}), ...(v.policy ? { policy: v.policy } : {}) });
      if (v.expect.compileError !== undefined) {
        // A schema the core cannot enforce has no agent schema either: the same error.
        assert.throws(() => redactor.agentSchema(v.tool), (e) => e instanceof RedactionError && e.code === v.expect.compileError, file);
        continue;
      }
      let raw;
      try {
        raw = v.rawText === undefined ? v.raw : JSON.parse(v.rawText);
      } catch {
        continue; // not JSON at all (the result is withheld): no view to validate
      }
      if (check(redactor, v.tool, raw, `${file} (${format})`, v.textOnly ? v.rawText : undefined)) checked += 1;
    }
  }
  // Most vectors with an object schema and a valid raw value exercise it (in both formats).
  t.diagnostic(`${checked} vector runs checked`);
  assert.ok(checked >= 80, `only ${checked} vector runs were checked`);
});

/**
 * Adds `required` with every declared property to each object schema: the generated instances
 * have them all, but for the trigger of `dependentSchemas`, optional by design.
 */
function requireAll(schema) {
  if (Array.isArray(schema)) return schema.map(requireAll);
  if (!isObject(schema)) return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, requireAll(v)]));
  if (isObject(out.properties)) {
    const names = Object.keys(out.properties).filter((k) => !Object.hasOwn(out.dependentSchemas ?? {}, k));
    out.required = [...new Set([...(out.required ?? []), ...names])];
  }
  return out;
}

test("agentSchema on generated tools whose objects require every property: each view validates", async (t) => {
  t.diagnostic(`fast-check seed ${SEED} (WEBMCP_FASTCHECK_SEED), ${RUNS} runs (WEBMCP_FASTCHECK_RUNS)`);
  const redactors = { webmcp: await createRedactor({ format: "webmcp" }), mcp: await createRedactor({ format: "mcp" }) };
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(gen.rootShape, fc.boolean(), fc.constantFrom("webmcp", "mcp"), async (root, sensitive, format) => {
      const tool = gen.tool(root, sensitive);
      tool.outputSchema = requireAll(tool.outputSchema);
      const raw = gen.instance(root, gen.newCanaries());
      assert.equal(validates(tool.outputSchema, raw), true, `the generated instance is valid: ${JSON.stringify({ tool, raw })}`);
      const r = redactors[format];
      r.vault.clear();
      if (check(r, tool, raw, "generated")) checked += 1;
    }),
    { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
  );
  t.diagnostic(`${checked} runs checked`);
  assert.ok(checked >= RUNS / 3, `only ${checked} of ${RUNS} runs carried structuredContent`);
});
