// Review s25 of the JS layer and the ways the package is used: each test states a promise a
// hostile tool, page data, result or prompt-injected agent broke before (buttons a script can
// click, installRedaction's coded errors, tools registered past the patch after installation, a
// bridge set up on top of the patched context).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction } from "webmcp-redact";
import { CANARY, apiKeyTool, apiKeyRaw, fakeContext } from "./helpers.mjs";

const coded = (e) => e instanceof Error && typeof e.code === "string" && /^[a-z]+(_[a-z]+)*$/.test(e.code);

// --- Buttons a script can click ------------------------------------------------------------
// A browser agent that drives the page through the DOM (a content script calling `click()` or
// `dispatchEvent`) makes untrusted events. Reveal and Allow are the user's decisions: a click
// the user did not make must neither put a secret in the page, where that agent reads it (the
// element's shadow root is open), nor approve the agent's own call.

import { WebmcpSecretElement } from "../../js/secret-element.js";
import { askInDialog } from "../../js/confirm-dialog.js";

/** A stand-in DOM element that keeps its listeners, children and attributes. */
class FakeEl {
  constructor(tag = "div") {
    this.tagName = tag.toUpperCase();
    this.attrs = new Map();
    this.listeners = [];
    this.children = [];
    this.textContent = "";
    this.hidden = false;
    this.disabled = false;
    this.dataset = {};
  }
  setAttribute(k, v) {
    this.attrs.set(k, String(v));
  }
  getAttribute(k) {
    return this.attrs.get(k) ?? null;
  }
  removeAttribute(k) {
    this.attrs.delete(k);
  }
  addEventListener(type, fn) {
    this.listeners.push({ type, fn });
  }
  /** Fires `type` at the listeners as the browser would, trusted or not. */
  fire(type, isTrusted) {
    const event = { type, isTrusted, preventDefault() {}, key: undefined };
    for (const l of this.listeners.filter((l) => l.type === type)) l.fn(event);
  }
  append(...c) {
    this.children.push(...c);
  }
  replaceChildren(...c) {
    this.children = c;
    this.textContent = c.map((x) => x.textContent).join("");
  }
  remove() {
    this.removed = true;
  }
  focus() {}
  showModal() {}
  contains() {
    return true;
  }
  querySelectorAll() {
    return [];
  }
  /** Every element below this one, depth first. */
  *all() {
    for (const c of this.children) {
      if (c instanceof FakeEl) {
        yield c;
        yield* c.all();
      }
    }
  }
}

/** Makes WebmcpSecretElement constructible in Node: a shadow root of FakeEls. */
function shimSecretElement() {
  const base = Object.getPrototypeOf(WebmcpSecretElement.prototype);
  const nodes = {};
  const attrs = new Map();
  // The element appends its parts (made with document.createElement) to its shadow root.
  base.attachShadow = () => ({ append: (...parts) => parts.forEach((p) => (nodes[`.${p.className}`] = p)) });
  base.getAttribute = (k) => attrs.get(k) ?? null;
  base.setAttribute = (k, v) => attrs.set(k, String(v));
  base.dispatchEvent = () => true;
  base.dataset = {};
  globalThis.CustomEvent ??= class { constructor(t, o) { Object.assign(this, { type: t }, o); } };
  return { nodes, attrs };
}

/** Lets every pending promise job and timer of this turn run. */
const settle = () => new Promise((r) => setImmediate(r));

test("the Reveal element reveals (and copies) only on a click the user made, never on a script's click", async () => {
  const r = await createRedactor();
  const out = r.redact(apiKeyTool, apiKeyRaw());
  const handle = out.result.content.find((b) => b.handle).handle;
  const { nodes, attrs } = shimSecretElement();
  globalThis.document = { createElement: (tag) => new FakeEl(tag) };
  const copied = [];
  const clipboard = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  Object.defineProperty(globalThis, "navigator", { configurable: true, value: { clipboard: { writeText: async (t) => copied.push(t) } } });
  try {
    attrs.set("handle", handle);
    attrs.set("result", out.resultId);
    const el = new WebmcpSecretElement();
    nodes[".reveal"].fire("click", false);
    await settle();
    const byScript = nodes[".value"].textContent;
    nodes[".copy"].fire("click", false);
    await settle();
    // The user's own click still works, so the test can tell the two apart.
    nodes[".reveal"].fire("click", true);
    await settle();
    const byUser = nodes[".value"].textContent;
    nodes[".copy"].fire("click", false);
    await settle();
    el.hide();
    assert.deepEqual({ byScript, byUser, copied }, { byScript: "", byUser: CANARY, copied: [] });
  } finally {
    delete globalThis.document;
    if (clipboard) Object.defineProperty(globalThis, "navigator", clipboard);
  }
});

test("the consent dialog's Allow counts only for a click the user made; a script's click on it is no answer", async () => {
  const body = new FakeEl("body");
  globalThis.document = { body, activeElement: null, createElement: (tag) => new FakeEl(tag) };
  try {
    const answer = askInDialog({ tool: "send_mail", args: { to: "x" }, reasons: [] });
    const dialog = body.children[0];
    const button = (cls) => [...dialog.all()].find((e) => e.tagName === "BUTTON" && e.getAttribute("class") === cls);
    button("allow").fire("click", false); // the agent clicks Allow for itself
    button("deny").fire("click", true); // then the user says no
    assert.equal(await answer, false, "a script's click on Allow approved the call");
  } finally {
    delete globalThis.document;
  }
});

// --- installRedaction's own errors ------------------------------------------------------------

test("installRedaction throws a coded error (and patches nothing) for options or a context that throw when read", async () => {
  const hostile = new Proxy({}, { get() { throw "boom"; }, has() { throw "boom"; }, ownKeys() { throw "boom"; } });
  const ctx = fakeContext();
  const original = ctx.registerTool;
  const tries = {
    "an option getter throws": () => installRedaction({ modelContext: ctx, get format() { throw "boom"; } }),
    "options are a Proxy that throws": () => installRedaction(hostile),
    "modelContext is a Proxy that throws": () => installRedaction({ modelContext: hostile }),
    "modelContext's registerTool getter throws": () => installRedaction({ modelContext: { get registerTool() { throw new Error("boom"); } } }),
    "bridge is an object whose conversion to text throws": () =>
      installRedaction({ modelContext: ctx, bridge: { [Symbol.toPrimitive]() { throw "boom"; } } }),
    "modelContext throws on a symbol read": () =>
      installRedaction({ modelContext: new Proxy(ctx, { get: (t, k) => (typeof k === "symbol" ? (() => { throw "boom"; })() : t[k]) }) }),
  };
  const bad = [];
  for (const [what, f] of Object.entries(tries)) {
    try {
      const u = await f();
      u();
      bad.push(`${what}: installed`);
    } catch (e) {
      if (!coded(e)) bad.push(`${what}: ${typeof e === "object" ? e?.name : typeof e} without code`);
    }
  }
  assert.deepEqual(bad, []);
  assert.equal(ctx.registerTool, original, "left patched");
});

// --- Tools registered past the patch ----------------------------------------------------------

/** A runtime that lists its tools and fires "toolchange", as the polyfill and MCP-B's server do. */
function listingContext() {
  const ctx = new EventTarget();
  const tools = new Map();
  // An own property, like MCP-B's BrowserMcpServer (a class field): a script that took it before
  // installRedaction can call it unbound, past the patch.
  ctx.registerTool = async (tool) => {
    tools.set(tool.name, tool);
    ctx.dispatchEvent(new Event("toolchange"));
  };
  ctx.getTools = async () => [...tools.keys()].map((name) => ({ name }));
  return ctx;
}

test("a tool registered after installation but past the patch (a registerTool taken before) is reported in unprotectedTools", async () => {
  const ctx = listingContext();
  const takenBefore = ctx.registerTool; // e.g. a framework module that ran before installRedaction
  const warnings = [];
  const warn = console.warn;
  console.warn = (m) => warnings.push(String(m));
  try {
    const uninstall = await installRedaction({ modelContext: ctx });
    await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() }); // through the patch
    await takenBefore({ name: "raw_tool", description: "x", execute: async () => ({ secret: CANARY }) });
    await settle();
    await settle();
    const seen = uninstall.unprotectedTools;
    uninstall();
    // After uninstall nothing is followed any more.
    await takenBefore({ name: "after_uninstall", description: "x", execute: async () => ({}) });
    await settle();
    assert.deepEqual({ seen, warned: warnings.some((w) => w.includes("raw_tool")) }, { seen: ["raw_tool"], warned: true });
    assert.ok(!warnings.some((w) => w.includes("after_uninstall") || w.includes("generate_api_key")), warnings.join("\n"));
  } finally {
    console.warn = warn;
  }
});

// --- A bridge put on top of the patched context -----------------------------------------------

import { BrowserMcpServer } from "@mcp-b/webmcp-ts-sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

test("@mcp-b/global set up after installRedaction (document.modelContext replaced): no tool result reaches its MCP clients raw", async () => {
  // The browser's own context (Chromium's, or the polyfill's), patched by installRedaction.
  const native = new EventTarget();
  const tools = new Map();
  native.registerTool = async (tool) => void tools.set(tool.name, tool);
  native.getTools = async () => [...tools.values()].map((t) => ({ name: t.name, description: t.description }));
  native.executeTool = async (t, input) => JSON.stringify(await tools.get(t.name).execute(JSON.parse(input)));
  // (Made before the stand-in document exists: the server checks a real document is active.)
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" }, { native });
  globalThis.document = { modelContext: native };
  try {
    const uninstall = await installRedaction();
    // Then @mcp-b/global makes document.modelContext its server over that context: the server
    // mirrors each tool onto it without outputSchema, and answers MCP clients itself.
    globalThis.document.modelContext = server;
    const [c, s] = InMemoryTransport.createLinkedPair();
    await server.connect(s);
    const client = new Client({ name: "agent", version: "1.0.0" });
    await client.connect(c);
    let refused;
    try {
      await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    } catch (e) {
      refused = e;
    }
    const views = [];
    for (const t of (await client.listTools()).tools) views.push(await client.callTool({ name: t.name, arguments: {} }));
    for (const t of tools.values()) views.push(await t.execute({}));
    uninstall();
    assert.ok(!JSON.stringify(views).includes(CANARY), "a raw result reached an agent");
    assert.ok(coded(refused), `the registration is refused with a coded error, not ${refused}`);
  } finally {
    delete globalThis.document;
    await server.close();
  }
});

test("the consent dialog closed any other way (dialog.close(), a form method=dialog) is a decline, not a question left hanging", async () => {
  const body = new FakeEl("body");
  globalThis.document = { body, activeElement: null, createElement: (tag) => new FakeEl(tag) };
  try {
    const answer = askInDialog({ tool: "send_mail", args: {}, reasons: [] });
    const dialog = body.children[0];
    dialog.fire("close", false); // closed without an answer: every later question would wait on this one
    const settled = await Promise.race([answer, settle().then(() => "pending")]);
    assert.equal(settled, false);
    assert.ok(dialog.removed, "the dialog is gone");
  } finally {
    delete globalThis.document;
  }
});

// --- Callbacks ------------------------------------------------------------------------------

test("an async onResult that rejects is ignored like one that throws (no unhandled rejection)", async () => {
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const ctx = fakeContext();
    const uninstall = await installRedaction({ modelContext: ctx, onResult: async () => { throw new Error("page bug"); } });
    await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    const view = await ctx.call("generate_api_key", {});
    await settle();
    await settle();
    uninstall();
    assert.ok(!JSON.stringify(view).includes(CANARY));
    assert.deepEqual(unhandled.map((e) => e?.message), []);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});
