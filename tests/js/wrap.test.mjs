import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, RedactionError } from "webmcp-redact";
import { CANARY, apiKeyTool, plainTool } from "./helpers.mjs";

test("wrapTool returns a copy whose execute returns the redacted result", async () => {
  const r = await createRedactor();
  const calls = [];
  const tool = {
    ...apiKeyTool,
    inputSchema: { type: "object", properties: { name: { type: "string" } } },
    async execute(input, options) {
      calls.push({ self: this, input, options });
      return { id: "key_1", name: input.name, secret: CANARY };
    },
  };
  const wrapped = r.wrapTool(tool);
  assert.notEqual(wrapped, tool);
  assert.notEqual(wrapped.execute, tool.execute);
  assert.equal(wrapped.name, tool.name);
  assert.equal(wrapped.description, tool.description);
  assert.equal(wrapped.inputSchema, tool.inputSchema);

  const options = { signal: new AbortController().signal };
  const result = await wrapped.execute({ name: "prod" }, options);
  assert.deepEqual(calls, [{ self: tool, input: { name: "prod" }, options }]);
  assert.deepEqual(result.structuredContent, { id: "key_1", name: "prod" });
  assert.equal(JSON.stringify(result).includes(CANARY), false);
  assert.equal(r.vault.reveal(result.content[1].handle), CANARY);
});

test("a sensitive tool whose execute throws: the error text is withheld too", async () => {
  const r = await createRedactor();
  const tool = {
    name: "read_inbox",
    annotations: { sensitiveHint: true, readOnlyHint: true },
    async execute() {
      throw new Error(`upstream said: token ${CANARY} expired`);
    },
  };
  const result = await r.wrapTool(tool).execute({});
  const text = JSON.stringify(result);
  assert.equal(text.includes(CANARY), false);
  assert.ok(r.vault.size >= 1);
  const revealed = r.vault.entries().map((e) => JSON.stringify(e));
  assert.ok(revealed.some((e) => e.includes(CANARY)), "the raw error text is in the vault, for the user");
});

test("a non-sensitive tool's error text is scrubbed of values already in the vault", async () => {
  const r = await createRedactor();
  r.redact(apiKeyTool, { id: "key_1", secret: CANARY });
  const tool = {
    ...plainTool,
    execute() {
      throw new Error(`could not rotate ${CANARY}`);
    },
  };
  const result = await r.wrapTool(tool).execute({});
  assert.equal(result.isError, true);
  assert.equal(JSON.stringify(result).includes(CANARY), false);
  assert.match(result.content[0].text, /could not rotate \[redacted: secret\]/);
});

test("a thrown non-Error value becomes text, and a plain result passes through", async () => {
  const r = await createRedactor();
  const thrower = r.wrapTool({ ...plainTool, execute: () => Promise.reject("just a string") });
  assert.deepEqual(await thrower.execute({}), { content: [{ type: "text", text: "just a string" }], isError: true });
  const ok = r.wrapTool({ ...plainTool, execute: () => ({ content: [{ type: "text", text: "fine" }] }) });
  assert.deepEqual(await ok.execute({}), { content: [{ type: "text", text: "fine" }] });
});

test("wrapTool throws at wrap time for a bad schema or a missing execute", async () => {
  const r = await createRedactor();
  const bad = { name: "bad", outputSchema: { $ref: "https://example.com/s.json" }, execute: () => ({}) };
  assert.throws(() => r.wrapTool(bad), (err) => err instanceof RedactionError && err.code === "remote_ref");
  assert.throws(() => r.wrapTool({ ...plainTool }), (err) => err instanceof RedactionError && err.code === "schema_invalid" && err.pointer === "/execute");
});
