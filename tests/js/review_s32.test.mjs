// Review s32 of the JS layer (helper L): each test states a promise a careless page, a hostile
// script or a supported set-up broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction, redeem } from "webmcp-redact";
import { CANARY, RESULT_PLACES, apiKeyRaw, apiKeyTool, connectedMcpB, fakeContext, random } from "./helpers.mjs";

const coded = (code, pointer) => (/** @type {any} */ e) => e?.code === code && (pointer === undefined || e.pointer === pointer);

// --- functions and symbols where a result claims ------------------------------------------------

// JSON.stringify leaves a function or a symbol out, so `_meta: { sensitiveHint: () => true }`
// claimed nothing though JavaScript reads it as true, and the text reached the agent raw (left
// open by review s31). Below a `_meta` or `annotations` member (the only places the core reads
// a result's claims from) one is now written `true`.
test("a function or a symbol where a result makes a claim claims, in every place", async () => {
  let withheld = 0;
  for (const [where, place] of RESULT_PLACES) {
    for (const v of [() => true, function named() {}, Symbol("yes"), class {}]) {
      const r = await createRedactor({ policy: { withholdAt: "medium" } });
      const out = r.redact({ name: "t" }, place(v));
      assert.ok(!JSON.stringify(out.result).includes(CANARY), `${String(v)} in ${where}`);
      withheld += 1;
    }
  }
  assert.equal(withheld, RESULT_PLACES.length * 4);
});

// Elsewhere a function is data JSON has no form for, left out as before: a result whose value
// has a method passes unchanged, and one under `_meta` of tool data that claims nothing else is
// the claim it looks like.
test("a function outside a claim place is left out, as JSON leaves it", async () => {
  const r = await createRedactor();
  const out = r.redact({ name: "t" }, { structuredContent: { id: 1, toString() { return "x"; }, list: [Symbol("s"), 2] } });
  assert.deepEqual(out.result.structuredContent, { id: 1, list: [null, 2] });
  assert.equal(out.withheld, false);
});

// Seeded: the claim at a random depth below `_meta` (an array or nested objects on the way),
// with other members around it, never lets the canary through.
test("seeded: a function claim below _meta, at any depth, withholds", async () => {
  const rnd = random(3201);
  const KEYS = ["sensitiveHint", "sensitiveDataHint", "trust"];
  let cases = 0;
  for (let i = 0; i < 200; i += 1) {
    const key = KEYS[Math.floor(rnd() * KEYS.length)];
    const claim = rnd() < 0.5 ? () => true : Symbol("c");
    /** @type {any} */
    let meta = key === "trust" ? { "io.modelcontextprotocol/trust-annotations": { sensitive: claim } } : { [key]: claim, note: "n" };
    if (rnd() < 0.5) meta = { annotations: meta };
    const result = rnd() < 0.5
      ? { content: [{ type: "text", text: `a ${CANARY} b` }], _meta: meta }
      : { content: [{ type: "text", text: `a ${CANARY} b`, _meta: meta }] };
    const r = await createRedactor({ policy: { withholdAt: "medium" } });
    assert.ok(!JSON.stringify(r.redact({ name: "t" }, result).result).includes(CANARY), `case ${i}`);
    cases += 1;
  }
  assert.equal(cases, 200);
});

// --- MCP-B's resources and prompts: base64 --------------------------------------------------------

const b64 = (text, url = false) => Buffer.from(text).toString(url ? "base64url" : "base64");
const BASE64_CASES = [
  ["a resource's blob", "/contents/0/blob", (v) => ({ contents: [{ uri: "app://bin", blob: v }] })],
  ["a prompt's image data", "/messages/0/content/data", (v) => ({ messages: [{ role: "user", content: { type: "image", mimeType: "image/png", data: v } }] })],
  ["a prompt's audio data", "/messages/0/content/data", (v) => ({ messages: [{ role: "user", content: { type: "audio", mimeType: "audio/wav", data: v } }] })],
  ["a prompt's embedded blob", "/messages/0/content/resource/blob", (v) => ({ messages: [{ role: "user", content: { type: "resource", resource: { uri: "x:/b", blob: v } } }] })],
];

// A value masked inside base64 was masked in place (`a2V5P[redacted: secret]`), which is no
// longer base64: MCP's client refused the read with its own validation error ("Invalid Base64
// string"), no stable code, no pointer. It is now withheld, code `withheld`, at the field.
test("a known value found in base64 withholds the read or get with code withheld at the field", async () => {
  const ctx = /** @type {any} */ (fakeContext());
  const handlers = [];
  ctx.registerResource = (d) => handlers.push(d.read);
  const uninstall = await installRedaction({ modelContext: ctx });
  try {
    await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await ctx.call(apiKeyTool.name, {}); // CANARY is known now
    let cases = 0;
    for (const [where, pointer, shape] of BASE64_CASES) {
      for (const url of [false, true]) {
        for (const pad of ["", "x", "xy"]) {
          const value = shape(b64(`${pad}key=${CANARY};`, url));
          ctx.registerResource({ name: "bin", uri: "app://bin", read: async () => value });
          const err = await handlers.at(-1)().then(() => null, (e) => e);
          assert.ok(coded("withheld", pointer)(err), `${where} (${url ? "base64url" : "base64"}, ${pad.length}): ${err}`);
          assert.ok(err instanceof Error && !String(err.message).includes("a2V5"), err.message);
          cases += 1;
        }
      }
      // Base64 holding nothing known passes unchanged.
      const clean = shape(b64("nothing here"));
      ctx.registerResource({ name: "bin", uri: "app://bin", read: async () => clean });
      assert.deepEqual(await handlers.at(-1)(), clean, where);
    }
    assert.equal(cases, BASE64_CASES.length * 6);
  } finally {
    uninstall();
  }
});

// Over MCP-B's server and the MCP SDK's client: the read is an error that names the code and the
// field, where it was the client's schema error (and never the value).
test("over MCP-B, a resource whose blob holds a known value is an error naming withheld", async () => {
  const { server, client, close } = await connectedMcpB(installRedaction);
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    server.registerResource({ name: "bin", uri: "app://bin", mimeType: "application/octet-stream", read: async () => ({ contents: [{ uri: "app://bin", blob: b64(`key=${CANARY}`) }] }) });
    const err = await client.readResource({ uri: "app://bin" }).then(() => null, (e) => e);
    assert.match(String(err?.message), /withheld at \/contents\/0\/blob/);
    assert.ok(!String(err?.message).includes(b64(`key=${CANARY}`).slice(0, 8)));
  } finally {
    await close();
  }
});

// --- MCP-B: the page's own messages to the client -------------------------------------------------

// MCP-B's server sends its clients log lines, sampling requests and elicitations of the page's
// own (`mcpServer.sendLoggingMessage`, `mcpServer.server.createMessage`, `.elicitInput`). A tool
// that logged or asked about what it fetched gave the agent the value a result had withheld, past
// the redactor. Their params now go through the page session, as a resource's read does.
test("over MCP-B, the page's log lines, sampling requests and elicitations are scrubbed", async () => {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const types = await import("@modelcontextprotocol/sdk/types.js");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" }, { capabilities: { logging: {} } });
  const inner = server.mcpServer.server;
  const uninstall = await installRedaction({ modelContext: server });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" }, { capabilities: { sampling: {}, elicitation: {} } });
  const seen = [];
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => { seen.push(n.params); });
  client.setRequestHandler(types.CreateMessageRequestSchema, (r) => {
    seen.push(r.params);
    return { role: "assistant", model: "m", content: { type: "text", text: "ok" } };
  });
  client.setRequestHandler(types.ElicitRequestSchema, (r) => {
    seen.push(r.params);
    return { action: "decline" };
  });
  await client.connect(clientSide);
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    await server.mcpServer.sendLoggingMessage({ level: "info", data: { fetched: `the key ${CANARY}` } });
    await inner.createMessage({ messages: [{ role: "user", content: { type: "text", text: `summarise ${CANARY}` } }], maxTokens: 10 });
    await inner.elicitInput({ message: `is ${CANARY} yours?`, requestedSchema: { type: "object", properties: {} } });
    // One that claims sensitivity itself is not sent: the page's call rejects.
    await assert.rejects(server.mcpServer.sendLoggingMessage({ level: "info", data: "private", _meta: { sensitiveHint: true } }), coded("withheld"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(seen.length, 3, JSON.stringify(seen));
    assert.ok(!JSON.stringify(seen).includes(CANARY), JSON.stringify(seen));
    assert.match(seen[0].data.fetched, /^the key \[redacted/);
    assert.match(seen[1].messages[0].content.text, /^summarise \[redacted/);
    assert.match(seen[2].message, /^is \[redacted/);
  } finally {
    uninstall();
    await client.close();
    await server.close();
  }
  assert.ok(!Object.hasOwn(inner, "notification") && !Object.hasOwn(inner, "request"), "uninstall puts them back");
});

// Resources and prompts registered on MCP-B's server before installation are not patched (their
// reads are the server's already): they were not reported either. A warning now counts them.
test("over MCP-B, resources and prompts registered before installRedaction are reported", async () => {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  server.registerResource({ name: "early", uri: "app://early", read: async () => ({ contents: [] }) });
  server.registerPrompt({ name: "early", get: async () => ({ messages: [] }) });
  const warn = console.warn;
  const warnings = [];
  console.warn = (m) => warnings.push(String(m));
  let uninstall;
  try {
    uninstall = await installRedaction({ modelContext: server });
    server.registerResource({ name: "late", uri: "app://late", read: async () => ({ contents: [] }) });
  } finally {
    console.warn = warn;
  }
  uninstall();
  await server.close();
  // Since review s34 they are scrubbed (the inner server's registries are wrapped): no warning.
  assert.deepEqual(warnings.filter((w) => /resources or prompts/.test(w)), []);
});

// A descriptor that is a function (an object MCP-B spreads as it spreads any other) was handed
// to the server as it was, its read and get unscrubbed. Every kind of object a page can give is
// scrubbed now: plain, a function, a class instance, null-prototype, frozen, a Proxy of each.
test("over MCP-B, a resource or prompt descriptor of any kind of object is scrubbed", async () => {
  const { server, client, close } = await connectedMcpB(installRedaction);
  /** @type {[string, (members: object) => any][]} */
  const KINDS = [
    ["plain", (m) => ({ ...m })],
    ["a function", (m) => Object.defineProperties(function descriptor() {}, Object.getOwnPropertyDescriptors({ ...m }))],
    ["an arrow function", (m) => Object.defineProperties(() => {}, Object.getOwnPropertyDescriptors({ ...m }))],
    ["a class instance", (m) => Object.assign(new (class Descriptor {})(), m)],
    ["null-prototype", (m) => Object.assign(Object.create(null), m)],
    ["frozen", (m) => Object.freeze({ ...m })],
    ["inherited", (m) => Object.create(m)],
  ];
  const kinds = [...KINDS, ...KINDS.map(([what, make]) => [`a Proxy of ${what}`, (m) => new Proxy(make(m), {})])];
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    let cases = 0;
    for (const [i, [what, make]] of kinds.entries()) {
      const uri = `app://r${i}`;
      server.registerResource(make({ name: `r${i}`, uri, read: async () => ({ contents: [{ uri, text: `key ${CANARY}` }] }) }));
      server.registerPrompt(make({ name: `p${i}`, get: async () => ({ messages: [{ role: "user", content: { type: "text", text: `key ${CANARY}` } }] }) }));
      const got = [await client.readResource({ uri }), await client.getPrompt({ name: `p${i}` })];
      assert.ok(!JSON.stringify(got).includes(CANARY), `${what}: ${JSON.stringify(got)}`);
      cases += 1;
    }
    assert.equal(cases, KINDS.length * 2);
  } finally {
    await close();
  }
});

// --- a foreign copy's execute inside a page function ----------------------------------------------

// `{ name, execute: (a, o) => other.wrapTool(t).execute(a, o) }` is not recognised as foreign when
// registered (only its function could be): the other redactor's stubs were stripped as forged
// while its notice, kept as the tool's text, told the agent "the user can reveal it in the page",
// which no one could. What such an execute returns is now recognised: the call's result is the
// foreign_wrapper error. A copy of the same redactor passes as before.
test("a page function returning another redactor's wrapped result is refused with foreign_wrapper", async () => {
  const other = await createRedactor();
  const foreign = other.wrapTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
  const delegating = { ...apiKeyTool, execute: (/** @type {any} */ a, /** @type {any} */ o) => foreign.execute(a, o) };
  const ctx = /** @type {any} */ (fakeContext());
  const uninstall = await installRedaction({ modelContext: ctx });
  try {
    await ctx.registerTool(delegating);
    const viaInstall = await ctx.call(apiKeyTool.name, {});
    const r = await createRedactor();
    const viaWrap = await r.wrapTool(delegating).execute({}, {});
    for (const [who, out] of [["installRedaction", viaInstall], ["wrapTool", viaWrap]]) {
      const text = JSON.stringify(out);
      assert.equal(out.isError, true, `${who}: ${text}`);
      assert.match(text, /wrapped by another redactor/, who);
      assert.ok(!/can reveal/.test(text) && !text.includes(CANARY), `${who}: ${text}`);
    }
    // The installation's own redactor's copy, inside a page function under another name: its
    // stubs were issued for the copy's tool and were stripped as forged here. Refused the same
    // way; the copy itself passes, and so does a page function delegating under the copy's name.
    const own = uninstall.redactor.wrapTool({ ...apiKeyTool, name: "own_key", execute: async () => apiKeyRaw() });
    await ctx.registerTool({ ...apiKeyTool, name: "own_delegate", execute: (/** @type {any} */ a, /** @type {any} */ o) => own.execute(a, o) });
    const delegated = await ctx.call("own_delegate", {});
    assert.match(delegated.content[0].text, /returned the result wrapTool made for tool "own_key"/);
    await ctx.registerTool(own);
    const passed = await ctx.call("own_key", {});
    assert.ok(!passed.isError && passed.content.some((/** @type {any} */ b) => b.type === "secret_reference"), JSON.stringify(passed));
    const same = uninstall.redactor.wrapTool({ ...apiKeyTool, name: "own_key", execute: (/** @type {any} */ a, /** @type {any} */ o) => own.execute(a, o) });
    const sameView = await same.execute({}, {});
    assert.ok(!sameView.isError && sameView.content.some((/** @type {any} */ b) => b.type === "secret_reference"), JSON.stringify(sameView));
  } finally {
    uninstall();
  }
});

// This redactor's copy registered (or wrapped again) under another name was judged, asked about
// and revealed under the name wrapTool was given, while the runtime listed the new one: the user
// was asked about a tool the agent never called. Refused when registered or wrapped, with the
// same code; under its own name (other members spread in) it passes as before.
test("this redactor's wrapped copy under another name is refused with foreign_wrapper", async () => {
  const ctx = /** @type {any} */ (fakeContext());
  const uninstall = await installRedaction({ modelContext: ctx });
  try {
    const copy = uninstall.redactor.wrapTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    for (const given of [{ ...copy, name: "renamed" }, { name: "mine", execute: copy.execute }]) {
      await assert.rejects(ctx.registerTool(given), coded("foreign_wrapper"));
      assert.throws(() => uninstall.redactor.wrapTool(given), coded("foreign_wrapper"));
    }
    await ctx.registerTool({ ...copy, description: "spread, same name" });
    const out = await ctx.call(apiKeyTool.name, {});
    assert.ok(!out.isError && !JSON.stringify(out).includes(CANARY), JSON.stringify(out));
  } finally {
    uninstall();
  }
});

// --- MCP-B: the inner server's own registrations --------------------------------------------------

/** A text anywhere in a client's answer. */
const texts = (/** @type {any} */ v) => JSON.stringify(v);

// MCP-B documents its inner server (`mcpServer`, the MCP SDK's McpServer) for multi-round tools.
// What was registered there reached the client past the redactor: a tool whose result claims
// `sensitiveHint`, a tool, resource, resource template or prompt echoing a value a redacted
// result held, a callback given later through the handle's `update`. Each route now goes through
// the page session, as the context's do.
test("over MCP-B, every registration on the inner mcpServer goes through the page session", async () => {
  const { ResourceTemplate, fromJsonSchema } = await import("@modelcontextprotocol/server");
  const { server, client, uninstall, close } = await connectedMcpB(installRedaction);
  const inner = server.mcpServer;
  const echo = `the key ${CANARY} again`;
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    inner.registerTool("claims", { description: "d" }, async () => ({ content: [{ type: "text", text: "private" }], _meta: { sensitiveHint: true } }));
    inner.registerTool("echo", { description: "d" }, async () => ({ content: [{ type: "text", text: echo }] }));
    inner.registerTool("hinted", { description: "d", annotations: { sensitiveHint: true } }, async () => ({ content: [{ type: "text", text: "private" }] }));
    const input = fromJsonSchema({ type: "object", properties: { q: { type: "string" } } });
    inner.registerTool("with_input", { description: "d", inputSchema: input }, async (/** @type {any} */ a) => ({ content: [{ type: "text", text: `${a.q} ${echo}` }] }));
    const later = inner.registerTool("later", { description: "d" }, async () => ({ content: [{ type: "text", text: "fine" }] }));
    later.update({ callback: async () => ({ content: [{ type: "text", text: echo }] }) });
    inner.registerResource("r", "app://r", {}, async (/** @type {any} */ uri) => ({ contents: [{ uri: uri.href, text: echo }] }));
    inner.registerResource("t", new ResourceTemplate("app://t/{id}", { list: undefined }), {}, async (/** @type {any} */ uri) => ({ contents: [{ uri: uri.href, text: echo }] }));
    inner.registerPrompt("p", { description: "d" }, async () => ({ messages: [{ role: "user", content: { type: "text", text: echo } }] }));
    const answers = [];
    for (const name of ["claims", "echo", "hinted", "later"]) answers.push([name, await client.callTool({ name, arguments: {} })]);
    answers.push(["with_input", await client.callTool({ name: "with_input", arguments: { q: "hi" } })]);
    answers.push(["resource", await client.readResource({ uri: "app://r" })]);
    answers.push(["template", await client.readResource({ uri: "app://t/1" })]);
    answers.push(["prompt", await client.getPrompt({ name: "p" })]);
    for (const [name, answer] of answers) {
      assert.ok(!texts(answer).includes(CANARY) && !texts(answer).includes("private"), `${name}: ${texts(answer)}`);
    }
    assert.equal(answers.length, 8);
    assert.match(texts(answers[1][1]), /the key \[redacted/, "masked in place, not lost");
    assert.match(answers[0][1].content[0].text, /^\[secret withheld: claims\]$/, "its own claim withholds it");
    assert.deepEqual(uninstall.unprotectedTools, []);
    // Renamed through its handle, a tool is judged (and its stubs labelled) under the new name.
    const renamed = inner.registerTool("old_name", { description: "d" }, async () => ({ content: [{ type: "text", text: "private" }], _meta: { sensitiveHint: true } }));
    renamed.update({ name: "new_name" });
    const view = await client.callTool({ name: "new_name", arguments: {} });
    assert.equal(view.content[0].text, "[secret withheld: new_name]", texts(view));
  } finally {
    await close();
  }
  for (const key of ["registerTool", "registerResource", "registerPrompt", "handlePromptCompletion", "handleResourceCompletion"]) assert.ok(!Object.hasOwn(inner, key), `uninstall puts ${key} back`);
});

// The context's own registrations reach the inner server through those same routes: each result
// must be redacted once. Twice, its handles and notice were issued twice and onResult told of
// the second pass only, and the user was asked about the call twice. The agent's stub,
// onResult's handle and the reveal agree, one notice, one question per call.
test("over MCP-B, a tool registered through the context is checked and redacted once (handles, notice, reveal, questions)", async () => {
  /** @type {any[]} */
  const seen = [];
  const asked = [];
  const confirm = (/** @type {any} */ request) => {
    asked.push(request.tool);
    return true;
  };
  const install = (/** @type {any} */ o) => installRedaction({ ...o, policy: { unknownTools: "confirm" }, confirm, onResult: (/** @type {any} */ info) => { seen.push(info); } });
  const { server, client, close } = await connectedMcpB(install);
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    server.registerResource({ name: "acct", uri: "app://acct", read: async () => ({ contents: [{ uri: "app://acct", text: `key ${CANARY}` }] }) });
    const view = await client.callTool({ name: apiKeyTool.name, arguments: {} });
    assert.equal(seen.length, 1, "onResult once");
    const [{ handle }] = seen[0].handles;
    assert.equal(seen[0].handles.length, 1);
    assert.ok(texts(view).includes(handle), "the handle the agent holds is onResult's");
    assert.equal(texts(view).split(handle).length - 1, texts(seen[0].result).split(handle).length - 1, "as many stubs as the view onResult saw");
    assert.deepEqual(view.content, seen[0].result.content, "the view the agent got is the one onResult saw");
    assert.equal(await redeem(handle, { result: seen[0].resultId }), CANARY);
    const read = await client.readResource({ uri: "app://acct" });
    assert.match(read.contents[0].text, /^key \[redacted/);
    assert.equal(texts(read).match(/\[redacted/g)?.length, 1, texts(read));
    // A tool that claims nothing is asked about (unknownTools: "confirm"): once per call, through
    // the context or on the inner server.
    await server.registerTool({ name: "plain", description: "d", execute: async () => "ok" });
    server.mcpServer.registerTool("plain_inner", { description: "d" }, async () => ({ content: [{ type: "text", text: "ok" }] }));
    const before = asked.length;
    for (const name of ["plain", "plain_inner"]) assert.ok(!(await client.callTool({ name, arguments: {} })).isError, name);
    assert.deepEqual(asked.slice(before), ["plain", "plain_inner"]);
  } finally {
    await close();
  }
});

// What the inner server had before installation: its tools are in unprotectedTools (its
// resources and prompts are wrapped since review s34).
test("over MCP-B, what the inner mcpServer had before installRedaction is reported", async () => {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  server.mcpServer.registerTool("early_inner", { description: "d" }, async () => ({ content: [] }));
  server.mcpServer.registerResource("r", "app://r", {}, async () => ({ contents: [] }));
  server.mcpServer.registerPrompt("p", { description: "d" }, async () => ({ messages: [] }));
  server.registerResource({ name: "outer", uri: "app://outer", read: async () => ({ contents: [] }) });
  const warn = console.warn;
  const warnings = [];
  console.warn = (m) => warnings.push(String(m));
  let uninstall;
  try {
    uninstall = await installRedaction({ modelContext: server });
  } finally {
    console.warn = warn;
  }
  try {
    assert.deepEqual(uninstall.unprotectedTools, ["early_inner"]);
    assert.ok(warnings.some((w) => /tools registered before installRedaction are not redacted: early_inner/.test(w)), warnings.join("\n"));
    // Since review s34 its resources and prompts are scrubbed (review-s34-l): no warning.
    assert.ok(!warnings.some((w) => /resources or prompts/.test(w)), warnings.join("\n"));
  } finally {
    uninstall();
    await server.close();
  }
});

// An inner server whose methods cannot be replaced is refused, as an unpatchable context is:
// nothing stays patched.
test("over MCP-B, an inner mcpServer that cannot be patched is refused", async () => {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  const register = server.registerTool;
  Object.freeze(server.mcpServer);
  await assert.rejects(installRedaction({ modelContext: server }), (/** @type {any} */ e) => e?.code === "invalid_options" && /mcpServer cannot be patched/.test(e.message));
  assert.ok(server.registerTool === register && !Object.hasOwn(server, "registerResource"), "the context is put back");
  assert.ok(!Object.hasOwn(server.mcpServer.server, "notification"), "the outgoing patch is undone too");
  // Installs once the server can be patched: nothing half-installed was left.
  const other = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  (await installRedaction({ modelContext: other }))();
  await server.close();
  await other.close();
});

// A multi-round tool's `input_required` result carries requests to the client: its text is
// scrubbed in place, and its shape kept, so that the SDK still runs the round.
test("over MCP-B, an inner multi-round tool's input_required requests are scrubbed in place", async () => {
  const { server, client, uninstall, close } = await connectedMcpB(installRedaction);
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    const multi = { resultType: "input_required", inputRequests: { ok: { method: "elicitation/create", params: { message: `is ${CANARY} yours?`, requestedSchema: { type: "object", properties: {} } } } } };
    const handle = server.mcpServer.registerTool("rounds", { description: "d" }, async () => multi);
    const out = await handle.handler({ mcpReq: {} });
    assert.equal(out.resultType, "input_required");
    assert.match(out.inputRequests.ok.params.message, /^is \[redacted/);
    assert.ok(!texts(out).includes(CANARY));
    assert.deepEqual(uninstall.unprotectedTools, []);
  } finally {
    await close();
  }
});

// The MCP SDK v1's McpServer (an older MCP-B's inner server) has the shorthand routes too:
// `tool`, `resource`, `prompt`, each patched; its task tools (results from a task store) are
// refused with code unprotected_route.
test("an SDK v1 inner mcpServer: tool, resource and prompt are scrubbed, task tools refused", async () => {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const mcpServer = new McpServer({ name: "page", version: "1.0.0" });
  const registered = [];
  const ctx = { registerTool: async (/** @type {any} */ t) => { registered.push(t); }, mcpServer };
  const uninstall = await installRedaction({ modelContext: ctx, bridge: "mcp" });
  const client = new Client({ name: "agent", version: "1.0.0" });
  try {
    await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await registered[0].execute({});
    const echo = `the key ${CANARY} again`;
    mcpServer.tool("echo", async () => ({ content: [{ type: "text", text: echo }] }));
    mcpServer.tool("claims", "d", async () => ({ content: [{ type: "text", text: "private" }], _meta: { sensitiveHint: true } }));
    mcpServer.resource("r", "app://r", async (/** @type {any} */ uri) => ({ contents: [{ uri: uri.href, text: echo }] }));
    mcpServer.prompt("p", async () => ({ messages: [{ role: "user", content: { type: "text", text: echo } }] }));
    // v1 registers its capabilities once: every route before connecting.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcpServer.connect(serverSide);
    await client.connect(clientSide);
    const answers = [
      await client.callTool({ name: "echo", arguments: {} }),
      await client.callTool({ name: "claims", arguments: {} }),
      await client.readResource({ uri: "app://r" }),
      await client.getPrompt({ name: "p" }),
    ];
    for (const answer of answers) assert.ok(!texts(answer).includes(CANARY) && !texts(answer).includes("private"), texts(answer));
    assert.match(texts(answers[0]), /the key \[redacted/);
    assert.throws(() => mcpServer.experimental.tasks.registerToolTask("task", {}, {}), coded("unprotected_route"));
  } finally {
    uninstall();
    await client.close();
    await mcpServer.close();
  }
  for (const key of ["tool", "resource", "prompt", "registerTool"]) assert.ok(!Object.hasOwn(mcpServer, key), `uninstall puts ${key} back`);
  assert.ok(!Object.hasOwn(mcpServer.experimental.tasks, "registerToolTask"));
});

// A read, get or call that throws: MCP's server sends the error's message to the client. One
// naming a known value gave it raw (the context's resources too: their reads reach the client
// through the inner server). The message is scrubbed now, as the value would be.
test("over MCP-B, an error thrown by a resource, prompt or tool has its message scrubbed", async () => {
  const { server, client, close } = await connectedMcpB(installRedaction);
  const inner = server.mcpServer;
  const fail = async () => {
    throw new Error(`cannot use ${CANARY}`);
  };
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    server.registerResource({ name: "outer", uri: "app://outer", read: fail });
    server.registerPrompt({ name: "outer_p", get: fail });
    inner.registerResource("r", "app://r", {}, fail);
    inner.registerPrompt("p", { description: "d" }, fail);
    inner.registerTool("t", { description: "d" }, fail);
    await server.registerTool({ name: "ctx_tool", description: "d", execute: fail });
    const answers = [];
    for (const ask of [
      () => client.readResource({ uri: "app://outer" }),
      () => client.getPrompt({ name: "outer_p" }),
      () => client.readResource({ uri: "app://r" }),
      () => client.getPrompt({ name: "p" }),
      () => client.callTool({ name: "t", arguments: {} }),
      () => client.callTool({ name: "ctx_tool", arguments: {} }),
    ]) answers.push(await ask().then((v) => texts(v), (e) => String(e?.message)));
    assert.equal(answers.length, 6);
    for (const answer of answers) {
      assert.ok(!answer.includes(CANARY), answer);
      assert.match(answer, /cannot use \[redacted/, answer);
    }
  } finally {
    await close();
  }
});

// Seeded: a route of the inner server (registered, or given later through `update`), a place
// in what its callback returns (or a throw), a known value there: the client never sees it.
test("seeded: whatever route of the inner mcpServer, wherever the known value, the client never sees it", async () => {
  const { ResourceTemplate } = await import("@modelcontextprotocol/server");
  const { server, client, close } = await connectedMcpB(installRedaction);
  const inner = server.mcpServer;
  const rnd = random(3217);
  const pick = (/** @type {any[]} */ xs) => xs[Math.floor(rnd() * xs.length)];
  const v = `x ${CANARY} y`;
  const boom = () => {
    throw new Error(v);
  };
  /** @type {Record<string, (() => any)[]>} */
  const RETURNS = {
    tool: [
      () => ({ content: [{ type: "text", text: v }] }),
      () => ({ content: [{ type: "text", text: "ok" }], structuredContent: { note: v } }),
      () => ({ content: [{ type: "resource", resource: { uri: "app://e", text: v } }] }),
      () => ({ content: [{ type: "text", text: "ok" }], _meta: { note: v } }),
      boom,
    ],
    resource: [() => ({ contents: [{ uri: "app://x", text: v }] }), () => ({ contents: [{ uri: "app://x", text: "ok", _meta: { note: v } }] }), boom],
    prompt: [() => ({ messages: [{ role: "user", content: { type: "text", text: v } }] }), () => ({ description: v, messages: [] }), boom],
  };
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    let cases = 0;
    for (let i = 0; i < 60; i += 1) {
      const kind = pick(["tool", "resource", "template", "prompt"]);
      const ret = pick(RETURNS[kind === "template" ? "resource" : kind]);
      const later = rnd() < 0.5;
      const cb = async () => ret();
      const first = later ? async () => ({ content: [], contents: [], messages: [] }) : cb;
      const name = `n${i}`;
      let handle;
      let ask;
      if (kind === "tool") {
        handle = inner.registerTool(name, { description: "d" }, first);
        ask = () => client.callTool({ name, arguments: {} });
      } else if (kind === "resource") {
        handle = inner.registerResource(name, `app://${name}`, {}, first);
        ask = () => client.readResource({ uri: `app://${name}` });
      } else if (kind === "template") {
        handle = inner.registerResource(name, new ResourceTemplate(`app://${name}/{id}`, { list: undefined }), {}, first);
        ask = () => client.readResource({ uri: `app://${name}/1` });
      } else {
        handle = inner.registerPrompt(name, { description: "d" }, first);
        ask = () => client.getPrompt({ name });
      }
      if (later) handle.update({ callback: cb });
      const answer = await ask().then((x) => texts(x), (e) => String(e?.message));
      assert.ok(!answer.includes(CANARY), `case ${i} (${kind}, ${later ? "update" : "registered"}): ${answer}`);
      cases += 1;
    }
    assert.equal(cases, 60);
  } finally {
    await close();
  }
});

// A resource template's own callbacks answer the client too: `list` (resources/list) and
// `complete` (completion/complete), as does a prompt argument's `completable`. One listing or
// suggesting a known value gave it raw.
test("over MCP-B, an inner resource template's list and completions, and a prompt's, are scrubbed", async () => {
  const { ResourceTemplate, completable } = await import("@modelcontextprotocol/server");
  const { z } = await import("zod");
  const template = new ResourceTemplate("app://k/{id}", {
    list: async () => ({ resources: [{ uri: "app://k/1", name: `key ${CANARY}` }] }),
    complete: { id: async () => [CANARY, "other"] },
  });
  // Registered after installation, before the client connects (the SDK adds the completions
  // capability then).
  const install = async (/** @type {any} */ o) => {
    const uninstall = await installRedaction(o);
    o.modelContext.mcpServer.registerResource("keys", template, {}, async (/** @type {any} */ uri) => ({ contents: [{ uri: uri.href, text: "ok" }] }));
    const argsSchema = z.object({ id: completable(z.string(), async () => [`${CANARY}`, "other"]) });
    o.modelContext.mcpServer.registerPrompt("ask", { description: "d", argsSchema }, async () => ({ messages: [] }));
    return uninstall;
  };
  const { server, client, close } = await connectedMcpB(install);
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    await client.callTool({ name: apiKeyTool.name, arguments: {} });
    const listed = await client.listResources();
    const completed = await client.complete({ ref: { type: "ref/resource", uri: "app://k/{id}" }, argument: { name: "id", value: "" } });
    const prompted = await client.complete({ ref: { type: "ref/prompt", name: "ask" }, argument: { name: "id", value: "" } });
    for (const answer of [listed, completed, prompted]) assert.ok(!texts(answer).includes(CANARY), texts(answer));
    assert.ok(listed.resources.some((/** @type {any} */ r) => /^key \[redacted/.test(r.name)), texts(listed));
    for (const answer of [completed, prompted]) {
      assert.equal(answer.completion.values.length, 2, texts(answer));
      assert.match(answer.completion.values[0], /^\[redacted/, texts(answer));
    }
    assert.equal(template.listCallback !== undefined && typeof template.completeCallback("id"), "function", "the page's template is its own");
  } finally {
    await close();
  }
});

// The inner server is patched when installRedaction is called, before its session is made: a
// tool registered there meanwhile waits for the session, and is redacted.
test("over MCP-B, an inner tool registered before installRedaction resolves is redacted", async () => {
  const install = async (/** @type {any} */ o) => {
    const pending = installRedaction(o);
    o.modelContext.mcpServer.registerTool("early_call", { description: "d" }, async () => ({ content: [{ type: "text", text: "private" }], _meta: { sensitiveHint: true } }));
    return pending;
  };
  const { client, uninstall, close } = await connectedMcpB(install);
  try {
    const view = await client.callTool({ name: "early_call", arguments: {} });
    assert.equal(view.content[0].text, "[secret withheld: early_call]", texts(view));
    assert.deepEqual(uninstall.unprotectedTools, []);
  } finally {
    await close();
  }
});

// An inner tool's outputSchema is a Standard Schema (zod here): its `x-sensitive` marks were not
// read, and a marked value that is no credential reached the client raw. The JSON Schema the SDK
// made of it (what tools/list shows) is the tool's schema now. A required marked field leaves a
// view the SDK's own validation refuses: its error, which names the field, not the value.
test("over MCP-B, an inner tool's outputSchema marks apply (zod's meta x-sensitive)", async () => {
  const { z } = await import("zod");
  const { server, client, close } = await connectedMcpB(installRedaction);
  const secret = "plainwordsnotakey";
  const result = async () => ({ content: [{ type: "text", text: "ok" }], structuredContent: { id: "k1", key: secret } });
  const marked = (/** @type {boolean} */ optional) => {
    const key = z.string().meta({ "x-sensitive": true });
    return z.object({ id: z.string(), key: optional ? key.optional() : key });
  };
  try {
    server.mcpServer.registerTool("optional_mark", { description: "d", outputSchema: marked(true) }, result);
    server.mcpServer.registerTool("required_mark", { description: "d", outputSchema: marked(false) }, result);
    const later = server.mcpServer.registerTool("updated_mark", { description: "d" }, result);
    later.update({ outputSchema: marked(true) });
    const views = [];
    for (const name of ["optional_mark", "required_mark", "updated_mark"]) views.push(await client.callTool({ name, arguments: {} }));
    for (const view of views) assert.ok(!texts(view).includes(secret), texts(view));
    assert.deepEqual(views[0].structuredContent, { id: "k1" });
    assert.ok(views[0].content.some((/** @type {any} */ b) => b.text === "[secret withheld: key]"), texts(views[0]));
    assert.equal(views[1].isError, true, texts(views[1]));
    assert.deepEqual(views[2].structuredContent, { id: "k1" }, "the schema update is followed");
  } finally {
    await close();
  }
});
