#!/usr/bin/env node
// The demo server: serves www/, js/, pkg/ and the MCP-B polyfill on 127.0.0.1, and implements the
// demo's API and the secret redemption endpoint in full.
//
//   node scripts/serve.mjs [--port 8787] [--test]
//
// `--test` (or startServer({ test: true })) adds /__test/* endpoints for the browser tests: a
// blank page, the redeem matrix, a request log. They are never on without it.

import { createServer } from "node:http";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

// URL prefix -> directory; only these files are served.
const MOUNTS = [
  ["/js/", join(root, "js")],
  ["/pkg/", join(root, "pkg")],
  ["/vendor/webmcp-polyfill/", join(root, "node_modules", "@mcp-b", "webmcp-polyfill", "dist")],
  ["/", join(root, "www")],
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

const TOKEN_TTL = 120; // seconds a deploy token can be redeemed
const BURST = { max: 8, windowMs: 10_000 }; // redeem requests per session per window

const hex = (n) => randomBytes(n).toString("hex");

/** Starts one server. Resolves to { server, url, port, close }. */
export function startServer({ port = 0, host = "127.0.0.1", test = false, log = [] } = {}) {
  const sessions = new Map(); // sid -> { tokens: Map(id -> { value, expiresAt, used }), redeems: number[] }
  const last = {}; // test mode: the last secret of each kind, for the tests to compare with

  function session(req) {
    const m = /(?:^|;\s*)sid=([0-9a-f]{32})(?:;|$)/.exec(req.headers.cookie ?? "");
    return m ? sessions.get(m[1]) : undefined;
  }

  function newSession(res) {
    const sid = hex(16);
    sessions.set(sid, { tokens: new Map(), redeems: [] });
    res.setHeader("Set-Cookie", `sid=${sid}; Path=/; HttpOnly; SameSite=Strict`);
  }

  function send(res, status, body, type = "application/json", headers = {}) {
    const data = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(data), ...headers });
    res.end(data);
  }

  async function readJson(req) {
    let size = 0;
    const chunks = [];
    for await (const c of req) {
      size += c.length;
      if (size > 16 * 1024) throw new Error("body too large");
      chunks.push(c);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? JSON.parse(text) : {};
  }

  async function serveStatic(req, res, pathname) {
    for (const [prefix, dir] of MOUNTS) {
      if (!pathname.startsWith(prefix)) continue;
      let rel = pathname.slice(prefix.length);
      if (rel === "" && prefix === "/") rel = "index.html";
      let file;
      try {
        file = normalize(join(dir, decodeURIComponent(rel)));
      } catch {
        return send(res, 400, "bad path", "text/plain");
      }
      if (!file.startsWith(dir + sep) || !(extname(file) in TYPES)) return send(res, 404, "not found", "text/plain");
      if (prefix === "/pkg/" && !/webmcp_redact(_bg\.wasm|\.js)$/.test(file)) return send(res, 404, "not found", "text/plain");
      let data;
      try {
        data = await readFile(file);
      } catch {
        return send(res, 404, "not found", "text/plain");
      }
      const headers = {};
      if (extname(file) === ".html") {
        headers["Content-Security-Policy"] = PAGE_CSP;
        if (!session(req)) newSession(res);
      }
      // Test mode: a sandboxed (origin "null") frame must be able to load the modules.
      if (test && (prefix === "/js/" || prefix === "/pkg/" || prefix === "/vendor/webmcp-polyfill/")) {
        headers["Access-Control-Allow-Origin"] = "*";
      }
      return send(res, 200, data, TYPES[extname(file)], headers);
    }
    return send(res, 404, "not found", "text/plain");
  }

  // GET /api/redeem/<id>: the redemption contract.
  function redeemEndpoint(req, res, id) {
    if (req.method !== "GET") return send(res, 405, { error: "method" }, "application/json", { Allow: "GET" });
    if (req.headers["sec-fetch-site"] !== "same-origin") return send(res, 403, { error: "same-origin only" });
    const s = session(req);
    if (!s) return send(res, 401, { error: "no session" });
    const now = Date.now();
    s.redeems = s.redeems.filter((t) => now - t < BURST.windowMs);
    if (s.redeems.length >= BURST.max) {
      const retry = Math.ceil((BURST.windowMs - (now - s.redeems[0])) / 1000);
      return send(res, 429, { error: "rate limited" }, "application/json", { "Retry-After": String(retry) });
    }
    s.redeems.push(now);
    const token = s.tokens.get(id);
    if (!token) return send(res, 404, { error: "not found" });
    if (token.used || token.expiresAt <= now) {
      token.value = null; // single use: the value is gone after the first GET (or the ttl)
      return send(res, 410, { error: "gone" });
    }
    const { value } = token;
    token.used = true;
    token.value = null;
    return send(res, 200, { value });
  }

  async function api(req, res, pathname, url) {
    const s = session(req);
    if (!s) return send(res, 401, { error: "no session" });
    if (pathname === "/api/keys" && req.method === "POST") {
      const { name = "default" } = await readJson(req);
      const key = { id: `key_${hex(4)}`, name: String(name).slice(0, 64), secret: `sk_live_CANARY${hex(12)}` };
      last.apiKey = key.secret;
      return send(res, 200, key);
    }
    if (pathname === "/api/deploy-tokens" && req.method === "POST") {
      const { environment = "production" } = await readJson(req);
      const id = `dt_${hex(8)}`;
      const value = `dpl_CANARY${hex(16)}`;
      s.tokens.set(id, { value, expiresAt: Date.now() + TOKEN_TTL * 1000, used: false });
      last.deployToken = value;
      return send(res, 200, { id, name: `${String(environment).slice(0, 32)} deploy token`, redeemUrl: `/api/redeem/${id}?v=1`, ttl: TOKEN_TTL });
    }
    if (pathname === "/api/billing" && req.method === "GET") {
      const cardNumber = `4242 4242 ${String(1000 + Math.floor(Math.random() * 9000))} 4242`;
      last.cardNumber = cardNumber;
      return send(res, 200, {
        plan: "Team",
        monthly: "49.00 USD",
        cardBrand: "Visa",
        cardNumber,
        cardExpiry: "08/29",
        billingAddress: "1 CANARY Street, Springfield", // not in the schema: withheld in allowlist mode
      });
    }
    if (pathname === "/api/messages" && req.method === "GET") {
      const q = (url.searchParams.get("q") ?? "").slice(0, 64);
      const code = `CANARY-${hex(3)}`;
      last.messageCode = code;
      return send(res, 200, {
        messages: [
          { from: "ci@example.com", subject: `Build passed (${q})`, body: "All 214 checks passed." },
          { from: "security@example.com", subject: "Your sign-in code", body: `Your one-time sign-in code is ${code}.`, private: true },
        ],
      });
    }
    const m = /^\/api\/redeem\/([A-Za-z0-9_]{1,64})$/.exec(pathname);
    if (m) return redeemEndpoint(req, res, m[1]);
    return send(res, 404, { error: "not found" });
  }

  // Test-only endpoints: the redeem matrix and a request log.
  function testEndpoint(req, res, pathname, url) {
    if (pathname === "/__test/log") {
      if (url.searchParams.has("clear")) log.length = 0;
      return send(res, 200, log);
    }
    if (pathname === "/__test/last") return send(res, 200, last);
    if (pathname === "/__test/blank.html") {
      const headers = {};
      if (url.searchParams.get("csp") === "nowasm") headers["Content-Security-Policy"] = "script-src 'self'";
      if (!session(req)) newSession(res);
      const html = `<!doctype html><html><head><meta charset="utf-8"><title>blank</title>
<script src="/vendor/webmcp-polyfill/index.iife.js"></script></head><body><main id="main">blank</main></body></html>`;
      return send(res, 200, html, "text/html; charset=utf-8", headers);
    }
    if (pathname === "/__test/token") {
      // A fresh single-use token for this session, like create_deploy_token makes.
      const s = session(req);
      if (!s) return send(res, 401, { error: "no session" });
      const id = `dt_${hex(8)}`;
      const value = `dpl_CANARY${hex(16)}`;
      const ttl = Number(url.searchParams.get("ttl") ?? TOKEN_TTL);
      s.tokens.set(id, { value, expiresAt: Date.now() + ttl * 1000, used: false });
      return send(res, 200, { id, value, redeemUrl: `/api/redeem/${id}` });
    }
    const m = /^\/__test\/matrix\/([a-z0-9-]+)$/.exec(pathname);
    if (!m) return send(res, 404, { error: "not found" });
    const json = (status, body, headers) => send(res, status, body, "application/json", headers);
    switch (m[1]) {
      case "ok": return json(200, { value: "matrix-ok" });
      case "ok-charset": return json(200, { value: "matrix-ok" }, { "Content-Type": "application/json; charset=utf-8" });
      case "s401": return json(401, { value: "x" });
      case "s403": return json(403, { value: "x" });
      case "s404": return json(404, { value: "x" });
      case "s410": return json(410, { value: "x" });
      case "s429": return json(429, { value: "x" }, { "Retry-After": "7" });
      case "s429-noheader": return json(429, { value: "x" });
      case "s500": return json(500, { value: "x" });
      case "s201": return json(201, { value: "x" });
      case "s204": res.writeHead(204); return res.end();
      case "s302-same": res.writeHead(302, { Location: "/__test/matrix/ok" }); return res.end();
      case "s301-same": res.writeHead(301, { Location: "/__test/matrix/ok" }); return res.end();
      case "s307-cross": {
        const to = url.searchParams.get("to") ?? "";
        res.writeHead(307, { Location: `${to}/__test/matrix/ok-cors` });
        return res.end();
      }
      case "ok-cors": return json(200, { value: "FAKE-from-other-origin" }, {
        "Access-Control-Allow-Origin": req.headers.origin ?? "*",
        "Access-Control-Allow-Credentials": "true",
      });
      case "text": return send(res, 200, JSON.stringify({ value: "x" }), "text/plain");
      case "html": return send(res, 200, "<p>hi</p>", "text/html");
      case "no-type": res.writeHead(200, { "Content-Length": 13 }); return res.end('{"value":"x"}');
      case "bad-json": return send(res, 200, '{"value": "BODY-SECRET"', "application/json");
      case "no-value": return json(200, { other: "BODY-SECRET" });
      case "num-value": return json(200, { value: 12345 });
      case "null-value": return json(200, { value: null });
      case "extra-key": return json(200, { value: "BODY-SECRET", extra: 1 });
      case "array": return json(200, ["BODY-SECRET"]);
      case "string": return json(200, "BODY-SECRET");
      case "big": return json(200, { value: "B".repeat(70 * 1024) });
      case "big-chunked": {
        res.writeHead(200, { "Content-Type": "application/json" }); // no Content-Length
        res.write('{"value":"');
        for (let i = 0; i < 70; i++) res.write("C".repeat(1024));
        return res.end('"}');
      }
      case "just-under": return json(200, { value: "U".repeat(64 * 1024 - 20) });
      case "not-utf8": {
        const body = Buffer.concat([Buffer.from('{"value":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
        return send(res, 200, body, "application/json");
      }
      case "reset": return req.socket.destroy();
      default: return send(res, 404, { error: "no such case" });
    }
  }

  const server = createServer(async (req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    let url;
    try {
      url = new URL(req.url, "http://placeholder");
    } catch {
      return send(res, 400, "bad request", "text/plain");
    }
    const pathname = url.pathname;
    if (test && pathname !== "/__test/log") {
      log.push({
        port: server.address().port,
        host: req.headers.host,
        method: req.method,
        path: pathname,
        secFetchSite: req.headers["sec-fetch-site"] ?? null,
        cookie: Boolean(req.headers.cookie),
      });
    }
    try {
      if (pathname.startsWith("/api/")) return await api(req, res, pathname, url);
      if (test && pathname.startsWith("/__test/")) return testEndpoint(req, res, pathname, url);
      if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "method not allowed", "text/plain");
      return await serveStatic(req, res, pathname);
    } catch {
      if (!res.headersSent) send(res, 500, { error: "server error" });
      else res.destroy();
    }
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({
        server,
        port: actual,
        url: `http://${host}:${actual}/`,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

function parseArgs(argv) {
  const opts = { port: Number(process.env.PORT ?? 8787), test: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--port" || a === "-p") opts.port = Number(argv[++i]);
    else if (a.startsWith("--port=")) opts.port = Number(a.slice(7));
    else if (a === "--test") opts.test = true;
    else if (a === "--help" || a === "-h") {
      console.log("usage: node scripts/serve.mjs [--port N] [--test]");
      process.exit(0);
    } else {
      console.error(`serve: unknown argument ${a}`);
      process.exit(2);
    }
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
    console.error("serve: --port must be an integer from 0 to 65535");
    process.exit(2);
  }
  return opts;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const opts = parseArgs(process.argv.slice(2));
  startServer(opts).then(
    ({ url }) => {
      console.log(`webmcp-redact demo: ${url}`);
      if (opts.test) console.log("(test endpoints under /__test/ are on)");
    },
    (err) => {
      console.error(`serve: ${err.code === "EADDRINUSE" ? `port ${opts.port} is in use (try --port 0)` : err.message}`);
      process.exit(1);
    },
  );
}
