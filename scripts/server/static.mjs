// The demo server's static files: www/ (the page), js/ (the package), pkg/ (the wasm module and
// its glue) and the MCP-B polyfill's dist/. Nothing else on disk is reachable.

import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { send } from "./http.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

// URL prefix -> directory, first match wins. `modules`: what a page imports as a module;
// `only`: the files of the directory that are served.
const MOUNTS = [
  { prefix: "/js/", dir: join(root, "js"), modules: true },
  { prefix: "/pkg/", dir: join(root, "pkg"), modules: true, only: /webmcp_redact(_lint|_inline)?(_bg\.wasm|\.js)$/ },
  { prefix: "/vendor/webmcp-polyfill/", dir: join(root, "node_modules", "@mcp-b", "webmcp-polyfill", "dist"), modules: true },
  { prefix: "/", dir: join(root, "www"), index: "index.html" },
];
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".map": "application/json",
};
const PAGE_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The file a URL path names: `{ mount, file }`, `null` when nothing may be served there (404),
 * `undefined` when the path does not decode (400).
 */
function resolve(pathname) {
  const mount = MOUNTS.find((m) => pathname.startsWith(m.prefix));
  if (!mount) return null;
  let rel = pathname.slice(mount.prefix.length);
  if (rel === "" && mount.index) rel = mount.index;
  let file;
  try {
    file = normalize(join(mount.dir, decodeURIComponent(rel)));
  } catch {
    return undefined;
  }
  if (!file.startsWith(mount.dir + sep) || !(extname(file) in TYPES)) return null;
  if (mount.only && !mount.only.test(file)) return null;
  return { mount, file };
}

/**
 * Serves GET/HEAD of static files. A page (.html) gets the CSP and, when the request has none,
 * a new session; `moduleHeaders` are added to every module (js/, pkg/, the polyfill).
 */
export function createStatic({ sessions, moduleHeaders = {} }) {
  return async function serveStatic(req, res, pathname) {
    const found = resolve(pathname);
    if (found === undefined) return send(res, 400, "bad path", "text/plain");
    if (found === null) return send(res, 404, "not found", "text/plain");
    let data;
    try {
      data = await readFile(found.file);
    } catch {
      return send(res, 404, "not found", "text/plain");
    }
    const type = extname(found.file);
    const headers = {};
    if (type === ".html") {
      headers["Content-Security-Policy"] = PAGE_CSP;
      if (!sessions.get(req)) sessions.start(res);
    }
    if (found.mount.modules) Object.assign(headers, moduleHeaders);
    return send(res, 200, data, TYPES[type], headers);
  };
}
