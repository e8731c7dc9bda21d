// Review s28 (helper M): what a call costs in JS for a large tool definition. Work is counted
// (characters JSON.stringify wrote), never timed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction } from "webmcp-redact";
import { fakeContext } from "./helpers.mjs";

/** A tool of about `n` × 60 bytes of definition, with one marked property `memo`. */
function bigTool(n, execute) {
  const properties = { memo: { type: "string", "x-sensitive": true } };
  for (let i = 0; i < n; i++) properties[`field_${i}`] = { type: "string", description: `some description text ${i}` };
  return { name: "big", outputSchema: { type: "object", properties }, execute };
}

/** Characters JSON.stringify writes while `f` runs. */
async function stringified(f) {
  const real = JSON.stringify;
  let chars = 0;
  JSON.stringify = function (...args) {
    const text = real.apply(this, args);
    chars += typeof text === "string" ? text.length : 0;
    return text;
  };
  try {
    await f();
  } finally {
    JSON.stringify = real;
  }
  return chars;
}

const RAW = { content: [{ type: "text", text: "ok" }], structuredContent: { field_1: "a", memo: "hunter2-s28-m" } };

// Each call of a wrapped tool wrote the whole definition out again (twice: check, then redact),
// 20 ms for 1.5 MB in Node, for a result of a few bytes. The copy wrapTool and installRedaction
// read is frozen, so its text is taken once.
test("a wrapped tool's calls do not write its definition out again", async () => {
  const redactor = await createRedactor();
  const tool = bigTool(10_000, async () => RAW);
  const size = JSON.stringify(tool).length;
  assert.ok(size > 500_000, `${size}`);
  const wrapped = redactor.wrapTool(tool);
  const ctx = fakeContext();
  const uninstall = await installRedaction({ modelContext: ctx, bridge: "none" });
  try {
    await ctx.registerTool(bigTool(10_000, async () => RAW));
    for (const call of [() => wrapped.execute({ q: 1 }, {}), () => ctx.call("big", { q: 1 })]) {
      const chars = await stringified(async () => {
        for (let i = 0; i < 10; i++) {
          const out = await call();
          assert.ok(!JSON.stringify(out).includes("hunter2-s28-m"));
        }
      });
      assert.ok(chars < size, `10 calls wrote ${chars} characters for a definition of ${size}`);
    }
  } finally {
    uninstall();
  }
});

// What is cached must never serve a changed definition: a tool object given to redact is read
// again on every call, and the copy wrapTool keeps cannot be changed.
test("a definition changed between calls is not served from a cache", async () => {
  const redactor = await createRedactor();
  const tool = bigTool(100);
  // A new value each call: a value taken once is known, and scrubbed from every later result.
  const memo = (i) => redactor.redact(tool, { structuredContent: { memo: `value-${i}` } }).result.structuredContent.memo;
  assert.equal(memo(1), undefined);
  delete tool.outputSchema.properties.memo["x-sensitive"];
  assert.equal(memo(2), "value-2");
  tool.outputSchema.properties.memo["x-sensitive"] = true;
  assert.equal(memo(3), undefined);
});
