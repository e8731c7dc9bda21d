// Owns the WebAssembly instance: loads it once, and replaces it after a trap. The only place
// that tells an error the core threw on purpose from a failure of the module itself.
//
// The core throws real errors (RedactionError, TypeError, RangeError) branded with
// Symbol.for("webmcp-redact.door"); those pass through untouched and the instance lives on.
// Anything else escaping a call (a WebAssembly.RuntimeError, an unexpected exception in the
// glue) means the module's memory can no longer be trusted: the glue's `__wbg_reset_state`
// puts a fresh instance of the same compiled module in its place before the next call. Objects
// of the dead instance (a redactor's WasmRedactor) are rebuilt by their owners, who compare
// `generation`; the glue itself refuses them.
//
// WebAssembly memory only grows: a call on a large result would leave the page holding its
// peak for good. So once a call has returned, an instance whose memory is mostly free is
// retired the same way, and the next call starts on a small one. "Mostly free" is judged
// against what the core still uses, which it counts (`liveBytes`, src/wasm/heap.rs): more than
// RELEASE_FREE plus KEEP_FACTOR times the live heap bytes. Compiling a large tool grows the
// memory too, but what it grew is mostly the compiled tool, which a fresh instance would only
// have to build again, on the next call.

import * as glue from "../pkg/webmcp_redact.js";
import { redactionError } from "./errors.js";
import { loadWasm } from "./wasm.js";

const DOOR = Symbol.for("webmcp-redact.door");
/** Free memory past which (and past KEEP_FACTOR times the live heap) the instance is replaced after a call (bytes). */
export const RELEASE_FREE = 16 * 1024 * 1024;
/** Free memory per live heap byte an instance may hold and stay (see above). */
export const KEEP_FACTOR = 2;

let live = false; // an instance is up and trusted
/** @type {Promise<void> | null} */
let ready = null;

/** Bumps when an instance dies and when one goes live: objects made by another are dead. */
export let generation = 0;

/**
 * Loads and instantiates the module once per JS realm: from `wasm` (the caller's `wasm`
 * option) if given, else from the entry point's default (`load.wasm()`); `load.read(url)`
 * fetches or reads a URL (js/wasm.js). The first load that succeeds wins: once it has, or while
 * one is under way, a later `wasm` is neither read nor compared (every copy of this version's
 * module is the same code). A failed load is a RedactionError `wasm_unavailable` and leaves
 * nothing behind, so a later call can try again (with another `wasm`, or after the build).
 */
export function loadEngine(load, wasm) {
  ready ??= loadWasm(wasm === undefined ? load.wasm : wasm, load.read, (module) => glue.initSync({ module }), "webmcp_redact")
    .then(() => {
      live = true;
      generation += 1;
    })
    .catch((err) => {
      ready = null;
      throw err;
    });
  return ready;
}

/** A fresh instance in place of a dead one. Returns whether one is live. */
function revive() {
  if (live) return true;
  try {
    glue.__wbg_reset_state();
    live = true;
    generation += 1;
  } catch {
    // stay fail-closed; the next call tries again
  }
  return live;
}

/** Was `err` thrown by the core on purpose (an expected failure, not a trap)? */
function fromDoor(err) {
  try {
    return err !== null && typeof err === "object" && err[DOOR] === true;
  } catch {
    return false;
  }
}

/** The live instance's memory size in bytes (`initSync` returns the live exports). */
export function memoryBytes() {
  // Once loaded, initSync ignores its argument; its declaration still requires one (tsc).
  return glue.initSync(/** @type {any} */ (undefined)).memory.buffer.byteLength;
}

/** Is the live instance's memory mostly free (see above)? */
function mostlyFree() {
  const live = glue.liveBytes();
  return memoryBytes() - live > RELEASE_FREE + KEEP_FACTOR * live;
}

/** Drops the live instance: the next call gets a fresh one, and owners rebuild their objects. */
function retire() {
  live = false;
  generation += 1; // so that no owner keeps using an object of the dead instance
  revive();
}

/**
 * Runs `fn(glue)` against the live instance. An error the core threw on purpose passes
 * through; anything else kills the instance and becomes a RedactionError `internal`. With
 * `release` (the default), an instance whose memory is mostly free once the call has returned
 * (see above) is replaced; owners that rebuild their state in
 * a call of their own pass `release: false` there, so that a rebuild is never released.
 */
export function call(tool, fn, release = true) {
  if (!revive()) {
    throw redactionError("internal", tool, "", "no fresh WebAssembly instance is available yet after a trap");
  }
  let out;
  try {
    out = fn(glue);
  } catch (err) {
    if (fromDoor(err)) throw err;
    retire(); // its memory can no longer be trusted
    const what = err instanceof WebAssembly.RuntimeError ? "trapped" : `threw ${err instanceof Error ? err.name : typeof err}`;
    throw redactionError("internal", tool, "", `the WebAssembly module ${what}; it was replaced`, err);
  }
  if (release && mostlyFree()) retire();
  return out;
}
