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
    await new Promise((ok) => setTimeout(ok, 50));
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
