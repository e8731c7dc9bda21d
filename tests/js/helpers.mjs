// Shared fixtures for the JS tests.

export const CANARY = "sk_live_CANARY";
export const HANDLE = /^[0-9a-f]{32}$/;

/** The API-key tool of the issue: `secret` is marked sensitive, nothing else. */
export const apiKeyTool = {
  name: "generate_api_key",
  description: "Generate a new API key for the current user",
  outputSchema: {
    type: "object",
    properties: {
      id: { type: "string" },
      name: { type: "string" },
      secret: { type: "string", "x-sensitive": true },
    },
  },
};

export const apiKeyRaw = () => ({ id: "key_1", name: "prod", secret: CANARY });

/** A tool with no schema and no hint: results pass through. */
export const plainTool = { name: "plain_tool", description: "nothing sensitive" };

/** A sensitive tool without marks: its whole result is withheld. */
export const sensitiveTool = { name: "read_inbox", annotations: { sensitiveHint: true } };

/** The agent view a withheld result must be, byte for byte. */
export const withheldText = (tool, code) =>
  `{"content":[{"type":"text","text":"The result of ${tool} was withheld: ${code}."}],"isError":true}`;

/**
 * Makes the next crypto.getRandomValues call throw: the module's handle source cannot go on
 * without randomness and aborts, a real trap. Returns a function that undoes it.
 */
export function trapOnce() {
  const real = crypto.getRandomValues;
  crypto.getRandomValues = function () {
    crypto.getRandomValues = real;
    throw new Error("no randomness today");
  };
  return () => { crypto.getRandomValues = real; };
}

/** A WebMCP modelContext that keeps what was registered; `call` runs a tool as an agent does. */
export function fakeContext() {
  const tools = new Map();
  return {
    tools,
    registerTool(tool) {
      tools.set(tool.name, tool);
    },
    call: (name, args) => tools.get(name).execute(args, {}),
  };
}

/**
 * A runtime as the spec and the polyfill have it: `registerTool(tool, options)`, unregistered by
 * aborting the signal, listing its tools and firing "toolchange" on each change. It keeps each
 * registration's options (`ctx.options`) for a test to look at.
 */
export function signalContext() {
  const ctx = new EventTarget();
  const tools = new Map();
  const options = [];
  const changed = () => ctx.dispatchEvent(new Event("toolchange"));
  ctx.options = options;
  ctx.registerTool = async (tool, given) => {
    if (tools.has(tool.name)) throw new Error(`duplicate ${tool.name}`);
    options.push(given);
    // As the polyfill: the signal read once, its `throwIfAborted` and `addEventListener` called.
    const signal = given?.signal;
    signal?.throwIfAborted?.();
    tools.set(tool.name, tool);
    signal?.addEventListener("abort", () => {
      if (tools.get(tool.name) === tool) tools.delete(tool.name);
      changed();
    }, { once: true });
    changed();
  };
  ctx.getTools = async () => [...tools.keys()].map((name) => ({ name }));
  return ctx;
}

/** A small seeded generator (mulberry32): the same cases on every run. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Every place of a result its claims are read from, as a result holding `v` there and CANARY
 * in text the claim should withhold.
 * @type {[string, (v: unknown) => any][]}
 */
export const RESULT_PLACES = [
  ["_meta", (v) => ({ content: [{ type: "text", text: CANARY }], _meta: { sensitiveHint: v } })],
  ["annotations", (v) => ({ content: [{ type: "text", text: CANARY }], annotations: { sensitiveHint: v } })],
  ["_meta.annotations", (v) => ({ content: [{ type: "text", text: CANARY }], _meta: { annotations: { sensitiveHint: v } } })],
  ["a block's _meta", (v) => ({ content: [{ type: "text", text: CANARY, _meta: { sensitiveHint: v } }] })],
  ["a block's annotations", (v) => ({ content: [{ type: "text", text: CANARY, annotations: { sensitiveHint: v } }] })],
  ["a resource's _meta", (v) => ({ content: [{ type: "resource", resource: { uri: "x:/a", text: CANARY, _meta: { sensitiveHint: v } } }] })],
  ["trust-annotations", (v) => ({ content: [{ type: "text", text: CANARY }], _meta: { "io.modelcontextprotocol/trust-annotations": { sensitive: v } } })],
  ["a result nested as a value", (v) => ({ structuredContent: { inner: { content: [{ type: "text", text: CANARY }], _meta: { sensitiveHint: v } } } })],
  ["sensitiveDataHint", (v) => ({ content: [{ type: "text", text: CANARY }], _meta: { sensitiveDataHint: v } })],
];

/**
 * An MCP-B BrowserMcpServer with installRedaction on it, connected to the MCP SDK's client over
 * an in-memory pair. `close()` uninstalls and closes both.
 * @param {(options?: object) => Promise<any>} install installRedaction
 */
export async function connectedMcpB(install) {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  const uninstall = await install({ modelContext: server });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(clientSide);
  const close = async () => {
    uninstall();
    await client.close();
    await server.close();
  };
  return { server, client, uninstall, close };
}
