// The ratio bench's own static server (loopback, any free port): bench/, js/ and pkg/ as they
// are, and the two CommonJS peers as ES modules (/peers/<name>.mjs). Cross-origin isolated
// (COOP + COEP), so that performance.now() in the page keeps microseconds instead of 100 us.

import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIRS = ["bench", "js", "pkg"];
const TYPES = { ".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm" };
export const PEERS = { "fast-redact": "/peers/fast-redact.mjs", "@pinojs/redact": "/peers/pinojs-redact.mjs" };

/**
 * A CommonJS package as one ES module whose default export is its `module.exports`: each file
 * it reaches through relative `require`s becomes a function, as Node would wrap it. Both peers
 * are plain CommonJS with no dependencies and no Node built-ins, which is all this handles (it
 * throws otherwise), so the bench needs no bundler.
 */
export function cjsAsModule(name) {
  const entry = createRequire(import.meta.url).resolve(name);
  const base = dirname(entry);
  const files = new Map(); // id (path from the package's entry) -> { source, deps: { spec: id } }
  const visit = (file) => {
    const id = relative(base, file);
    if (files.has(id)) return id;
    const source = readFileSync(file, "utf8");
    const mod = { source, deps: {} };
    files.set(id, mod);
    for (const [, spec] of source.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      if (!spec.startsWith(".")) throw new Error(`${name}: require("${spec}") is not a relative file`);
      const path = join(dirname(file), spec);
      mod.deps[spec] = visit(existsSync(path) && extname(path) ? path : `${path}.js`);
    }
    return id;
  };
  const main = visit(entry);
  const defs = [...files].map(([id, { source, deps }]) =>
    `${JSON.stringify(id)}: [${JSON.stringify(deps)}, function (module, exports, require) {\n${source}\n}]`,
  );
  return `// ${name}, wrapped by bench/server.mjs\nconst defs = {\n${defs.join(",\n")}\n};
const cache = {};
function load(id) {
  if (!cache[id]) {
    const module = (cache[id] = { exports: {} });
    const [deps, fn] = defs[id];
    fn.call(module.exports, module, module.exports, (spec) => load(deps[spec]));
  }
  return cache[id].exports;
}
export default load(${JSON.stringify(main)});\n`;
}

/** Starts the server; resolves to `{ url, close }`. */
export function startBenchServer() {
  const peers = Object.fromEntries(Object.entries(PEERS).map(([name, path]) => [path, cjsAsModule(name)]));
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    const headers = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp", "Cache-Control": "no-store" };
    let body = peers[path];
    let type = TYPES[".mjs"];
    if (body === undefined) {
      const file = normalize(join(ROOT, decodeURIComponent(path)));
      const inside = DIRS.some((d) => file.startsWith(join(ROOT, d) + sep));
      type = TYPES[extname(file)];
      body = inside && type ? await readFile(file).catch(() => undefined) : undefined;
    }
    if (body === undefined) {
      res.writeHead(404, headers).end("not found");
      return;
    }
    res.writeHead(200, { ...headers, "Content-Type": type }).end(body);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}
