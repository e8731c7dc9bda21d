// Loading the module: every form of the `wasm` option, the first load winning, and each way a
// load fails becoming one RedactionError `wasm_unavailable` whose message says what and why.
// The engine is one per realm, so each scenario runs in a worker thread of its own (realm.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";

const PKG = new URL("../../pkg/", import.meta.url);
const WASM = readFileSync(new URL("webmcp_redact_bg.wasm", PKG));
const LINT_WASM = readFileSync(new URL("webmcp_redact_lint_bg.wasm", PKG));
// The smallest valid module: the magic word and version, nothing else.
const EMPTY_MODULE = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);

// A loopback server: /ok.wasm the module, /junk.wasm not a module, anything else 404.
let server;
let base;
const requests = [];
before(async () => {
  server = createServer((req, res) => {
    requests.push(req.url);
    if (req.url === "/ok.wasm") {
      res.writeHead(200, { "Content-Type": "application/wasm" });
      res.end(WASM);
    } else if (req.url === "/junk.wasm") {
      res.writeHead(200, { "Content-Type": "application/wasm" });
      res.end("<!doctype html><p>not wasm</p>");
    } else {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end("not found");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((ok) => server.close(ok)));

/** Runs `body` (an async function body of `ctx`) in a fresh realm; returns { value } or { thrown }. */
function inRealm(body, data = {}) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./realm.mjs", import.meta.url), { workerData: { body, data: { base, ...data } } });
    worker.once("message", (m) => {
      resolve(m);
      worker.terminate();
    });
    worker.once("error", reject);
  });
}

// The body that checks a redactor works: the marked secret is not in the agent view.
const REDACTS = `
  const tool = { name: "t", outputSchema: { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } } };
  const check = (r) => {
    const out = r.redact(tool, { id: 1, secret: "LOAD_CANARY" });
    if (JSON.stringify(out.result).includes("LOAD_CANARY") || out.redactions.length !== 1) throw new Error("did not redact: " + JSON.stringify(out));
    return r.format;
  };
`;

/** Asserts a wasm_unavailable RedactionError whose message says `what` and `why` once. */
function assertUnavailable(thrown, what, why) {
  assert.ok(thrown, "the load must fail");
  assert.equal(thrown.isRedactionError, true, `a RedactionError: ${JSON.stringify(thrown)}`);
  assert.equal(thrown.name, "RedactionError");
  assert.equal(thrown.code, "wasm_unavailable");
  assert.ok(thrown.message.includes(what), `${thrown.message} names ${what}`);
  assert.match(thrown.message, why);
  assert.equal(thrown.message.split("wasm_unavailable").length, 2, `the code once: ${thrown.message}`);
  assert.equal(thrown.message.split("webmcp-redact:").length, 2, `the prefix once: ${thrown.message}`);
}

test("each form of the wasm option loads the module", async () => {
  const forms = {
    "a file: URL": `return new URL("webmcp_redact_bg.wasm", ctx.data.pkg)`,
    "a file: URL as a string": `return new URL("webmcp_redact_bg.wasm", ctx.data.pkg).href`,
    "an http: URL as a string": `return ctx.data.base + "/ok.wasm"`,
    "an ArrayBuffer": `return ctx.data.bytes.buffer.slice(ctx.data.bytes.byteOffset, ctx.data.bytes.byteOffset + ctx.data.bytes.byteLength)`,
    "a Uint8Array": `return ctx.data.bytes`,
    "a DataView": `return new DataView(ctx.data.bytes.buffer, ctx.data.bytes.byteOffset, ctx.data.bytes.byteLength)`,
    "a Response": `return await fetch(ctx.data.base + "/ok.wasm")`,
    "a constructed Response": `return new Response(ctx.data.bytes)`,
    "a promise of a Response": `return { promise: fetch(ctx.data.base + "/ok.wasm") }`,
    "a promise of bytes": `return { promise: Promise.resolve(ctx.data.bytes) }`,
    "a WebAssembly.Module": `return await WebAssembly.compile(ctx.data.bytes)`,
  };
  const data = { pkg: PKG.href, bytes: new Uint8Array(WASM) };
  for (const [name, make] of Object.entries(forms)) {
    for (const api of ["createRedactor", "installRedaction"]) {
      const out = await inRealm(`${REDACTS}
        const made = await (async () => { ${make} })();
        const wasm = made && made.promise ? made.promise : made;
        const m = await ctx.import("webmcp-redact");
        if (${JSON.stringify(api)} === "createRedactor") return check(await m.createRedactor({ wasm, format: "mcp" }));
        const modelContext = { registerTool() {} };
        const uninstall = await m.installRedaction({ modelContext, wasm, format: "mcp" });
        if (uninstall.error) throw uninstall.error;
        return check(uninstall.redactor);
      `, data);
      assert.deepEqual(out, { value: "mcp" }, `${name} via ${api}: ${JSON.stringify(out)}`);
    }
  }
});

test("an HTTP error names the URL and the status", async () => {
  const out = await inRealm(`const m = await ctx.import("webmcp-redact"); await m.createRedactor({ wasm: ctx.data.base + "/missing.wasm" });`);
  assertUnavailable(out.thrown, `${base}/missing.wasm`, /: HTTP 404 Not Found$/);
  const response = await inRealm(`const m = await ctx.import("webmcp-redact"); await m.createRedactor({ wasm: fetch(ctx.data.base + "/gone.wasm") });`);
  assertUnavailable(response.thrown, `the Response from ${base}/gone.wasm`, /: HTTP 404 Not Found$/);
});

test("bytes that are not WebAssembly, or not this package's module, are wasm_unavailable", async () => {
  const cases = [
    ["HTML bytes", `new TextEncoder().encode("<!doctype html>")`, "the bytes given as wasm", /CompileError: /, "CompileError"],
    ["a page that is not wasm", `ctx.data.base + "/junk.wasm"`, "/junk.wasm", /CompileError: /, "CompileError"],
    ["an empty module", `ctx.data.empty`, "the bytes given as wasm", /it is not webmcp_redact_bg\.wasm of this version/, "Error"],
    ["the lint module", `ctx.data.lint`, "the bytes given as wasm", /it is not webmcp_redact_bg\.wasm of this version/, "Error"],
    ["a missing file", `new URL("file:///nonexistent/webmcp_redact_bg.wasm")`, "file:///nonexistent/webmcp_redact_bg.wasm", /: ENOENT: no such file or directory$/, "Error"],
    ["a relative URL in Node", `"pkg/webmcp_redact_bg.wasm"`, "the WebAssembly module", /"pkg\/webmcp_redact_bg\.wasm" is not an absolute URL/, "Error"],
  ];
  for (const [name, wasm, what, why, causeName] of cases) {
    const out = await inRealm(`const m = await ctx.import("webmcp-redact"); await m.createRedactor({ wasm: ${wasm} });`, { empty: EMPTY_MODULE, lint: new Uint8Array(LINT_WASM) });
    assertUnavailable(out.thrown, what, why);
    assert.equal(out.thrown.causeName, causeName, name);
  }
});

test("a failed load leaves nothing behind: the next call loads the module", async () => {
  const out = await inRealm(`${REDACTS}
    const m = await ctx.import("webmcp-redact");
    const codes = [];
    // The foreign module would instantiate (it imports nothing): the glue must never keep it.
    for (const wasm of [ctx.data.empty, ctx.data.base + "/missing.wasm"]) {
      await m.createRedactor({ wasm }).then(() => codes.push("loaded"), (e) => codes.push(e.code));
    }
    const lint = await m.lintTools({ name: "t" });
    return { codes, format: check(await m.createRedactor()), lint: Array.isArray(lint) };
  `, { empty: EMPTY_MODULE });
  assert.deepEqual(out, { value: { codes: ["wasm_unavailable", "wasm_unavailable"], format: "webmcp", lint: true } });
});

test("the first load wins: a later wasm is neither fetched nor compiled", async () => {
  requests.length = 0;
  const out = await inRealm(`${REDACTS}
    const m = await ctx.import("webmcp-redact");
    // Two loads under way at once: the second waits for the first and never fetches.
    const [a, b] = await Promise.all([
      m.createRedactor({ wasm: ctx.data.base + "/ok.wasm" }),
      m.createRedactor({ wasm: ctx.data.base + "/second.wasm" }),
    ]);
    const later = await m.createRedactor({ wasm: ctx.data.base + "/later.wasm" });
    const junk = await m.createRedactor({ wasm: new Uint8Array(4) });
    const install = await m.installRedaction({ modelContext: { registerTool() {} }, wasm: ctx.data.base + "/install.wasm" });
    return [check(a), check(b), check(later), check(junk), install.error ?? null, check(install.redactor)];
  `);
  assert.deepEqual(out, { value: ["webmcp", "webmcp", "webmcp", "webmcp", null, "webmcp"] });
  assert.deepEqual(requests, ["/ok.wasm"]);
});

test("a wasm option of the wrong kind is a TypeError invalid_options; the core never sees wasm", async () => {
  const out = await inRealm(`
    const m = await ctx.import("webmcp-redact");
    const errors = [];
    for (const wasm of [5, {}, null, () => ctx.data.bytes, Promise.resolve(7)]) {
      for (const call of [() => m.createRedactor({ wasm }), () => m.installRedaction({ modelContext: { registerTool() {} }, wasm })]) {
        try {
          await call();
          errors.push("no error");
        } catch (e) {
          errors.push(e instanceof TypeError && e.code === "invalid_options" && /wasm must be a URL/.test(e.message) ? "ok" : e.name + ": " + e.message);
        }
      }
    }
    // The other options are still the core's to check, and the caller's object is left alone.
    const options = { wasm: ctx.data.bytes, bogus: 1 };
    const unknown = await m.createRedactor(options).then(() => "no error", (e) => e.message);
    return { errors, unknown, kept: options.wasm === ctx.data.bytes };
  `, { bytes: new Uint8Array(WASM) });
  assert.deepEqual(out.value.errors, Array(10).fill("ok"));
  assert.equal(out.value.unknown, "createRedactor: unknown option bogus");
  assert.equal(out.value.kept, true);
});

test("installRedaction without its module: every result withheld, the error reported once, with one prefix", async () => {
  const out = await inRealm(`
    const m = await ctx.import("webmcp-redact");
    const logged = [];
    console.error = (...args) => logged.push(args.join(" "));
    const tools = [];
    const modelContext = { registerTool(tool) { tools.push(tool); } };
    const uninstall = await m.installRedaction({ modelContext, wasm: ctx.data.base + "/missing.wasm" });
    await modelContext.registerTool({ name: "leaky", execute: async () => ({ secret: "INSTALL_CANARY" }) });
    const result = await tools[0].execute({});
    return { code: uninstall.error.code, message: uninstall.error.message, logged, result: JSON.stringify(result), redactor: uninstall.redactor };
  `);
  const { code, message, logged, result, redactor } = out.value;
  assert.equal(code, "wasm_unavailable");
  assert.equal(redactor, null);
  assert.equal(result, '{"content":[{"type":"text","text":"The result of leaky was withheld: wasm_unavailable."}],"isError":true}');
  assert.equal(logged.length, 1);
  assert.equal(logged[0], `${message} (installRedaction: every tool result is withheld)`);
  assert.equal(logged[0].split("webmcp-redact:").length, 2, logged[0]);
  assert.ok(message.includes(`${base}/missing.wasm: HTTP 404`), message);
});

test("the inline entry needs no file: its browser build, which can only fetch, loads in Node", async () => {
  const out = await inRealm(`${REDACTS}
    const inline = await ctx.import(ctx.data.inline);
    const first = check(await inline.createRedactor({ format: "mcp" }));
    // By name too (the "node" condition), in the same realm: the same engine.
    const byName = await ctx.import("webmcp-redact/inline");
    return [first, check(await byName.createRedactor())];
  `, { inline: new URL("../../js/inline.js", import.meta.url).href });
  assert.deepEqual(out, { value: ["mcp", "webmcp"] });
  // The browser entry, by contrast, can only fetch: in Node its default load says so.
  const browser = await inRealm(`const m = await ctx.import(ctx.data.index); await m.createRedactor();`, { index: new URL("../../js/index.js", import.meta.url).href });
  assertUnavailable(browser.thrown, "/pkg/webmcp_redact_bg.wasm", /fetch\(\) cannot read file: URLs/);
});

test("package.json exports: types first, Node's entries under node, and no Node-only import on the others' paths", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  const entries = { ".": ["./js/index.d.ts", "./js/index.node.js", "./js/index.js"], "./inline": ["./js/inline.d.ts", "./js/inline.node.js", "./js/inline.js"] };
  for (const [subpath, [types, node, browser]] of Object.entries(entries)) {
    assert.deepEqual(pkg.exports[subpath], { types, node, browser, default: browser }, subpath);
    for (const file of [types, node, browser]) assert.ok(pkg.files.some((f) => file.startsWith(`./${f}`)), `${file} is in files`);
  }
  assert.ok(pkg.files.includes("pkg/webmcp_redact_inline.js"));
  // Every module a browser entry reaches, by its static and literal dynamic imports.
  const seen = new Set();
  const visit = (url) => {
    if (seen.has(url.href)) return;
    seen.add(url.href);
    const source = readFileSync(url, "utf8");
    const specifiers = [
      ...source.matchAll(/^\s*(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']/gm), // import/export ... from "x"
      ...source.matchAll(/^\s*import\s*["']([^"']+)["']/gm), // import "x"
      ...source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g), // import("x")
    ].map((m) => m[1]);
    for (const specifier of specifiers) {
      assert.ok(!specifier.startsWith("node:"), `${url.pathname} imports ${specifier}`);
      assert.ok(specifier.startsWith("."), `${url.pathname} imports a bare ${specifier}`);
      visit(new URL(specifier, url));
    }
  };
  for (const entry of ["../../js/index.js", "../../js/inline.js"]) visit(new URL(entry, import.meta.url));
  assert.ok([...seen].some((u) => u.endsWith("/js/wasm.js")) && [...seen].some((u) => u.endsWith("/pkg/webmcp_redact_lint.js")), "the walk reached the loader and lint's glue");
  assert.ok(![...seen].some((u) => u.endsWith("/js/wasm-node.js")));
});
