#!/usr/bin/env node
// The demo server: serves www/, js/, pkg/ and the MCP-B polyfill on 127.0.0.1 (server/static.mjs),
// and implements the demo's API and the secret redemption endpoint in full (server/api.mjs).
//
//   node scripts/serve.mjs [--port 8787] [--test]
//
// `--test` (or startServer({ test: true })) adds /__test/* endpoints for the browser tests: a
// blank page, the redeem matrix, a request log. They live in tests/e2e/server/routes.mjs, which
// is not even imported without it.

import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { createApi, createSessions } from "./server/api.mjs";
import { send } from "./server/http.mjs";
import { createStatic } from "./server/static.mjs";

const TEST_ROUTES = new URL("../tests/e2e/server/routes.mjs", import.meta.url);

/** The request handler: test routes (with `--test`), /api/, then static files. */
function handler({ api, serveStatic, testRoutes }) {
  return async function handle(req, res) {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    let url;
    try {
      url = new URL(req.url, "http://placeholder");
    } catch {
      return send(res, 400, "bad request", "text/plain");
    }
    const { pathname } = url;
    testRoutes?.record(req, pathname, req.socket.localPort);
    try {
      if (pathname.startsWith("/api/")) return await api(req, res, url);
      if (testRoutes && pathname.startsWith("/__test/")) return testRoutes.handle(req, res, url);
      if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "method not allowed", "text/plain");
      return await serveStatic(req, res, pathname);
    } catch {
      if (!res.headersSent) send(res, 500, { error: "server error" });
      else res.destroy();
    }
  };
}

/**
 * Starts one server. Resolves to { server, url, port, close }. With `test`, requests are logged
 * to `log` and /__test/* answers.
 */
export async function startServer({ port = 0, host = "127.0.0.1", test = false, log = [] } = {}) {
  const sessions = createSessions();
  const testRoutes = test ? (await import(TEST_ROUTES.href)).createTestRoutes({ sessions, log }) : null;
  const api = createApi({ sessions, onSecret: testRoutes?.onSecret });
  const serveStatic = createStatic({ sessions, moduleHeaders: testRoutes?.moduleHeaders });
  const server = createServer(handler({ api, serveStatic, testRoutes }));
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
