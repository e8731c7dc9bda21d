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

/** Runs `fn` with crypto.getRandomValues counted: the byte length of each call. */
function drawn(fn) {
  const real = crypto.getRandomValues;
  const calls = [];
  crypto.getRandomValues = function (array) {
    calls.push(array.byteLength);
    return real.call(crypto, array);
  };
  try {
    return { out: fn(), calls };
  } finally {
    crypto.getRandomValues = real;
  }
}

for (const n of [20, 40]) {
  test(`${n} withheld values: all their handles in one draw, all distinct`, async () => {
    const r = await createRedactor();
    r.compile(keysTool);
    const keys = Array.from({ length: n }, (_, i) => ({ secret: `sk_live_${String(i).padStart(20, "0")}` }));
    const { out, calls } = drawn(() => r.redact(keysTool, { keys }));
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
