// Review s37 (helper L) on Chromium's own WebMCP implementation: what the runtime lists of its
// tools (getTools(), and the testing API's listTools() where Chromium has it) shows no value a
// result withheld, and the definition the runtime was given holds none.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({ extraArgs: ["--enable-features=WebMCP"] });

test("native WebMCP: getTools() and the runtime's copy show no known value", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const mc = document.modelContext;
    const { installRedaction } = await import("/js/index.js");
    const uninstall = await installRedaction();
    const V = "sk_demo_" + "Q7wX2mZpL9rT4vB8";
    const schema = { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } };
    await mc.registerTool({ name: "issue", description: "d", outputSchema: schema, execute: async () => ({ secret: V }) });
    const issue = (await mc.getTools()).find((t) => t.name === "issue");
    const issued = await mc.executeTool(issue, {});
    await mc.registerTool({ name: "echo", title: "Echo", description: `about ${V}`, inputSchema: { type: "object", properties: { q: { type: "string", description: `the ${V}` } } }, execute: async () => ({}) });
    await mc.registerTool({ name: `n_${V}`, description: "d", execute: async () => ({}) });
    const listed = (await mc.getTools()).map((t) => ({ ...t, window: t.window === window }));
    // The runtime's own listing, past the patch: the definition it was given.
    const raw = await Object.getPrototypeOf(mc).getTools.call(mc);
    const given = JSON.stringify(raw.filter((t) => t.name === "echo").map((t) => ({ ...t, window: null })));
    const testing = navigator.modelContextTesting?.listTools ? await navigator.modelContextTesting.listTools() : null;
    uninstall();
    return { native: mc.__isWebMCPPolyfill !== true, issued, listed: JSON.stringify(listed), names: listed.map((t) => t.name), windows: listed.every((t) => t.window), testing: JSON.stringify(testing), given, V };
  });
  assert.equal(out.native, true, "Chromium's own document.modelContext is in use");
  assert.ok(!out.issued.includes(out.V), out.issued);
  assert.ok(!out.listed.includes(out.V), out.listed);
  assert.ok(!out.testing.includes(out.V), out.testing);
  assert.match(out.given, /about \[redacted: secret\]/);
  assert.ok(!out.given.includes(out.V), out.given);
  assert.deepEqual(out.names.sort(), ["echo", "issue"]);
  assert.equal(out.windows, true, "each entry keeps its window");
  assert.match(out.listed, /\[redacted: secret\]/);
  await page.close();
});
