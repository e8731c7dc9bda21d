// Blocks a tool meant for the user only (`annotations.audience` without "assistant"): kept in the
// page's vault as `user_only` entries, shown to the page, never to the agent, and known values
// from then on (scrubbed from later results, denied in calls as secret_egress).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, redeem, RedeemError, installRedaction } from "webmcp-redact";

const CODE = "Your one-time sign-in code is CANARY-4f21aa.";
const messages = { name: "search_messages", annotations: { readOnlyHint: true } };
const forum = { name: "post_to_forum", annotations: { inputMetadata: { Destination: "Public", Outcomes: "Consequential" } } };
const raw = () => ({
  content: [
    { type: "text", text: "From ci@example.com: Build passed" },
    { type: "text", text: CODE, annotations: { audience: ["user"] } },
  ],
});

// redeem() resolves URLs against a page; Node has none.
before(() => { globalThis.location = new URL("http://127.0.0.1:9/"); });
after(() => { delete globalThis.location; });

async function code(promise) {
  try {
    await promise;
    return "resolved";
  } catch (err) {
    assert.ok(err instanceof RedeemError, String(err));
    return err.code;
  }
}

for (const format of ["webmcp", "mcp"]) {
  test(`${format}: the block is a user_only vault entry; the agent gets a stub with its handle and no text`, async () => {
    const r = await createRedactor({ format });
    const out = r.redact(messages, raw());
    const json = JSON.stringify(out.result);
    assert.ok(!json.includes("CANARY-4f21aa"), json);
    assert.equal(out.result.content[0].text, "From ci@example.com: Build passed");
    const entry = out.redactions.find((x) => x.reason === "audience");
    assert.equal(entry.pointer, "/content/1");
    assert.match(entry.handle, /^[0-9a-f]{32}$/);
    assert.ok(json.includes(entry.handle), "the stub carries the handle");
    const stub = out.result.content.find((b) => JSON.stringify(b).includes(entry.handle));
    assert.equal(stub.type, format === "mcp" ? "text" : "secret_reference", "in the mcp format a stub is a text block");
    const v = r.vault.get(entry.handle);
    assert.equal(v.kind, "user_only");
    assert.equal(v.label, "text for the user");
    assert.deepEqual(v.value, raw().content[1], "the whole block, annotations included");
    assert.deepEqual(r.vault.reveal(entry.handle), raw().content[1]);
  });
}

test("redeem gives the block to the page, bound to its result; another result's id is refused", async () => {
  const r = await createRedactor();
  const a = r.redact(messages, raw());
  const b = r.redact({ name: "k", outputSchema: { properties: { s: { "x-sensitive": true } } } }, { s: "sk_live_other_1" });
  const { handle } = a.redactions.find((x) => x.reason === "audience");
  assert.deepEqual(await redeem(handle, { result: a.resultId }), raw().content[1]);
  assert.deepEqual(await r.vault.redeem(handle, { result: a.resultId }), raw().content[1]);
  assert.equal(await code(redeem(handle, { result: b.resultId })), "foreign_reference");
  r.vault.delete(handle);
  assert.equal(await code(redeem(handle)), "unknown_reference");
});

test("the block's text is a known value: an echo in a later result is scrubbed, a call carrying it is denied", async () => {
  const r = await createRedactor();
  const s = r.session();
  s.redact(messages, raw());
  const echo = r.redact({ name: "echo" }, { content: [{ type: "text", text: `quoted: ${CODE}` }] });
  assert.ok(!JSON.stringify(echo.result).includes("CANARY-4f21aa"));
  assert.deepEqual(echo.redactions.map((x) => [x.reason, x.label]), [["value_match", "text for the user"]]);
  const verdict = s.check(forum, { text: `My code: ${CODE}` });
  assert.equal(verdict.decision, "deny");
  assert.ok(verdict.reasons.some((x) => x.code === "secret_egress"), JSON.stringify(verdict));
  assert.ok(!JSON.stringify(verdict).includes("CANARY-4f21aa"), "the reason does not repeat it");
});

test("installRedaction: onResult names the user-only handle; the agent's result never has the text", async () => {
  const registered = [];
  const mc = { async registerTool(tool) { registered.push(tool); } };
  const seen = [];
  const uninstall = await installRedaction({ modelContext: mc, onResult: (info) => seen.push(info) });
  await mc.registerTool({ ...messages, description: "d", execute: async () => raw() });
  const view = await registered[0].execute({});
  assert.ok(!JSON.stringify(view).includes("CANARY-4f21aa"));
  assert.equal(seen.length, 1);
  const [{ handle, label }] = seen[0].handles;
  assert.equal(label, "text for the user");
  assert.equal(uninstall.redactor.vault.get(handle).kind, "user_only");
  assert.equal((await redeem(handle, { result: seen[0].resultId })).text, CODE);
  uninstall();
});
