// The demo server's test-only endpoints under /__test/, for tests/e2e/ and tests/js/: a blank
// page, a fresh redeemable token, the last secret of each kind, the redeem matrix (every answer
// redeem() must handle) and a log of every request. scripts/serve.mjs imports this module only
// with `--test` (startServer({ test: true })); without it these paths do not exist.
// (Not named test-*.mjs: `node --test tests/e2e/` would run that as a test file.)

import { issueToken, TOKEN_TTL } from "../../../scripts/server/api.mjs";
import { send } from "../../../scripts/server/http.mjs";

const json = (res, status, body, headers) => send(res, status, body, "application/json", headers);
const end = (res, status, headers) => { res.writeHead(status, headers); res.end(); };

// /__test/matrix/<case>: (req, res, url) => one kind of answer to a redeem request.
const MATRIX = {
  "ok": (req, res) => json(res, 200, { value: "matrix-ok" }),
  "ok-charset": (req, res) => json(res, 200, { value: "matrix-ok" }, { "Content-Type": "application/json; charset=utf-8" }),
  "s401": (req, res) => json(res, 401, { value: "x" }),
  "s403": (req, res) => json(res, 403, { value: "x" }),
  "s404": (req, res) => json(res, 404, { value: "x" }),
  "s410": (req, res) => json(res, 410, { value: "x" }),
  "s429": (req, res) => json(res, 429, { value: "x" }, { "Retry-After": "7" }),
  "s429-noheader": (req, res) => json(res, 429, { value: "x" }),
  "s500": (req, res) => json(res, 500, { value: "x" }),
  "s201": (req, res) => json(res, 201, { value: "x" }),
  "s204": (req, res) => end(res, 204),
  "s302-same": (req, res) => end(res, 302, { Location: "/__test/matrix/ok" }),
  "s301-same": (req, res) => end(res, 301, { Location: "/__test/matrix/ok" }),
  // A redirect that carries a well-formed answer in its own body: reading it would "succeed".
  "s302-body": (req, res) => json(res, 302, { value: "REDIRECT-BODY" }, { Location: "/__test/matrix/ok" }),
  "s307-cross": (req, res, url) => end(res, 307, { Location: `${url.searchParams.get("to") ?? ""}/__test/matrix/ok-cors` }),
  "ok-cors": (req, res) => json(res, 200, { value: "FAKE-from-other-origin" }, {
    "Access-Control-Allow-Origin": req.headers.origin ?? "*",
    "Access-Control-Allow-Credentials": "true",
  }),
  "text": (req, res) => send(res, 200, JSON.stringify({ value: "x" }), "text/plain"),
  "html": (req, res) => send(res, 200, "<p>hi</p>", "text/html"),
  "no-type": (req, res) => { res.writeHead(200, { "Content-Length": 13 }); res.end('{"value":"x"}'); },
  "bad-json": (req, res) => send(res, 200, '{"value": "BODY-SECRET"', "application/json"),
  "no-value": (req, res) => json(res, 200, { other: "BODY-SECRET" }),
  "num-value": (req, res) => json(res, 200, { value: 12345 }),
  "null-value": (req, res) => json(res, 200, { value: null }),
  "extra-key": (req, res) => json(res, 200, { value: "BODY-SECRET", extra: 1 }),
  "array": (req, res) => json(res, 200, ["BODY-SECRET"]),
  "string": (req, res) => json(res, 200, "BODY-SECRET"),
  "big": (req, res) => json(res, 200, { value: "B".repeat(70 * 1024) }),
  "big-chunked": (req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" }); // no Content-Length
    res.write('{"value":"');
    for (let i = 0; i < 70; i++) res.write("C".repeat(1024));
    res.end('"}');
  },
  "just-under": (req, res) => json(res, 200, { value: "U".repeat(64 * 1024 - 20) }),
  "not-utf8": (req, res) => {
    const body = Buffer.concat([Buffer.from('{"value":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    send(res, 200, body, "application/json");
  },
  "reset": (req) => req.socket.destroy(),
};

const BLANK_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>blank</title>
<script src="/vendor/webmcp-polyfill/index.iife.js"></script></head><body><main id="main">blank</main></body></html>`;

// The fixed paths: path -> (req, res, url) => the answer.
function pages({ sessions, log, last }) {
  return {
    "/__test/log": (req, res, url) => {
      if (url.searchParams.has("clear")) log.length = 0;
      send(res, 200, log);
    },
    "/__test/last": (req, res) => send(res, 200, last),
    "/__test/blank.html": (req, res, url) => {
      const policies = {
        nowasm: "script-src 'self'",
        // Trusted Types enforced, and no inline styles: what a strict page sends.
        tt: "require-trusted-types-for 'script'; style-src 'self'",
      };
      const csp = url.searchParams.get("csp");
      const headers = csp !== null && Object.hasOwn(policies, csp) ? { "Content-Security-Policy": policies[csp] } : {};
      if (!sessions.get(req)) sessions.start(res);
      send(res, 200, BLANK_PAGE, "text/html; charset=utf-8", headers);
    },
    "/__test/token": (req, res, url) => {
      // A fresh single-use token for this session, like create_deploy_token makes.
      const s = sessions.get(req);
      if (!s) return send(res, 401, { error: "no session" });
      const { id, value } = issueToken(s, Number(url.searchParams.get("ttl") ?? TOKEN_TTL));
      send(res, 200, { id, value, redeemUrl: `/api/redeem/${id}` });
    },
  };
}

/**
 * The test routes of one server. `log` receives an entry per request (but those for the log
 * itself); `sessions` is the server's session store.
 */
export function createTestRoutes({ sessions, log }) {
  const last = {}; // the last secret of each kind the demo API made, for the tests to compare with
  const fixed = pages({ sessions, log, last });
  return {
    /** Called by the demo API with each secret it makes. */
    onSecret(kind, value) {
      last[kind] = value;
    },
    /** Added to every module the server sends: a sandboxed (origin "null") frame must load them. */
    moduleHeaders: { "Access-Control-Allow-Origin": "*" },
    /** Logs one request to the server listening on `port`. */
    record(req, pathname, port) {
      if (pathname === "/__test/log") return;
      log.push({
        port,
        host: req.headers.host,
        method: req.method,
        path: pathname,
        secFetchSite: req.headers["sec-fetch-site"] ?? null,
        cookie: Boolean(req.headers.cookie),
      });
    },
    /** Answers a request for a path under /__test/. */
    handle(req, res, url) {
      if (Object.hasOwn(fixed, url.pathname)) return fixed[url.pathname](req, res, url);
      const m = /^\/__test\/matrix\/([a-z0-9-]+)$/.exec(url.pathname);
      if (!m) return send(res, 404, { error: "not found" });
      if (!Object.hasOwn(MATRIX, m[1])) return send(res, 404, { error: "no such case" });
      return MATRIX[m[1]](req, res, url);
    },
  };
}
