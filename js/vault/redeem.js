// The redemption of a tool's own secret_reference under the same-origin GET contract: the URL
// rules (refused before any request), one fetch with fixed options, and the strict reading of
// the answer. Nothing here keeps state; `store.js` owns the entries and the known values.

import { RedeemError } from "../errors.js";

const MAX_BODY = 64 * 1024;

// Captured once, so that a script that later replaces window.fetch cannot see redemptions.
const nativeFetch = typeof globalThis.fetch === "function" ? globalThis.fetch.bind(globalThis) : null;

// AbortSignal's own getter of `aborted`: it throws for a receiver that is not a real signal
// (of any realm), and nothing the object carries itself (an own "aborted", a Proxy) answers it.
const abortedGetter = globalThis.AbortSignal ? Object.getOwnPropertyDescriptor(globalThis.AbortSignal.prototype, "aborted")?.get : undefined;

/** @param {AbortSignal | undefined} signal a signal readOptions let through */
function isAborted(signal) {
  return signal !== undefined && abortedGetter !== undefined && Reflect.apply(abortedGetter, signal, []) === true;
}

/**
 * Redeems `handle` from the vault internals `v` (see store.js).
 * @param {any} v
 * @param {string} handle
 * @param {{ signal?: AbortSignal, result?: string }} [opts]
 */
export async function redeemWith(v, handle, opts) {
  const { signal, bound, result } = readOptions(opts);
  const e = v.entry(handle);
  if (!e) throw new RedeemError("unknown_reference", "this vault issued no such secret handle");
  // Bound to a result: a handle issued for any other result (one an agent or a tool copied
  // from elsewhere) is refused before anything is read or fetched.
  if (bound && v.resultOf(handle) !== result) {
    throw new RedeemError("foreign_reference", "this secret handle was issued for another result");
  }
  const label = e.label;
  // A value the core removed is in its known set already, held by this handle; so is the
  // text of a block for the user only (the value is the whole block).
  if (e.kind === "value" || e.kind === "user_only") return e.value;
  if (e.kind === "many") return e.values.map((x) => x.value);
  const url = checkRedeemUrl(e.redeemUrl, label, v.allowedPaths);
  if (v.referenceExpired(handle)) throw new RedeemError("expired", `the reference "${label}" has expired`, { label });
  if (isAborted(signal)) throw new RedeemError("aborted", `redeeming "${label}" was aborted`, { label });
  const value = await fetchValue(url, label, signal);
  v.learn(handle, label, value); // so that no later result carries it to the agent
  return value;
}

/**
 * The options, read once (a getter cannot answer one thing to the check of `result` and
 * another to its use). Not an object, or one that throws when read: a TypeError with code
 * `invalid_options`, as for every other option of the API, never the engine's own TypeError
 * (`"result" in 5`) without a code. So is a `signal` that is not an AbortSignal: one whose
 * `aborted` getter threw rejected with that error, uncoded, and any other was fetch's
 * TypeError, reported as `network` though no request was made (found by review). So is any
 * other option (`method`, `headers`, `credentials`, ...): the request's options are fixed, and
 * one given was silently dropped, as if it had been sent.
 * @param {unknown} opts
 */
function readOptions(opts) {
  if (opts === undefined || opts === null) return { signal: undefined, bound: false, result: undefined };
  const bad = (why = "options must be an object { signal?: AbortSignal, result? }") => Object.assign(new TypeError(`redeem: ${why}`), { code: "invalid_options" });
  if (typeof opts !== "object") throw bad();
  let read;
  let unknown;
  try {
    const o = /** @type {{ signal?: AbortSignal, result?: string }} */ (opts);
    unknown = Object.keys(o).find((k) => k !== "signal" && k !== "result");
    const { signal } = o;
    if (signal !== undefined) {
      if (abortedGetter === undefined) throw bad(); // this runtime has no signals
      isAborted(signal); // AbortSignal's own getter throws for anything else
    }
    read = { signal, bound: "result" in o, result: o.result };
  } catch {
    throw bad(); // a Proxy or a getter that throws, a signal that is not one (its getter throws)
  }
  if (unknown !== undefined) throw bad(`unknown option ${JSON.stringify(unknown)} (the request's options are fixed)`);
  return read;
}

function isLoopback(hostname) {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * The contract's URL rules; refuses before any request is made. Exported for tests.
 * @param {unknown} redeemUrl
 * @param {string} [label]
 * @param {string[] | null} [allowedPaths]
 * @param {any} [loc]
 */
export function checkRedeemUrl(redeemUrl, label = "value", allowedPaths = null, loc = globalThis.location) {
  const refuse = (code, why) => new RedeemError(code, `the reference "${label}" cannot be redeemed: ${why}`, { label });
  if (!loc || typeof loc.href !== "string") throw refuse("insecure_url", "there is no page location to resolve it against");
  const pageOrigin = loc.origin;
  // A sandboxed document keeps its URL (so location.origin looks normal) but its own origin,
  // self.origin, is "null": refuse both.
  const selfOrigin = loc === globalThis.location && typeof globalThis.origin === "string" ? globalThis.origin : pageOrigin;
  if (pageOrigin === "null" || selfOrigin !== pageOrigin || typeof pageOrigin !== "string") {
    throw refuse("cross_origin", 'the page\'s origin is "null" (sandboxed or opaque)');
  }
  if (typeof redeemUrl !== "string") throw refuse("insecure_url", "redeemUrl is not a string");
  let url;
  try {
    url = new URL(redeemUrl, loc.href); // never document.baseURI: an injected <base> must not matter
  } catch {
    throw refuse("insecure_url", "redeemUrl is not a valid URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw refuse("insecure_url", `the scheme ${url.protocol} is not https:`);
  if (url.protocol === "http:" && loc.protocol !== "http:") throw refuse("insecure_url", "http: from a page that is not on http:");
  if (url.username !== "" || url.password !== "") throw refuse("insecure_url", "the URL carries user information");
  if (url.origin !== pageOrigin) throw refuse("cross_origin", `it is not on the page's origin ${pageOrigin}`);
  if (url.protocol === "http:" && !isLoopback(url.hostname)) {
    throw refuse("insecure_url", "http: is allowed only on a loopback page (127.0.0.0/8, [::1], localhost)");
  }
  if (allowedPaths && !pathAllowed(url.pathname, allowedPaths)) {
    throw refuse("path_not_allowed", "its path is outside the allowed redemption paths");
  }
  return url;
}

/**
 * Whether a parsed path lies under one of the allowed prefixes, as a server would route it.
 * A prefix ends at a segment boundary ("/api/redeem" does not admit "/api/redeemer"). The URL
 * parser has already resolved "..", "%2e%2e" and backslashes; what it leaves, and servers still
 * decode or normalise on their own, is refused outright: an escaped ".", "/", "\", ";" or "%"
 * ("..%2F" climbs out on servers that decode before routing, "%2e%2e;" on servers that strip
 * parameters and then decode; found by review), and a dot segment with parameters ("..;/",
 * which Tomcat-style servers resolve).
 * @param {string} path
 * @param {string[]} allowed
 */
function pathAllowed(path, allowed) {
  if (/%(2e|2f|5c|3b|25)/i.test(path) || /\/\.{1,2};/.test(path) || !sameShapeFolded(path)) return false;
  return allowed.some((p) => path === p || (path.startsWith(p) && (p.endsWith("/") || path[p.length] === "/")));
}

/**
 * Whether the path keeps its segments as a server may read it: its escapes decoded once and
 * compatibility forms folded (NFKC, as servers and frameworks that normalise Unicode do). The
 * parser leaves "．．" (U+FF0E) as "%EF%BC%8E%EF%BC%8E", "／" and "＼" likewise, and those
 * fold into "..", "/" and "\"; an escape that is not UTF-8 (an overlong "%C0%AE", IIS's
 * "%u002e") is read as "." by some servers (found by review s34). Such a path is refused: no
 * separator, backslash or dot segment may appear that the parsed path does not show.
 * @param {string} path
 */
function sameShapeFolded(path) {
  let folded;
  try {
    folded = decodeURIComponent(path).normalize("NFKC");
  } catch {
    return false; // an escape that is not UTF-8
  }
  return folded.split("/").length === path.split("/").length && !folded.includes("\\") && !/(^|\/)\.{1,2}(;|\/|$)/.test(folded);
}

async function fetchValue(url, label, signal) {
  const fail = (code, why, extra) => new RedeemError(code, `the reference "${label}" could not be redeemed: ${why}`, { label, ...extra });
  if (!nativeFetch) throw fail("network", "fetch is not available");
  let res;
  try {
    // Fixed options: no caller can add to or override any of them.
    res = await nativeFetch(url.href, {
      method: "GET",
      mode: "same-origin",
      credentials: "same-origin",
      // "manual" follows nothing. A browser hands back an opaque-redirect response (type
      // "opaqueredirect", status 0, no headers, no body); Node's fetch hands back the 3xx
      // itself. Both are `redirected`, and the body of neither is read ("error" would make
      // Chromium reject with the same bare TypeError as a network failure).
      redirect: "manual",
      cache: "no-store",
      signal,
    });
  } catch (/** @type {any} */ err) {
    if (isAborted(signal)) throw fail("aborted", "the request was aborted");
    throw fail("network", `the request failed (${err?.name ?? "error"})`);
  }
  if (isRedirect(res)) {
    discard(res); // cancelled, never read
    throw fail("redirected", "the server answered with a redirect", res.status ? { status: res.status } : undefined);
  }
  if (res.type !== "basic") throw fail("bad_response", `the response type is ${res.type}, not basic`);
  const status = res.status;
  const byStatus = { 401: "unauthorized", 403: "forbidden", 404: "not_found", 410: "expired" };
  if (byStatus[status]) {
    discard(res);
    throw fail(byStatus[status], `HTTP ${status}`, { status });
  }
  if (status === 429) {
    const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
    discard(res);
    throw fail("rate_limited", `HTTP 429${retryAfter === undefined ? "" : `, retry after ${retryAfter} s`}`, { status, retryAfter });
  }
  if (status !== 200) {
    discard(res);
    throw fail("bad_response", `HTTP ${status}`, { status });
  }
  const type = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    discard(res);
    throw fail("bad_response", "the content type is not application/json", { status });
  }
  const text = await readCapped(res, signal, fail);
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw fail("bad_response", "the body is not JSON", { status });
  }
  if (body === null || typeof body !== "object" || Array.isArray(body) || Object.keys(body).length !== 1 || typeof body.value !== "string") {
    throw fail("bad_response", 'the body is not exactly { "value": string }', { status });
  }
  return body.value;
}

function discard(res) {
  try {
    res.body?.cancel().catch(() => {});
  } catch {
    // nothing to release
  }
}

async function readCapped(res, signal, fail) {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > MAX_BODY) {
    discard(res);
    throw fail("bad_response", "the body is larger than 64 KiB");
  }
  const chunks = [];
  let size = 0;
  try {
    if (!res.body) return "";
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY) {
        reader.cancel().catch(() => {});
        throw fail("bad_response", "the body is larger than 64 KiB");
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof RedeemError) throw err;
    if (isAborted(signal)) throw fail("aborted", "the request was aborted");
    throw fail("network", "reading the response failed");
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw fail("bad_response", "the body is not UTF-8");
  }
}

function parseRetryAfter(header) {
  if (header === null) return undefined;
  const h = header.trim();
  if (/^\d+$/.test(h)) return Number(h);
  const date = Date.parse(h);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

// A redirect answer in either shape fetch gives with redirect: "manual": the browser's opaque
// redirect (status 0), or the 3xx itself (Node). `redirected` cannot be true when nothing was
// followed; it is checked all the same, so that a runtime that followed anyway is refused.
function isRedirect(res) {
  return res.type === "opaqueredirect" || res.redirected === true || (res.status >= 300 && res.status < 400);
}
