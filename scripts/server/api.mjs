// The demo's API under /api/: page sessions (an HttpOnly cookie set with the page), the
// endpoints behind the four demo tools, and the redemption contract, GET /api/redeem/<id>.

import { randomBytes, randomInt } from "node:crypto";
import { crc32 } from "node:zlib";
import { readJson, send } from "./http.mjs";

export const TOKEN_TTL = 120; // seconds a deploy token can be redeemed
const BURST = { max: 8, windowMs: 10_000 }; // redeem requests per session per window

export const hex = (n) => randomBytes(n).toString("hex");

/** The page sessions: sid -> { tokens: Map(id -> { value, expiresAt, used }), redeems: number[] }. */
export function createSessions() {
  const sessions = new Map();
  return {
    /** The session named by the request's `sid` cookie, or undefined. */
    get(req) {
      const m = /(?:^|;\s*)sid=([0-9a-f]{32})(?:;|$)/.exec(req.headers.cookie ?? "");
      return m ? sessions.get(m[1]) : undefined;
    },
    /** Starts a session and sets its cookie on the response. */
    start(res) {
      const sid = hex(16);
      sessions.set(sid, { tokens: new Map(), redeems: [] });
      res.setHeader("Set-Cookie", `sid=${sid}; Path=/; HttpOnly; SameSite=Strict`);
    },
  };
}

/** A fresh single-use token of session `s`, redeemable for `ttl` seconds: `{ id, value }`. */
export function issueToken(s, ttl = TOKEN_TTL) {
  const id = `dt_${hex(8)}`;
  const value = `dpl_CANARY${hex(16)}`;
  s.tokens.set(id, { value, expiresAt: Date.now() + ttl * 1000, used: false });
  return { id, value };
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A GitHub-format token (`ghp_`, 30 characters, their CRC32 in 6 base62 digits) that starts
 * with CANARY: a credential the demo's tools never declare, for the detectors to catch.
 */
export function githubToken() {
  const random = "CANARY" + Array.from({ length: 24 }, () => BASE62[randomInt(62)]).join("");
  let n = crc32(random);
  let check = "";
  for (let i = 0; i < 6; i++, n = Math.floor(n / 62)) check = BASE62[n % 62] + check;
  return `ghp_${random}${check}`;
}

// "METHOD path" -> (req, session, url) => the 200 body. `secret(kind, value)` reports each
// secret made (the test routes keep the last of each kind to compare with).
const ROUTES = {
  async "POST /api/keys"(req, s, url, secret) {
    const { name = "default" } = await readJson(req);
    const key = { id: `key_${hex(4)}`, name: String(name).slice(0, 64), secret: `sk_live_CANARY${hex(12)}` };
    secret("apiKey", key.secret);
    return key;
  },
  async "POST /api/deploy-tokens"(req, s, url, secret) {
    const { environment = "production" } = await readJson(req);
    const { id, value } = issueToken(s);
    secret("deployToken", value);
    return { id, name: `${String(environment).slice(0, 32)} deploy token`, redeemUrl: `/api/redeem/${id}?v=1`, ttl: TOKEN_TTL };
  },
  "GET /api/billing"(req, s, url, secret) {
    const cardNumber = `4242 4242 ${String(1000 + Math.floor(Math.random() * 9000))} 4242`;
    secret("cardNumber", cardNumber);
    return {
      plan: "Team",
      monthly: "49.00 USD",
      cardBrand: "Visa",
      cardNumber,
      cardExpiry: "08/29",
      billingAddress: "1 CANARY Street, Springfield", // not in the schema: withheld in allowlist mode
    };
  },
  "GET /api/messages"(req, s, url, secret) {
    const q = (url.searchParams.get("q") ?? "").slice(0, 64);
    const code = `CANARY-${hex(3)}`;
    secret("messageCode", code);
    // A token no tool declares (no mark, no hint): the detectors' safety net takes it.
    const ciToken = githubToken();
    secret("ciToken", ciToken);
    return {
      messages: [
        { from: "ci@example.com", subject: `Build passed (${q})`, body: "All 214 checks passed." },
        { from: "ci@example.com", subject: "CI token rotated", body: `The new CI token is ${ciToken}. Update your runners.` },
        { from: "security@example.com", subject: "Your sign-in code", body: `Your one-time sign-in code is ${code}.`, private: true },
      ],
    };
  },
};

/** Seconds until session `s` may redeem again, or 0 after counting this request in the window. */
function rateLimit(s, now) {
  s.redeems = s.redeems.filter((t) => now - t < BURST.windowMs);
  if (s.redeems.length >= BURST.max) return Math.ceil((BURST.windowMs - (now - s.redeems[0])) / 1000);
  s.redeems.push(now);
  return 0;
}

// GET /api/redeem/<id>, for session `s`: 405, 403 (not same-origin), 429, 404, 410 (used or
// expired: single use), else 200 { value }, in that order.
function redeem(req, res, s, id) {
  if (req.method !== "GET") return send(res, 405, { error: "method" }, "application/json", { Allow: "GET" });
  if (req.headers["sec-fetch-site"] !== "same-origin") return send(res, 403, { error: "same-origin only" });
  const now = Date.now();
  const retry = rateLimit(s, now);
  if (retry > 0) return send(res, 429, { error: "rate limited" }, "application/json", { "Retry-After": String(retry) });
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

/** Handles /api/*: 401 without a session, then the demo endpoints and the redemption contract. */
export function createApi({ sessions, onSecret = () => {} }) {
  return async function api(req, res, url) {
    const s = sessions.get(req);
    if (!s) return send(res, 401, { error: "no session" });
    const route = ROUTES[`${req.method} ${url.pathname}`];
    if (route) return send(res, 200, await route(req, s, url, onSecret));
    const m = /^\/api\/redeem\/([A-Za-z0-9_]{1,64})$/.exec(url.pathname);
    if (m) return redeem(req, res, s, m[1]);
    return send(res, 404, { error: "not found" });
  };
}
