// Third adversarial review of issue 11, page side: how the new features meet over MCP-B.
import { test } from "node:test";
import assert from "node:assert/strict";
import { installRedaction } from "webmcp-redact";

const CANARY = "CANARY-i11b-7f3";
const TRUST = "io.modelcontextprotocol/trust-annotations";

// A result that withholds itself by its own trust annotations, from a tool whose published
// outputSchema requires a property: the MCP-B server validated the stub against the schema and
// the agent got "Output validation error" instead of the stub and the notice.
test("over MCP-B, a result withheld by its own trust annotations reaches the client as the stub", async () => {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  const handles = [];
  await installRedaction({ modelContext: server, onResult: (r) => handles.push(...r.handles) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(clientSide);
  await server.registerTool({
    name: "status",
    description: "Status",
    annotations: { readOnlyHint: true },
    outputSchema: { type: "object", required: ["done"], properties: { done: { type: "boolean" } } },
    execute: async () => ({ _meta: { [TRUST]: { sensitive: true } }, structuredContent: { done: true }, content: [{ type: "text", text: CANARY }] }),
  });
  await client.listTools(); // the client validates against the schemas it listed
  const res = await client.callTool({ name: "status", arguments: {} });
  const text = JSON.stringify(res);
  assert.ok(!text.includes(CANARY));
  assert.ok(!text.includes("validation error"), text);
  assert.equal(res.isError, true);
  assert.equal(handles.length, 1);
  assert.equal(res.content[0]._meta["webmcp-redact/secret"].handle, handles[0].handle);
  await client.close();
  await server.close();
});
