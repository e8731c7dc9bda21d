// The vault: the values a redactor removed, kept in memory for the page's own UI, and the
// redemption of a tool's own secret_reference under the same-origin contract.
//
// Nothing here is ever written to storage. Entries expire (`vault.ttl`, 10 minutes by default);
// every string the vault has held (and every value redeemed or revealed through it) stays in the
// scrub set until `vault.clear()`, so that a later tool result cannot hand it back to the agent.

import { RedeemError } from "./errors.js";

export { RedeemError };

const DEFAULT_TTL = 600; // seconds an entry can be revealed
const DEFAULT_MAX_REFERENCE_TTL = 600; // cap on a secret_reference's own ttl, seconds
const MAX_BODY = 64 * 1024;

// Captured once, so that a script that later replaces window.fetch cannot see redemptions.
const nativeFetch = typeof globalThis.fetch === "function" ? globalThis.fetch.bind(globalThis) : null;

// The vaults of this realm (this page): `redeem(handle)` only knows handles one of them issued.
const liveVaults = new Set(); // WeakRef<internal>

function seconds(value, name) {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number of seconds`);
  }
  return value;
}

/** Validates the `vault` and `redeem` options of createRedactor / installRedaction. */
export function checkVaultOptions(vault, redeem) {
  const out = { ttl: DEFAULT_TTL, maxTtl: DEFAULT_MAX_REFERENCE_TTL, allowedPaths: null };
  if (vault !== undefined) {
    if (vault === null || typeof vault !== "object") throw new TypeError("vault options must be an object");
    const { ttl, ...rest } = vault;
    if (Object.keys(rest).length) throw new TypeError(`unknown vault option ${Object.keys(rest)[0]}`);
    out.ttl = seconds(ttl, "vault.ttl") ?? DEFAULT_TTL;
  }
  if (redeem !== undefined) {
    if (redeem === null || typeof redeem !== "object") throw new TypeError("redeem options must be an object");
    const { maxTtl, allowedPaths, ...rest } = redeem;
    if (Object.keys(rest).length) throw new TypeError(`unknown redeem option ${Object.keys(rest)[0]}`);
    out.maxTtl = seconds(maxTtl, "redeem.maxTtl") ?? DEFAULT_MAX_REFERENCE_TTL;
    if (allowedPaths !== undefined) {
      if (!Array.isArray(allowedPaths) || !allowedPaths.every((p) => typeof p === "string" && p.startsWith("/"))) {
        throw new TypeError("redeem.allowedPaths must be an array of path prefixes starting with /");
      }
      out.allowedPaths = [...allowedPaths];
    }
  }
  return out;
}

export function makeVault(options = checkVaultOptions()) {
  const entries = new Map(); // handle -> the core's entry, oldest first
  const meta = new Map(); // handle -> { expiresAt, refExpiresAt? }
  const scrub = new Map(); // value -> label: every string this vault held or redeemed
  let known = null; // cached knownJson; null when scrub changed

  const now = () => Date.now();

  function sweep() {
    const t = now();
    for (const [handle, m] of meta) {
      if (m.expiresAt > t) break; // insertion order is expiry order
      meta.delete(handle);
      entries.delete(handle);
    }
  }

  function live(handle) {
    sweep();
    return typeof handle === "string" ? entries.get(handle) : undefined;
  }

  function note(label, value) {
    if (typeof value === "string" && !scrub.has(value)) {
      scrub.set(value, label);
      known = null;
    }
  }

  const internal = {
    entry: live,
    options,
    /** Remembers a value the user saw, so that no later result carries it to the agent. */
    noteRevealed(label, value) {
      if (typeof value === "string") note(label, value);
      else if (Array.isArray(value)) for (const v of value) note(label, v);
    },
    referenceExpired(handle) {
      const m = meta.get(handle);
      return !m || m.refExpiresAt <= now();
    },
  };

  const vault = {
    reveal(handle) {
      const e = live(handle);
      if (!e) return undefined;
      if (e.kind === "value") return e.value;
      if (e.kind === "many") return e.values.map((v) => v.value);
      const ref = { id: e.id, redeemUrl: e.redeemUrl };
      if (e.ttl !== undefined) ref.ttl = e.ttl;
      return ref;
    },
    get(handle) {
      return live(handle);
    },
    entries() {
      sweep();
      return [...entries.values()];
    },
    delete(handle) {
      meta.delete(handle);
      return entries.delete(handle);
    },
    clear() {
      entries.clear();
      meta.clear();
      scrub.clear();
      known = null;
    },
    get size() {
      sweep();
      return entries.size;
    },
    redeem(handle, opts) {
      return redeemWith(internal, handle, opts);
    },
  };

  const ref = new WeakRef(internal);
  liveVaults.add(ref);
  internal.vault = vault;

  function add(secrets) {
    if (!secrets.length) return;
    sweep();
    const t = now();
    for (const s of secrets) {
      entries.delete(s.handle);
      entries.set(s.handle, s);
      const m = { expiresAt: t + options.ttl * 1000 };
      if (s.kind === "reference") {
        const ttl = typeof s.ttl === "number" && s.ttl >= 0 ? Math.min(s.ttl, options.maxTtl) : options.maxTtl;
        m.refExpiresAt = t + ttl * 1000;
      }
      meta.delete(s.handle);
      meta.set(s.handle, m);
      if (s.kind === "value") note(s.label, s.value);
      else if (s.kind === "many") for (const v of s.values) note(v.label, v.value);
      else note(s.label, s.id);
    }
  }

  // The strings the vault holds, so that the core scrubs them from later results too.
  function knownJson() {
    if (known === null) known = JSON.stringify([...scrub].map(([value, label]) => ({ label, value })));
    return known;
  }

  return { vault, add, knownJson };
}

/** The vault entry for `handle` among this page's vaults, or undefined. */
function findVault(handle) {
  for (const ref of liveVaults) {
    const v = ref.deref();
    if (!v) {
      liveVaults.delete(ref);
      continue;
    }
    if (v.entry(handle)) return v;
  }
  return undefined;
}

/** The label of a handle this page's vaults hold (for UI), or undefined. */
export function labelOf(handle) {
  return findVault(handle)?.entry(handle)?.label;
}

/**
 * Returns the value behind a handle one of this page's vaults issued: from the vault for a value
 * the core removed, or by fetching a tool's own `redeemUrl` under the same-origin contract.
 */
export function redeem(handle, opts) {
  const v = typeof handle === "string" ? findVault(handle) : undefined;
  if (!v) return Promise.reject(new RedeemError("unknown_reference", "this page issued no such secret handle"));
  return redeemWith(v, handle, opts);
}

async function redeemWith(v, handle, { signal } = {}) {
  const e = v.entry(handle);
  if (!e) throw new RedeemError("unknown_reference", "this vault issued no such secret handle");
  const label = e.label;
  if (e.kind === "value" || e.kind === "many") {
    const value = e.kind === "value" ? e.value : e.values.map((x) => x.value);
    v.noteRevealed(label, value);
    return value;
  }
  const url = checkRedeemUrl(e.redeemUrl, label, v.options.allowedPaths);
  if (v.referenceExpired(handle)) throw new RedeemError("expired", `the reference "${label}" has expired`, { label });
  if (signal?.aborted) throw new RedeemError("aborted", `redeeming "${label}" was aborted`, { label });
  const value = await fetchValue(url, label, signal);
  v.noteRevealed(label, value);
  return value;
}

function isLoopback(hostname) {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The contract's URL rules; refuses before any request is made. Exported for tests. */
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
  if (allowedPaths && !allowedPaths.some((p) => url.pathname.startsWith(p))) {
    throw refuse("path_not_allowed", "its path is outside the allowed redemption paths");
  }
  return url;
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
      redirect: "error",
      cache: "no-store",
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw fail("aborted", "the request was aborted");
    if (redirectError(err)) throw fail("redirected", "the server answered with a redirect");
    throw fail("network", `the request failed (${err?.name ?? "error"})`);
  }
  if (res.type === "opaqueredirect" || res.redirected || (res.status >= 300 && res.status < 400)) {
    throw fail("redirected", "the server answered with a redirect");
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
    if (signal?.aborted) throw fail("aborted", "the request was aborted");
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

// fetch() with redirect: "error" rejects when the server redirects. Node's fetch (undici) says
// so in the error's cause; Chromium rejects with the same bare TypeError as a network failure
// and records no status in Resource Timing, so there the caller sees `network`. Either way no
// redirect is followed and nothing is read.
function redirectError(err) {
  try {
    return /redirect/i.test(String(err?.cause?.message ?? "")) || /redirect/i.test(String(err?.message ?? ""));
  } catch {
    return false;
  }
}
