// Review s23 findings in the JS layer (reproducers: the reviewer's attack/09-args-toctou.mjs,
// attack/14-wraptool-live-definition.mjs and attack/13-error-codes.mjs). Each test failed on
// 0e41c69, before the fix it comes with.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction, lintTools, redeem, RedactionError } from "webmcp-redact";
import { CANARY, apiKeyTool, apiKeyRaw, fakeContext } from "./helpers.mjs";

const text = (t) => ({ content: [{ type: "text", text: t }] });
// Sends its arguments out: a call that carries a known value is denied (secret_egress).
const post = { name: "post", annotations: { readOnlyHint: false, openWorldHint: true, destructiveHint: false } };
// Takes credentials and keeps them in: {{secret:<handle>}} is put in place for it.
const sink = { name: "deploy_with_key", annotations: { destructiveHint: false, inputMetadata: { Sensitivity: ["Credentials"], Destination: "Internal" } } };

// Arguments that JSON (what the check reads) and the tool (plain property reads) would see
// differently, each with what the check sees, which is all the tool may get.
const twoFaced = {
  "a getter that changes after its first read": () => {
    let n = 0;
    return [{ get body() { return n++ === 0 ? "hello" : CANARY; } }, { body: "hello" }];
  },
  "a toJSON method": () => [{ body: CANARY, toJSON() { return { body: "hello" }; } }, { body: "hello" }],
  "an inherited property": () => [Object.create({ body: CANARY }), {}],
  "a non-enumerable property": () => [Object.defineProperty({}, "body", { value: CANARY, enumerable: false }), {}],
};

/** A tool def with an execute that records what it was called with. */
function recording(def) {
  const calls = [];
  return { calls, tool: { ...def, async execute(args) { calls.push(args); return text("posted"); } } };
}

test("finding 1, wrapTool: the tool gets exactly the arguments the check read, never a value it did not see", async () => {
  const r = await createRedactor({ confirm: async () => true });
  // The key tool's result makes CANARY a known value.
  await r.wrapTool({ ...apiKeyTool, execute: async () => apiKeyRaw() }).execute({});
  const { calls, tool } = recording(post);
  const wrapped = r.wrapTool(tool);
  const plain = await wrapped.execute({ body: CANARY });
  assert.match(plain.content[0].text, /secret_egress/, "the raw value is denied");
  for (const [what, make] of Object.entries(twoFaced)) {
    calls.length = 0;
    const [args, checked] = make();
    await wrapped.execute(args);
    assert.equal(calls.length, 1, what);
    assert.deepEqual(calls[0], checked, what);
    assert.ok(!JSON.stringify(calls[0] ?? null).includes(CANARY), what);
  }
});

test("finding 1, installRedaction: the same one read of the arguments", async () => {
  const ctx = fakeContext();
  await installRedaction({ modelContext: ctx, confirm: () => true });
  await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
  await ctx.call("generate_api_key", {});
  const { calls, tool } = recording(post);
  await ctx.registerTool(tool);
  for (const [what, make] of Object.entries(twoFaced)) {
    calls.length = 0;
    const [args, checked] = make();
    await ctx.call("post", args);
    assert.deepEqual(calls, [checked], what);
  }
});

test("finding 1: the check, the user's question and the substitution read one snapshot; the getter runs once", async () => {
  const ctx = fakeContext();
  const asked = [];
  await installRedaction({ modelContext: ctx, confirm: (req) => { asked.push(req); return true; } });
  await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
  const out = await ctx.call("generate_api_key", {});
  const handle = out.content.find((b) => b.type === "secret_reference").handle;
  const { calls, tool } = recording(sink);
  await ctx.registerTool(tool);
  // Each read of `note` answers differently: read by the check, then by the question to the
  // user, then by the substitution, the three would each have seen another value.
  let reads = 0;
  const args = { key: `{{secret:${handle}}}`, get note() { return `read ${reads++}`; } };
  await ctx.call("deploy_with_key", args);
  assert.equal(reads, 1, "the caller's arguments are read once");
  assert.equal(asked.length, 1, "secret_reference asks the first time");
  assert.deepEqual(asked[0].args, { key: `{{secret:${handle}}}`, note: "read 0" }, "the user is asked about what was checked");
  assert.deepEqual(calls, [{ key: CANARY, note: "read 0" }], "the tool gets what was checked, the reference put in place");
});

test("finding 1: the tool gets a copy, not the caller's object; no arguments are {} (as checked)", async () => {
  const r = await createRedactor();
  const { calls, tool } = recording({ name: "read_news", annotations: { readOnlyHint: true } });
  const wrapped = r.wrapTool(tool);
  const args = { q: "x", when: new Date(0) };
  await wrapped.execute(args);
  await wrapped.execute(undefined);
  assert.notEqual(calls[0], args);
  assert.deepEqual(calls, [{ q: "x", when: "1970-01-01T00:00:00.000Z" }, {}]);
});

test("finding 2: wrapTool reads the definition once; editing the tool afterwards changes nothing", async () => {
  const r = await createRedactor();
  let n = 0;
  const secretSchema = { type: "object", properties: { id: { type: "string" }, secret: { type: "string", "x-sensitive": true } } };
  // Edited after wrapping: e.g. a page that builds several tools from one template object.
  const edited = { name: "gen", outputSchema: structuredClone(secretSchema), execute: async () => ({ id: "k1", secret: `${CANARY}${n++}` }) };
  const w1 = r.wrapTool(edited);
  edited.outputSchema.properties.secret = { type: "string" };
  // A getter: marked while wrapTool reads it, unmarked on every later read.
  let reads = 0;
  const getter = {
    name: "gen2",
    get outputSchema() { return reads++ === 0 ? structuredClone(secretSchema) : { type: "object" }; },
    execute: async () => ({ id: "k2", secret: `${CANARY}${n++}` }),
  };
  const w2 = r.wrapTool(getter);
  // A sensitive tool without marks, whose hint is deleted after wrapping.
  const hinted = { name: "inbox", annotations: { readOnlyHint: true, sensitiveHint: true }, execute: async () => text(`mail ${CANARY}${n++}`) };
  const w3 = r.wrapTool(hinted);
  delete hinted.annotations.sensitiveHint;
  for (const w of [w1, w2, w3]) {
    const out = await w.execute({});
    assert.ok(!JSON.stringify(out).includes(CANARY), `${w.name}: ${JSON.stringify(out)}`);
  }
  assert.deepEqual(w1.outputSchema.properties.secret, { type: "string", "x-sensitive": true }, "what the runtime was given");
});

/** Asserts that `f` throws or rejects with an Error whose `code` is `code`. */
async function failsWith(f, code, type = Error) {
  let err;
  try {
    await f();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof type, `${code}: ${err?.constructor?.name} ${err?.message}`);
  assert.equal(err.code, code, err.message);
}

test("finding 3: wrapTool without an execute function throws a RedactionError with a code", async () => {
  const r = await createRedactor();
  await failsWith(() => r.wrapTool({ name: "x" }), "schema_invalid", RedactionError);
  await failsWith(() => r.wrapTool({ name: "x", execute: "run" }), "schema_invalid", RedactionError);
});

test("finding 3: installRedaction's mistakes are TypeErrors with a code, telling no WebMCP from a bad option", async () => {
  await failsWith(() => installRedaction({ modelContext: fakeContext(), onResult: 5 }), "invalid_options", TypeError);
  await failsWith(() => installRedaction({ modelContext: fakeContext(), nope: 1 }), "invalid_options", TypeError);
  await failsWith(() => installRedaction({ modelContext: {} }), "invalid_options", TypeError);
  // Node has no document.modelContext: nothing to patch.
  await failsWith(() => installRedaction({}), "no_model_context", TypeError);
  const ctx = fakeContext();
  const uninstall = await installRedaction({ modelContext: ctx });
  await failsWith(() => installRedaction({ modelContext: ctx }), "already_installed", TypeError);
  uninstall();
});

test("finding 3: redeem with options that are not an object rejects with invalid_options, not the engine's TypeError", async () => {
  const r = await createRedactor();
  const handle = r.redact(apiKeyTool, apiKeyRaw()).result.content[1].handle;
  await failsWith(() => r.vault.redeem(handle, "x"), "invalid_options", TypeError);
  await failsWith(() => redeem(handle, 5), "invalid_options", TypeError);
  const throwing = new Proxy({}, { has() { throw new Error("boom"); } });
  await failsWith(() => redeem(handle, throwing), "invalid_options", TypeError);
  // What was accepted still is: no options, null, and `result` bound to the right result.
  assert.equal(await redeem(handle), CANARY);
  assert.equal(await r.vault.redeem(handle, null), CANARY);
  const out = r.redact(apiKeyTool, apiKeyRaw());
  assert.equal(await redeem(out.result.content[1].handle, { result: out.resultId }), CANARY);
  await assert.rejects(redeem(handle, { result: out.resultId }), (e) => e.code === "foreign_reference");
});

test("finding 3, alike: lintTools with definitions JSON cannot write rejects with a code", async () => {
  const cycle = { name: "t" };
  cycle.self = cycle;
  await failsWith(() => lintTools({ name: "t", n: 1n }), "unserializable", RedactionError);
  await failsWith(() => lintTools(cycle), "unserializable", RedactionError);
  // No text at all is linted as null: not a tool, a finding rather than the engine's TypeError.
  assert.deepEqual((await lintTools(undefined)).map((f) => f.code), (await lintTools(null)).map((f) => f.code));
});
