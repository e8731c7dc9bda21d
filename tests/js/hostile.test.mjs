// Hostile and careless use of the one-boundary redactor: state kept across a trap, memory after
// vault.delete, option reading, check's error channel. (The cost of the known set is proved by
// counting work in the core's tests, not by timing here.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { trapOnce } from "./helpers.mjs";

import { createRedactor } from "webmcp-redact";

const plain = { name: "echo" };
const echo = (text) => ({ content: [{ type: "text", text }] });
const leaks = (r, needle) => JSON.stringify(r.redact(plain, echo(`x ${needle} y`)).result).includes(needle);

async function trap(r) {
  const restore = trapOnce();
  try {
    const out = r.redact({ name: "k", outputSchema: { properties: { s: { "x-sensitive": true } } } }, { s: "sk_live_trigger" });
    assert.equal(out.error?.code, "internal");
  } finally {
    restore();
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}

test("after a trap, secret keys (propertyNames) are still known", async () => {
  const r = await createRedactor();
  const keysTool = { name: "keys", outputSchema: { properties: { tokens: { propertyNames: { "x-sensitive": true } } } } };
  r.redact(keysTool, { tokens: { sk_live_KEYNAME_1: 1 } });
  assert.equal(leaks(r, "sk_live_KEYNAME_1"), false, "known before the trap");
  await trap(r);
  assert.equal(leaks(r, "sk_live_KEYNAME_1"), false, "the journal replays values without their keys");
});

test("after a trap, a user-only reference's id and URL are still known", async () => {
  const r = await createRedactor();
  r.redact(plain, {
    content: [{ type: "secret_reference", id: "ref_user_only_77", label: "k", redeemUrl: "/r/user_only_77", annotations: { audience: ["user"] } }],
  });
  assert.equal(leaks(r, "ref_user_only_77"), false, "known before the trap");
  await trap(r);
  assert.equal(leaks(r, "ref_user_only_77"), false, "values noted without a handle are not in the journal");
  assert.equal(leaks(r, "/r/user_only_77"), false);
});

test("after a trap, a number's text is known exactly as the tool wrote it", async () => {
  const r = await createRedactor();
  const tool = { name: "k", outputSchema: { properties: { s: { "x-sensitive": true } } } };
  r.redactJson(tool, '{"s":12345678901234567891}');
  assert.equal(leaks(r, "12345678901234567891"), false, "known before the trap");
  await trap(r);
  // The journal went through JSON.parse/JSON.stringify: 12345678901234567000.
  assert.equal(leaks(r, "12345678901234567891"), false);
});

test("options whose values would be misread are refused: inherited options, getters on a class", async () => {
  // JSON.stringify reads only own enumerable properties: such an option would be silently
  // dropped, so the core refuses what is not plain data instead of misreading it.
  await assert.rejects(createRedactor(Object.create({ format: "mcp" })), (e) => e instanceof TypeError && e.code === "invalid_options");
  class Options {
    get format() { return "mcp"; }
  }
  await assert.rejects(createRedactor(new Options()), TypeError);
});

test("options that are not plain objects are refused, not read as {}", async () => {
  await assert.rejects(createRedactor({ policy: new Map([["withholdAt", "medium"]]) }), TypeError);
  await assert.rejects(createRedactor({ limits: new Map([["maxDepth", 4]]) }), TypeError);
});

test("session.check never throws for arguments; what cannot be read is denied", async () => {
  const r = await createRedactor({ limits: { maxDepth: 8, maxInputBytes: 200 } });
  const s = r.session();
  // destructiveHint: false, or MCP's default (destructive) would confirm: the test is about the arguments.
  const post = { name: "post", annotations: { openWorldHint: true, readOnlyHint: false, destructiveHint: false } };
  assert.equal(s.check(post, { body: "\ud800 a lone surrogate is read as JSON.parse reads it" }).decision, "allow");
  for (const args of [{ body: "x".repeat(300) }, JSON.parse("[".repeat(20) + "]".repeat(20))]) {
    let out;
    assert.doesNotThrow(() => { out = s.check(post, args); });
    assert.equal(out.decision, "deny");
  }
});
