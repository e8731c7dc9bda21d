// Review s30 (helper L), page side, in Chromium on the real MCP-B polyfill: the runtime drops a
// tool registered through the patch only when the signal the patch follows aborts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({});

// A real AbortSignal with an own addEventListener kept the polyfill's abort listener (which does
// not look at `aborted`) and called it alone: the polyfill dropped the tool, the patch still
// counted the name, and a raw tool registered past the patch under it went unreported. The
// polyfill is now given installRedaction's own signal; a lookalike signal is refused.
test("on the polyfill, a signal's own addEventListener cannot make the runtime drop a patched tool", async () => {
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
    const names = async () => (await ctx.getTools()).map((t) => t.name);
    const tool = { name: "get_key", description: "d", inputSchema: { type: "object", properties: {} }, outputSchema: { type: "object", properties: { key: { type: "string", "x-sensitive": true } } }, execute: async () => ({ key: "CANARY-s30-signal" }) };
    const controller = new AbortController();
    const kept = [];
    const signal = controller.signal;
    signal.addEventListener = (_type, fn) => kept.push(fn);
    await ctx.registerTool(tool, { signal });
    kept.at(-1)?.(); // the last listener added: the runtime's, on the code before
    await settle();
    const listed = await names();
    let raw = "registered";
    try {
      await takenBefore({ ...tool, execute: async () => ({ key: "CANARY-s30-signal" }) });
    } catch (err) {
      raw = err.name; // refused: the patched tool is still registered
    }
    await settle();
    const report = uninstall.unprotectedTools;
    // A lookalike signal is refused, as Chromium's own registerTool refuses it.
    const lookalike = { aborted: false, reason: undefined, throwIfAborted() {}, addEventListener() {}, removeEventListener() {} };
    let refused = null;
    try {
      await ctx.registerTool({ ...tool, name: "other" }, { signal: lookalike });
    } catch (err) {
      refused = err.code;
    }
    // A real signal still unregisters.
    controller.abort();
    await settle();
    const afterAbort = await names();
    console.warn = warn;
    uninstall();
    return { listed, raw, report, refused, afterAbort };
  });
  assert.deepEqual(out, { listed: ["get_key"], raw: "InvalidStateError", report: [], refused: "invalid_options", afterAbort: [] });
  await page.close();
});
