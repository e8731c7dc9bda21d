// Memory that a long-lived redactor gives back: the known set follows the vault.
import { test } from "node:test";
import assert from "node:assert/strict";

// Capture the module's instances (for the size of its memory) before the package loads it.
const instances = [];
const RealInstance = WebAssembly.Instance;
WebAssembly.Instance = new Proxy(RealInstance, {
  construct(target, args) {
    const instance = Reflect.construct(target, args);
    instances.push(instance);
    return instance;
  },
});
const { createRedactor } = await import("webmcp-redact");
const engine = await import("../../js/engine.js");

const plain = { name: "echo" };

test("vault.delete gives the known set's memory back (labels and values go with their entries)", async () => {
  const r = await createRedactor();
  const memory = () => instances.at(-1).exports.memory.buffer.byteLength;
  const round = (from) => {
    for (let n = from; n < from + 10000; n++) {
      const out = r.redact(plain, {
        content: [{ type: "secret_reference", id: `id-${n}-xxxxxxxx`, label: `label ${n} ${"L".repeat(200)}`, redeemUrl: `/r/${n}` }],
      });
      for (const x of out.redactions) if (x.handle) r.vault.delete(x.handle);
    }
  };
  round(0);
  const before = memory();
  const generation = engine.generation;
  round(10000);
  round(20000);
  assert.equal(engine.generation, generation, "no trap in between");
  assert.equal(r.vault.size, 0);
  assert.ok(memory() - before < 1 << 20, `grew ${((memory() - before) / 2 ** 20).toFixed(1)} MiB with an empty vault`);
});


const keys = {
  name: "list_keys",
  outputSchema: {
    type: "object",
    properties: { keys: { type: "array", items: { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } } } },
  },
};
const records = (n, tag) => ({ keys: Array.from({ length: n }, (_, i) => ({ id: i, secret: `sk_${tag}_${String(i).padStart(20, "0")}` })) });

test("a call that left the memory mostly free leaves a fresh, small instance behind, and nothing is forgotten", async () => {
  const r = await createRedactor();
  const session = r.session();
  session.redact({ name: "p" }, { content: [], _meta: { privateHint: true } });
  const memory = () => instances.at(-1).exports.memory.buffer.byteLength;
  const generation = engine.generation;
  const big = records(40000, "big");
  const out = session.redact(keys, big);
  assert.equal(out.redactions.length, 40000);
  assert.ok(engine.generation > generation, "the instance was replaced after the call");
  assert.ok(memory() < engine.RELEASE_FREE, `the live instance holds ${(memory() / 2 ** 20).toFixed(1)} MiB`);
  // The fresh core knows every value the big call vaulted, and the session kept its labels.
  const echo = r.redactJson({ name: "echo" }, JSON.stringify({ content: [{ type: "text", text: `leak ${big.keys[39999].secret}` }] }));
  assert.ok(!echo.json.includes(big.keys[39999].secret), echo.json);
  assert.equal(session.labels().private, true);
});

test("calls that do not grow the memory much keep the instance", async () => {
  const r = await createRedactor();
  r.redact(keys, records(10, "warm"));
  const generation = engine.generation;
  for (let i = 0; i < 200; i++) r.redact(keys, records(10, `small${i}`));
  assert.equal(engine.generation, generation);
  assert.equal(r.vault.size, 2010);
});

test("compiling a large tool grows the memory but keeps the instance: what grew is the compiled tool, still in use", async () => {
  const r = await createRedactor();
  r.redact(keys, records(1, "warm"));
  const memory = () => instances.at(-1).exports.memory.buffer.byteLength;
  const properties = {};
  for (let i = 0; i < 30000; i++) properties[`p${i}`] = { type: "string", "x-sensitive": i % 3 === 0 };
  const wide = { name: "wide", outputSchema: { type: "object", properties } };
  const before = memory();
  const generation = engine.generation;
  r.compile(wide);
  assert.ok(memory() - before > engine.RELEASE_FREE, `compiling grew the memory by ${((memory() - before) / 2 ** 20).toFixed(1)} MiB only`);
  assert.equal(engine.generation, generation, "the instance (and the compiled tool in it) was kept");
  const out = r.redact(wide, { p0: "secret-zero", p1: "plain" });
  assert.deepEqual(out.result.structuredContent.p1, "plain");
  assert.equal(out.redactions.length, 1);
  assert.equal(engine.generation, generation);
});

test("compiled tools are kept by what they hold on the heap: ten large ones do not all stay", async () => {
  const glue = await import("../../pkg/webmcp_redact.js");
  const r = await createRedactor();
  const properties = {};
  for (let i = 0; i < 30000; i++) properties[`p${i}`] = { type: "string", "x-sensitive": i % 3 === 0 };
  const live = () => glue.liveBytes();
  const before = live();
  const generation = engine.generation;
  let largest = 0;
  for (let i = 0; i < 10; i++) {
    const start = live();
    r.compile({ name: `wide_${i}`, outputSchema: { type: "object", properties } });
    largest = Math.max(largest, live() - start);
  }
  assert.ok(largest > 4 * 2 ** 20, `one compiled tool holds ${(largest / 2 ** 20).toFixed(1)} MiB`);
  // The cache's budget is 64 MiB of them (src/redactor.rs TOOL_CACHE_BYTES); their definitions
  // alone (0.8 MB each) would have let all ten stay.
  assert.ok(live() - before <= 64 * 2 ** 20 + largest, `the compiled tools hold ${((live() - before) / 2 ** 20).toFixed(1)} MiB`);
  assert.ok(10 * largest > 64 * 2 ** 20, "ten of them are more than the budget, so the test means something");
  assert.equal(engine.generation, generation, "the cache let them go, not a fresh instance");
});
