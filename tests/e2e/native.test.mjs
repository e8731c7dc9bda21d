// The demo on Chromium's own WebMCP implementation (--enable-features=WebMCP, Chromium 156):
// the polyfill steps aside, installRedaction patches the native registerTool.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile, TIMEOUT } from "./helpers.mjs";

const env = browserForFile({ extraArgs: ["--enable-features=WebMCP"] });

test("native WebMCP: every demo tool is redacted; a bad schema is refused; the signal unregisters", async () => {
  const page = await env.page();
  await page.goto(env.a.url);
  await page.waitForSelector("html[data-ready]", { state: "attached", timeout: TIMEOUT });
  assert.equal(await page.getAttribute("html", "data-ready"), "true", await page.textContent("#status"));
  const out = await page.evaluate(async () => {
    const mc = document.modelContext;
    const r = { native: mc.__isWebMCPPolyfill !== true, results: {} };
    // The forum post first: later, after the billing details, it would wait for the user's
    // answer in the consent dialog (the check is enforced here too; demo.test.mjs clicks it).
    const tools = (await mc.getTools()).sort((a, b) => (b.name === "post_to_forum") - (a.name === "post_to_forum"));
    for (const t of tools) r.results[t.name] = await mc.executeTool(t, {});
    try {
      await mc.registerTool({ name: "bad_schema", description: "d", outputSchema: { "x-sensitive": 5 }, execute: () => ({}) });
      r.bad = "registered";
    } catch (e) {
      r.bad = `${e.name} ${e.code}`;
    }
    const ac = new AbortController();
    await mc.registerTool({ name: "tmp_tool", description: "d", execute: async () => ({}) }, { signal: ac.signal });
    r.before = (await mc.getTools()).some((t) => t.name === "tmp_tool");
    ac.abort();
    await Promise.resolve();
    r.after = (await mc.getTools()).some((t) => t.name === "tmp_tool");
    return r;
  });
  assert.equal(out.native, true, "Chromium's own document.modelContext is in use");
  assert.deepEqual(Object.keys(out.results).sort(), ["create_deploy_token", "deploy_with_key", "generate_api_key", "get_billing_details", "post_to_forum", "search_messages"]);
  for (const [name, json] of Object.entries(out.results)) {
    assert.equal(typeof json, "string");
    assert.ok(!/CANARY/.test(json), `${name}: ${json}`);
  }
  assert.match(out.results.generate_api_key, /"secret_reference"/);
  assert.equal(out.bad, "RedactionError schema_invalid");
  assert.deepEqual([out.before, out.after], [true, false]);
  await page.close();
});

test("native WebMCP: a <form toolname> is reported, followed live, and its respondWith response redacted", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const form = (name, auto) => {
      const f = document.createElement("form");
      f.setAttribute("toolname", name);
      f.setAttribute("tooldescription", `The ${name} form`);
      if (auto) f.setAttribute("toolautosubmit", "");
      f.innerHTML = '<input name="q" type="text"><button type="submit">Go</button>';
      return f;
    };
    const r = { warnings: [] };
    const warn = console.warn;
    console.warn = (m) => r.warnings.push(String(m));
    document.body.append(form("search_flights"));
    const { installRedaction } = await import("/js/index.js");
    const seen = [];
    const uninstall = await installRedaction({ onResult: (info) => seen.push(info) });
    r.atInstall = uninstall.unprotectedTools;
    // Added after installation: a tool whose submit handler answers through respondWith.
    const send = form("send_code", true);
    send.addEventListener("submit", (e) => {
      r.agentInvoked = e.agentInvoked;
      e.preventDefault();
      e.respondWith(Promise.resolve({ content: [
        { type: "text", text: `A code was sent for ${new FormData(send).get("q")}.` },
        { type: "text", text: "Your sign-in code is CANARY-decl-5521.", annotations: { audience: ["user"] } },
      ] }));
    });
    document.body.append(send);
    await Promise.resolve(); // the observer runs at the microtask checkpoint after the mutation
    r.afterAdd = uninstall.unprotectedTools;
    // The runtime registers the form in its own time: wait for it (bounded).
    let tool;
    for (let i = 0; i < 200 && !tool; i++) {
      tool = (await document.modelContext.getTools()).find((t) => t.name === "send_code");
      if (!tool) await new Promise((ok) => setTimeout(ok, 10));
    }
    r.agent = await document.modelContext.executeTool(tool, { q: "ann" });
    r.user = await uninstall.redactor.vault.redeem(seen[0].handles[0].handle, { result: seen[0].resultId });
    document.querySelector('form[toolname="search_flights"]').remove();
    await Promise.resolve();
    r.afterRemove = uninstall.unprotectedTools;
    uninstall();
    r.restored = /\[native code\]/.test(Function.prototype.toString.call(SubmitEvent.prototype.respondWith));
    console.warn = warn;
    return r;
  });
  assert.deepEqual(out.atInstall, ["search_flights"]);
  assert.deepEqual(out.afterAdd, ["search_flights", "send_code"]);
  assert.deepEqual(out.afterRemove, ["send_code"]);
  assert.equal(out.warnings.filter((w) => w.includes("<form toolname>")).length, 2, out.warnings.join("\n"));
  assert.equal(out.agentInvoked, true);
  assert.equal(typeof out.agent, "string");
  assert.ok(!out.agent.includes("CANARY"), out.agent);
  assert.match(out.agent, /A code was sent for ann\./);
  assert.match(out.agent, /"reason":"audience"/);
  assert.equal(out.user.text, "Your sign-in code is CANARY-decl-5521.");
  assert.ok(out.restored);
  await page.close();
});
