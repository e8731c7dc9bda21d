// Review s37 of the JS layer (helper L): the WebMCP side's listings, a template's listed
// entries, a handle's update, the trap fallback's wording, the cost of the name check. Each
// test states a promise a careless page, a hostile script or upstream data broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction } from "webmcp-redact";
import { apiKeyTool, random, trapOnce } from "./helpers.mjs";

const texts = (/** @type {unknown} */ v) => JSON.stringify(v);
const coded = (/** @type {string} */ code) => (/** @type {any} */ e) => e?.code === code;

/** `n` values as a tool might return them: letters and digits, 16 to 31 long, each its own. */
function values(seed, n) {
  const rnd = random(seed);
  const ABC = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  return Array.from({ length: n }, (_, i) => {
    let v = `v${i}x`;
    const len = 12 + Math.floor(rnd() * 16);
    for (let j = 0; j < len; j += 1) v += ABC[Math.floor(rnd() * ABC.length)];
    return v;
  });
}

/**
 * MCP-B's server installed and connected to an MCP client; the page session knows each of
 * `known` (each returned once as apiKeyTool's marked `secret`).
 * @param {string[]} known
 */
async function tapped(known) {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" }, { capabilities: { logging: {} } });
  const uninstall = await installRedaction({ modelContext: server });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(clientSide);
  const queue = [...known];
  await server.registerTool({ ...apiKeyTool, execute: async () => ({ id: "key_1", name: "prod", secret: queue.shift() ?? "none" }) });
  for (let i = 0; i < known.length; i += 1) await client.callTool({ name: apiKeyTool.name, arguments: {} });
  const close = async () => {
    uninstall();
    await client.close();
    await server.close();
  };
  return { server, client, uninstall, close };
}

const answer = async () => ({ content: [{ type: "text", text: "fine" }] });

// --- 1. the WebMCP side's listings -------------------------------------------------------------

// MCP's tools/list was scrubbed, but what the runtime itself lists (getTools(), the spec's way
// for a page script or an extension's bridge to see the tools; MCP-B's listTools()) showed a
// tool's name, title, description and schema as registered: one written after a value a tool's
// result withheld showed it. Free text is masked there now, and a tool named by one dropped.
test("getTools() and listTools() show no known value: free text masked, a tool named by one dropped", async () => {
  const known = values(3701, 30);
  const rnd = random(3702);
  const { server, close } = await tapped(known);
  /** @type {[string, boolean, (i: number, v: string) => object][]} */
  const PLACES = [
    ["name", true, (i, v) => ({ name: `c${i}_${v}`, description: "d" })],
    ["title", false, (i, v) => ({ name: `c${i}`, title: `T ${v}`, description: "d" })],
    ["description", false, (i, v) => ({ name: `c${i}`, description: `about ${v} here` })],
    ["input field description", false, (i, v) => ({ name: `c${i}`, description: "d", inputSchema: { type: "object", properties: { q: { type: "string", description: `the ${v}` } } } })],
    ["input field name", false, (i, v) => ({ name: `c${i}`, description: "d", inputSchema: { type: "object", properties: { [v]: { type: "string" } } } })],
    ["input field default", false, (i, v) => ({ name: `c${i}`, description: "d", inputSchema: { type: "object", properties: { q: { type: "string", default: v } } } })],
  ];
  try {
    let leaked = 0;
    let dropped = 0;
    let masked = 0;
    for (let i = 0; i < 90; i += 1) {
      const [what, identifier, tool] = PLACES[i % PLACES.length];
      const v = known[Math.floor(rnd() * known.length)];
      await server.registerTool({ ...tool(i, v), execute: answer });
      const listed = texts([await server.getTools(), server.listTools()]);
      if (listed.includes(v)) leaked += 1;
      else if (identifier) {
        dropped += 1;
        assert.doesNotMatch(listed, new RegExp(`"c${i}_`), `${what}: no entry named by the value`);
      } else {
        assert.match(listed, /\[redacted: secret\]/, `case ${i}, ${what}: masked in place`);
        masked += 1;
      }
    }
    assert.equal(leaked, 0, `${leaked} of 90 listings showed a known value`);
    assert.equal(dropped + masked, 90);
    // What holds no known value is listed as registered.
    await server.registerTool({ name: "plain", title: "Plain", description: "nothing here", execute: answer });
    const plain = (await server.getTools()).find((/** @type {any} */ t) => t.name === "plain");
    assert.deepEqual([plain?.title, plain?.description], ["Plain", "nothing here"]);
  } finally {
    await close();
  }
});

// Chromium's own getTools() gives each tool's inputSchema as JSON text and its page as a
// `window`: the text is scrubbed as the JSON it holds (still JSON after), the window kept.
test("a native-like getTools(): a schema given as JSON text is scrubbed and stays JSON, the window is kept", async () => {
  const known = values(3711, 12);
  const rnd = random(3712);
  const r = await createRedactor();
  for (const v of known) r.redact(apiKeyTool, { id: "k", name: "n", secret: v });
  const page = {};
  /** @type {any[]} */
  const tools = [];
  const context = {
    registerTool: async (/** @type {any} */ t) => void tools.push(t),
    getTools: async () => tools.map((t) => ({ name: t.name, title: t.title ?? "", description: t.description, inputSchema: JSON.stringify(t.inputSchema ?? {}), origin: "https://app.example", window: page })),
  };
  const uninstall = await installRedaction({ modelContext: context });
  try {
    // The page session learns the values as the redactor above did.
    for (const v of known) await uninstall.session.redact(apiKeyTool, { id: "k", name: "n", secret: v });
    let leaked = 0;
    for (let i = 0; i < 24; i += 1) {
      const v = known[Math.floor(rnd() * known.length)];
      const q = i % 2 ? { description: `the ${v}` } : { enum: ["a", `b${v}`] };
      await context.registerTool({ name: `n${i}`, description: i % 3 ? "d" : `d ${v}`, inputSchema: { type: "object", properties: { q: { type: "string", ...q } } }, execute: answer });
      const listed = await context.getTools();
      if (JSON.stringify(listed.map((/** @type {any} */ t) => ({ ...t, window: undefined }))).includes(v)) leaked += 1;
      for (const t of listed) {
        assert.equal(typeof t.inputSchema, "string");
        assert.equal(JSON.parse(t.inputSchema).type, "object");
        assert.equal(t.window, page, "the window is the runtime's own");
      }
    }
    assert.equal(leaked, 0, `${leaked} of 24 native listings showed a known value`);
  } finally {
    uninstall();
  }
});

// --- 2. a template's listed entries --------------------------------------------------------------

// A resource template's `list` (what resources/list shows of it) was scrubbed as a value: a URI
// holding a known value was masked in place (`app://t/[redacted: secret]`), an entry no read can
// serve, where every other identifier holding one is dropped. Dropped now, as resources/list's
// own entries are; what holds none is listed as the page wrote it.
test("a template's list drops an entry whose URI holds a known value", async () => {
  const { ResourceTemplate } = await import("@modelcontextprotocol/server");
  const known = values(3721, 20);
  const rnd = random(3722);
  const { server, client, close } = await tapped(known);
  const inner = server.mcpServer;
  const read = async (/** @type {any} */ uri) => ({ contents: [{ uri: String(uri?.href ?? uri), text: "fine" }] });
  try {
    let shown = 0;
    let fine = 0;
    for (let i = 0; i < 30; i += 1) {
      const v = known[Math.floor(rnd() * known.length)];
      const held = i % 3 === 0 ? [`app://t${i}/${v}`, `app://t${i}/x${v}y`] : [`app://t${i}/${v}`];
      const resources = [...held, `app://t${i}/plain`].map((uri, j) => ({ uri, name: `e${i}_${j}` }));
      inner.registerResource(`tp${i}`, new ResourceTemplate(`app://t${i}/{id}`, { list: async () => ({ resources }) }), {}, read);
      const listed = (await client.listResources()).resources.filter((/** @type {any} */ e) => e.uri.startsWith(`app://t${i}/`));
      shown += listed.filter((/** @type {any} */ e) => e.uri !== `app://t${i}/plain`).length;
      fine += listed.filter((/** @type {any} */ e) => e.uri === `app://t${i}/plain`).length;
      assert.ok(!texts(listed).includes(v));
    }
    assert.equal(shown, 0, `${shown} entries listed under a URI that held a known value`);
    assert.equal(fine, 30, "what holds none is listed");
  } finally {
    await close();
  }
});

// --- 3. a handle's update ------------------------------------------------------------------------

// A handle's `update` (what takes a new callback and wraps it) was a configurable data property:
// a page script could replace it, by assignment or Object.defineProperty, with one of its own
// (the SDK's calls to `update` from `enable`, `disable` and `remove` then ran the script's). It
// is fenced as the members it sets are: while installed, both throw.
test("over MCP-B, a handle's update cannot be replaced, and still wraps what it is given", async () => {
  const known = values(3731, 2);
  const v = known[1];
  const { server, client, close } = await tapped(known);
  const inner = server.mcpServer;
  const rnd = random(3732);
  const fine = async () => ({ content: [{ type: "text", text: "fine" }], contents: [{ uri: "app://x", text: "fine" }], messages: [{ role: "user", content: { type: "text", text: "fine" } }] });
  const raw = async () => ({ content: [{ type: "text", text: `raw ${v}` }], contents: [{ uri: "app://x", text: `raw ${v}` }], messages: [{ role: "user", content: { type: "text", text: `raw ${v}` } }] });
  try {
    let replaced = 0;
    const N = 24;
    for (let i = 0; i < N; i += 1) {
      const kind = ["tool", "resource", "prompt"][i % 3];
      const handle = kind === "tool" ? inner.registerTool(`t${i}`, { description: "d" }, fine) : kind === "resource" ? inner.registerResource(`r${i}`, `app://r${i}`, {}, fine) : inner.registerPrompt(`p${i}`, {}, fine);
      const ours = function () {};
      try {
        if (rnd() < 0.5) handle.update = ours;
        else Object.defineProperty(handle, "update", { value: ours, configurable: true, writable: true });
      } catch (err) {
        assert.ok(err instanceof TypeError);
      }
      if (handle.update === ours) {
        replaced += 1;
        continue;
      }
      handle.update({ callback: raw });
      const call = kind === "tool" ? client.callTool({ name: `t${i}`, arguments: {} }) : kind === "resource" ? client.readResource({ uri: `app://r${i}` }) : client.getPrompt({ name: `p${i}` });
      const seen = await call.then(texts, (/** @type {any} */ e) => `error ${e?.message}`);
      assert.ok(!seen.includes(v), seen);
    }
    assert.equal(replaced, 0, `${replaced} of ${N} handles' update was replaced`);
    const handle = inner.registerTool("last", { description: "d" }, fine);
    assert.throws(() => { handle.update = () => {}; }, coded("unprotected_route"));
  } finally {
    await close();
  }
});

// --- 4. the trap fallback's wording --------------------------------------------------------------

// When the core traps, JS wrote the withheld view itself, naming the tool as given: a tool named
// after a value a result withheld showed it to the agent. A fresh core now writes it (masking
// the name as it masks any); where none can be made, the view names no tool.
test("a trap's withheld view does not show a known value in the tool's name", async () => {
  const known = values(3741, 16);
  const r = await createRedactor();
  for (const v of known) r.redact(apiKeyTool, { id: "k", name: "n", secret: v });
  let leaked = 0;
  for (const v of known) {
    const tool = { ...apiKeyTool, name: `get_${v}` };
    const restore = trapOnce(); // the handle this result issues needs randomness: the core traps
    let out;
    try {
      out = r.redact(tool, { id: "k", name: "n", secret: "fresh value here" });
    } finally {
      restore();
    }
    assert.equal(out.error?.code, "internal");
    assert.equal(out.withheld, true);
    if (texts(out.result).includes(v)) leaked += 1;
    else assert.match(out.result.content[0].text, /^The result of get_\[redacted: secret\] was withheld: internal\.$/);
  }
  assert.equal(leaked, 0, `${leaked} of ${known.length} trapped views named a known value`);
});

// Over MCP-B, what a resource's read or a prompt's get is refused with names it: one named
// after a value a tool's result withheld (the listing masks its name) gave the value in the
// error the client got. The error says the name as shown, the value masked.
test("over MCP-B, a withheld read's error does not name a known value in the resource's name", async () => {
  const known = values(3751, 10);
  const { server, client, close } = await tapped(known);
  const inner = server.mcpServer;
  try {
    let leaked = 0;
    for (const [i, v] of known.entries()) {
      // Its own claim withholds the read.
      const read = async () => ({ contents: [{ uri: `app://w${i}`, text: "x" }], _meta: { sensitiveHint: "high" } });
      if (i % 2) inner.registerResource(`res ${v}`, `app://w${i}`, {}, read);
      else server.registerResource({ name: `res ${v}`, uri: `app://w${i}`, read });
      const seen = await client.readResource({ uri: `app://w${i}` }).then(texts, (/** @type {any} */ e) => `error ${e?.message}`);
      assert.match(seen, /withheld/, seen);
      if (seen.includes(v)) leaked += 1;
    }
    assert.equal(leaked, 0, `${leaked} of ${known.length} errors named a known value`);
  } finally {
    await close();
  }
});

// --- 5. the cost of the name check ---------------------------------------------------------------

// Each call of an inner tool scrubbed its name through the core (~90 µs) to refuse one named by
// a known value. What a scrub found holds while the known set is the same: asked once per
// generation of the set. A value learned after (or forgotten after) is still seen.
test("the name check asks the core once per generation of the known set, and still sees a value learned later", async () => {
  const late = values(3761, 1)[0];
  const { server, client, uninstall, close } = await tapped([]);
  const inner = server.mcpServer;
  /** @type {string[]} */
  const asked = [];
  const session = /** @type {any} */ (uninstall.session);
  const redact = session.redact;
  session.redact = (/** @type {any} */ tool, /** @type {any} */ raw) => {
    if (tool?.name === "listing") asked.push(texts(raw));
    return redact(tool, raw);
  };
  const name = `n_${late}`;
  inner.registerTool(name, { description: "d" }, answer);
  try {
    for (let i = 0; i < 40; i += 1) assert.match(texts(await client.callTool({ name, arguments: {} })), /fine/);
    const checks = asked.filter((a) => a.includes(late)).length;
    assert.equal(checks, 1, `${checks} scrubs of one name for 40 calls`);
    // Learned now (a result withheld it): the next call is refused.
    const queue = [late];
    await server.registerTool({ ...apiKeyTool, name: "issue", execute: async () => ({ id: "k", name: "n", secret: queue.shift() }) });
    const issued = await client.callTool({ name: "issue", arguments: {} });
    const refused = await client.callTool({ name, arguments: {} }).then(texts, (/** @type {any} */ e) => `error ${e?.message}`);
    assert.match(refused, /withheld/, refused);
    assert.ok(!refused.includes(late));
    // Forgotten (the user deleted its entry): the name is the page's own again.
    const handle = /** @type {any} */ (issued).content.find((/** @type {any} */ b) => b._meta?.["webmcp-redact/secret"])?._meta["webmcp-redact/secret"].handle;
    assert.ok(handle, texts(issued));
    uninstall.redactor.vault.delete(handle);
    assert.match(texts(await client.callTool({ name, arguments: {} })), /fine/);
  } finally {
    session.redact = redact;
    await close();
  }
});

// --- blocks for the user only through the bridge --------------------------------------------------

// A prompt's message is a content block, and MCP's `annotations.audience` applies to it as to a
// tool result's: one for the user only (a one-time code) reached the agent through prompts/get
// as the page wrote it, where a tool's result gives the agent a stub. Withheld now, by the core's
// own rule (the bridge asks the core where the block is: src/redact/blocks.rs), and the refusal
// names no text of it. Held to what the core does with the same blocks as a tool's result: a
// prompt (one block a message) and a sampling request (a list of blocks) are refused exactly
// when the result stubs one, at the message's place of the first block the result stubs.
test("over MCP-B, a prompt's or sampling request's block for the user only is withheld where the core stubs it in a result", async () => {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const types = await import("@modelcontextprotocol/sdk/types.js");
  const AUDIENCES = [["user"], [], "user", {}, ["assistant"], "assistant", null, ["user", "assistant"], ["assistant", "user"], [null], ["User"], 7, true, undefined];
  const rnd = random(3771);
  const r = await createRedactor();
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  const uninstall = await installRedaction({ modelContext: server });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" }, { capabilities: { sampling: {} } });
  /** @type {unknown[]} */
  const sampled = [];
  client.setRequestHandler(types.CreateMessageRequestSchema, (q) => {
    sampled.push(q.params);
    return { role: "assistant", model: "m", content: { type: "text", text: "ok" } };
  });
  await client.connect(clientSide);
  const inner = server.mcpServer;
  /** @type {string[]} */
  const codes = [];
  const block = () => {
    const audience = AUDIENCES[Math.floor(rnd() * AUDIENCES.length)];
    const code = `otp-${Math.floor(rnd() * 1e9)}-${codes.length}`;
    codes.push(code);
    return { type: "text", text: `code ${code}`, ...(audience === undefined ? {} : { annotations: { audience } }) };
  };
  /** Where the core stubs a block for the user only in a result of `blocks` (`/content/k`), or null. */
  const stubbedAt = (/** @type {object[]} */ blocks) => r.redact({ name: "t" }, { content: blocks }).redactions.find((/** @type {any} */ x) => x.reason === "audience")?.pointer ?? null;
  try {
    let leaked = 0;
    let disagreed = 0;
    let refused = 0;
    for (let i = 0; i < 120; i += 1) {
      const sampling = i % 2 === 1;
      const blocks = Array.from({ length: sampling ? 1 + Math.floor(rnd() * 3) : 1 }, block);
      const at = stubbedAt(blocks);
      // The message's place of the block the core stubs: /messages/1/content(/k).
      const expected = at === null ? null : sampling ? `/messages/1${at}` : "/messages/1/content";
      const role = rnd() < 0.5 ? "user" : "assistant";
      const messages = [{ role: "user", content: { type: "text", text: "hello" } }, { role, content: sampling ? blocks : blocks[0] }];
      let seen;
      /** @type {string | null} */
      let ours = null;
      if (sampling) {
        const before = sampled.length;
        seen = await inner.server.createMessage({ messages, maxTokens: 5 }).then(() => texts(sampled.slice(before)), (/** @type {any} */ e) => {
          if (e?.code === "withheld") ours = e.pointer;
          return `error ${e?.message}`;
        });
      } else {
        // One block a message (MCP's PromptMessage; the SDK refuses a list there).
        if (i % 4) inner.registerPrompt(`p${i}`, {}, async () => ({ messages }));
        else server.registerPrompt({ name: `p${i}`, get: async () => ({ messages }) });
        seen = await client.getPrompt({ name: `p${i}` }).then(texts, (/** @type {any} */ e) => `error ${e?.message}`);
        ours = /withheld at (\/messages\/1\/content)\b/.exec(seen)?.[1] ?? null;
      }
      if (expected !== null && blocks.some((b) => b.annotations && seen.includes(b.text.slice(5)))) leaked += 1;
      // Refused by this module, at the place the core stubs (an audience MCP's schema refuses,
      // "assistant" or null, the client or the SDK refuses itself: its own error, not ours).
      if (ours !== expected) disagreed += 1;
      if (ours !== null) refused += 1;
    }
    assert.equal(leaked, 0, `${leaked} messages gave the agent a block for the user only`);
    assert.equal(disagreed, 0, `${disagreed} of 120 messages judged otherwise than the core judges a result's blocks`);
    assert.ok(refused >= 30, `${refused} refusals: the seeds must exercise the rule`);
  } finally {
    uninstall();
    await client.close();
    await server.close();
  }
});

// The testing API's listing (Chromium's navigator.modelContextTesting.listTools(), the
// polyfill's shim: name, description and the schema as JSON text, answered at once) showed the
// same tools raw. Cleaned as getTools() is, and given back as it was by uninstall().
test("navigator.modelContextTesting.listTools() shows no known value, and is put back by uninstall", async () => {
  const known = values(3781, 10);
  const rnd = random(3782);
  /** @type {any[]} */
  const tools = [];
  const listTools = () => tools.map((t) => ({ name: t.name, description: t.description, inputSchema: JSON.stringify(t.inputSchema) }));
  const testing = { listTools };
  const had = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  Object.defineProperty(globalThis, "navigator", { configurable: true, writable: true, value: { modelContextTesting: testing } });
  const context = { registerTool: async (/** @type {any} */ t) => void tools.push(t) };
  const uninstall = await installRedaction({ modelContext: context });
  try {
    for (const v of known) uninstall.session.redact(apiKeyTool, { id: "k", name: "n", secret: v });
    let leaked = 0;
    for (let i = 0; i < 30; i += 1) {
      const v = known[Math.floor(rnd() * known.length)];
      const place = i % 3;
      await context.registerTool({ name: place === 0 ? `m${i}_${v}` : `m${i}`, description: place === 1 ? `about ${v}` : "d", inputSchema: { type: "object", properties: { q: { type: "string", description: place === 2 ? `the ${v}` : "q" } } }, execute: answer });
      const listed = testing.listTools();
      assert.ok(Array.isArray(listed), "answered at once");
      if (texts(listed).includes(v)) leaked += 1;
      for (const t of listed) assert.equal(JSON.parse(t.inputSchema).type, "object");
    }
    assert.equal(leaked, 0, `${leaked} of 30 testing listings showed a known value`);
    uninstall();
    assert.equal(testing.listTools, listTools);
  } finally {
    uninstall();
    if (had) Object.defineProperty(globalThis, "navigator", had);
    else delete (/** @type {any} */ (globalThis)).navigator;
  }
});

// What the runtime is given at registration is what Chromium's own agent reads of a tool, inside
// the browser, past any listing a page script can patch: a description or schema holding a value
// a result had withheld reached it as the page wrote it. Masked in the runtime's copy now.
test("the runtime's copy of a tool registered after a value was withheld does not hold it", async () => {
  const known = values(3791, 10);
  const rnd = random(3792);
  /** @type {any[]} */
  const given = [];
  const context = { registerTool: async (/** @type {any} */ t) => void given.push(t) };
  const uninstall = await installRedaction({ modelContext: context });
  try {
    for (const v of known) uninstall.session.redact(apiKeyTool, { id: "k", name: "n", secret: v });
    let leaked = 0;
    for (let i = 0; i < 30; i += 1) {
      const v = known[Math.floor(rnd() * known.length)];
      const inDescription = i % 2 === 0;
      await context.registerTool({ name: `g${i}`, description: inDescription ? `about ${v}` : "d", inputSchema: { type: "object", properties: { q: { type: "string", description: inDescription ? "q" : `the ${v}` } } }, execute: answer });
      const copy = given.at(-1);
      if (JSON.stringify({ d: copy.description, s: copy.inputSchema }).includes(v)) leaked += 1;
      assert.equal(copy.inputSchema.type, "object");
      assert.equal(typeof copy.execute, "function");
    }
    assert.equal(leaked, 0, `${leaked} of 30 runtime copies held a known value`);
    // What holds none is given as the page wrote it.
    const schema = { type: "object", properties: { q: { type: "string", description: "plain" } } };
    await context.registerTool({ name: "plain", description: "nothing here", inputSchema: schema, execute: answer });
    assert.deepEqual([given.at(-1).description, given.at(-1).inputSchema], ["nothing here", schema]);
  } finally {
    uninstall();
  }
});
