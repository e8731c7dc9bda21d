// The demo page on @mcp-b/global 5.1.0 (the runtime that exposes page tools to MCP clients) in
// real Chromium, with a real MCP client calling every demo tool over the transport
// @mcp-b/global provides in the page: each call succeeds (the server's output validation and
// the client's validation both pass) and no canary reaches the client.
//
// How the pieces are wired:
// - The demo page is served unchanged; the request for its runtime script (the polyfill's IIFE)
//   is answered with @mcp-b/global's IIFE, which bundles that polyfill and installs a
//   BrowserMcpServer as document.modelContext with a TabServerTransport. The page's own
//   installRedaction() must detect it.
// - The client transport is @mcp-b/transports' TabClientTransport, loaded in the page from
//   node_modules. Its bare imports (@modelcontextprotocol/core, which imports zod/v4) are
//   pointed at those packages' files as they are served, which is all an import map would do
//   (the page's CSP allows no inline script, so it cannot have one).
// - The client is the MCP SDK's Client. It imports ajv (CommonJS) and so does not load in a
//   page without a bundler: it runs here in Node, and a relay carries each JSON-RPC message
//   between it and the TabClientTransport in the page, as the MCP-B extension relays a tab to
//   a client outside it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { browserForFile, TIMEOUT } from "./helpers.mjs";
import { PageRelay, routeRuntime } from "./mcp-b.mjs";

let page;
let client;
const env = browserForFile({}, async (env) => {
  page = await env.page();
  await routeRuntime(page);
  await page.goto(env.a.url);
  await page.waitForSelector("html[data-ready]", { state: "attached", timeout: TIMEOUT });
  assert.equal(await page.getAttribute("html", "data-ready"), "true", await page.textContent("#status"));
  client = new Client({ name: "bridge-test", version: "1.0.0" });
  await client.connect(new PageRelay(page));
});

async function last() {
  return (await fetch(`${env.a.url}__test/last`)).json();
}

// Each demo tool (www/app.js) with the input its "Call as agent" example gives it.
const DEMO_CALLS = {
  generate_api_key: { name: "production" },
  create_deploy_token: { environment: "staging" },
  get_billing_details: {},
  search_messages: { query: "build" },
  post_to_forum: { text: "Our team plan works well for us." },
  deploy_with_key: { key: "not a secret", environment: "staging" }, // no reference: the flow is in demo.test.mjs
};

test("the demo's installRedaction detects @mcp-b/global as an MCP bridge and writes MCP results", async () => {
  const installed = await page.evaluate(() => ({
    bridge: window.webmcpRedact.installed.bridge,
    format: window.webmcpRedact.installed.redactor.format,
    server: document.modelContext.__isBrowserMcpServer,
  }));
  assert.deepEqual(installed, { bridge: "mcp", format: "mcp", server: true });
});

test("an MCP client lists the demo tools, each with the schema of what it will get", async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(DEMO_CALLS).sort());
  const key = tools.find((t) => t.name === "generate_api_key");
  assert.equal(key.outputSchema.properties.secret["x-sensitive"], true, "the mark says what is withheld");
  assert.equal(key.outputSchema.type, "object");
});

test("an MCP client calls every demo tool: each call succeeds and no canary reaches it", async () => {
  await client.listTools(); // the client validates each result against the schema it listed
  for (const [name, args] of Object.entries(DEMO_CALLS)) {
    const call = client.callTool({ name, arguments: args }); // throws on an invalid result
    if (name === "post_to_forum") {
      // After the billing details, a public post waits for the user's yes in the page's dialog.
      const dialog = page.locator("dialog.webmcp-confirm[open]");
      await dialog.getByRole("button", { name: "Allow post_to_forum", exact: true }).click();
    }
    const res = await call;
    const text = JSON.stringify(res);
    assert.ok(!res.isError, `${name}: ${text}`);
    assert.ok(!/CANARY/.test(text), `${name}: a canary reached the client: ${text}`);
    assert.ok(!text.includes("/api/redeem/"), `${name}: a redeemUrl reached the client: ${text}`);
    const secrets = await last();
    for (const value of Object.values(secrets)) assert.ok(!text.includes(value), `${name}: ${value} reached the client`);
    if (name === "get_billing_details") {
      assert.ok(!text.includes(secrets.cardNumber.replace(/ /g, "")));
      assert.deepEqual(res.structuredContent, { plan: "Team", monthly: "49.00 USD", cardBrand: "Visa", cardExpiry: "08/29" });
    }
    if (name === "generate_api_key") {
      // A usable result: what was withheld, and that the user can reveal it in the page.
      assert.deepEqual(Object.keys(res.structuredContent).sort(), ["id", "name"]);
      assert.ok(res.content.some((b) => b.type === "text" && b.text === "[secret withheld: API key]"), text);
      assert.match(res.content.at(-1).text, /The user can reveal it in the page/);
      // ... and the user can: the page's user view got a Reveal element for the handle the
      // agent holds (onResult names handles in the mcp format too).
      const handles = await page.evaluate(() =>
        [...document.querySelectorAll("#secrets li")]
          .filter((li) => li.querySelector(".from")?.textContent === "generate_api_key")
          .map((li) => li.querySelector("webmcp-secret")?.getAttribute("handle")),
      );
      assert.equal(handles.length, 1, "one Reveal element for the key");
      assert.ok(text.includes(handles[0]), `the element's handle ${handles[0]} is the one in the result`);
    }
    if (name === "search_messages") assert.match(text, /Build passed/);
    if (name === "post_to_forum") assert.match(text, /Posted post_1/);
  }
});

test("schemas the redactor must relax for the bridge: required marks, $ref/$defs, items, anyOf", async () => {
  await page.evaluate(async () => {
    await document.modelContext.registerTool({
      name: "bridge_profile",
      description: "A profile with secrets at every depth",
      outputSchema: {
        type: "object",
        required: ["user", "keys", "token", "contact"],
        properties: {
          user: { type: "string" },
          keys: { type: "array", uniqueItems: true, items: { $ref: "#/$defs/Key" } },
          token: { $ref: "#/$defs/Token" },
          contact: { anyOf: [{ type: "string", "x-sensitive": true }, { type: "number" }] },
        },
        $defs: {
          Key: { type: "string", title: "Key", "x-sensitive": true },
          Token: { type: "object", required: ["id", "value"], properties: { id: { type: "string" }, value: { type: "string", "x-sensitive": true } } },
        },
      },
      execute: async () => ({
        user: "ana",
        keys: ["BRIDGE_CANARY_k1", "BRIDGE_CANARY_k2"],
        token: { id: "t1", value: "BRIDGE_CANARY_tok" },
        contact: "BRIDGE_CANARY_mail",
      }),
    });
  });
  const { tools } = await client.listTools();
  const listed = tools.find((t) => t.name === "bridge_profile").outputSchema;
  assert.deepEqual(listed.required, ["user", "keys", "token"]);
  assert.deepEqual(listed.$defs.Token.required, ["id"]);
  assert.deepEqual(listed.$defs.Key.type, ["string", "null"]);
  const res = await client.callTool({ name: "bridge_profile", arguments: {} });
  const text = JSON.stringify(res);
  assert.ok(!res.isError, text);
  assert.ok(!text.includes("BRIDGE_CANARY"), text);
  assert.deepEqual(res.structuredContent, { user: "ana", keys: [null, null], token: { id: "t1" } });
});
