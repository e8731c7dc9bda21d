// Review s36 of the JS layer (helper L), MCP-B's routes, round 3: each test states a promise a
// careless page, a hostile script or upstream data broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { installRedaction } from "webmcp-redact";
import { apiKeyTool, random } from "./helpers.mjs";

const texts = (/** @type {unknown} */ v) => JSON.stringify(v);
const coded = (/** @type {string} */ code) => (/** @type {any} */ e) => e?.code === code;
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

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
 * MCP-B's server installed and connected to an MCP client (logging on), every message from the
 * server in `wire` as JSON text; the page session knows each of `known` (each returned once as
 * apiKeyTool's marked `secret`).
 * @param {string[]} known
 * @param {(o: any) => Promise<any>} [install]
 */
async function tapped(known, install = installRedaction) {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" }, { capabilities: { logging: {} } });
  const uninstall = await install({ modelContext: server });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  /** @type {string[]} */
  const wire = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (/** @type {any} */ m, /** @type {any} */ o) => (wire.push(JSON.stringify(m)), send(m, o));
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
  return { server, client, wire, uninstall, close };
}

// --- listings ------------------------------------------------------------------------------------

// What tools/list, resources/list, resources/templates/list and prompts/list show was listed as
// the page registered it: a registration named or described after a value a tool's result
// withheld (a title, a description, an annotation, a `_meta` member, a schema's description, a
// URI) showed it to every client. Free text is masked in place now; an entry whose identifier
// (a tool's or prompt's name, a resource's URI, a template's URI template) holds one is dropped,
// and a call to it refused.
test("over MCP-B, no listing shows a known value: free text masked, an entry named by one dropped", async () => {
  const { z } = await import("zod");
  const { ResourceTemplate } = await import("@modelcontextprotocol/server");
  const known = values(3601, 40);
  const rnd = random(3602);
  const { server, client, close } = await tapped(known);
  const inner = server.mcpServer;
  const read = async (/** @type {any} */ uri) => ({ contents: [{ uri: String(uri?.href ?? uri), text: "fine" }] });
  const answer = async () => ({ content: [{ type: "text", text: "fine" }], messages: [{ role: "user", content: { type: "text", text: "fine" } }] });
  // Each place: [what, is it an identifier, registers `i`'s entry with `v` there].
  /** @type {[string, boolean, (i: number, v: string) => unknown][]} */
  const PLACES = [
    ["a tool's name", true, (i, v) => inner.registerTool(`t${i}_${v}`, { description: "d" }, answer)],
    ["a tool's title", false, (i, v) => inner.registerTool(`t${i}`, { title: `T ${v}`, description: "d" }, answer)],
    ["a tool's description", false, (i, v) => inner.registerTool(`t${i}`, { description: `about ${v} here` }, answer)],
    ["a tool's annotations title", false, (i, v) => inner.registerTool(`t${i}`, { description: "d", annotations: { title: v, readOnlyHint: true } }, answer)],
    ["a tool's _meta value", false, (i, v) => inner.registerTool(`t${i}`, { description: "d", _meta: { note: [`n ${v}`] } }, answer)],
    ["a tool's _meta key", false, (i, v) => inner.registerTool(`t${i}`, { description: "d", _meta: { [v]: 1 } }, answer)],
    ["a tool's input field description", false, (i, v) => inner.registerTool(`t${i}`, { description: "d", inputSchema: z.object({ q: z.string().describe(`the ${v}`) }) }, answer)],
    ["a tool's input field name", false, (i, v) => inner.registerTool(`t${i}`, { description: "d", inputSchema: z.object({ [v]: z.string().optional() }) }, answer)],
    ["a context tool's description", false, (i, v) => server.registerTool({ name: `c${i}`, description: `about ${v}`, execute: answer })],
    ["a context tool's name", true, (i, v) => server.registerTool({ name: `c${i}_${v}`, description: "d", execute: answer })],
    ["a resource's URI", true, (i, v) => inner.registerResource(`r${i}`, `app://r/${v}`, {}, read)],
    ["a resource's name", false, (i, v) => inner.registerResource(`r ${v}`, `app://r/${i}`, {}, read)],
    ["a resource's title and description", false, (i, v) => inner.registerResource(`r${i}`, `app://r/${i}`, { title: `T ${v}`, description: `D ${v}` }, read)],
    ["a resource's mimeType", false, (i, v) => inner.registerResource(`r${i}`, `app://r/${i}`, { mimeType: `text/${v}` }, read)],
    ["a template's URI template", true, (i, v) => inner.registerResource(`tp${i}`, new ResourceTemplate(`app://t/${v}/{id}`, { list: undefined }), {}, read)],
    ["a template's description", false, (i, v) => inner.registerResource(`tp${i}`, new ResourceTemplate(`app://t${i}/{id}`, { list: undefined }), { description: `D ${v}` }, read)],
    ["a prompt's name", true, (i, v) => inner.registerPrompt(`p${i}_${v}`, { description: "d" }, answer)],
    ["a prompt's title", false, (i, v) => inner.registerPrompt(`p${i}`, { title: `T ${v}` }, answer)],
    ["a prompt's argument description", false, (i, v) => inner.registerPrompt(`p${i}`, { argsSchema: z.object({ a: z.string().describe(`the ${v}`) }) }, answer)],
    ["a context resource's description", false, (i, v) => server.registerResource({ name: `cr${i}`, uri: `app://cr/${i}`, description: `D ${v}`, read })],
  ];
  const lists = () => Promise.all([client.listTools(), client.listResources(), client.listResourceTemplates(), client.listPrompts()]);
  try {
    let leaked = 0;
    let dropped = 0;
    let masked = 0;
    for (let i = 0; i < 120; i += 1) {
      const [what, identifier, register] = PLACES[i % PLACES.length];
      const v = known[Math.floor(rnd() * known.length)];
      await register(i, v);
      const listed = texts(await lists());
      if (listed.includes(v)) leaked += 1;
      else if (identifier) {
        dropped += 1;
        assert.doesNotMatch(listed, new RegExp(`"(?:t|c|r|tp|p)${i}_`), `${what}: no entry named by the value`);
      } else {
        assert.match(listed, /\[redacted: secret\]/, `case ${i}, ${what}: masked in place`);
        masked += 1;
      }
    }
    assert.equal(leaked, 0, `${leaked} of 120 listings showed a known value`);
    assert.equal(dropped + masked, 120);
    // A call to an entry dropped for its name is refused, and the refusal names nothing.
    const named = known[0];
    inner.registerTool(`late_${named}`, { description: "d" }, answer);
    inner.registerPrompt(`late_${named}`, {}, answer);
    inner.registerResource("late", `app://late/${named}`, {}, read);
    for (const call of [
      () => client.callTool({ name: `late_${named}`, arguments: {} }),
      () => client.getPrompt({ name: `late_${named}` }),
      () => client.readResource({ uri: `app://late/${named}` }),
    ]) {
      const seen = await call().then(texts, (/** @type {any} */ e) => `error ${e?.message}`);
      assert.match(seen, /withheld/, seen);
      assert.ok(!seen.includes(named), seen);
    }
    // What holds no known value is listed as registered.
    inner.registerTool("plain", { title: "Plain", description: "nothing here" }, answer);
    const tools = (await client.listTools()).tools.find((/** @type {any} */ t) => t.name === "plain");
    assert.deepEqual([tools?.title, tools?.description], ["Plain", "nothing here"]);
  } finally {
    await close();
  }
});

// --- a prompt's update kept from before installation ---------------------------------------------

// The SDK v2 remakes a prompt's handler from the callback its update last saw. A script that kept
// a prompt's `update` from before installation and gave it a raw callback was refused when the
// update assigned the handler, but the SDK had already taken the callback: the next remake (an
// `argsSchema` given through the patched update) made the handler from it, raw.
test("over MCP-B, a prompt's update kept from before installation plants no raw callback", async () => {
  const { z } = await import("zod");
  const known = values(3611, 8);
  /** @type {any[]} */
  const early = [];
  const install = async (/** @type {any} */ o) => {
    const inner = o.modelContext.mcpServer;
    for (let i = 0; i < 24; i += 1) {
      const h = inner.registerPrompt(`p${i}`, { description: "d" }, async () => ({ messages: [{ role: "user", content: { type: "text", text: "fine" } }] }));
      early.push({ h, update: h.update });
    }
    return installRedaction(o);
  };
  const { client, close } = await tapped(known, install);
  const rnd = random(3612);
  /** @type {[string, (h: any) => void][]} */
  const REMAKES = [
    ["update({ argsSchema })", (h) => h.update({ argsSchema: z.object({ a: z.string().optional() }) })],
    ["update({ argsSchema, title })", (h) => h.update({ argsSchema: z.object({ b: z.string().optional() }), title: "T" })],
    ["update({ argsSchema }) twice", (h) => (h.update({ argsSchema: z.object({}) }), h.update({ argsSchema: z.object({}) }))],
  ];
  try {
    let leaked = 0;
    for (const [i, { h, update }] of early.entries()) {
      const v = known[Math.floor(rnd() * known.length)];
      const raw = async () => ({ messages: [{ role: "user", content: { type: "text", text: `raw ${v}` } }] });
      try {
        update({ callback: raw, ...(rnd() < 0.5 ? { argsSchema: z.object({}) } : {}) });
      } catch {
        // refused where it assigns the handler
      }
      REMAKES[i % REMAKES.length][1](h);
      const seen = await client.getPrompt({ name: `p${i}`, arguments: {} }).then(texts, (/** @type {any} */ e) => `error ${e?.message}`);
      if (seen.includes(v)) leaked += 1;
      else assert.match(seen, /raw \[redacted: secret\]/, seen);
    }
    assert.equal(leaked, 0, `${leaked} of ${early.length} prompts answered with the planted callback raw`);
  } finally {
    await close();
  }
});

// --- a log line ------------------------------------------------------------------------------------

// A log line (`notifications/message`) whose `data` held a known value was withheld whole (the
// page's call rejected, nothing sent): `/data` was taken for one of MCP's base64 fields, where a
// masked value would break the encoding. A log line's data is any JSON: it is masked in place
// now, through each route a page logs by. A sampling request's image `data` stays withheld.
test("over MCP-B, a log line holding a known value is masked, not withheld", async () => {
  const known = values(3621, 6);
  const { server, client, wire, close } = await tapped(known);
  const inner = server.mcpServer;
  let ctx;
  inner.registerTool("ctx", { description: "d", annotations: { readOnlyHint: true } }, async (/** @type {any[]} */ ...args) => {
    ctx = args.at(-1);
    return { content: [{ type: "text", text: "done" }] };
  });
  await client.callTool({ name: "ctx", arguments: {} });
  /** @type {[string, (data: unknown) => Promise<unknown>][]} */
  const ROUTES = [
    ["server.notification", (data) => inner.server.notification({ method: "notifications/message", params: { level: "info", data } })],
    ["sendLoggingMessage", (data) => inner.sendLoggingMessage({ level: "warning", data, logger: "page" })],
    ["ctx.mcpReq.log", (data) => /** @type {any} */ (ctx).mcpReq.log("info", data)],
  ];
  /** @type {((v: string) => unknown)[]} */
  const DATA = [(v) => v, (v) => `fetched ${v} from the API`, (v) => ({ note: `the key ${v}` }), (v) => [`x ${v}`, 1]];
  const rnd = random(3622);
  try {
    let sent = 0;
    let withheld = 0;
    for (let i = 0; i < 36; i += 1) {
      const [how, log] = ROUTES[i % ROUTES.length];
      const v = known[Math.floor(rnd() * known.length)];
      const n = wire.length;
      const outcome = await log(DATA[Math.floor(rnd() * DATA.length)](v)).then(() => "sent", (/** @type {any} */ e) => e?.code ?? String(e));
      await settle();
      const out = wire.slice(n).filter((m) => m.includes("notifications/message"));
      for (const m of out) assert.ok(!m.includes(v), `${how}: ${m}`);
      if (outcome === "withheld") withheld += 1;
      else {
        assert.equal(outcome, "sent", how);
        assert.equal(out.length, 1, `${how}: ${out.join("\n")}`);
        assert.match(out[0], /\[redacted: secret\]/, how);
        sent += 1;
      }
    }
    assert.equal(withheld, 0, `${withheld} of 36 log lines were withheld`);
    assert.equal(sent, 36);
    // Base64 where MCP has it, in a message: still withheld, never masked.
    const image = { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "image", mimeType: "image/png", data: known[0] } }], maxTokens: 5 } };
    const anySchema = { "~standard": { version: 1, vendor: "t", validate: (/** @type {unknown} */ value) => ({ value }) } };
    const n = wire.length;
    const outcome = await Promise.race([inner.server.request(image, anySchema).then(() => "sent", (/** @type {any} */ e) => e?.code), settle().then(() => "pending")]);
    assert.equal(outcome, "withheld");
    assert.ok(!wire.slice(n).join("").includes(known[0]));
  } finally {
    await close();
  }
});

// --- past the request handlers --------------------------------------------------------------------

// The request handler map's own `set` was fenced, but `Map.prototype.set.call(map, ...)` (or a
// map a script kept from before installation) wrote past it; the protocol's `_onrequest`
// (which dispatches every request) and `_wrapHandler` (which wraps each handler the SDK sets
// inside a route) could be replaced. Each answered the client raw. The map is now one only this
// module holds, behind a stand-in that is no Map; the two methods are fenced.
test("over MCP-B, a request handler set past the map's own set, or a replaced dispatch, is refused", async () => {
  const known = values(3631, 4);
  const v = known[1];
  const rawTool = async () => ({ content: [{ type: "text", text: `raw ${v}` }] });
  const rawRead = async () => ({ contents: [{ uri: "app://x", text: `raw ${v}` }] });
  /** @type {[string, (protocol: any, early: any) => unknown][]} */
  const PATHS = [
    ["Map.prototype.set.call on the map", (p) => Map.prototype.set.call(p._requestHandlers, "tools/call", rawTool)],
    ["Map.prototype.set.call on a map kept from before", (_p, early) => Map.prototype.set.call(early, "tools/call", rawTool)],
    ["the map's set, kept from before", (_p, early) => early.set("tools/call", rawTool)],
    [
      "_onrequest replaced",
      (p) => {
        p._onrequest = function (/** @type {any} */ request) {
          this._transport.send({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: `raw ${v}` }], contents: [{ uri: "app://x", text: `raw ${v}` }] } });
        };
      },
    ],
    ["_wrapHandler replaced", (p) => { p._wrapHandler = () => rawRead; }],
  ];
  /** @type {string[]} */
  const leaked = [];
  /** @type {string[]} */
  const unrefused = [];
  for (const [what, go] of PATHS) {
    /** @type {any} */
    let early;
    const install = async (/** @type {any} */ o) => {
      early = o.modelContext.mcpServer.server._requestHandlers;
      return installRedaction(o);
    };
    const { server, client, close } = await tapped(known, install);
    const protocol = server.mcpServer.server;
    try {
      let refused = false;
      try {
        go(protocol, early);
      } catch (err) {
        refused = true;
        if (what.includes("replaced")) assert.ok(coded("unprotected_route")(err), `${what}: ${err}`);
      }
      server.mcpServer.registerResource("r", "app://x", {}, async () => ({ contents: [{ uri: "app://x", text: "fine" }] }));
      for (const call of [() => client.callTool({ name: apiKeyTool.name, arguments: {} }), () => client.readResource({ uri: "app://x" })]) {
        const seen = await Promise.race([call().then(texts, (/** @type {any} */ e) => `error ${e?.message}`), settle().then(() => "pending")]);
        if (seen.includes(v)) {
          leaked.push(what);
          break;
        }
      }
      if (what.startsWith("Map.prototype.set.call on the map") && !refused) unrefused.push(what);
    } finally {
      await close();
    }
    assert.ok(early.has("tools/list") && early.has("resources/read"), `${what}: uninstall puts the handlers back into the SDK's map`);
  }
  assert.deepEqual(leaked, [], `${leaked.length} of ${PATHS.length} paths answered the client raw`);
  assert.deepEqual(unrefused, []);
});

// --- the SDK v1's zod output schemas ------------------------------------------------------------

// An SDK v1 inner server's tool keeps its outputSchema as the zod object it was given: only the
// SDK v2's JSON Schema (`outputSchemaJson`) was read, so zod's `.meta({ "x-sensitive": true })`
// marks were lost and marked fields reached the client raw. zod 4's own JSON Schema is read now;
// a schema whose marks cannot be read (zod 3) is refused with `unprotected_route`.
test("an SDK v1 inner mcpServer: a zod outputSchema's marks apply", async () => {
  const { z } = await import("zod");
  const { z: z3 } = await import("zod/v3");
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const mcpServer = new McpServer({ name: "page", version: "1.0.0" });
  const ctx = { registerTool: async () => {}, mcpServer };
  const uninstall = await installRedaction({ modelContext: ctx, bridge: "mcp" });
  // The SDK v1 sets its tools' capability at the first registration, which must come before connect.
  mcpServer.registerTool("first", { description: "d" }, async () => ({ content: [] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcpServer.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(clientSide);
  const known = values(3641, 30);
  const secret = () => z.string().meta({ "x-sensitive": true }).optional();
  /** @type {[string, () => any, (v: string) => any][]} */
  const SHAPES = [
    ["a marked field", () => z.object({ id: z.string(), secret: secret() }), (v) => ({ id: "k", secret: v })],
    ["a raw shape", () => ({ id: z.string(), secret: secret() }), (v) => ({ id: "k", secret: v })],
    ["a nested object", () => z.object({ key: z.object({ id: z.string(), secret: secret() }) }), (v) => ({ key: { id: "k", secret: v } })],
    ["array items", () => z.object({ keys: z.array(z.string().meta({ "x-sensitive": true }).nullable()) }), (v) => ({ keys: [v] })],
  ];
  try {
    let leaked = 0;
    for (const [i, v] of known.entries()) {
      const [what, schema, value] = SHAPES[i % SHAPES.length];
      const sc = value(v);
      mcpServer.registerTool(`t${i}`, { description: "d", outputSchema: schema() }, async () => ({ content: [{ type: "text", text: JSON.stringify(sc) }], structuredContent: sc }));
      const seen = texts(await client.callTool({ name: `t${i}`, arguments: {} }));
      if (seen.includes(v)) leaked += 1;
      else assert.match(seen, /secret withheld/, `${what}: ${seen}`);
    }
    assert.equal(leaked, 0, `${leaked} of ${known.length} results carried a marked value`);
    assert.throws(() => mcpServer.registerTool("z3", { description: "d", outputSchema: z3.object({ s: z3.string() }) }, async () => ({ content: [] })), coded("unprotected_route"));
    assert.ok(!(await client.listTools()).tools.some((/** @type {any} */ t) => t.name === "z3"), "the refused tool is not registered");
  } finally {
    uninstall();
    await client.close();
    await mcpServer.close();
  }
});

// --- the extension's path: results as JSON text ----------------------------------------------------

/**
 * Every string (and member name) of the JSON value `v`, and of every string in it that is JSON
 * text itself, all the way down.
 * @param {unknown} v
 * @param {string[]} [out]
 */
function allStrings(v, out = []) {
  if (typeof v === "string") {
    out.push(v);
    try {
      const inner = JSON.parse(v);
      if (inner !== null && typeof inner === "object") allStrings(inner, out);
      else if (typeof inner === "string" && inner !== v) allStrings(inner, out);
    } catch {
      // prose
    }
  } else if (Array.isArray(v)) for (const x of v) allStrings(x, out);
  else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) (out.push(k), allStrings(x, out));
  return out;
}

/**
 * `value` as JSON text written by a hostile hand (seeded by `rnd`): any character of a string or
 * a member name escaped (`\uXXXX`, a pair for one outside the BMP, `\/`), whitespace anywhere
 * JSON allows it.
 * @param {unknown} value
 * @param {() => number} rnd
 */
function hostileJson(value, rnd) {
  const ws = () => (rnd() < 0.2 ? [" ", "\n", "\t", "\r\n  "][Math.floor(rnd() * 4)] : "");
  const str = (/** @type {string} */ s) => {
    let out = '"';
    for (const ch of s) {
      const plain = JSON.stringify(ch).slice(1, -1);
      if (rnd() < 0.3) out += ch.split("").map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
      else if (ch === "/" && rnd() < 0.5) out += "\\/";
      else out += plain;
    }
    return `${out}"`;
  };
  const write = (/** @type {unknown} */ v) => {
    if (typeof v === "string") return str(v);
    if (Array.isArray(v)) return `[${ws()}${v.map((x) => write(x)).join(`${ws()},${ws()}`)}${ws()}]`;
    if (v !== null && typeof v === "object") return `{${ws()}${Object.entries(v).map(([k, x]) => `${str(k)}${ws()}:${ws()}${write(x)}`).join(`${ws()},${ws()}`)}${ws()}}`;
    return JSON.stringify(v);
  };
  return `${ws()}${write(value)}${ws()}`;
}

// An extension's worker gets each result as JSON text (`redactJson`, README "In an MV3
// extension"): text a page or upstream data wrote, not JSON.stringify's. A value the session
// knows, or the tool marks, is written there escaped character by character, beside other
// copies of it (a member name, a text block of JSON holding JSON, a resource's text, `_meta`,
// an error's text): none reaches the agent view, in any decoding of it, or the result is
// withheld with a stable code. (A guard: it found nothing.)
test("redactJson on hostile JSON text: no escaped or nested copy of a known value reaches the view", async () => {
  const { createRedactor } = await import("webmcp-redact");
  const rnd = random(3651);
  const marked = { name: "t", outputSchema: { type: "object", properties: { s: { type: "string", "x-sensitive": true } } } };
  const plain = { name: "p" };
  const EXTRA = ["é", "ü", "😀", "/", "\\", '"', "\u2028", " "];
  /** @type {((v: string) => any)[]} */
  const PLACES = [
    (v) => ({ s: v, note: `a ${v} b` }),
    (v) => ({ s: v, [v]: 1 }),
    (v) => ({ content: [{ type: "text", text: JSON.stringify({ s: v, t: JSON.stringify({ deep: v }) }) }] }),
    (v) => ({ content: [{ type: "resource", resource: { uri: "app://r", text: `x ${v}` } }] }),
    (v) => ({ content: [{ type: "text", text: "ok" }], _meta: { note: v } }),
    (v) => ({ content: [{ type: "text", text: `failed: ${v}` }], isError: true }),
    (v) => ({ content: [{ type: "text", text: "ok" }], structuredContent: { list: [{ k: v }] } }),
    (v) => `just ${v}`,
  ];
  const codes = new Set();
  let cases = 0;
  for (let i = 0; i < 300; i += 1) {
    const r = await createRedactor({ format: rnd() < 0.5 ? "mcp" : "webmcp" });
    const s = r.session();
    let v = values(3652 + i, 1)[0];
    const extra = EXTRA[Math.floor(rnd() * EXTRA.length)];
    const at = 2 + Math.floor(rnd() * (v.length - 3));
    v = v.slice(0, at) + extra + v.slice(at);
    // Known from an earlier result (whose own view is checked too).
    const first = s.redactJson(marked, hostileJson({ s: v }, rnd));
    assert.ok(!first.json.includes(v) && first.redactions.length === 1, `case ${i}: ${first.json}`);
    const value = PLACES[Math.floor(rnd() * PLACES.length)](v);
    const tool = rnd() < 0.5 ? marked : plain;
    const text = hostileJson(value, rnd);
    const out = s.redactJson(tool, text);
    if (out.error) codes.add(out.error.code);
    assert.ok(!out.json.includes(v), `case ${i}: ${text}\n${out.json}`);
    const seen = allStrings(JSON.parse(out.json));
    assert.ok(!seen.some((x) => x.includes(v)), `case ${i}: ${text}\n${out.json}`);
    cases += 1;
  }
  assert.equal(cases, 300);
  for (const code of codes) assert.match(code, /^[a-z_]+$/);
});

// --- fences redefined --------------------------------------------------------------------------------

// Each fence (a registry, the server's `server`, the handler map, `_onrequest`, a registered
// tool's `handler` and `executor`, a resource's `readCallback`, a prompt's `handler`) refused an
// assignment, but was a configurable accessor: `Object.defineProperty` put a raw one in its
// place, and the client was answered raw. The fences are not configurable now (transparent once
// uninstalled, armed again by the next installation): redefining one throws.
test("over MCP-B, a fence redefined with Object.defineProperty is refused", async () => {
  const known = values(3661, 3);
  const v = known[2];
  const rawTool = async () => ({ content: [{ type: "text", text: `raw ${v}` }] });
  const rawRead = async () => ({ contents: [{ uri: "app://x", text: `raw ${v}` }] });
  const rawPrompt = async () => ({ messages: [{ role: "user", content: { type: "text", text: `raw ${v}` } }] });
  const redefine = (/** @type {any} */ target, /** @type {string} */ key, /** @type {unknown} */ value) => Object.defineProperty(target, key, { value, configurable: true, writable: true, enumerable: true });
  /** @type {[string, (inner: any, h: { tool: any, resource: any, prompt: any }) => void][]} */
  const PATHS = [
    ["a registry", (inner) => redefine(inner, "_registeredTools", { t: { ...inner._registeredTools.t, handler: rawTool, executor: rawTool } })],
    ["the handler map", (inner) => redefine(inner.server, "_requestHandlers", new Map([...inner.server._requestHandlers.entries()].map(([m, f]) => [m, m === "tools/call" ? rawTool : f])))],
    ["_onrequest", (inner) => redefine(inner.server, "_onrequest", function (/** @type {any} */ request) { this._transport.send({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: `raw ${v}` }] } }); })],
    ["a tool's handler and executor", (_inner, h) => (redefine(h.tool, "handler", rawTool), redefine(h.tool, "executor", rawTool))],
    ["a resource's readCallback", (_inner, h) => redefine(h.resource, "readCallback", rawRead)],
    ["a prompt's handler", (_inner, h) => redefine(h.prompt, "handler", rawPrompt)],
  ];
  /** @type {string[]} */
  const leaked = [];
  for (const [what, go] of PATHS) {
    const { server, client, close } = await tapped(known);
    const inner = server.mcpServer;
    const fine = async () => ({ content: [{ type: "text", text: "fine" }], contents: [{ uri: "app://x", text: "fine" }], messages: [{ role: "user", content: { type: "text", text: "fine" } }] });
    const h = { tool: inner.registerTool("t", { description: "d" }, fine), resource: inner.registerResource("r", "app://x", {}, fine), prompt: inner.registerPrompt("p", {}, fine) };
    try {
      try {
        go(inner, h);
      } catch {
        // refused
      }
      const calls = [() => client.callTool({ name: "t", arguments: {} }), () => client.readResource({ uri: "app://x" }), () => client.getPrompt({ name: "p" })];
      for (const call of calls) {
        const seen = await Promise.race([call().then(texts, (/** @type {any} */ e) => `error ${e?.message}`), settle().then(() => "pending")]);
        if (seen.includes(v)) {
          leaked.push(what);
          break;
        }
      }
    } finally {
      await close();
    }
  }
  assert.deepEqual(leaked, [], `${leaked.length} of ${PATHS.length} fences redefined answered the client raw`);
});

// The fences outlive an installation (they cannot be removed): uninstalled, each holds what it
// held before and takes assignments; a second installation on the same server arms them again,
// and what the first one registered keeps answering through the new page session.
test("over MCP-B, installing again after uninstall arms the fences again", async () => {
  const known = values(3671, 2);
  const { server, client, uninstall, close } = await tapped(known);
  const inner = server.mcpServer;
  const fine = async () => ({ contents: [{ uri: "app://x", text: `read ${known[0]}` }] });
  const resource = inner.registerResource("r", "app://x", {}, fine);
  uninstall();
  const registry = inner._registeredTools;
  inner._registeredTools = registry; // assignable once uninstalled
  const again = await installRedaction({ modelContext: server });
  try {
    assert.throws(() => { inner._registeredTools = {}; }, coded("unprotected_route"));
    assert.throws(() => { resource.readCallback = fine; }, coded("unprotected_route"));
    assert.throws(() => Object.defineProperty(inner.server, "_onrequest", { value: () => {} }), TypeError);
    // The second page session has not seen known[0]: a detector-free value passes, the read works.
    assert.match(texts(await client.readResource({ uri: "app://x" })), /read /);
    resource.update({ callback: async () => ({ contents: [{ uri: "app://x", text: "updated" }] }) });
    assert.match(texts(await client.readResource({ uri: "app://x" })), /updated/);
  } finally {
    again();
    await close();
  }
});
