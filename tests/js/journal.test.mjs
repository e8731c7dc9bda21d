// The journal JS keeps to rebuild a core after a trap (or after the engine retires a large
// instance) grows with live handles and distinct values, not with calls: a tool that returns one
// secret on every call issues a handle per call, and each expired handle's record folds into the
// value it held. The work of a rebuild is counted (calls of `remember`), never timed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor } from "webmcp-redact";
import * as glue from "../../pkg/webmcp_redact.js";
import { trapOnce } from "./helpers.mjs";

const tool = { name: "t", outputSchema: { type: "object", properties: { s: { type: "string", "x-sensitive": true } } } };
const echo = { name: "echo" };
const SECRET = "sk_live_THE_SAME_KEY_every_time";

/** Counts the values replayed into fresh cores while `fn` runs. */
function replays(fn) {
  const proto = glue.WasmRedactor.prototype;
  const real = proto.remember;
  let n = 0;
  proto.remember = function (...args) {
    n += 1;
    return real.apply(this, args);
  };
  try {
    fn();
  } finally {
    proto.remember = real;
  }
  return n;
}

/** Runs `fn` with Date.now moved `by` ms ahead (the vault's clock). */
function later(by, fn) {
  const real = Date.now;
  Date.now = () => real() + by;
  try {
    return fn();
  } finally {
    Date.now = real;
  }
}

/**
 * A trap, then one call: returns the remember calls the rebuild made (in the trapped call
 * itself, whose withheld view a fresh core writes, or in the next).
 */
function rebuild(r) {
  let out;
  const n = replays(() => {
    const undo = trapOnce();
    try {
      assert.equal(r.redact(tool, { s: "x_trigger_value" }).error?.code, "internal", "the module trapped");
    } finally {
      undo();
    }
    out = r.redact(echo, { note: `echo ${SECRET}` });
  });
  assert.ok(!JSON.stringify(out.result).includes(SECRET), "the rebuilt core still knows the value");
  return n;
}

test("10,000 calls returning one secret, all expired: a rebuild replays one value, not 10,000", async () => {
  const r = await createRedactor({ vault: { ttl: 1 } });
  for (let i = 0; i < 10000; i++) r.redact(tool, { s: SECRET });
  // Every entry expired; the next call's vault sweep tells the core and the journal.
  later(2000, () => {
    r.redact(tool, { s: SECRET });
    assert.equal(r.vault.size, 1);
    // One live handle, and the value the 10,000 expired handles held, pinned once.
    assert.ok(rebuild(r) <= 2, "replayed per live handle and distinct value");
  });
});

test("expired entries not yet swept when the module traps are swept before the rebuild", async () => {
  const r = await createRedactor({ vault: { ttl: 1 } });
  for (let i = 0; i < 5000; i++) r.redact(tool, { s: SECRET });
  later(2000, () => assert.equal(rebuild(r), 1, "the value once, pinned"));
  // Still known, and still denied in a call's arguments, after the handles that held it expired.
  const post = { name: "post", annotations: { readOnlyHint: false, openWorldHint: true } };
  const verdict = r.session().check(post, { body: SECRET });
  assert.ok(verdict.reasons.some((x) => x.code === "secret_egress"), JSON.stringify(verdict));
});

test("live handles are replayed each once; deleted ones not at all", async () => {
  const r = await createRedactor();
  const handles = [];
  for (let i = 0; i < 1000; i++) handles.push(r.redact(tool, { s: SECRET }).redactions[0].handle);
  for (const h of handles.slice(0, 900)) r.vault.delete(h);
  assert.equal(rebuild(r), 100);
  for (const h of handles.slice(900)) r.vault.delete(h);
  const out = r.redact(echo, { note: `echo ${SECRET}` });
  assert.ok(JSON.stringify(out.result).includes(SECRET), "deleting every entry that held it takes it out");
});
