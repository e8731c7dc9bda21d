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

