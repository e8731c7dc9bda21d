// Handles come from one crypto.getRandomValues call per result, however many a result needs
// (src/wasm/crypto.rs): each call crosses into JS. Before, the module drew 16 handles a call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor } from "webmcp-redact";
import { HANDLE } from "./helpers.mjs";

const keysTool = {
  name: "list_keys",
  outputSchema: {
    type: "object",
    properties: { keys: { type: "array", items: { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } } } },
  },
};

/** Runs `fn` (and awaits it) with crypto.getRandomValues counted: the byte length of each call. */
async function drawn(fn) {
  const real = crypto.getRandomValues;
  const calls = [];
  crypto.getRandomValues = function (array) {
    calls.push(array.byteLength);
    return real.call(crypto, array);
  };
  try {
    return { out: await fn(), calls };
  } finally {
    crypto.getRandomValues = real;
  }
}

// First in this file, so that its redactor is the first core of this realm's instance.
test("a fresh instance seeds the core's hashing from Web Crypto once, before any table", async () => {
  // std's RandomState has no entropy on wasm32 (src/hash.rs): without this draw, two instances
  // would hash a tool's keys alike, and a tool could pick keys that collide.
  const { out: r, calls } = await drawn(() => createRedactor());
  // 16 bytes of seed and 4 for the std RandomState mitigation, first; then the core's own draws
  // (whole handles, 16 bytes each).
  assert.equal(calls[0], 20);
  assert.ok(calls.slice(1).every((n) => n % 16 === 0), `${calls}`);
  const again = await drawn(() => r.redactJson(keysTool, JSON.stringify({ keys: [{ secret: "sk_live_0123456789abcdef" }] })));
  assert.deepEqual(again.calls, [32], "a redaction draws its handle and id, and no second seed");
  const second = await drawn(() => createRedactor());
  assert.ok(second.calls.every((n) => n % 16 === 0), "a second redactor in the same instance is already seeded");
});

for (const n of [20, 40]) {
  test(`${n} withheld values: all their handles in one draw, all distinct`, async () => {
    const r = await createRedactor();
    r.compile(keysTool);
    const keys = Array.from({ length: n }, (_, i) => ({ secret: `sk_live_${String(i).padStart(20, "0")}` }));
    const { out, calls } = await drawn(() => r.redact(keysTool, { keys }));
    const stubs = out.result.content.filter((b) => b.type === "secret_reference");
    // Up to 32 stubs, then one for the rest: 20 values take 20 handles, 40 take 33.
    const handles = n <= 33 ? n : 33;
    assert.equal(stubs.length, handles);
    assert.equal(new Set(stubs.map((s) => s.handle)).size, handles, "no handle repeats");
    for (const s of stubs) assert.match(s.handle, HANDLE);
    // One draw: 16 bytes a handle, and 16 for the result's id.
    assert.deepEqual(calls, [(handles + 1) * 16]);
    assert.match(out.resultId, HANDLE);
    assert.ok(!stubs.some((s) => s.handle === out.resultId), "the id is none of the handles");
    for (const s of stubs) assert.notEqual(r.vault.get(s.handle), undefined);
  });
}
