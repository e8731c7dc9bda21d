// The vault: the values a redactor removed, kept in memory for the page's own UI (never in
// storage), and the registry of this page's vaults that `redeem(handle)` looks handles up in.
//
// Entries expire `vault.ttl` seconds after the result that made them. Which values must never
// reach the agent again is not decided here: the core's known-secret set holds them (also past
// an entry's expiry). `delete` and `clear` tell the core, so that the set follows the vault, and
// so does the sweep of expired entries (`expire`): the core keeps their values but lets their
// handles go, else it would hold one record per call ever made.

import { RedeemError } from "../errors.js";
import { redeemWith } from "./redeem.js";

// The vaults of this realm (this page): `redeem(handle)` only knows handles one of them issued.
const liveVaults = new Set(); // WeakRef<internal>

/**
 * A vault with the redactor's normalized `settings` (`{ vault: { ttl }, redeem: { maxTtl,
 * allowedPaths } }`, validated by the core) and `known`, the core's known-secret set:
 * `{ learn(handle, label, value), forget(handle), forgetAll(), expire(handles) }`.
 */
export function makeVault(settings, known) {
  const entries = new Map(); // handle -> the core's entry, oldest first
  const meta = new Map(); // handle -> { expiresAt, refExpiresAt? }
  const ttl = settings.vault.ttl * 1000;
  const maxTtl = settings.redeem.maxTtl;

  function sweep() {
    const t = Date.now();
    const expired = [];
    for (const [handle, m] of meta) {
      if (m.expiresAt > t) break; // insertion order is expiry order
      meta.delete(handle);
      entries.delete(handle);
      expired.push(handle);
    }
    if (expired.length) known.expire(expired); // one call per sweep, not per entry
  }

  function live(handle) {
    sweep();
    return typeof handle === "string" ? entries.get(handle) : undefined;
  }

  const internal = {
    entry: live,
    resultOf: (handle) => (live(handle) ? meta.get(handle)?.resultId : undefined),
    allowedPaths: settings.redeem.allowedPaths,
    // A redeem's fetch can outlast its entry (expired or deleted meanwhile): its value is then
    // held by no handle (pinned), since no sweep or delete would ever name that handle again.
    learn: (handle, label, value) => known.learn(meta.has(handle) ? handle : null, label, value),
    referenceExpired(handle) {
      const m = meta.get(handle);
      return !m || m.refExpiresAt <= Date.now();
    },
  };

  const vault = {
    reveal(handle) {
      const e = live(handle);
      if (!e) return undefined;
      if (e.kind === "value" || e.kind === "user_only") return e.value;
      if (e.kind === "many") return e.values.map((v) => v.value);
      const ref = { id: e.id, redeemUrl: e.redeemUrl };
      if (e.ttl !== undefined) ref.ttl = e.ttl;
      return ref;
    },
    get: live,
    entries() {
      sweep();
      return [...entries.values()];
    },
    delete(handle) {
      meta.delete(handle);
      const had = entries.delete(handle);
      if (typeof handle === "string") known.forget(handle);
      return had;
    },
    clear() {
      entries.clear();
      meta.clear();
      known.forgetAll();
    },
    get size() {
      sweep();
      return entries.size;
    },
    redeem(handle, opts) {
      return redeemWith(internal, handle, opts);
    },
  };
  internal.vault = vault;
  liveVaults.add(new WeakRef(internal));

  /** The core's vault entries from one side record, all issued for the result `resultId`. */
  function add(secrets, resultId) {
    if (!secrets.length) return;
    sweep();
    const t = Date.now();
    for (const s of secrets) {
      entries.delete(s.handle);
      entries.set(s.handle, s);
      const m = { expiresAt: t + ttl, resultId };
      if (s.kind === "reference") {
        const own = typeof s.ttl === "number" && s.ttl >= 0 ? Math.min(s.ttl, maxTtl) : maxTtl;
        m.refExpiresAt = t + own * 1000;
      }
      meta.delete(s.handle);
      meta.set(s.handle, m);
    }
  }

  return { vault, add, sweep };
}

/** The vault internals for `handle` among this page's vaults, or undefined. */
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
export function labelOf(handle, result) {
  const v = findVault(handle);
  if (!v || (result !== undefined && v.resultOf(handle) !== result)) return undefined;
  return v.entry(handle)?.label;
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
