// Property-based tests through the package API (fast-check): generated tools, instances with a
// canary under every mark and raw results echoing them (tests/js/arbitraries.mjs), run through
// createRedactor / redact / redactJson, a later call of another tool, and the "mcp" format
// checked with the MCP SDK's own CallToolResultSchema. The generated cases cover every leak
// class the review found (the Rust properties force each one: tests/properties_open.rs).
//
// WEBMCP_FASTCHECK_RUNS sets the runs per property (default 150), WEBMCP_FASTCHECK_SEED the
// seed (fixed, printed). A failure prints fast-check's counterexample and its seed and path,
// and the tool, raw result and agent view.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRedactor, RedactionError } from "webmcp-redact";
import { withheldText } from "./helpers.mjs";
import * as gen from "./arbitraries.mjs";

const SEED = Number(process.env.WEBMCP_FASTCHECK_SEED ?? 20260522);
const RUNS = Number(process.env.WEBMCP_FASTCHECK_RUNS ?? 150);
const params = { seed: SEED, numRuns: RUNS, includeErrorInReport: true };

// One redactor per set of options, reused by every run: `vault.clear()` empties its known set
// first, so each run starts as a fresh redactor would (compiled tools stay cached, which
// changes nothing), without leaving thousands of cores for the garbage collector.
const redactors = new Map();
async function redactor(options) {
  const key = JSON.stringify(options);
  if (!redactors.has(key)) redactors.set(key, await createRedactor(options));
  const r = redactors.get(key);
  r.vault.clear();
  return r;
}

function banner(t) {
  t.diagnostic(`fast-check seed ${SEED} (WEBMCP_FASTCHECK_SEED), ${RUNS} runs (WEBMCP_FASTCHECK_RUNS)`);
}

const show = (what, tool, raw, view) =>
  `${what}\n  tool:  ${JSON.stringify(tool)}\n  raw:   ${typeof raw === "string" ? raw : JSON.stringify(raw)}\n  agent: ${view}`;

/** What holds for every outcome: no canary; mcp validates; an error is exactly the withheld view. */
function checkOutcome(out, { tool, raw, format, name = tool?.name ?? "" }) {
  const view = "json" in out ? out.json : JSON.stringify(out.result);
  const result = "json" in out ? JSON.parse(out.json) : out.result;
  const leaked = gen.canaryTokens(view);
  assert.deepEqual(leaked, [], show(`canaries reached the agent: ${leaked}`, tool, raw, view));
  if (format === "mcp") {
    const parsed = CallToolResultSchema.safeParse(result);
    assert.ok(parsed.success, show(`not a CallToolResult: ${JSON.stringify(parsed.error?.issues)}`, tool, raw, view));
  }
  if (out.error !== undefined) {
    assert.ok(out.error instanceof RedactionError, show("error is not a RedactionError", tool, raw, view));
    assert.equal(view, withheldText(name, out.error.code), show("an error must give exactly the withheld view", tool, raw, view));
    assert.equal(out.withheld, true);
  }
  return view;
}

test("redact: no canary reaches the agent; mcp results validate; errors are withheld", async (t) => {
  banner(t);
  await fc.assert(
    fc.asyncProperty(gen.caseArb(), async (c) => {
      const r = await redactor({ format: c.format });
      const { tool, raw } = gen.build(c);
      const text = JSON.stringify(raw); // redact reads `raw` once; keep what it saw
      checkOutcome(r.redact(tool, raw), { tool, raw: text, format: c.format });
    }),
    params,
  );
});

test("redactJson: the same through JSON text, and a second pass changes nothing byte for byte", async (t) => {
  banner(t);
  await fc.assert(
    fc.asyncProperty(gen.caseArb(), async (c) => {
      const r = await redactor({ format: c.format });
      const { tool, raw } = gen.build(c);
      const text = JSON.stringify(raw, null, c.plan.pretty ? 2 : 0);
      const out = r.redactJson(tool, text);
      checkOutcome(out, { tool, raw: text, format: c.format });
      if (out.error) return;
      const again = r.redactJson(tool, out.json);
      assert.equal(again.json, out.json, show(`a second pass changed it:\n  second: ${again.json}`, tool, text, out.json));
    }),
    params,
  );
});

test("mcp format: every agent view validates against the SDK's CallToolResultSchema", async (t) => {
  banner(t);
  const mcpCase = gen.caseArb().map((c) => ({ ...c, format: "mcp" }));
  await fc.assert(
    fc.asyncProperty(mcpCase, async (c) => {
      const r = await redactor({ format: "mcp" });
      const { tool, raw } = gen.build(c);
      const out = r.redact(tool, raw);
      for (const block of out.result.content) assert.ok(["text", "image", "audio", "resource_link", "resource"].includes(block.type));
      checkOutcome(out, { tool, raw, format: "mcp" });
    }),
    params,
  );
});

test("a later result of another, unmarked tool never carries an earlier result's secrets", async (t) => {
  banner(t);
  const carry = fc.record({
    first: gen.caseArb(gen.CLAIMED_SITES, 4),
    other: fc.constantFrom(...Object.keys(gen.OTHER_TOOLS)),
    plan: gen.laterPlan(),
    asText: fc.boolean(),
  });
  await fc.assert(
    fc.asyncProperty(carry, async ({ first, other, plan, asText }) => {
      const r = await redactor({ format: first.format });
      const one = gen.build(first);
      checkOutcome(r.redact(one.tool, one.raw), { tool: one.tool, raw: JSON.stringify(one.raw), format: first.format });
      const tool = gen.OTHER_TOOLS[other];
      const raw = gen.raw({ status: "ok" }, one.canaries, plan);
      const text = JSON.stringify(raw, null, plan.pretty ? 2 : 0);
      const out = asText ? r.redactJson(tool, text) : r.redact(tool, raw);
      const view = checkOutcome(out, { tool, raw: text, format: first.format });
      if (!out.error) {
        const again = r.redactJson(tool, view);
        assert.equal(again.json, view, show(`a second pass changed it:\n  second: ${again.json}`, tool, text, view));
      }
    }),
    params,
  );
});

// Ways a redaction fails, from JS values the core never sees to limits and bad schemas.
const FAULTS = {
  bigint: (tool, raw) => [tool, { ...wrap(raw), n: 1n }],
  cycle: (tool, raw) => {
    const o = wrap(raw);
    o.self = o;
    return [tool, o];
  },
  throwingGetter: (tool, raw) => [tool, Object.defineProperty(wrap(raw), "x", { enumerable: true, get: () => { throw new Error("CNRY999xq in a getter"); } })],
  throwingToJSON: (tool, raw) => [tool, { ...wrap(raw), toJSON: () => { throw new Error("no"); } }],
  truncated: (tool, raw, n) => {
    const text = JSON.stringify(raw);
    return [tool, text.slice(0, n % Math.max(text.length, 1)), "text"];
  },
  trailing: (tool, raw) => [tool, `${JSON.stringify(raw)} {}`, "text"],
  notAString: (tool) => [tool, 42, "text"],
  badMark: (tool, raw) => [{ ...tool, outputSchema: { ...tool.outputSchema, properties: { bad: { "x-sensitive": 1 } } } }, raw],
  remoteRef: (tool, raw) => [{ ...tool, outputSchema: { ...tool.outputSchema, allOf: [{ $ref: "https://schemas.example/x.json" }] } }, raw],
  danglingRef: (tool, raw) => [{ ...tool, outputSchema: { ...tool.outputSchema, allOf: [{ $ref: "#/$defs/missing" }] } }, raw],
  emptyName: (tool, raw) => [{ ...tool, name: "" }, raw],
  toolNotObject: (_tool, raw) => ["gen_tool", raw],
  tinyDepth: (tool, raw) => [tool, raw, "value", { limits: { maxDepth: 3 } }],
  tinySize: (tool, raw) => [tool, raw, "value", { limits: { maxInputBytes: 200 } }],
  noRefHops: (tool, raw) => [tool, raw, "value", { limits: { maxRefHops: 1 } }],
};
const wrap = (raw) => (raw !== null && typeof raw === "object" && !Array.isArray(raw) ? { ...raw } : { value: raw });

test("errors give exactly the withheld view, with a RedactionError, and no canary", async (t) => {
  banner(t);
  const faulty = fc.record({ c: gen.caseArb(gen.CLAIMED_SITES, 4), fault: fc.constantFrom(...Object.keys(FAULTS)), n: fc.nat() });
  await fc.assert(
    fc.asyncProperty(faulty, async ({ c, fault, n }) => {
      const built = gen.build(c);
      const [tool, raw, kind = "value", options = {}] = FAULTS[fault](built.tool, built.raw, n);
      const r = await redactor({ format: c.format, ...options });
      const out = kind === "text" ? r.redactJson(tool, raw) : r.redact(tool, raw);
      const name = typeof tool === "object" ? tool.name : "";
      checkOutcome(out, { tool, raw: kind === "text" ? String(raw) : "(a JS value)", format: c.format, name });
      if (["bigint", "cycle", "throwingGetter", "throwingToJSON"].includes(fault)) assert.equal(out.error?.code, "unserializable");
      if (fault === "notAString") assert.equal(out.error?.code, "invalid_json");
    }),
    params,
  );
});
