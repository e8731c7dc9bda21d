// Review s32 of the JS layer (helper L): each test states a promise a careless page, a hostile
// script or a supported set-up broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor } from "webmcp-redact";
import { CANARY, RESULT_PLACES, random } from "./helpers.mjs";

// --- functions and symbols where a result claims ------------------------------------------------

// JSON.stringify leaves a function or a symbol out, so `_meta: { sensitiveHint: () => true }`
// claimed nothing though JavaScript reads it as true, and the text reached the agent raw (left
// open by review s31). Below a `_meta` or `annotations` member (the only places the core reads
// a result's claims from) one is now written `true`.
test("a function or a symbol where a result makes a claim claims, in every place", async () => {
  let withheld = 0;
  for (const [where, place] of RESULT_PLACES) {
    for (const v of [() => true, function named() {}, Symbol("yes"), class {}]) {
      const r = await createRedactor({ policy: { withholdAt: "medium" } });
      const out = r.redact({ name: "t" }, place(v));
      assert.ok(!JSON.stringify(out.result).includes(CANARY), `${String(v)} in ${where}`);
      withheld += 1;
    }
  }
  assert.equal(withheld, RESULT_PLACES.length * 4);
});

// Elsewhere a function is data JSON has no form for, left out as before: a result whose value
// has a method passes unchanged, and one under `_meta` of tool data that claims nothing else is
// the claim it looks like.
test("a function outside a claim place is left out, as JSON leaves it", async () => {
  const r = await createRedactor();
  const out = r.redact({ name: "t" }, { structuredContent: { id: 1, toString() { return "x"; }, list: [Symbol("s"), 2] } });
  assert.deepEqual(out.result.structuredContent, { id: 1, list: [null, 2] });
  assert.equal(out.withheld, false);
});

// Seeded: the claim at a random depth below `_meta` (an array or nested objects on the way),
// with other members around it, never lets the canary through.
test("seeded: a function claim below _meta, at any depth, withholds", async () => {
  const rnd = random(3201);
  const KEYS = ["sensitiveHint", "sensitiveDataHint", "trust"];
  let cases = 0;
  for (let i = 0; i < 200; i += 1) {
    const key = KEYS[Math.floor(rnd() * KEYS.length)];
    const claim = rnd() < 0.5 ? () => true : Symbol("c");
    /** @type {any} */
    let meta = key === "trust" ? { "io.modelcontextprotocol/trust-annotations": { sensitive: claim } } : { [key]: claim, note: "n" };
    if (rnd() < 0.5) meta = { annotations: meta };
    const result = rnd() < 0.5
      ? { content: [{ type: "text", text: `a ${CANARY} b` }], _meta: meta }
      : { content: [{ type: "text", text: `a ${CANARY} b`, _meta: meta }] };
    const r = await createRedactor({ policy: { withholdAt: "medium" } });
    assert.ok(!JSON.stringify(r.redact({ name: "t" }, result).result).includes(CANARY), `case ${i}`);
    cases += 1;
  }
  assert.equal(cases, 200);
});
