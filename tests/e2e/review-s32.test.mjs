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

test("uninstall puts MCP-B's registerResource and registerPrompt back", async () => {
  const same = await page.evaluate(() => {
    const ctx = document.modelContext;
    const patched = [ctx.registerResource, ctx.registerPrompt];
    window.__uninstall();
    const proto = Object.getPrototypeOf(ctx);
    return [ctx.registerResource === proto.registerResource, ctx.registerPrompt === proto.registerPrompt, patched[0] !== proto.registerResource];
  });
  assert.deepEqual(same, [true, true, true]);
});
