// installRedaction over an MCP bridge, in Node: the runtime is @mcp-b's own BrowserMcpServer
// (what @mcp-b/global installs as document.modelContext; it runs in Node too), the client the
// MCP SDK's Client over an in-memory transport. The server validates every structuredContent
// against the outputSchema it was registered with, the client every result against MCP's
// schema and the outputSchema it listed. tests/e2e/bridge.test.mjs does the same in Chromium
// with @mcp-b/global itself and its tab transport.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { BrowserMcpServer } from "@mcp-b/webmcp-ts-sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { createRedactor, installRedaction } from "webmcp-redact";
import { CANARY, apiKeyRaw } from "./helpers.mjs";

/** A BrowserMcpServer with redaction installed, and an SDK client connected to it. */
async function bridge(options = {}) {
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  const uninstall = await installRedaction({ modelContext: server, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    server,
    client,
    uninstall,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

const keyTool = (execute) => ({
  name: "generate_api_key",
  description: "Generate an API key",
  outputSchema: {
    type: "object",
    required: ["id", "name", "secret"],
    properties: { id: { type: "string" }, name: { type: "string" }, secret: { type: "string", title: "API key", "x-sensitive": true } },
  },
  execute,
});

test("the issue's case: a required marked property, over MCP-B, detected as a bridge: the call succeeds", async () => {
  const b = await bridge();
  assert.equal(b.uninstall.bridge, "mcp");
  assert.equal(b.uninstall.redactor.format, "mcp");
  await b.server.registerTool(keyTool(async () => apiKeyRaw()));
  const [listed] = (await b.client.listTools()).tools;
  assert.deepEqual(listed.outputSchema.required, ["id", "name"], "the schema MCP clients see describes the redacted view");
  assert.equal(listed.outputSchema.properties.secret["x-sensitive"], true, "and still says what is withheld");
  const res = await b.client.callTool({ name: "generate_api_key", arguments: {} });
  assert.equal(res.isError, undefined, JSON.stringify(res));
  assert.deepEqual(res.structuredContent, { id: "key_1", name: "prod" });
  assert.ok(!JSON.stringify(res).includes(CANARY));
  // A usable result: the stub says what was withheld and the notice that the user can reveal it.
  const texts = res.content.map((c) => c.text);
  assert.ok(texts.includes("[secret withheld: API key]"), texts.join(" | "));
  assert.match(texts.at(-1), /withheld.*The user can reveal it in the page/);
  const stub = res.content.find((c) => c._meta?.["webmcp-redact/secret"]);
  assert.equal(b.uninstall.redactor.vault.reveal(stub._meta["webmcp-redact/secret"].handle), CANARY);
  await b.close();
});

test("told there is no bridge, the \"webmcp\" format's stubs fail the same call: they are not MCP content", async () => {
  const b = await bridge({ bridge: "none" });
  assert.equal(b.uninstall.redactor.format, "webmcp");
  await b.server.registerTool(keyTool(async () => apiKeyRaw()));
  await b.client.listTools();
  await assert.rejects(b.client.callTool({ name: "generate_api_key", arguments: {} }), /expected \\?"text\\?"/);
  await b.close();
});

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const structuredOf = (raw) =>
  isObject(raw) && Array.isArray(raw.content) && raw.content.every((b) => isObject(b) && typeof b.type === "string")
    ? raw.structuredContent
    : raw;
const clientValidator = new AjvJsonSchemaValidator();
/** The view without its random handles, to compare two redactions of one value. */
const unhandled = (v) => JSON.parse(JSON.stringify(v, (k, x) => (k === "handle" ? "<handle>" : x)));

test("every conformance vector's tool over MCP-B: the client gets exactly the redacted view, valid, with no canary", async () => {
  const dir = new URL("../vectors/", import.meta.url);
  let succeeded = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    const v = JSON.parse(readFileSync(new URL(file, dir), "utf8"));
    if (v.expect.compileError !== undefined || v.rawText !== undefined) continue; // refused at registration / not a JS value
    const options = { ...(v.limits ? { limits: v.limits } : {}), ...(v.policy ? { policy: v.policy } : {}) };
    // The user says yes to every question: this test is about the view, and MCP's defaults
    // make many vector tools ones the check asks about (tests/js/enforce.test.mjs covers that).
    const b = await bridge({ ...options, confirm: async () => true });
    const name = `vector_${file.slice(0, 3)}`;
    for (const { label, value } of v.known ?? []) {
      const prime = { name: "prime_vault", outputSchema: { type: "object", properties: { v: { title: label, "x-sensitive": true } } } };
      b.uninstall.redactor.redact(prime, { v: value });
    }
    const tool = { ...v.tool, name, description: v.description.slice(0, 200), execute: async () => v.raw };
    await b.server.registerTool(tool);
    await b.client.listTools(); // the client caches each tool's outputSchema to validate with
    let res, failure;
    try {
      res = await b.client.callTool({ name, arguments: {} }); // throws on an invalid result
    } catch (err) {
      failure = err;
    }
    const text = failure ? String(failure.message) : JSON.stringify(res);
    for (const canary of v.canaries ?? []) assert.ok(!text.includes(canary), `${file}: ${canary} reached the client: ${text}`);
    // What the redactor writes for this value, in the "mcp" format, by a fresh redactor.
    const expected = (await createRedactor({ format: "mcp", ...options }));
    for (const { label, value } of v.known ?? []) {
      expected.redact({ name: "prime_vault", outputSchema: { type: "object", properties: { v: { title: label, "x-sensitive": true } } } }, { v: value });
    }
    const view = expected.redact({ ...v.tool, name }, v.raw).result;
    // Judged as the client judges it (the SDK's validator reads draft-07): a raw value its own
    // schema rejects could not pass without redaction either.
    const structured = structuredOf(v.raw);
    const rawValid = v.tool.outputSchema === undefined || (structured !== undefined && clientValidator.getValidator(v.tool.outputSchema)(structured).valid);
    if (rawValid) {
      // A value the tool's own schema accepts reaches the client as the redactor wrote it:
      // no validation error took its place.
      assert.equal(failure, undefined, `${file}: ${failure?.message}`);
      assert.deepEqual(unhandled(res), unhandled(view), `${file}: the client got something else`);
      succeeded += 1;
    }
    await b.close();
  }
  // (87 today: the rest are refused at registration, given as text, or invalid as the client reads them.)
  assert.ok(succeeded >= 85, `only ${succeeded} vectors reached the client unchanged`);
});

test("bridge and format options: told, detected, contradictory, bad", async () => {
  const plain = () => ({ async registerTool() {} });
  const mcpB = () => ({ __isBrowserMcpServer: true, async registerTool() {} });
  const told = await installRedaction({ modelContext: plain(), bridge: "mcp" });
  assert.deepEqual([told.bridge, told.redactor.format], ["mcp", "mcp"]);
  const none = await installRedaction({ modelContext: mcpB(), bridge: "none" });
  assert.deepEqual([none.bridge, none.redactor.format], ["none", "webmcp"]);
  const page = await installRedaction({ modelContext: plain(), format: "mcp" });
  assert.deepEqual([page.bridge, page.redactor.format], ["none", "mcp"]);
  const throwing = { get __isBrowserMcpServer() { throw new Error("odd"); }, async registerTool() {} };
  assert.equal((await installRedaction({ modelContext: throwing })).bridge, "none");
  for (const options of [{ modelContext: mcpB(), format: "webmcp" }, { modelContext: plain(), bridge: "mcp", format: "webmcp" }, { modelContext: plain(), bridge: "yes" }]) {
    const mc = options.modelContext;
    const before = mc.registerTool;
    await assert.rejects(installRedaction(options), (e) => e instanceof TypeError && e.code === "invalid_options" && /installRedaction: (bridge|format)/.test(e.message));
    assert.equal(mc.registerTool, before, "nothing patched");
  }
});

test("every runtime is given the agent schema: registered copies and wrapTool's copy", async () => {
  const registered = [];
  const mc = { async registerTool(tool) { registered.push(tool); } };
  const uninstall = await installRedaction({ modelContext: mc });
  assert.equal(uninstall.bridge, "none");
  await mc.registerTool(keyTool(async () => apiKeyRaw()));
  // A sensitive tool without marks: every result is withheld whole, so no schema at all.
  await mc.registerTool({ ...keyTool(async () => apiKeyRaw()), name: "whole", outputSchema: { type: "object", properties: { id: { type: "string" } } }, annotations: { sensitiveHint: true } });
  assert.deepEqual(registered[0].outputSchema.required, ["id", "name"]);
  assert.equal("outputSchema" in registered[1], false);
  // What redaction reads is the tool's own schema: `id` and `name` still pass, `secret` goes.
  const out = await registered[0].execute({});
  assert.ok(out.content.some((b) => b.type === "secret_reference"));
  const r = await createRedactor();
  const wrapped = r.wrapTool(keyTool(async () => apiKeyRaw()));
  assert.deepEqual(wrapped.outputSchema.required, ["id", "name"]);
  assert.deepEqual((await wrapped.execute({})).structuredContent, { id: "key_1", name: "prod" });
  uninstall();
});
