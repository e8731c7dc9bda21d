// Review s32 (helper L), page side, in Chromium on @mcp-b/global 5.1.0 with the MCP SDK's client
// on its tab transport: resources and prompts (tested in Node only before), a value found inside
// a resource's base64, and a function claim in a tool's result.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { browserForFile } from "./helpers.mjs";
import { PageRelay, routeRuntime } from "./mcp-b.mjs";

const SECRET = "sk_live_CANARYs32resourcesXYZ";

let page;
let client;
const env = browserForFile({}, async (env) => {
  page = await env.page();
  await routeRuntime(page);
  await page.goto(`${env.a.url}__test/blank.html`);
  await page.evaluate(async (secret) => {
    const ctx = document.modelContext;
    const { installRedaction } = await import("/js/index.js");
    window.__uninstall = await installRedaction();
    const base = { description: "d", inputSchema: { type: "object", properties: {} } };
    const outputSchema = { type: "object", properties: { id: { type: "string" }, key: { type: "string", "x-sensitive": true } } };
    await ctx.registerTool({ ...base, name: "make_key", outputSchema, execute: async () => ({ id: "k1", key: secret }) });
    await ctx.registerTool({ ...base, name: "claims_by_function", execute: async () => ({ content: [{ type: "text", text: "raw CANARY-s32-function-claim" }], _meta: { sensitiveHint: () => true } }) });
    ctx.registerResource({ name: "account", uri: "app://account", mimeType: "text/plain", read: async () => ({ contents: [{ uri: "app://account", text: `your key: ${secret}` }] }) });
    ctx.registerResource({ name: "bin", uri: "app://bin", mimeType: "application/octet-stream", read: async () => ({ contents: [{ uri: "app://bin", blob: btoa(`key=${secret}`) }] }) });
    ctx.registerResource({ name: "marked", uri: "app://marked", read: async () => ({ contents: [{ uri: "app://marked", text: "private" }], _meta: { sensitiveHint: true } }) });
    ctx.registerResource({ name: "plain", uri: "app://plain", read: async () => ({ contents: [{ uri: "app://plain", text: "nothing here" }] }) });
    ctx.registerPrompt({ name: "use_key", get: async () => ({ messages: [{ role: "user", content: { type: "text", text: `call with ${secret}` } }] }) });
    // MCP-B's inner server, its documented route for multi-round tools (part 2).
    const inner = ctx.mcpServer;
    inner.registerTool("inner_claims", { description: "d" }, async () => ({ content: [{ type: "text", text: "raw CANARY-s32-inner-claim" }], _meta: { sensitiveHint: true } }));
    inner.registerTool("inner_echo", { description: "d" }, async () => ({ content: [{ type: "text", text: `echo ${secret}` }] }));
    inner.registerResource("inner_account", "app://inner-account", {}, async () => ({ contents: [{ uri: "app://inner-account", text: `key ${secret}` }] }));
    inner.registerPrompt("inner_fails", { description: "d" }, async () => {
      throw new Error(`cannot use ${secret}`);
    });
  }, SECRET);
  client = new Client({ name: "review-s32", version: "1.0.0" });
  await client.connect(new PageRelay(page));
});

/** Everything the MCP client got, as one text, must hold neither the secret nor its base64. */
function clean(what, value) {
  const text = JSON.stringify(value);
  for (const form of [SECRET, Buffer.from(`key=${SECRET}`).toString("base64").slice(0, 12)]) {
    assert.ok(!text.includes(form), `${what}: ${text}`);
  }
}

test("on @mcp-b/global, a resource or a prompt echoing a withheld value reaches the MCP client masked", async () => {
  const call = await client.callTool({ name: "make_key", arguments: {} });
  clean("the tool call", call);
  assert.equal(call.isError, undefined);
  const account = await client.readResource({ uri: "app://account" });
  clean("the account resource", account);
  assert.match(account.contents[0].text, /^your key: \[redacted/);
  const prompt = await client.getPrompt({ name: "use_key" });
  clean("the prompt", prompt);
  assert.match(prompt.messages[0].content.text, /^call with \[redacted/);
  assert.deepEqual((await client.readResource({ uri: "app://plain" })).contents, [{ uri: "app://plain", text: "nothing here" }]);
});

test("on @mcp-b/global, a resource that claims sensitivity or holds a known value in base64 is an error naming withheld", async () => {
  const marked = await client.readResource({ uri: "app://marked" }).then(() => null, (e) => e);
  assert.match(String(marked?.message), /withheld/);
  const bin = await client.readResource({ uri: "app://bin" }).then(() => null, (e) => e);
  assert.match(String(bin?.message), /withheld at \/contents\/0\/blob/);
  clean("the blob's error", String(bin?.message));
});

test("on @mcp-b/global, a function claim in a tool's result withholds it", async () => {
  // Text no detector takes for a credential: only the claim withholds it.
  const call = await client.callTool({ name: "claims_by_function", arguments: {} });
  assert.ok(!JSON.stringify(call).includes("CANARY-s32-function-claim"), JSON.stringify(call));
});

test("on @mcp-b/global, what the page registers on the inner mcpServer reaches the MCP client redacted", async () => {
  const claims = await client.callTool({ name: "inner_claims", arguments: {} });
  assert.ok(!JSON.stringify(claims).includes("CANARY-s32-inner-claim"), JSON.stringify(claims));
  const echo = await client.callTool({ name: "inner_echo", arguments: {} });
  clean("the inner tool", echo);
  assert.match(echo.content[0].text, /^echo \[redacted/);
  const read = await client.readResource({ uri: "app://inner-account" });
  clean("the inner resource", read);
  assert.match(read.contents[0].text, /^key \[redacted/);
  const failed = await client.getPrompt({ name: "inner_fails" }).then(() => null, (e) => e);
  clean("the inner prompt's error", String(failed?.message));
  assert.match(String(failed?.message), /cannot use \[redacted/);
  assert.deepEqual(await page.evaluate(() => window.__uninstall.unprotectedTools), []);
});

test("uninstall puts MCP-B's registerResource and registerPrompt back, and the inner mcpServer's", async () => {
  const same = await page.evaluate(() => {
    const ctx = document.modelContext;
    const patched = [ctx.registerResource, ctx.registerPrompt];
    window.__uninstall();
    const proto = Object.getPrototypeOf(ctx);
    const inner = ["registerTool", "registerResource", "registerPrompt"].filter((k) => Object.hasOwn(ctx.mcpServer, k));
    return [ctx.registerResource === proto.registerResource, ctx.registerPrompt === proto.registerPrompt, patched[0] !== proto.registerResource, inner];
  });
  assert.deepEqual(same, [true, true, true, []]);
});
