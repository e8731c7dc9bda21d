// Review s34 of the JS layer (helper L), the JS attack's round 2: each test states a promise a
// careless page, a hostile script or upstream data broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction } from "webmcp-redact";
import { CANARY, RESULT_PLACES, apiKeyRaw, apiKeyTool, connectedMcpB, fakeContext, random } from "./helpers.mjs";

/** `holder[key]` as a getter answering `first` on its first read and the value after. */
function flaky(holder, key, first) {
  const value = holder[key];
  let reads = 0;
  Object.defineProperty(holder, key, { enumerable: true, configurable: true, get: () => (++reads === 1 ? first : value) });
}

/** The object holding the outermost `_meta` or `annotations` member of `value`, and the key. */
function claimHolder(value) {
  const queue = [value];
  while (queue.length) {
    const v = queue.shift();
    if (v === null || typeof v !== "object") continue;
    for (const key of ["_meta", "annotations"]) if (Object.hasOwn(v, key)) return [v, key];
    queue.push(...Object.values(v));
  }
  return null;
}

// --- results read twice --------------------------------------------------------------------------

// A result's text is written a second time when the first holds `null` (a non-finite number),
// and that second text is the one checked and given. Which rules wrote it was decided by the
// first read: a getter answering no `_meta` first and `_meta: { sensitiveHint() {} }` after
// had its function dropped, as elsewhere, so the claim was lost and the text reached the agent
// raw. The second read now decides alone.
test("seeded: a claim place that appears only on the second read still claims", async () => {
  const rnd = random(3401);
  const FIRST = [undefined, {}, { note: "n" }, null];
  const CLAIMS = [() => true, Symbol("c"), class {}];
  let cases = 0;
  for (let i = 0; i < 160; i += 1) {
    const [where, place] = RESULT_PLACES[Math.floor(rnd() * RESULT_PLACES.length)];
    const raw = place(CLAIMS[Math.floor(rnd() * CLAIMS.length)]);
    const [holder, key] = claimHolder(raw);
    flaky(holder, key, FIRST[Math.floor(rnd() * FIRST.length)]);
    raw.extra = rnd() < 0.5 ? null : [NaN, Infinity][Math.floor(rnd() * 2)]; // a second read
    const r = await createRedactor({ policy: { withholdAt: "medium" } });
    const out = r.redact({ name: "t" }, raw);
    assert.ok(!JSON.stringify(out.result).includes(CANARY), `case ${i}, ${where}: ${JSON.stringify(out.result)}`);
    cases += 1;
  }
  assert.equal(cases, 160);
});

// --- MCP-B's inner server ------------------------------------------------------------------------

const texts = (/** @type {unknown} */ v) => JSON.stringify(v);

// An inner tool's result was read twice: once redacted by the call's guard (with the tool's
// annotations and schema), then, when it said `resultType: "input_required"`, again for the
// round's requests to be scrubbed (no schema, no annotations). A getter answering the first
// read harmlessly gave the second the value, which reached the client. Now it is read once.
test("over MCP-B, an inner multi-round result is read once: what was redacted is what is scrubbed", async () => {
  const { server, close } = await connectedMcpB(installRedaction);
  try {
    let reads = 0;
    const request = (/** @type {string} */ message) => ({ a: { method: "elicitation/create", params: { message, requestedSchema: { type: "object", properties: {} } } } });
    const handle = server.mcpServer.registerTool("rounds", { description: "d", annotations: { sensitiveHint: true, readOnlyHint: true } }, async () => ({
      resultType: "input_required",
      get inputRequests() {
        reads += 1;
        return request(reads === 1 ? "fine" : "private words");
      },
    }));
    let out;
    try {
      out = await handle.handler({ mcpReq: {} });
    } catch (err) {
      out = { error: String(err) };
    }
    assert.ok(!texts(out).includes("private"), texts(out));
    assert.equal(reads, 1);
  } finally {
    await close();
  }
});

// What this installation made passes the inner server as it is (the context's own tools reach
// it through its routes, and redacted twice a call was asked about twice). Trusted by identity,
// it was mutable: a page that called a context tool's executor itself, added a known value to
// the result and returned it from an inner resource or prompt had it sent raw. It is frozen.
test("over MCP-B, a result this installation made cannot be changed and passed again", async () => {
  const { server, client, close } = await connectedMcpB(installRedaction);
  const inner = server.mcpServer;
  const echo = `echo ${CANARY}`;
  /** @type {[string, (v: any) => void][]} */
  const CHANGES = [
    ["a new member", (v) => { v.contents = [{ uri: "app://r", text: echo }]; v.messages = [{ role: "user", content: { type: "text", text: echo } }]; }],
    ["a pushed block", (v) => v.content.push({ type: "text", text: echo })],
    ["a block's text", (v) => { v.content[0].text = echo; }],
    ["a nested value", (v) => { v.structuredContent.name = echo; }],
    ["a defined member", (v) => Object.defineProperty(v, "contents", { value: [{ uri: "app://r", text: echo }], enumerable: true })],
  ];
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    let seen = 0;
    for (const [i, [what, change]] of CHANGES.entries()) {
      const made = await inner._registeredTools[apiKeyTool.name].executor({}, { mcpReq: {} });
      assert.ok(made.content.length > 0);
      try {
        change(made);
      } catch {
        // frozen: the change is refused
      }
      inner.registerResource(`r${i}`, `app://r${i}`, {}, async () => made);
      inner.registerPrompt(`p${i}`, { description: "d" }, async () => made);
      for (const read of [() => client.readResource({ uri: `app://r${i}` }), () => client.getPrompt({ name: `p${i}` })]) {
        const answer = await read().catch((/** @type {any} */ e) => ({ error: String(e) }));
        assert.ok(!texts(answer).includes(CANARY), `${what}: ${texts(answer)}`);
        seen += 1;
      }
    }
    assert.equal(seen, CHANGES.length * 2);
  } finally {
    await close();
  }
});

const coded = (/** @type {string} */ code) => (/** @type {any} */ e) => e?.code === code;

// Past the routes (left open by review s32): a registered tool's `handler` or `executor`, a
// resource's `readCallback`, a template, a prompt's `handler` assigned directly gave the server
// a raw callback; `mcpServer.server.setRequestHandler("tools/call", ...)` answered the client
// past everything. Each is refused with `unprotected_route`; what was registered keeps
// answering through the page session.
test("over MCP-B, assigning what a registered tool, resource or prompt calls is refused", async () => {
  const { ResourceTemplate } = await import("@modelcontextprotocol/server");
  const { server, client, close } = await connectedMcpB(installRedaction);
  const inner = server.mcpServer;
  const echo = `echo ${CANARY}`;
  const rawTool = async () => ({ content: [{ type: "text", text: echo }] });
  const rawRead = async (/** @type {any} */ uri) => ({ contents: [{ uri: String(uri?.href ?? uri), text: echo }] });
  const rawPrompt = async () => ({ messages: [{ role: "user", content: { type: "text", text: echo } }] });
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    const tool = inner.registerTool("t", { description: "d" }, async () => ({ content: [{ type: "text", text: "fine" }] }));
    const resource = inner.registerResource("r", "app://r", {}, async (/** @type {any} */ uri) => ({ contents: [{ uri: uri.href, text: "fine" }] }));
    const template = inner.registerResource("tpl", new ResourceTemplate("app://t/{id}", { list: undefined }), {}, async (/** @type {any} */ uri) => ({ contents: [{ uri: uri.href, text: "fine" }] }));
    const prompt = inner.registerPrompt("p", { description: "d" }, async () => ({ messages: [{ role: "user", content: { type: "text", text: "fine" } }] }));
    const listing = new ResourceTemplate("app://t/{id}", { list: async () => ({ resources: [{ uri: "app://t/1", name: echo }] }) });
    /** @type {[string, () => void][]} */
    const ASSIGNMENTS = [
      ["a tool's handler", () => { tool.handler = rawTool; }],
      ["a tool's executor", () => { tool.executor = rawTool; }],
      ["a tool's outputSchema", () => { tool.outputSchema = undefined; }],
      ["a tool's outputSchemaJson", () => { tool.outputSchemaJson = { type: "object" }; }],
      ["a resource's readCallback", () => { resource.readCallback = rawRead; }],
      ["a template's readCallback", () => { template.readCallback = rawRead; }],
      ["a template's resourceTemplate", () => { template.resourceTemplate = listing; }],
      ["a prompt's handler", () => { prompt.handler = rawPrompt; }],
      ["setRequestHandler tools/call", () => inner.server.setRequestHandler("tools/call", rawTool)],
      ["setRequestHandler resources/read", () => inner.server.setRequestHandler("resources/read", rawRead)],
    ];
    for (const [what, assign] of ASSIGNMENTS) assert.throws(assign, coded("unprotected_route"), what);
    const answers = [
      await client.callTool({ name: "t", arguments: {} }),
      await client.readResource({ uri: "app://r" }),
      await client.readResource({ uri: "app://t/1" }),
      await client.listResources(),
      await client.getPrompt({ name: "p" }),
    ];
    for (const answer of answers) assert.ok(!texts(answer).includes(CANARY), texts(answer));
    assert.match(texts(answers[0]), /fine/, "the tool still answers");
    // Through the handle's update, a template's list goes through the page session as a
    // registration's does.
    template.update({ template: listing });
    const listed = await client.listResources();
    assert.ok(!texts(listed).includes(CANARY), texts(listed));
    assert.match(texts(listed), /echo \[redacted/);
  } finally {
    await close();
  }
});

// Past the routes another way: the SDK's own method called through its prototype, its internal
// `_create*` called directly, an entry written into a registry, or the registry, the server's
// `server` or the context's `mcpServer` replaced. Each reached the client raw; each is refused
// with `unprotected_route` now, and what is registered keeps answering through the session.
test("over MCP-B, a registration past the patched routes is refused", async () => {
  const { server, client, close } = await connectedMcpB(installRedaction);
  const inner = server.mcpServer;
  const echo = `echo ${CANARY}`;
  const rawTool = async () => ({ content: [{ type: "text", text: echo }] });
  const rawRead = async (/** @type {any} */ uri) => ({ contents: [{ uri: uri.href, text: echo }] });
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    const proto = Object.getPrototypeOf(inner);
    const entry = { ...inner._registeredTools[apiKeyTool.name], handler: rawTool, executor: rawTool };
    /** @type {[string, () => unknown][]} */
    const PATHS = [
      ["registerTool through the prototype", () => proto.registerTool.call(inner, "p1", { description: "d" }, rawTool)],
      ["registerResource through the prototype", () => proto.registerResource.call(inner, "p2", "app://p2", {}, rawRead)],
      ["registerPrompt through the prototype", () => proto.registerPrompt.call(inner, "p3", { description: "d" }, rawTool)],
      ["_createRegisteredResource", () => inner._createRegisteredResource("p4", undefined, "app://p4", {}, rawRead)],
      ["a registry entry written", () => { inner._registeredTools.p5 = entry; }],
      ["a registry entry defined", () => Object.defineProperty(inner._registeredTools, "p6", { value: entry, enumerable: true })],
      ["a registry replaced", () => { inner._registeredTools = { p7: entry }; }],
      ["the server's server replaced", () => { inner.server = {}; }],
      ["the context's mcpServer replaced", () => { server.mcpServer = {}; }],
    ];
    for (const [what, go] of PATHS) assert.throws(go, coded("unprotected_route"), what);
    assert.equal(server.mcpServer, inner);
    const listed = await client.listTools();
    assert.deepEqual(listed.tools.map((/** @type {any} */ t) => t.name), [apiKeyTool.name], texts(listed));
    for (const name of ["p1", "p5", "p6", "p7"]) {
      const answer = await client.callTool({ name, arguments: {} }).catch((/** @type {any} */ e) => ({ error: String(e) }));
      assert.ok(!texts(answer).includes(CANARY), `${name}: ${texts(answer)}`);
    }
    // The routes and a rename through a handle still write the registries.
    const late = inner.registerTool("late", { description: "d" }, async () => ({ content: [{ type: "text", text: echo }] }));
    late.update({ name: "renamed" });
    assert.match(texts(await client.callTool({ name: "renamed", arguments: {} })), /echo \[redacted/);
    late.remove();
  } finally {
    await close();
  }
  // Uninstalled, the fences (not configurable since review s36) hold what they held, assignable.
  assert.equal(server.mcpServer, inner, "uninstall puts mcpServer back");
  const registry = inner._registeredTools;
  inner._registeredTools = { p8: {} };
  assert.deepEqual(Object.keys(inner._registeredTools), ["p8"], "and the registries");
  inner._registeredTools = registry;
  server.mcpServer = inner;
});

// An inner tool was judged by the annotations and _meta its registration gave, while the SDK
// lists (and the page means) the handle's current ones: a `sensitiveHint` added later (through
// update, by assignment, or changed in place) was never applied, and the result went raw.
test("over MCP-B, an inner tool's claims added after registration apply", async () => {
  const { server, client, close } = await connectedMcpB(installRedaction);
  const inner = server.mcpServer;
  /** @type {[string, (h: any, config: any) => void][]} */
  const LATER = [
    ["update({ annotations })", (h) => h.update({ annotations: { readOnlyHint: true, sensitiveHint: true } })],
    ["update({ _meta })", (h) => h.update({ _meta: { sensitiveHint: true } })],
    ["annotations assigned", (h) => { h.annotations = { readOnlyHint: true, sensitiveHint: true }; }],
    ["annotations changed in place", (_h, config) => { config.annotations.sensitiveHint = true; }],
    ["_meta changed in place", (_h, config) => { config._meta.sensitiveHint = "high"; }],
    ["a function claim added in place", (_h, config) => { config._meta.sensitiveHint = () => true; }],
  ];
  try {
    for (const [i, [what, change]] of LATER.entries()) {
      const config = { description: "d", annotations: { readOnlyHint: true }, _meta: { note: "n" } };
      const words = `private words number ${i}`; // each case its own: a withheld one becomes known
      const h = inner.registerTool(`t${i}`, config, async () => ({ content: [{ type: "text", text: words }] }));
      const before = await client.callTool({ name: `t${i}`, arguments: {} });
      assert.match(texts(before), new RegExp(words), `${what}: passes before`);
      change(h, config);
      const after = await client.callTool({ name: `t${i}`, arguments: {} });
      assert.ok(!texts(after).includes("private"), `${what}: ${texts(after)}`);
    }
  } finally {
    await close();
  }
});

// The same of the MCP SDK v1's McpServer (an older MCP-B's inner server): its tools call
// `handler`, resources `readCallback`, prompts `callback`, and its setRequestHandler takes the
// request's schema.
test("an SDK v1 inner mcpServer: assigning what a registration calls, or a request handler, is refused", async () => {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { CallToolRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const mcpServer = new McpServer({ name: "page", version: "1.0.0" });
  const ctx = { registerTool: async () => {}, mcpServer };
  const uninstall = await installRedaction({ modelContext: ctx, bridge: "mcp" });
  try {
    const tool = mcpServer.tool("t", async () => ({ content: [{ type: "text", text: "fine" }] }));
    const resource = mcpServer.resource("r", "app://r", async (/** @type {any} */ uri) => ({ contents: [{ uri: uri.href, text: "fine" }] }));
    const prompt = mcpServer.prompt("p", async () => ({ messages: [] }));
    const raw = async () => ({ content: [{ type: "text", text: CANARY }] });
    assert.throws(() => { tool.handler = raw; }, coded("unprotected_route"));
    assert.throws(() => { resource.readCallback = raw; }, coded("unprotected_route"));
    assert.throws(() => { prompt.callback = raw; }, coded("unprotected_route"));
    assert.throws(() => mcpServer.server.setRequestHandler(CallToolRequestSchema, raw), coded("unprotected_route"));
    tool.update({ callback: async () => ({ content: [{ type: "text", text: "updated" }] }) });
    assert.equal(typeof tool.handler, "function", "update still sets it");
  } finally {
    uninstall();
    await mcpServer.close();
  }
});

// --- a wrapped result rebuilt by a page ----------------------------------------------------------

// A page function returning `{ ...out }` of another redactor's wrapped result (or of this
// redactor's for another tool) is not recognised by identity: its stubs went as forged, but its
// notice, kept as tool text with its mark stripped, still told the agent "the user can reveal
// it in the page", which no one could. A notice (or an mcp-format stub) this redactor did not
// write for the result goes as a foreign stub does (core: src/redact/call_result.rs).
test("a rebuilt wrapped result keeps no notice promising a reveal (both formats, both routes)", async () => {
  let cases = 0;
  for (const format of ["webmcp", "mcp"]) {
    const other = await createRedactor({ format });
    const ctx = /** @type {any} */ (fakeContext());
    const uninstall = await installRedaction({ modelContext: ctx, format });
    const r = await createRedactor({ format });
    try {
      const own = uninstall.redactor.wrapTool({ ...apiKeyTool, name: "own_key", execute: async () => apiKeyRaw() });
      const foreign = other.wrapTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
      /** @type {[string, any][]} */
      const REBUILT = [
        ["spread", (/** @type {any} */ out) => ({ ...out })],
        ["cloned", (/** @type {any} */ out) => structuredClone(out)],
        ["content only", (/** @type {any} */ out) => ({ content: [...out.content] })],
      ];
      for (const [how, rebuild] of REBUILT) {
        for (const [who, copy] of [["another redactor's", foreign], ["another tool's", own]]) {
          const name = `t_${cases}`;
          const tool = { ...apiKeyTool, name, execute: async (/** @type {any} */ a) => rebuild(await copy.execute(a, {})) };
          await ctx.registerTool(tool);
          for (const [route, view] of [["installRedaction", await ctx.call(name, {})], ["wrapTool", await r.wrapTool(tool).execute({}, {})]]) {
            const text = JSON.stringify(view);
            assert.ok(!/can reveal/.test(text), `${format}, ${how}, ${who}, ${route}: ${text}`);
            assert.ok(!text.includes(CANARY) && !/secret withheld/.test(text), `${format}, ${how}, ${who}, ${route}: ${text}`);
            cases += 1;
          }
        }
      }
    } finally {
      uninstall();
    }
  }
  assert.equal(cases, 2 * 3 * 2 * 2);
});

// --- MCP-B: resources and prompts registered before installation ---------------------------------

// Registered before installRedaction (on the context or its inner server), a resource's read, a
// template's read and list and a prompt's get were only counted in a warning and served known
// values raw. The inner server's registries are wrapped at installation as its routes are, and
// so is each of those handles' `update`; uninstall puts the page's callbacks back.
test("over MCP-B, resources and prompts registered before installRedaction are scrubbed", async () => {
  const { ResourceTemplate } = await import("@modelcontextprotocol/server");
  const echo = `echo ${CANARY}`;
  /** @type {any} */
  let early = {};
  const install = async (/** @type {any} */ o) => {
    const server = o.modelContext;
    const inner = server.mcpServer;
    early.read = async (/** @type {any} */ uri) => ({ contents: [{ uri: String(uri?.href ?? uri), text: echo }] });
    early.resource = inner.registerResource("r", "app://r", {}, early.read);
    inner.registerResource("tpl", new ResourceTemplate("app://t/{id}", { list: async () => ({ resources: [{ uri: "app://t/1", name: echo }] }) }), {}, early.read);
    early.prompt = inner.registerPrompt("p", { description: "d" }, async () => ({ messages: [{ role: "user", content: { type: "text", text: echo } }] }));
    server.registerResource({ name: "outer", uri: "app://outer", read: async () => ({ contents: [{ uri: "app://outer", text: echo }] }) });
    server.registerPrompt({ name: "outer_p", get: async () => ({ messages: [{ role: "user", content: { type: "text", text: echo } }] }) });
    const warn = console.warn;
    const warnings = [];
    console.warn = (m) => warnings.push(String(m));
    try {
      const uninstall = await installRedaction(o);
      early.warnings = warnings;
      return uninstall;
    } finally {
      console.warn = warn;
    }
  };
  const { server, client, close } = await connectedMcpB(install);
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    const reads = [
      () => client.readResource({ uri: "app://r" }),
      () => client.readResource({ uri: "app://t/1" }),
      () => client.listResources(),
      () => client.getPrompt({ name: "p" }),
      () => client.readResource({ uri: "app://outer" }),
      () => client.getPrompt({ name: "outer_p" }),
    ];
    for (const read of reads) {
      const answer = await read();
      assert.ok(!texts(answer).includes(CANARY), texts(answer));
      assert.match(texts(answer), /echo \[redacted/, texts(answer));
    }
    // The page's handle of an early registration: a callback given through update is wrapped,
    // one assigned is refused.
    early.resource.update({ callback: async () => ({ contents: [{ uri: "app://r", text: `again ${CANARY}` }] }) });
    assert.match(texts(await client.readResource({ uri: "app://r" })), /again \[redacted/);
    assert.throws(() => { early.prompt.handler = async () => ({ messages: [] }); }, coded("unprotected_route"));
    assert.ok(!early.warnings.some((/** @type {string} */ w) => /resources or prompts/.test(w)), early.warnings.join("\n"));
  } finally {
    await close();
  }
});

// A decision, not a fix (README, "The inner MCP server is patched too"): each round of a
// multi-round tool is a call of its own, checked and asked about each time. What links the
// rounds (`requestState`) travels through the client: trusted to skip a question, it would let
// any call that claims to continue an approved one skip it.
test("over MCP-B, a multi-round tool that needs confirmation is asked about in each round", async () => {
  const asked = [];
  const install = (/** @type {any} */ o) => installRedaction({ ...o, confirm: async (/** @type {any} */ q) => { asked.push(q.tool); return true; } });
  const { server, close } = await connectedMcpB(install);
  try {
    let round = 0;
    const handle = server.mcpServer.registerTool("rounds", { description: "d", annotations: { destructiveHint: true } }, async () => {
      round += 1;
      return round === 1
        ? { resultType: "input_required", inputRequests: { a: { method: "elicitation/create", params: { message: "sure?", requestedSchema: { type: "object", properties: {} } } } } }
        : { content: [{ type: "text", text: "done" }] };
    });
    const first = await handle.handler({ mcpReq: {} });
    assert.equal(first.resultType, "input_required", texts(first));
    const second = await handle.handler({ mcpReq: {} });
    assert.ok(!second.isError, texts(second));
    assert.equal(round, 2);
    assert.deepEqual(asked, ["rounds", "rounds"]);
  } finally {
    await close();
  }
});

/**
 * MCP-B's server (with logging) installed and connected to an MCP client that answers sampling
 * and elicitation, over a transport whose every message from the server lands in `wire` as JSON
 * text; the page session knows CANARY (apiKeyTool was called).
 */
async function tappedMcpB() {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const { CreateMessageRequestSchema, ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" }, { capabilities: { logging: {} } });
  const uninstall = await installRedaction({ modelContext: server });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  /** @type {string[]} */
  const wire = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (/** @type {any} */ m, /** @type {any} */ o) => (wire.push(JSON.stringify(m)), send(m, o));
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: "ok" }, model: "m" }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
  await client.connect(clientSide);
  await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
  await client.callTool({ name: apiKeyTool.name, arguments: {} });
  const close = async () => {
    uninstall();
    await client.close();
    await server.close();
  };
  return { server, client, wire, close };
}

// The page's own messages through the inner server: only `params` was scrubbed, but the SDK
// sends every member of the message (`{ jsonrpc, ...message }`), so a member beside `params`,
// or a message with no `params` at all, reached the client raw. Every member is scrubbed now,
// from one read of the message.
test("over MCP-B, every member of the page's own message is scrubbed, not only params", async () => {
  const { server, wire, close } = await tappedMcpB();
  const inner = server.mcpServer.server;
  try {
    let reads = 0;
    const MESSAGES = [
      { method: "notifications/message", params: { level: "info", data: "ok" }, note: `the key ${CANARY}` },
      { method: "notifications/message", note: `the key ${CANARY}` },
      { method: "notifications/message", params: { level: "info", data: "ok" }, _meta: { k: CANARY } },
      { method: "notifications/message", get params() { reads += 1; return { level: "info", data: reads === 1 ? "ok" : CANARY }; } },
    ];
    for (const message of MESSAGES) await inner.notification(message);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const sent = wire.filter((m) => m.includes("notifications/message"));
    assert.equal(sent.length, MESSAGES.length, sent.join("\n"));
    for (const m of sent) assert.ok(!m.includes(CANARY), m);
    assert.match(sent[0], /the key \[redacted/);
    assert.equal(reads, 1);
  } finally {
    await close();
  }
});

// A handler's own `ctx` (the SDK v2's `ctx.mcpReq`) sends through the server's internal funnels,
// past its `notification` and `request`, which were the only ones scrubbed: a log line, a
// notification (a progress message) or a request (sampling) a tool, resource or prompt sent
// there reached the client raw. Each is scrubbed now (or withheld: the handler's call rejects).
test("over MCP-B, what a handler sends through its own ctx is scrubbed", async () => {
  const { server, client, wire, close } = await tappedMcpB();
  const text = (/** @type {string} */ t) => ({ type: "text", text: `${t} the key ${CANARY}` });
  const SENDS = {
    log: (/** @type {any} */ ctx) => ctx.mcpReq.log("info", { fetched: `the key ${CANARY}` }),
    notify: (/** @type {any} */ ctx) => ctx.mcpReq.notify({ method: "notifications/message", params: { level: "info", data: { n: `the key ${CANARY}` } } }),
    progress: (/** @type {any} */ ctx) => ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: 7, progress: 1, message: `the key ${CANARY}` } }),
    send: (/** @type {any} */ ctx) => ctx.mcpReq.send({ method: "sampling/createMessage", params: { messages: [{ role: "user", content: text("s") }], maxTokens: 5 } }),
    elicit: (/** @type {any} */ ctx) => ctx.mcpReq.elicitInput({ message: `the key ${CANARY}`, requestedSchema: { type: "object", properties: {} } }),
    sampling: (/** @type {any} */ ctx) => ctx.mcpReq.requestSampling({ messages: [{ role: "user", content: text("r") }], maxTokens: 5 }),
  };
  try {
    let runs = 0;
    for (const [how, sendIt] of Object.entries(SENDS)) {
      const handler = async (/** @type {any[]} */ ...args) => {
        runs += 1;
        await sendIt(args.at(-1));
        return { content: [{ type: "text", text: "done" }], contents: [{ uri: `r://${how}`, text: "done" }], messages: [{ role: "user", content: { type: "text", text: "done" } }] };
      };
      server.mcpServer.registerTool(`t_${how}`, { description: "d", annotations: { readOnlyHint: true } }, handler);
      server.mcpServer.registerResource(`r_${how}`, `r://${how}`, {}, handler);
      server.mcpServer.registerPrompt(`p_${how}`, {}, handler);
      const n = wire.length;
      await client.callTool({ name: `t_${how}`, arguments: {} }, undefined, { onprogress: () => {} });
      await client.readResource({ uri: `r://${how}` });
      await client.getPrompt({ name: `p_${how}` });
      await new Promise((resolve) => setTimeout(resolve, 10));
      const sent = wire.slice(n);
      for (const m of sent) assert.ok(!m.includes(CANARY), `${how}: ${m}`);
      assert.ok(sent.some((m) => m.includes("[redacted")), `${how}: nothing masked was sent\n${sent.join("\n")}`);
    }
    assert.equal(runs, 18);
  } finally {
    await close();
  }
});

// The SDK spreads a message into its JSON-RPC envelope ({ ...message, jsonrpc }), and only an
// object's members were scrubbed: an array went out as its items ("0": {...}), a string as its
// characters one by one ("0": "x", "1": " ", "2": "s", ...), each unscrubbed, through the
// server's notification and request and a handler's ctx. A message that is not an object is
// withheld now.
test("over MCP-B, a message that is not an object is withheld, not spread raw", async () => {
  const { server, client, wire, close } = await tappedMcpB();
  const inner = server.mcpServer.server;
  const anySchema = { "~standard": { version: 1, vendor: "t", validate: (/** @type {unknown} */ value) => ({ value }) } };
  try {
    let ctx;
    server.mcpServer.registerTool("ctx", { description: "d", annotations: { readOnlyHint: true } }, async (/** @type {any[]} */ ...args) => {
      ctx = args.at(-1);
      return { content: [{ type: "text", text: "done" }] };
    });
    await client.callTool({ name: "ctx", arguments: {} });
    const MESSAGES = [[{ method: "notifications/message", text: `x ${CANARY}` }], `x ${CANARY}`, [`x ${CANARY}`]];
    const SENDS = {
      notification: (/** @type {unknown} */ m) => inner.notification(m),
      request: (/** @type {unknown} */ m) => inner.request(m, anySchema),
      notify: (/** @type {unknown} */ m) => /** @type {any} */ (ctx).mcpReq.notify(m),
      send: (/** @type {unknown} */ m) => /** @type {any} */ (ctx).mcpReq.send(m, anySchema),
    };
    let refused = 0;
    for (const [how, sendIt] of Object.entries(SENDS)) {
      for (const message of MESSAGES) {
        const n = wire.length;
        // Not awaited as a whole: a request sent raw waits for an answer that never comes.
        const outcome = await Promise.race([Promise.resolve().then(() => sendIt(message)).then(() => "sent", (/** @type {any} */ err) => err?.code), new Promise((resolve) => setTimeout(() => resolve("pending"), 50))]);
        const sent = wire.slice(n).join("\n");
        assert.ok(!sent.includes(CANARY) && !sent.includes('"2":"s"'), `${how} ${JSON.stringify(message)}: ${sent}`);
        assert.equal(outcome, "withheld", `${how} ${JSON.stringify(message)}`);
        refused += 1;
      }
    }
    assert.equal(refused, 12);
  } finally {
    await close();
  }
});

// The routes wrapped the callback only when it was the last argument, but the SDK takes it by
// its place: `registerTool(name, config, cb, undefined)` (or any argument after the callback)
// registered the raw callback, and its result reached the client. Every function given is
// wrapped now.
test("over MCP-B, a callback followed by another argument is wrapped all the same", async () => {
  const { server, client, close } = await connectedMcpB(installRedaction);
  const answer = async () => ({
    content: [{ type: "text", text: `x ${CANARY}` }],
    contents: [{ uri: "r://t", text: `x ${CANARY}` }],
    messages: [{ role: "user", content: { type: "text", text: `x ${CANARY}` } }],
  });
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    let cases = 0;
    for (const [i, extra] of [undefined, {}, 0, "x"].entries()) {
      server.mcpServer.registerTool(`t${i}`, { description: "d", annotations: { readOnlyHint: true } }, answer, extra);
      server.mcpServer.registerResource(`r${i}`, `r://t${i}`, {}, answer, extra);
      server.mcpServer.registerPrompt(`p${i}`, {}, answer, extra);
      for (const call of [() => client.callTool({ name: `t${i}`, arguments: {} }), () => client.readResource({ uri: `r://t${i}` }), () => client.getPrompt({ name: `p${i}` })]) {
        let seen;
        try {
          seen = JSON.stringify(await call());
        } catch (err) {
          seen = String(err);
        }
        assert.ok(!seen.includes(CANARY), `extra ${JSON.stringify(extra)}: ${seen}`);
        cases += 1;
      }
    }
    assert.equal(cases, 12);
  } finally {
    await close();
  }
});

// setRequestHandler was refused outside the routes, but the map it writes to was not, nor the
// server's `fallbackRequestHandler` (it answers every method with no handler of its own): a
// `prompts/get` written there answered clients raw. Both are refused now, and put back by
// uninstall.
test("over MCP-B, a request handler written past setRequestHandler is refused", async () => {
  const { server, client, close, uninstall } = await connectedMcpB(installRedaction);
  const protocol = server.mcpServer.server;
  const raw = async () => ({ messages: [{ role: "user", content: { type: "text", text: CANARY } }] });
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    assert.throws(() => protocol._requestHandlers.set("prompts/get", raw), coded("unprotected_route"));
    assert.throws(() => { protocol._requestHandlers = new Map([["prompts/get", raw]]); }, coded("unprotected_route"));
    assert.throws(() => { protocol.fallbackRequestHandler = raw; }, coded("unprotected_route"));
    let seen;
    try {
      seen = JSON.stringify(await client.getPrompt({ name: "x" }));
    } catch (err) {
      seen = String(err);
    }
    assert.ok(!seen.includes(CANARY), seen);
    // The routes still set their handlers there.
    server.mcpServer.registerPrompt("p", {}, async () => ({ messages: [{ role: "user", content: { type: "text", text: `echo ${CANARY}` } }] }));
    const got = JSON.stringify(await client.getPrompt({ name: "p" }).catch((/** @type {any} */ err) => String(err)));
    assert.ok(!got.includes(CANARY), got);
    uninstall();
    assert.equal(Object.hasOwn(protocol._requestHandlers, "set"), false, "uninstall puts the map's set back");
    protocol.fallbackRequestHandler = undefined; // assignable again
  } finally {
    await close();
  }
});

// --- guards that found nothing (kept: each states a promise) -------------------------------------

// The agent gets what was checked, whatever the result is made of: a marked value behind a
// getter that answers differently on each read, a Proxy, `toJSON`, a wrapper object, a class
// instance, a sparse array, symbol keys beside it, the whole result a Proxy or with a `toJSON`,
// and a non-finite number or `null` elsewhere (the second read). Seeded: 400 results.
test("seeded: a marked value held by any kind of JavaScript object never reaches the agent", async () => {
  const rnd = random(3402);
  const pick = (/** @type {any[]} */ xs) => xs[Math.floor(rnd() * xs.length)];
  const tool = { name: "t", outputSchema: { type: "object", properties: { s: { "x-sensitive": true }, list: { type: "array", items: { "x-sensitive": true } } } } };
  /** @type {[string, () => any][]} */
  const HOLDERS = [
    ["a string", () => CANARY],
    ["a flipping getter's object", () => { let n = 0; return { get v() { n += 1; return n % 2 ? CANARY : "x"; } }; }],
    ["a Proxy", () => new Proxy({}, { ownKeys: () => ["v"], getOwnPropertyDescriptor: () => ({ value: CANARY, enumerable: true, configurable: true }), get: () => CANARY })],
    ["toJSON", () => ({ toJSON: () => ({ v: CANARY }) })],
    ["a String object", () => new String(CANARY)],
    ["a class instance", () => new (class Key { v = CANARY; })()],
    ["a sparse array", () => { const a = []; a[3] = CANARY; return a; }],
    ["symbol keys beside it", () => ({ [Symbol("k")]: CANARY, v: CANARY })],
    ["a Date and a typed array beside it", () => ({ d: new Date(0), t: new Uint8Array([1, 2]), v: CANARY })],
  ];
  /** @type {[string, (raw: any) => any][]} */
  const WHOLES = [
    ["as it is", (raw) => raw],
    ["a Proxy of it", (raw) => new Proxy(raw, {})],
    ["its toJSON", (raw) => ({ toJSON: () => raw })],
    ["a null beside", (raw) => ({ ...raw, n: null })],
    ["Infinity beside", (raw) => ({ ...raw, n: Infinity })],
  ];
  let cases = 0;
  for (let i = 0; i < 400; i += 1) {
    const [held, make] = pick(HOLDERS);
    const [whole, wrap] = pick(WHOLES);
    const raw = rnd() < 0.5 ? { id: 1, s: make() } : { id: 1, list: [make(), "ok"] };
    const r = await createRedactor();
    const out = r.redact(tool, wrap(raw));
    const text = JSON.stringify(out.result);
    assert.ok(!text.includes(CANARY), `case ${i}: ${held}, ${whole}: ${text}`);
    cases += 1;
  }
  assert.equal(cases, 400);
});

// JSON text as redactJson gets it (an extension's fetched body): each odd form is either
// redacted (the marked value gone) or withheld with a stable code, never passed raw.
test("redactJson: odd JSON text fails closed with a stable code or is redacted", async () => {
  const tool = { name: "t", outputSchema: { type: "object", properties: { s: { type: "string", "x-sensitive": true } } } };
  const S = '"s":"PRIVATE1"';
  /** @type {[string, string, string | null][]} */
  const FORMS = [
    ["a byte order mark", `\uFEFF{${S}}`, "invalid_json"],
    ["a byte order mark after", `{${S}}\uFEFF`, "invalid_json"],
    ["a lone surrogate, escaped", `{${S},"x":"\\ud800"}`, null],
    ["a lone surrogate, raw", `{${S},"x":"\ud800"}`, null],
    ["a duplicate key", `{${S},"s":null}`, "duplicate_key"],
    ["a duplicate key, escaped", `{${S},"\\u0073":null}`, "duplicate_key"],
    ["a huge exponent", `{${S},"n":1e999999999}`, null],
    ["5,000 digits", `{${S},"n":${"9".repeat(5000)}}`, null],
    ["nesting 5,000 deep", `{${S},"d":${"[".repeat(5000)}${"]".repeat(5000)}}`, "depth_limit"],
    ["trailing text", `{${S}} x`, "invalid_json"],
    ["two values", `{${S}}{${S}}`, "invalid_json"],
    ["a NUL after", `{${S}}\u0000`, "invalid_json"],
    ["a comment", `{${S}/*c*/}`, "invalid_json"],
    ["nothing", "", "invalid_json"],
    ["a raw control character", `{"s":"PRIVATE1\u0001"}`, "invalid_json"],
    ["NaN", `{${S},"n":NaN}`, "invalid_json"],
    ["single quotes", `{'s':'PRIVATE1'}`, "invalid_json"],
    ["a leading zero", `{${S},"n":01}`, "invalid_json"],
    ["a plus sign", `{${S},"n":+1}`, "invalid_json"],
  ];
  const r = await createRedactor();
  for (const [what, text, code] of FORMS) {
    const out = r.redactJson(tool, text);
    assert.ok(!out.json.includes("PRIVATE1"), `${what}: ${out.json}`);
    assert.equal(out.error?.code ?? null, code, `${what}: ${out.json}`);
    assert.equal(out.withheld, code !== null, what);
  }
});

// --- redeem's allowed paths ------------------------------------------------------------------------

// An allowed path refused escaped dots and slashes (`%2e`, `%2f`, ...), but the URL parser leaves
// compatibility forms escaped as UTF-8 (`．．` is `%EF%BC%8E%EF%BC%8E`), which servers and
// frameworks that normalise Unicode (NFKC) read as `..`, `/` or `\`; and an escape that is not
// UTF-8 (an overlong `%C0%AE`, IIS's `%u002e`), which some servers read as `.`. Each climbed out
// of `/api/redeem/` past the check. Every pair of dot forms, each separator form.
test("an allowed redeem path: no compatibility form or non-UTF-8 escape of a dot, slash or backslash climbs out", async () => {
  const { checkRedeemUrl } = await import("../../js/vault/redeem.js");
  const page = new URL("https://app.example.com/page");
  const DOTS = [".", "．", "﹒", "․", "%EF%BC%8E", "%C0%AE", "%E0%80%AE", "%u002e"];
  const SLASHES = ["／", "%EF%BC%8F", "＼", "﹨", "%C0%AF", "%C1%9C", "%u2215", "%u005c"];
  const paths = [];
  for (const a of DOTS) for (const b of DOTS) if (a + b !== "..") paths.push(`/api/redeem/${a}${b}/admin`, `/api/redeem/x/${a}${b}`, `/api/redeem/${a}/x`);
  for (const s of SLASHES) paths.push(`/api/redeem/..${s}admin`, `/api/redeem${s}..${s}admin`, `/api/redeem/a${s}b`);
  let refused = 0;
  for (const allowed of [["/api/redeem"], ["/api/redeem/"]]) {
    for (const u of paths) {
      if (u.startsWith("/api/redeem/./") || u === "/api/redeem/./x") continue; // resolved by the parser
      assert.throws(() => checkRedeemUrl(u, "L", allowed, page), (e) => e.code === "path_not_allowed", `${u} (${new URL(u, page).pathname}) under ${allowed}`);
      refused += 1;
    }
    // Ordinary paths still pass: non-ASCII names, dots inside a name, a folded letter.
    for (const u of ["/api/redeem/caf%C3%A9", "/api/redeem/café/1", "/api/redeem/a.b", "/api/redeem/.../x", "/api/redeem/ﬁle", "/api/redeem/a b"]) {
      assert.equal(checkRedeemUrl(u, "L", allowed, page).pathname, new URL(u, page).pathname, u);
    }
  }
  assert.ok(refused > 200, `${refused}`);
});

// What a page callback gives back, whatever it is made of: a thenable (resolving once, twice, or
// rejecting), a throw of a string, a plain object, an Error whose message, cause, name or stack
// answers differently on a second read, an AggregateError, a Proxy, a `toJSON`, a getter flipping
// on the second read. Through the context's registerTool and the inner server's tool, resource
// and prompt routes, nothing a client can read holds the value (a guard: it found nothing).
test("over MCP-B, no shape of a callback's answer or throw carries a known value to the client", async () => {
  const { server, client, close } = await connectedMcpB(installRedaction);
  const body = (/** @type {string} */ t) => ({ content: [{ type: "text", text: t }], contents: [{ uri: "r://x", text: t }], messages: [{ role: "user", content: { type: "text", text: t } }] });
  const flip = (/** @type {any} */ e, /** @type {string} */ key) => {
    let reads = 0;
    Object.defineProperty(e, key, { configurable: true, get: () => (++reads === 1 ? "fine" : `x ${CANARY}`) });
    return e;
  };
  const ANSWERS = {
    thenable: () => ({ then: (/** @type {Function} */ ok) => ok(body(`x ${CANARY}`)) }),
    thenableTwice: () => ({ then: (/** @type {Function} */ ok) => (ok(body("ok")), ok(body(CANARY))) }),
    thenableRejects: () => ({ then: (/** @type {Function} */ _ok, /** @type {Function} */ no) => no(new Error(`t ${CANARY}`)) }),
    throwString: () => { throw `boom ${CANARY}`; },
    throwObject: () => { throw { message: `boom ${CANARY}`, code: CANARY }; },
    messageFlips: () => { throw flip(new Error("fine"), "message"); },
    causeNameStack: () => { const e = new Error("fine", { cause: CANARY }); e.name = `N ${CANARY}`; e.stack = CANARY; throw e; },
    aggregate: () => { throw new AggregateError([new Error(CANARY)], "fine"); },
    proxy: () => new Proxy(body(`x ${CANARY}`), {}),
    toJSON: () => ({ ...body("fine"), toJSON: () => body(CANARY) }),
    textFlips: () => { const b = body("fine"); flip(b.content[0], "text"); flip(b.contents[0], "text"); flip(b.messages[0].content, "text"); return b; },
    rejectsLater: async () => { await null; throw `late ${CANARY}`; },
  };
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    const read = async (/** @type {() => Promise<unknown>} */ call) => {
      try {
        return JSON.stringify(await call());
      } catch (err) {
        return String(/** @type {any} */ (err)?.message) + JSON.stringify(/** @type {any} */ (err)?.data ?? null);
      }
    };
    let cases = 0;
    for (const [how, answer] of Object.entries(ANSWERS)) {
      await server.registerTool({ name: `c_${how}`, description: "d", annotations: { readOnlyHint: true }, execute: answer });
      server.mcpServer.registerTool(`i_${how}`, { description: "d", annotations: { readOnlyHint: true } }, answer);
      server.mcpServer.registerResource(`r_${how}`, `r://${how}`, {}, answer);
      server.mcpServer.registerPrompt(`p_${how}`, {}, answer);
      const calls = [
        () => client.callTool({ name: `c_${how}`, arguments: {} }),
        () => client.callTool({ name: `i_${how}`, arguments: {} }),
        () => client.readResource({ uri: `r://${how}` }),
        () => client.getPrompt({ name: `p_${how}` }),
      ];
      for (const call of calls) {
        const seen = await read(call);
        assert.ok(!seen.includes(CANARY), `${how}: ${seen}`);
        cases += 1;
      }
    }
    assert.equal(cases, 48);
  } finally {
    await close();
  }
});

// The CLI on odd result text and odd files: its exit status says what happened (0 redacted,
// 1 withheld with the code printed, 2 usage), and nothing it prints, on stdout or stderr, holds
// the marked value, not even an error message or a stack (a guard: it found nothing).
test("the CLI: odd input exits 0, 1 or 2 as documented and never prints the value", async () => {
  const { spawnSync } = await import("node:child_process");
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), "s34-cli-"));
  const tool = join(dir, "tool.json");
  writeFileSync(tool, JSON.stringify({ name: "t", outputSchema: { type: "object", properties: { s: { type: "string", "x-sensitive": true } } } }));
  const S = '"s":"PRIVATE1"';
  /** @type {[string, string[], string | Buffer, number][]} */
  const RUNS = [
    ["a byte order mark (ignored)", [], `\uFEFF{${S}}`, 0],
    ["a lone surrogate", [], `{${S},"x":"\\ud800"}`, 0],
    ["a duplicate key under the value as a key", [], `{${S},"PRIVATE1":{"a":1,"a":2}}`, 1],
    ["nesting 5,000 deep under the value as a key", [], `{${S},"PRIVATE1":${"[".repeat(5000)}${"]".repeat(5000)}}`, 1],
    ["cut short", [], `{${S}`, 1],
    ["trailing text holding the value", [], `{${S}} PRIVATE1`, 1],
    ["invalid UTF-8 bytes", [], Buffer.concat([Buffer.from(`{${S},"x":"`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), 0],
    ["--json, withheld", ["--json"], `{${S},"s":1}`, 1],
    ["a tool file that is the result", ["--tool-is-result"], `{${S}`, 2],
  ];
  let runs = 0;
  for (const [what, flags, input, status] of RUNS) {
    const toolFile = flags.includes("--tool-is-result") ? join(dir, "bad-tool.json") : tool;
    if (toolFile !== tool) writeFileSync(toolFile, input);
    const args = ["bin/webmcp-redact.mjs", "redact", "--tool", toolFile, ...flags.filter((f) => f === "--json")];
    const r = spawnSync(process.execPath, args, { cwd: root, input, encoding: "utf8" });
    assert.equal(r.status, status, `${what}: ${r.stderr}`);
    assert.ok(!r.stdout.includes("PRIVATE1") && !r.stderr.includes("PRIVATE1"), `${what}:\n${r.stdout}\n${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\n\s+at /, `${what}: a stack`);
    if (status === 1) assert.match(flags.includes("--json") ? r.stdout : r.stderr, /error"?:? ?\{?[\s\S]*(invalid_json|duplicate_key|depth_limit)/, what);
    runs += 1;
  }
  assert.equal(runs, RUNS.length);
});
