// Review s24 of the JS layer: each test states a promise a hostile tool, page or option broke
// before (installRedaction on a context it cannot patch, onResult's copy, error codes,
// redeemErrorMessage, allowedPaths with escaped dots, the Reveal element's hide-after).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction } from "webmcp-redact";
import { redeemErrorMessage } from "../../js/secret-element.js";
import { CANARY, apiKeyTool, apiKeyRaw, fakeContext } from "./helpers.mjs";

const coded = (e) => e instanceof Error && typeof e.code === "string" && /^[a-z]+(_[a-z]+)*$/.test(e.code);
const timeout = (p, ms) => Promise.race([p, new Promise((r) => setTimeout(() => r("TIMEOUT"), ms))]);

test("installRedaction on a context it cannot patch throws a coded error and leaves nothing half-installed", async () => {
  const contexts = {
    frozen: () => Object.freeze({ registerTool() {} }),
    "non-configurable registerTool": () => Object.defineProperty({}, "registerTool", { value() {}, writable: false, configurable: false }),
    "proxy refusing defineProperty": () => new Proxy({ registerTool() {} }, { defineProperty: () => false }),
    "non-extensible": () => Object.preventExtensions({ registerTool: async () => {} }),
  };
  const bad = [];
  for (const [what, make] of Object.entries(contexts)) {
    const ctx = make();
    const original = ctx.registerTool;
    try {
      await installRedaction({ modelContext: ctx });
    } catch (e) {
      if (!coded(e)) bad.push(`${what}: ${e?.name} without code (${e?.message})`);
      // Half-installed: registerTool was replaced, but no uninstall was returned and the
      // session promise never resolves, so every later registration hangs.
      if (ctx.registerTool !== original) {
        const r = await timeout(ctx.registerTool({ name: "t", execute: () => "x" }), 500);
        bad.push(`${what}: registerTool left patched after the throw${r === "TIMEOUT" ? " and registerTool() never settles" : ""}`);
      }
    }
  }
  assert.deepEqual(bad, []);
});

test("onResult gets its own copy: a page filling in revealed values for display leaves the agent view alone", async () => {
  const ctx = fakeContext();
  await installRedaction({
    modelContext: ctx,
    // A page that renders the transcript and fills in the secret for its own view.
    onResult: ({ result, handles }) => {
      const i = result.content.findIndex((b) => b.handle === handles[0].handle);
      result.content[i] = { type: "text", text: `(shown to you) ${uninstallRef.redactor.vault.reveal(handles[0].handle)}` };
    },
  }).then((u) => (uninstallRef = u));
  await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
  const agentGot = await ctx.call("generate_api_key", {});
  assert.ok(!JSON.stringify(agentGot).includes(CANARY), "the agent view carries the secret the page's onResult wrote into its own copy");
});
let uninstallRef;

test("redeemErrorMessage always returns a string, whatever the code (index.d.ts: string)", () => {
  for (const code of ["__proto__", "constructor", "toString", "valueOf"]) {
    assert.equal(typeof redeemErrorMessage({ code }), "string", code);
  }
});

test("wrapTool, registerTool and createRedactor never throw an uncoded error for a hostile tool or option", async () => {
  const r = await createRedactor();
  const bad = [];
  const tries = {
    "execute getter throws a string": () => r.wrapTool({ name: "t", get execute() { throw "boom"; } }),
    "execute getter throws an Error": () => r.wrapTool({ name: "t", get execute() { throw new Error("boom"); } }),
    "wasm thenable whose then getter throws": () => createRedactor({ wasm: { get then() { throw "boom"; } } }),
  };
  for (const [what, f] of Object.entries(tries)) {
    try {
      await f();
    } catch (e) {
      if (!coded(e)) bad.push(`${what}: ${typeof e === "object" ? e?.name : typeof e} without code`);
    }
  }
  const ctx = fakeContext();
  await installRedaction({ modelContext: ctx });
  try {
    await ctx.registerTool({ name: "t", get execute() { throw "boom"; } });
  } catch (e) {
    if (!coded(e)) bad.push(`installRedaction registerTool, execute getter throws: ${typeof e} without code`);
  }
  assert.deepEqual(bad, []);
});

import http from "node:http";
import { checkRedeemUrl } from "../../js/vault/redeem.js";

test("allowedPaths refuses an escaped dot segment with parameters (%2e%2e;), with no request made", async () => {
  const loc = { href: "https://app.example/page", origin: "https://app.example", protocol: "https:" };
  const escaped = [];
  for (const p of ["/api/redeem/%2e%2e;/admin", "/api/redeem/.%2E;/admin", "/api/redeem/%2e;/x", "/api/redeem/..%3b/admin"]) {
    try {
      checkRedeemUrl(p, "x", ["/api/redeem/"], loc);
      escaped.push(p);
    } catch (e) {
      assert.equal(e.code, "path_not_allowed");
    }
  }
  // End to end: the request is made, with the encoded dots kept for the server to resolve.
  const seen = [];
  const srv = http.createServer((req, res) => {
    seen.push(req.url);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ value: "admin-data" }));
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  globalThis.location = new URL(`http://127.0.0.1:${srv.address().port}/page`);
  try {
    const r = await createRedactor({ redeem: { allowedPaths: ["/api/redeem/"] } });
    const out = r.redact({ name: "ref" }, { content: [{ type: "secret_reference", id: "r1", label: "Token", redeemUrl: "/api/redeem/%2e%2e;/admin/users" }] });
    const handle = out.result.content[0].handle;
    let got;
    try { got = await r.vault.redeem(handle, { result: out.resultId }); } catch (e) { got = e.code; }
    assert.deepEqual({ escaped, seen, got }, { escaped: [], seen: [], got: "path_not_allowed" });
  } finally {
    delete globalThis.location;
    srv.close();
  }
});

import { WebmcpSecretElement } from "../../js/secret-element.js";

// A minimal stand-in for the DOM the element touches (Node has none).
function fakeNode() {
  const attrs = new Map();
  return {
    textContent: "", hidden: false, disabled: false, children: [],
    setAttribute: (k, v) => attrs.set(k, String(v)), removeAttribute: (k) => attrs.delete(k), getAttribute: (k) => attrs.get(k) ?? null,
    addEventListener() {}, replaceChildren(...c) { this.children = c; this.textContent = c.map((x) => x.textContent).join(""); },
  };
}
function shimElement() {
  const base = Object.getPrototypeOf(WebmcpSecretElement.prototype);
  const nodes = {};
  base.attachShadow = function () {
    // The element appends its parts (made with document.createElement) to its shadow root.
    return { append: (...parts) => parts.forEach((p) => (nodes[`.${p.className}`] = p)) };
  };
  const attrs = new Map();
  base.getAttribute = (k) => attrs.get(k) ?? null;
  base.setAttribute = (k, v) => attrs.set(k, String(v));
  base.dispatchEvent = () => true;
  base.dataset = {};
  globalThis.document ??= { createElement: () => fakeNode() };
  globalThis.CustomEvent ??= class { constructor(t, o) { Object.assign(this, { type: t }, o); } };
  return { nodes, attrs };
}

test("a hide-after that is not a number (\"30s\", \"\", \"-1\") hides the revealed secret after the default 30 s", async () => {
  const r = await createRedactor();
  const out = r.redact(apiKeyTool, apiKeyRaw());
  const handle = out.result.content.find((b) => b.handle).handle;
  const { nodes, attrs } = shimElement();
  const realSetTimeout = globalThis.setTimeout;
  const kept = [];
  try {
    for (const hideAfter of ["30s", "", "-1", "thirty"]) {
      const timers = [];
      globalThis.setTimeout = (fn, ms) => { timers.push(ms); return 0; };
      attrs.set("handle", handle); attrs.set("result", out.resultId); attrs.set("hide-after", hideAfter);
      const el = new WebmcpSecretElement();
      await el.reveal();
      if (nodes[".value"].textContent === CANARY && timers.length === 0) kept.push(hideAfter);
      el.hide();
    }
  } finally {
    globalThis.setTimeout = realSetTimeout;
    delete globalThis.document;
  }
  assert.deepEqual(kept, [], "revealed and never hidden again");
});
