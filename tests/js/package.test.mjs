// The package as published: what `npm pack` puts in it (everything the package needs, nothing
// stray), its licenses and metadata, `sideEffects` (exactly the modules that change global
// state when imported), the README's links, and the packed package installed and used as a
// consumer would (import, the CLI, the conformance runner).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { pathToFileURL } from "node:url";
import { consumerProject, packedFiles, root } from "./pack.mjs";

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const files = packedFiles();
const shipped = new Set(files);

/** Every string target of an `exports` map, whatever the condition. */
function targets(exports) {
  if (typeof exports === "string") return [exports];
  return Object.values(exports).flatMap(targets);
}

const rel = (p) => normalize(p).replace(/^\.\//, "");

/**
 * The files a JS module (or declaration file) loads: static and literal dynamic imports, `new URL(…, import.meta.url)`.
 * Comments are left out: a documented example (index.d.ts's `wasm` option) names the user's files, not the package's.
 */
function references(file) {
  const source = readFileSync(join(root, file), "utf8")
    .replace(/^\s*\/\*[\s\S]*?\*\//gm, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const patterns = [
    /\b(?:import|export)\s[^"'`;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\bnew URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url\s*\)/g,
  ];
  const found = patterns.flatMap((p) => [...source.matchAll(p)].map((m) => m[1]));
  return found.filter((s) => s.startsWith("./") || s.startsWith("../")).map((s) => rel(join(dirname(file), s)));
}

/** The files a Markdown document links to by relative links (anchors dropped). */
function links(doc) {
  const text = readFileSync(join(root, doc), "utf8");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith("#"))
    .map((target) => rel(join(dirname(doc), target.split("#")[0])));
}

test("the package holds every file it needs: entry points, what they load, licenses, docs, vectors", () => {
  const entries = [pkg.main, pkg.types, ...Object.values(pkg.bin), ...targets(pkg.exports), ...pkg.sideEffects].map(rel);
  const needed = new Set(["package.json", "README.md", "LICENSE-MIT", "LICENSE-APACHE", ...entries]);
  // Follow what each module loads and each document links to, from the entry points and the README on.
  const queue = [...needed];
  for (const file of queue) {
    const deps = /\.(m?js|d\.ts)$/.test(file) ? references(file) : file.endsWith(".md") ? links(file) : [];
    for (const dep of deps) {
      if (!needed.has(dep)) {
        needed.add(dep);
        queue.push(dep);
      }
    }
  }
  for (const f of ["pkg/webmcp_redact_bg.wasm", "pkg/webmcp_redact_lint_bg.wasm", "tests/vectors/", "tests/vectors/README.md", "docs/lint.md"]) {
    assert.ok(needed.has(f), `${f} is reached from the entry points`);
  }
  for (const f of needed) {
    // A directory (the vectors the conformance runner reads) must hold files.
    const there = f.endsWith("/") ? files.some((x) => x.startsWith(f)) : shipped.has(f);
    assert.ok(there, `${f} is needed but not in the package`);
  }
  const vectors = files.filter((f) => /^tests\/vectors\/\d{3}-[a-z0-9-]+\.json$/.test(f));
  assert.ok(vectors.length >= 100, `${vectors.length} vectors shipped`);
});

test("nothing stray: no tests but the vectors, no sources, build output, tools or demo", () => {
  const allowed = /^(package\.json|README\.md|LICENSE-MIT|LICENSE-APACHE|(bin|js|docs|pkg)\/.+|tests\/vectors\/(README\.md|[^/]+\.json))$/;
  for (const f of files) assert.match(f, allowed, `${f} should not be in the package`);
  for (const prefix of ["tests/js/", "tests/e2e/", "target/", ".tools/", "src/", "fuzz/", "node_modules/", "scripts/", "www/", "bench/", "examples/"]) {
    assert.equal(files.find((f) => f.startsWith(prefix)), undefined, `nothing under ${prefix}`);
  }
});

test("exports: ./conformance is Node only, so no browser or bundler for the browser reaches its node:fs", () => {
  assert.deepEqual(pkg.exports["./conformance"], { types: "./js/conformance.d.ts", node: "./js/conformance.js" });
  assert.match(readFileSync(join(root, "js/conformance.js"), "utf8"), /^import .* from "node:fs";$/m);
});

test("both licenses, named by package.json, with the project's copyright holder", () => {
  assert.equal(pkg.license, "MIT OR Apache-2.0");
  const mit = readFileSync(join(root, "LICENSE-MIT"), "utf8");
  assert.match(mit, /^MIT License\n\nCopyright \(c\) the webmcp-redact authors\n\nPermission is hereby granted, free of charge/);
  assert.match(mit, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/);
  const apache = readFileSync(join(root, "LICENSE-APACHE"), "utf8");
  assert.match(apache, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(apache, /END OF TERMS AND CONDITIONS/);
});

test("the metadata a registry shows: repository, homepage, bugs, keywords", () => {
  assert.equal(pkg.repository.type, "git");
  assert.match(pkg.repository.url, /^git\+https:\/\/github\.com\/[^/]+\/webmcp-redact\.git$/);
  const home = pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
  assert.equal(pkg.homepage, `${home}#readme`);
  assert.equal(pkg.bugs.url, `${home}/issues`);
  for (const word of ["webmcp", "mcp", "redaction", "x-sensitive", "webassembly"]) assert.ok(pkg.keywords.includes(word), word);
});

test("every relative link in the shipped Markdown resolves to a shipped file", () => {
  let count = 0;
  for (const doc of files.filter((f) => f.endsWith(".md"))) {
    for (const file of links(doc)) {
      count++;
      assert.ok(shipped.has(file), `${doc} links to ${file}, which the package does not hold`);
    }
  }
  assert.ok(count >= 3, `${count} relative links checked`);
});

/** What importing `file` in a fresh Node process does to global state. */
function importEffects(file) {
  const script = `
    const defined = [];
    globalThis.HTMLElement = class {};
    globalThis.customElements = { get: () => undefined, define: (name) => defined.push(name) };
    const snapshot = (o) => new Map(Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)]));
    const watched = [globalThis, Object.prototype, Array.prototype, Function.prototype, String.prototype, Promise.prototype];
    // Node defines some globals (TextEncoder, ...) as getters that replace themselves on first
    // use: use each once, so that a module that merely uses one does not count as changing it.
    for (const k of Reflect.ownKeys(globalThis)) try { globalThis[k]; } catch {}
    const before = watched.map(snapshot);
    await import(${JSON.stringify(pathToFileURL(join(root, file)).href)});
    const changed = [];
    watched.forEach((o, i) => {
      for (const [k, d] of snapshot(o)) {
        const was = before[i].get(k);
        if (!was || !Object.is(was.value, d.value) || was.get !== d.get || was.set !== d.set) changed.push(String(k));
      }
    });
    console.log(JSON.stringify({ defined, changed }));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(r.status, 0, `importing ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

test("sideEffects lists exactly the modules that change global state when imported", () => {
  const listed = new Set(pkg.sideEffects.map(rel));
  const modules = files.filter((f) => /^(js|pkg)\/.+\.js$/.test(f));
  assert.ok(modules.length >= 10, `${modules.length} modules`);
  // Every entry point of every condition (node, browser, default) is among them, and what only
  // some entries load: the loaders and the inlined module.
  const entries = targets(pkg.exports).filter((f) => f.endsWith(".js")).map(rel);
  for (const file of [...entries, "js/wasm.js", "js/wasm-node.js", "js/inline-bytes.js", "pkg/webmcp_redact_inline.js"]) {
    assert.ok(modules.includes(file), `${file} is imported by this test`);
  }
  for (const file of modules) {
    const { defined, changed } = importEffects(file);
    const effects = defined.length + changed.length > 0;
    assert.equal(listed.has(file), effects, `${file}: listed in sideEffects ${listed.has(file)}, defines ${defined}, changes ${changed}`);
  }
  assert.deepEqual(importEffects("js/secret-element.js").defined, ["webmcp-secret"]);
});

test("installed from the tarball: the API works (both entries), and so do the CLI's --version and conformance", async (t) => {
  const dir = consumerProject();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (args) => spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8" });

  for (const entry of ["webmcp-redact", "webmcp-redact/inline"]) {
    const use = run(["--input-type=module", "-e", `
      import { createRedactor } from ${JSON.stringify(entry)};
      const redactor = await createRedactor();
      const tool = { name: "t", outputSchema: { properties: { secret: { "x-sensitive": true } } } };
      console.log(redactor.redactJson(tool, '{"id":"k1","secret":"sk_live_PACKED"}').json);`]);
    assert.equal(use.status, 0, `${entry}: ${use.stderr}`);
    assert.match(use.stdout, /"id":"k1"/, entry);
    assert.doesNotMatch(use.stdout, /sk_live_PACKED/, entry);
  }

  const bin = join("node_modules", "webmcp-redact", pkg.bin["webmcp-redact"]);
  const version = run([bin, "--version"]);
  assert.equal(version.stdout, `${pkg.version}\n`, version.stderr);
  const conformance = run([bin, "conformance"]);
  assert.equal(conformance.status, 0, conformance.stdout + conformance.stderr);
  assert.match(conformance.stdout, /^(\d+) of \1 vectors met the proposal's expectations\n$/);
});
