// installRedaction on the MCP-B polyfill in real Chromium, and on a page whose CSP forbids
// WebAssembly.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile();

async function blank(query = "") {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html${query}`);
  return page;
}

test("installRedaction on the polyfill: compile at registration, pass-through, report, uninstall", async () => {
  const page = await blank();
  const out = await page.evaluate(async () => {
    const mc = document.modelContext;
    const agentCall = async (name, input = {}) => {
      const tool = (await mc.getTools()).find((t) => t.name === name);
      return mc.executeTool(tool, JSON.stringify(input));
    };
    const r = {};
    // Registered before installation: not covered, and reported.
    await mc.registerTool({ name: "early_tool", description: "d", execute: async () => ({ secret: "EARLY_CANARY" }) });
    const { installRedaction } = await import("/js/index.js");
    const uninstall = await installRedaction();
    r.unprotected = uninstall.unprotectedTools;
    r.error = uninstall.error ?? null;

    const schema = { type: "object", properties: { id: { type: "string" }, secret: { type: "string", "x-sensitive": true } } };
    const ac = new AbortController();
    const tool = {
      name: "make_key",
      title: "Make a key",
      description: "Makes a key",
      inputSchema: { type: "object", properties: { n: { type: "number" } } },
      outputSchema: schema,
      annotations: { readOnlyHint: true, sensitiveHint: false },
      execute: async ({ n }) => ({ id: `k${n}`, secret: "PAGE_CANARY_1234" }),
    };
    r.registerReturn = await mc.registerTool(tool, { signal: ac.signal });
    const listed = (await mc.getTools()).find((t) => t.name === "make_key");
    r.listed = { title: listed.title, inputSchema: listed.inputSchema, annotations: listed.annotations };
    r.agent = await agentCall("make_key", { n: 7 });
    tool.outputSchema = {}; // later changes to the definition do not matter
    r.agentAgain = await agentCall("make_key", { n: 8 });

    // A bad schema: registerTool rejects with the RedactionError naming the tool.
    try {
      await mc.registerTool({ name: "bad_schema", description: "d", outputSchema: { properties: { a: { "x-sensitive": 5 } } }, execute: () => ({}) });
      r.bad = "registered";
    } catch (e) {
      r.bad = { name: e.name, code: e.code, message: e.message };
    }
    r.badListed = (await mc.getTools()).some((t) => t.name === "bad_schema");

    // The runtime's own errors pass through (duplicate name).
    try {
      await mc.registerTool({ ...tool, outputSchema: schema });
      r.dup = "registered";
    } catch (e) {
      r.dup = e.name;
    }

    // A thrown error's text is redacted too (the secret is known to the vault now).
    await mc.registerTool({ name: "thrower", description: "d", execute: async () => { throw new Error("failed with PAGE_CANARY_1234"); } });
    r.thrown = await agentCall("thrower");

    // The AbortSignal reached the runtime: aborting unregisters.
    ac.abort();
    await new Promise((ok) => setTimeout(ok, 20));
    r.afterAbort = (await mc.getTools()).some((t) => t.name === "make_key");

    // uninstall restores the original registerTool.
    uninstall();
    r.restored = mc.registerTool === Object.getPrototypeOf(mc).registerTool && !Object.hasOwn(mc, "registerTool");
    await mc.registerTool({ name: "late_tool", description: "d", outputSchema: schema, execute: async () => ({ secret: "LATE_RAW" }) });
    r.late = await agentCall("late_tool");
    return r;
  });
  assert.deepEqual(out.unprotected, ["early_tool"]);
  assert.equal(out.error, null);
  assert.equal(out.registerReturn, undefined);
  assert.deepEqual(out.listed, { title: "Make a key", inputSchema: { type: "object", properties: { n: { type: "number" } } }, annotations: { readOnlyHint: true, untrustedContentHint: false } });
  for (const a of [out.agent, out.agentAgain]) {
    assert.ok(!a.includes("PAGE_CANARY"), a);
    assert.match(a, /"secret_reference"/);
  }
  assert.match(out.agent, /k7/);
  assert.equal(out.bad.name, "RedactionError");
  assert.equal(out.bad.code, "schema_invalid");
  assert.match(out.bad.message, /bad_schema/);
  assert.equal(out.badListed, false);
  assert.equal(out.dup, "InvalidStateError");
  assert.ok(!out.thrown.includes("PAGE_CANARY"), out.thrown);
  assert.equal(out.afterAbort, false);
  assert.equal(out.restored, true);
  assert.match(out.late, /LATE_RAW/, "after uninstall, tools are no longer redacted");
  await page.close();
});

test("a CSP without 'wasm-unsafe-eval': registerTool is still patched, every result withheld, wasm_unavailable reported", async () => {
  const page = await blank("?csp=nowasm");
  const messages = [];
  page.on("console", (m) => messages.push(m.text()));
  const out = await page.evaluate(async () => {
    const mc = document.modelContext;
    const { installRedaction } = await import("/js/index.js");
    const errors = [];
    const uninstall = await installRedaction({ onError: (e) => errors.push({ name: e.name, code: e.code, message: e.message }) });
    await mc.registerTool({ name: "leaky", description: "d", execute: async () => ({ secret: "CSP_CANARY" }) });
    await mc.registerTool({
      name: "leaky_result",
      description: "d",
      execute: async () => ({ content: [{ type: "text", text: "CSP_CANARY" }] }),
    });
    const tools = await mc.getTools();
    const results = [];
    for (const t of tools) results.push(await mc.executeTool(t, "{}"));
    return {
      patched: Object.hasOwn(mc, "registerTool"),
      error: { name: uninstall.error?.name, code: uninstall.error?.code, message: uninstall.error?.message },
      errors,
      results,
    };
  });
  assert.equal(out.patched, true);
  assert.equal(out.error.name, "RedactionError");
  assert.equal(out.error.code, "wasm_unavailable");
  assert.match(out.error.message, /'wasm-unsafe-eval'/);
  assert.match(out.error.message, /Content-Security-Policy/);
  assert.deepEqual(out.errors.map((e) => e.code), ["wasm_unavailable"]);
  assert.equal(out.results.length, 2);
  for (const r of out.results) {
    assert.ok(!r.includes("CSP_CANARY"), r);
    assert.match(r, /was withheld: wasm_unavailable/);
    assert.match(r, /"isError":true/);
  }
  await page.close();
});

test("installRedaction on the polyfill: a <form toolname> is reported in unprotectedTools, live", async () => {
  const page = await blank();
  const out = await page.evaluate(async () => {
    const r = { warnings: [] };
    const warn = console.warn;
    console.warn = (m) => r.warnings.push(String(m));
    const form = document.createElement("form");
    form.setAttribute("toolname", "contact_us");
    form.setAttribute("tooldescription", "Sends a message");
    document.body.append(form);
    const { installRedaction } = await import("/js/index.js");
    const uninstall = await installRedaction();
    r.polyfill = document.modelContext.__isWebMCPPolyfill === true;
    r.respondWith = typeof SubmitEvent.prototype.respondWith === "function";
    r.atInstall = uninstall.unprotectedTools;
    form.setAttribute("toolname", "contact_support");
    await Promise.resolve(); // the observer runs at the microtask checkpoint after the mutation
    r.renamed = uninstall.unprotectedTools;
    form.remove();
    await Promise.resolve();
    r.removed = uninstall.unprotectedTools;
    uninstall();
    console.warn = warn;
    return r;
  });
  assert.equal(out.polyfill, true);
  assert.deepEqual(out.atInstall, ["contact_us"]);
  assert.deepEqual(out.renamed, ["contact_support"]);
  assert.deepEqual(out.removed, []);
  const said = out.warnings.filter((w) => w.includes("<form toolname>"));
  assert.equal(said.length, 2, out.warnings.join("\n"));
  // Without the runtime's respondWith nothing can be intercepted, and the warning says so.
  assert.equal(said.every((w) => w.includes(out.respondWith ? "respondWith are redacted" : "not redacted")), true, said.join("\n"));
});
