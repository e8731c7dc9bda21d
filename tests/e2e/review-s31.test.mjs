// Review s31 (helper L), page side, in Chromium on the real MCP-B polyfill: values JSON cannot
// hold, in a tool's definition and in its result, and a signal the options inherit.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({});

// `sensitiveHint: Infinity` was written `null` into the definition the core compiled (and into
// a result's claims), so it claimed nothing and the agent got the secret through executeTool.
// The definition is refused now; a result's Infinity is written as 1e400, which claims.
test("on the polyfill, Infinity claims where JavaScript reads it as true, or the tool is refused", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const ctx = document.modelContext;
    const { installRedaction } = await import("/js/index.js");
    const uninstall = await installRedaction();
    const secret = "CANARY-s31-infinite";
    const base = { description: "d", inputSchema: { type: "object", properties: {} } };
    let refused = null;
    try {
      await ctx.registerTool({ ...base, name: "hinted", annotations: { sensitiveHint: Infinity }, execute: async () => ({ content: [{ type: "text", text: secret }] }) });
    } catch (err) {
      refused = `${err.code} ${err.pointer}`;
    }
    await ctx.registerTool({ ...base, name: "claims", execute: async () => ({ content: [{ type: "text", text: secret }], _meta: { sensitiveHint: Infinity } }) });
    const tool = (await ctx.getTools()).find((t) => t.name === "claims");
    const agent = JSON.stringify(await ctx.executeTool(tool, "{}"));
    const names = (await ctx.getTools()).map((t) => t.name);
    uninstall();
    return { refused, names, leaked: agent.includes(secret) };
  });
  assert.deepEqual(out, { refused: "schema_invalid /annotations/sensitiveHint", names: ["claims"], leaked: false });
  await page.close();
});

// The options were copied onto their prototype, so a `signal` getter there answered the
// polyfill's read after the patch's: the polyfill dropped the tool on a signal the patch never
// followed, and a raw tool registered past the patch under that name went unreported.
test("on the polyfill, a signal the options inherit is the one the patch follows", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const ctx = document.modelContext;
    const takenBefore = ctx.registerTool.bind(ctx);
    const { installRedaction } = await import("/js/index.js");
    const warn = console.warn;
    console.warn = () => {};
    const uninstall = await installRedaction();
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    const tool = { name: "get_key", description: "d", inputSchema: { type: "object", properties: {} }, outputSchema: { type: "object", properties: { key: { type: "string", "x-sensitive": true } } }, execute: async () => ({ key: "CANARY-s31-signal" }) };
    const other = new AbortController();
    let reads = 0;
    const options = Object.create({
      get signal() {
        return reads++ === 0 ? undefined : other.signal;
      },
    });
    await ctx.registerTool(tool, options);
    other.abort();
    await settle();
    let raw = "registered";
    try {
      await takenBefore({ ...tool, execute: async () => ({ key: "CANARY-s31-signal" }) });
    } catch (err) {
      raw = err.name; // refused: the patched tool is still registered
    }
    await settle();
    const report = uninstall.unprotectedTools;
    console.warn = warn;
    uninstall();
    return { raw, report };
  });
  assert.deepEqual(out, { raw: "InvalidStateError", report: [] });
  await page.close();
});
