// The package as a user gets it (npm pack, installed into a fresh project's node_modules),
// imported by its name and bundled by Vite, webpack 5, Rollup and esbuild with no configuration
// beyond what the README's "Loading the module" section states; each page runs in Chromium with
// installRedaction on the MCP-B polyfill: a marked canary never reaches the agent, and after a
// forced trap the next result is redacted again, with no second fetch of the module. Also the
// inline entry with no .wasm anywhere to fetch, and what a page gets when the .wasm is missing.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { promisify } from "node:util";
import { browserForFile, ROOT, TIMEOUT } from "./helpers.mjs";

const run = promisify(execFile);
const env = browserForFile();
const POLYFILL = join(ROOT, "node_modules", "@mcp-b", "webmcp-polyfill", "dist", "index.iife.js");
const CANARY = "BUNDLED_CANARY";
// The CSP a careful page sends: WebAssembly allowed, nothing else beyond its own files.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'";

/** The page's script: installRedaction from `specifier`, then one tool with a marked secret. */
function mainJs(specifier, options = "") {
  return `import { installRedaction } from "${specifier}";
const installing = installRedaction(${options}).then(
  (u) => ({ error: u.error ? { code: u.error.code, name: u.error.name, message: u.error.message } : null }),
  (e) => ({ thrown: String(e) }),
);
let n = 0;
window.pageReady = installing.then(async (installed) => {
  await document.modelContext.registerTool({
    name: "make_key",
    description: "Makes an API key",
    inputSchema: { type: "object", properties: {} },
    outputSchema: { type: "object", properties: { id: { type: "string" }, secret: { type: "string", "x-sensitive": true } } },
    execute: async () => ({ id: "key_" + (++n), secret: "${CANARY}_" + n }),
  });
  return installed;
});
`;
}

const html = (script, { module = true } = {}) => `<!doctype html><html><head><meta charset="utf-8"><title>bundled</title>
<script src="/polyfill.js"></script>
<script ${module ? 'type="module" ' : ""}src="${script}"></script></head><body>bundled</body></html>
`;

let project; // the fresh project: node_modules/webmcp-redact from npm pack, and the pages' sources
const builds = {}; // name -> { dir, warnings }
const servers = {}; // name -> { origin, close() }

/** Serves `dir` and the polyfill (/polyfill.js) on a loopback port, with the page CSP `csp`. */
async function serve(dir, csp = CSP) {
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    let file = path === "/polyfill.js" ? POLYFILL : normalize(join(dir, decodeURIComponent(path)));
    if (path === "/") file = join(dir, "index.html");
    if (file !== POLYFILL && !file.startsWith(dir + sep)) file = "";
    if (!file || !existsSync(file) || !statSync(file).isFile() || !(extname(file) in types)) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      return res.end("not found");
    }
    res.writeHead(200, { "Content-Type": types[extname(file)], "Content-Security-Policy": csp, "Cache-Control": "no-store" });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(undefined)));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => server.close(() => ok(undefined))) };
}

/** `npm pack` of this repository, unpacked where an install would put it. */
async function installPacked() {
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", project], { cwd: ROOT });
  const [{ filename }] = JSON.parse(stdout);
  const dest = join(project, "node_modules", "webmcp-redact");
  mkdirSync(dest, { recursive: true });
  await run("tar", ["-xzf", join(project, filename), "-C", dest, "--strip-components=1"]);
}

function write(rel, text) {
  const file = join(project, rel);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
}

// Vite: nothing to configure. Its index.html is at the project's root, as Vite's own templates
// put it; the polyfill (a classic script) goes in public/.
async function buildVite() {
  const { build } = await import("vite");
  const outDir = join(project, "dist", "vite");
  const warnings = [];
  await build({
    root: project,
    configFile: false,
    logLevel: "silent",
    // Vite 8's bundler (Rolldown) warns PLUGIN_TIMINGS when its plugins' JavaScript took a large
    // share of the build: a measure of this machine's load, not of the package, which made this
    // test fail on a busy machine. Every other warning still counts.
    build: { outDir, emptyOutDir: true, rollupOptions: { onwarn: (w) => w.code === "PLUGIN_TIMINGS" || warnings.push(String(w.message ?? w)) } },
  });
  return { dir: outDir, warnings };
}

// webpack 5: mode, entry and output only.
async function buildWebpack() {
  const { default: webpack } = await import("webpack");
  const dir = join(project, "dist", "webpack");
  const stats = await new Promise((ok, ko) => {
    webpack({ mode: "production", context: project, entry: "./src/main.js", output: { path: dir } }, (err, s) => (err ? ko(err) : ok(s)));
  });
  const info = stats.toJson({ all: false, errors: true, warnings: true });
  if (stats.hasErrors()) throw new Error(`webpack: ${info.errors.map((e) => e.message).join("\n")}`);
  writeFileSync(join(dir, "index.html"), html("main.js", { module: false }));
  return { dir, warnings: info.warnings.map((w) => w.message) };
}

// Rollup: @rollup/plugin-node-resolve (finds the package) and @web/rollup-plugin-import-meta-assets
// (emits the .wasm that new URL(..., import.meta.url) names), as the README says.
async function buildRollup() {
  // "rollup" is Rollup's WebAssembly build (@rollup/wasm-node, package.json): the same bundler,
  // without the native binaries for every platform that `npm ci` would need this registry to hold.
  const { rollup } = await import("rollup");
  const { nodeResolve } = await import("@rollup/plugin-node-resolve");
  const { importMetaAssets } = await import("@web/rollup-plugin-import-meta-assets");
  const dir = join(project, "dist", "rollup");
  const warnings = [];
  const bundle = await rollup({ input: join(project, "src", "main.js"), plugins: [nodeResolve(), importMetaAssets()], onwarn: (w) => warnings.push(w.message) });
  await bundle.write({ dir, format: "es" });
  await bundle.close();
  writeFileSync(join(dir, "index.html"), html("main.js"));
  return { dir, warnings };
}

// esbuild: --bundle --format=esm. It does not emit what new URL(..., import.meta.url) names, so
// the README's way is to copy the .wasm beside the bundle and pass it as `wasm`, or to import
// webmcp-redact/inline. `copy: false` leaves the .wasm out, to see what a page then gets.
async function buildEsbuild(name, entry, { copy = false } = {}) {
  const esbuild = await import("esbuild");
  const dir = join(project, "dist", name);
  const result = await esbuild.build({ entryPoints: [join(project, "src", entry)], bundle: true, format: "esm", outdir: dir, logLevel: "silent" });
  if (copy) copyFileSync(join(project, "node_modules", "webmcp-redact", "pkg", "webmcp_redact_bg.wasm"), join(dir, "webmcp_redact_bg.wasm"));
  writeFileSync(join(dir, "index.html"), html(entry));
  return { dir, warnings: result.warnings.map((w) => w.text) };
}

before(async () => {
  project = mkdtempSync(join(tmpdir(), "webmcp-redact-bundlers-"));
  await installPacked();
  write("src/main.js", mainJs("webmcp-redact"));
  write("src/copied.js", mainJs("webmcp-redact", `{ wasm: new URL("./webmcp_redact_bg.wasm", import.meta.url) }`));
  write("src/inline.js", mainJs("webmcp-redact/inline") + `
// What createRedactor itself rejects with when the module cannot load (see the CSP test).
import { createRedactor, RedactionError } from "webmcp-redact/inline";
window.direct = createRedactor().then(
  () => null,
  (e) => ({ isRedactionError: e instanceof RedactionError, name: e.name, code: e.code, message: e.message, cause: e.cause?.name }),
);
`);
  write("package.json", JSON.stringify({ name: "bundled-page", private: true, type: "module" }));
  write("index.html", html("./src/main.js"));
  write("public/polyfill.js", readFileSync(POLYFILL, "utf8"));
  // One process builds them all; esbuild and Vite's Rolldown work in threads of their own, so
  // starting them together overlaps them with webpack's and Rollup's JavaScript.
  const made = await Promise.all([
    buildVite(),
    buildWebpack(),
    buildRollup(),
    buildEsbuild("esbuild", "copied.js", { copy: true }),
    buildEsbuild("esbuild-inline", "inline.js"),
    buildEsbuild("esbuild-missing", "main.js"),
  ]);
  for (const [i, name] of ["vite", "webpack", "rollup", "esbuild", "esbuild-inline", "esbuild-missing"].entries()) builds[name] = made[i];

  // Each build at the root of an origin of its own, as deployed (Vite's default base is "/").
  for (const name of Object.keys(builds)) servers[name] = await serve(builds[name].dir);
  // The inline build again, on a page whose CSP does not allow WebAssembly.
  servers["inline-nowasm"] = await serve(builds["esbuild-inline"].dir, "default-src 'self'; script-src 'self'");
}, { timeout: 110_000 });

after(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  if (project) rmSync(project, { recursive: true, force: true });
});

/**
 * Opens the page of build `name`, waits for installRedaction and the tool, then calls the tool as an agent does
 * (getTools, executeTool) three times: before, during (a forced trap) and after a trap.
 */
async function agentRun(name) {
  const page = await env.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const wasmRequests = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith(".wasm")) wasmRequests.push(path);
  });
  await page.goto(`${servers[name].origin}/`);
  const out = await page.evaluate(async () => {
    const ready = /** @type {any} */ (window).pageReady;
    if (!ready) throw new Error("the page's script did not run");
    const installed = await ready;
    const mc = /** @type {any} */ (document).modelContext;
    const call = async () => mc.executeTool((await mc.getTools()).find((t) => t.name === "make_key"), "{}");
    const first = await call();
    // A real trap: the module cannot make a handle without randomness and aborts.
    const real = crypto.getRandomValues;
    crypto.getRandomValues = function () {
      crypto.getRandomValues = real;
      throw new Error("no randomness today");
    };
    let trapped;
    try {
      trapped = await call();
    } finally {
      crypto.getRandomValues = real;
    }
    const afterTrap = await call();
    return { installed, first, trapped, afterTrap };
  });
  await page.close();
  return { ...out, errors, wasmRequests };
}

/** What every working page must show. */
function assertRedacts(name, out) {
  assert.deepEqual(out.installed, { error: null }, name);
  assert.deepEqual(out.errors, [], name);
  for (const view of [out.first, out.afterTrap]) {
    assert.equal(typeof view, "string");
    assert.ok(!view.includes(CANARY), `${name}: the canary reached the agent: ${view}`);
    assert.match(view, /"secret_reference"/, name);
    assert.match(view, /key_\d/, `${name}: the rest of the result is there`);
  }
  assert.equal(out.trapped, '{"content":[{"type":"text","text":"The result of make_key was withheld: internal."}],"isError":true}', name);
}

/**
 * The bundler left no warning about the package. webpack's performance hints are about the app's
 * size (the .wasm is over its 244 KiB): "asset size limit", "entrypoint size limit", and, when the
 * app has no lazy chunk (with sideEffects, the unused lint module and its import() are dropped),
 * "webpack performance recommendations".
 */
function assertQuiet(name) {
  const warnings = builds[name].warnings.filter((w) => !/^(asset size limit|entrypoint size limit|webpack performance recommendations):/.test(w));
  assert.deepEqual(warnings, [], `${name} warned`);
}

/** The built files: no Node-only import and (but for the inline entry) one .wasm asset. */
function emitted(name) {
  const files = readdirSync(builds[name].dir, { recursive: true }).map(String);
  const js = files.filter((f) => f.endsWith(".js"));
  const code = js.map((f) => readFileSync(join(builds[name].dir, f), "utf8")).join("\n");
  return { wasm: files.filter((f) => f.endsWith(".wasm")), js, nodeImport: /["']node:/.test(code) };
}

for (const name of ["vite", "webpack", "rollup"]) {
  test(`${name}: the README's set-up bundles the package; redacts on the polyfill, and again after a trap`, async () => {
    assertQuiet(name);
    const { wasm, js, nodeImport } = emitted(name);
    assert.equal(nodeImport, false, "no Node-only import in the bundle");
    assert.ok(wasm.some((f) => /webmcp_redact_bg|^[0-9a-f]+\.wasm$/.test(f.split(/[\\/]/).pop() ?? "")), `${name} emitted the module: ${wasm}`);
    // The page never calls lintTools: package.json sideEffects lets webpack drop lint.js and so
    // its import() of lint's glue, which it would otherwise emit as a lazy chunk. (Vite and
    // Rollup keep that chunk; it is never fetched.)
    if (name === "webpack") assert.deepEqual(js, ["main.js"], `${name} emitted ${js}`);
    const out = await agentRun(name);
    assertRedacts(name, out);
    // The module is fetched once; the trap is recovered from the compiled module, not a re-fetch.
    assert.equal(out.wasmRequests.length, 1, `${name}: ${out.wasmRequests}`);
    assert.match(out.wasmRequests[0], /webmcp_redact_bg|\/[0-9a-f]+\.wasm$/);
  });
}

test("vite dev: the dev server (dependencies pre-bundled) serves the module; redacts, and again after a trap", async () => {
  const { createServer: createViteServer } = await import("vite");
  const vite = await createViteServer({ root: project, configFile: false, logLevel: "silent", server: { host: "127.0.0.1", port: 0 } });
  await vite.listen();
  try {
    servers["vite-dev"] = { origin: String(vite.resolvedUrls?.local[0]).replace(/\/$/, ""), close: async () => {} };
    const out = await agentRun("vite-dev");
    assertRedacts("vite dev", out);
    assert.equal(out.wasmRequests.length, 1, String(out.wasmRequests));
    assert.match(out.wasmRequests[0], /\/webmcp-redact\/pkg\/webmcp_redact_bg\.wasm$/);
  } finally {
    await vite.close();
  }
});

test("esbuild: the .wasm copied beside the bundle and passed as wasm; redacts, and again after a trap", async () => {
  assertQuiet("esbuild");
  assert.equal(emitted("esbuild").nodeImport, false);
  const out = await agentRun("esbuild");
  assertRedacts("esbuild", out);
  assert.deepEqual(out.wasmRequests, ["/webmcp_redact_bg.wasm"]);
});

test("the inline entry (bundled by esbuild): no .wasm exists or is fetched; redacts, and again after a trap", async () => {
  assertQuiet("esbuild-inline");
  const { wasm, nodeImport } = emitted("esbuild-inline");
  assert.deepEqual({ wasm, nodeImport }, { wasm: [], nodeImport: false });
  const out = await agentRun("esbuild-inline");
  assertRedacts("esbuild-inline", out);
  assert.deepEqual(out.wasmRequests, []);
});

test("esbuild without the copy: wasm_unavailable names the URL and the 404, and every result is withheld", async () => {
  const out = await agentRun("esbuild-missing");
  assert.equal(out.installed.error.name, "RedactionError");
  assert.equal(out.installed.error.code, "wasm_unavailable");
  assert.equal(
    out.installed.error.message,
    `webmcp-redact: wasm_unavailable: cannot load ${servers["esbuild-missing"].origin}/pkg/webmcp_redact_bg.wasm: HTTP 404 Not Found`,
  );
  assert.deepEqual(out.wasmRequests, ["/pkg/webmcp_redact_bg.wasm"]);
  for (const view of [out.first, out.afterTrap]) {
    assert.equal(view, '{"content":[{"type":"text","text":"The result of make_key was withheld: wasm_unavailable."}],"isError":true}');
  }
});

test("a CSP without 'wasm-unsafe-eval': wasm_unavailable names the directive once, never a raw CompileError", async () => {
  const page = await env.page();
  const messages = [];
  page.on("console", (m) => messages.push(m.text()));
  await page.goto(`${servers["inline-nowasm"].origin}/`);
  const out = await page.evaluate(async () => {
    const w = /** @type {any} */ (window);
    const installed = await w.pageReady;
    const mc = /** @type {any} */ (document).modelContext;
    const view = await mc.executeTool((await mc.getTools()).find((t) => t.name === "make_key"), "{}");
    return { installed, direct: await w.direct, view };
  });
  await page.close();
  const expected = "webmcp-redact: wasm_unavailable: cannot load the inlined webmcp_redact_bg.wasm: " +
    "the page's Content-Security-Policy directive \"script-src 'self'\" does not allow WebAssembly: add 'wasm-unsafe-eval' to script-src";
  assert.deepEqual(out.direct, { isRedactionError: true, name: "RedactionError", code: "wasm_unavailable", message: expected, cause: "CompileError" });
  assert.deepEqual(out.installed, { error: { code: "wasm_unavailable", name: "RedactionError", message: expected } });
  assert.equal(out.view, '{"content":[{"type":"text","text":"The result of make_key was withheld: wasm_unavailable."}],"isError":true}');
  // installRedaction's report on the console: the message once, with one prefix.
  const reports = messages.filter((m) => m.includes("wasm_unavailable"));
  assert.deepEqual(reports, [`${expected} (installRedaction: every tool result is withheld)`]);
});
