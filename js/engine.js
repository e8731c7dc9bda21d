// Owns the WebAssembly instance: loads it once, and replaces it after a trap. The only place
// that tells an error the core threw on purpose from a failure of the module itself.
//
// The core throws real errors (RedactionError, TypeError, RangeError) branded with
// Symbol.for("webmcp-redact.door"); those pass through untouched and the instance lives on.
// Anything else escaping a call (a WebAssembly.RuntimeError, an unexpected exception in the
// glue) means the module's memory can no longer be trusted: the instance is dropped and a fresh
// one takes its place before the next call. Objects of the dead instance (a redactor's
// WasmRedactor) are rebuilt by their owners, who compare `generation`.
//
// wasm-bindgen's glue keeps its instance in module scope and refuses a second init, so each
// instance needs its own copy of the glue module: it is imported again with a query string. A
// "spare" copy is imported in advance so that recovery is synchronous (redact is sync). If no
// spare can be had (e.g. a bundler inlined the glue), calls fail closed with `internal`.

import * as firstGlue from "../pkg/webmcp_redact.js";
import { redactionError } from "./errors.js";

const GLUE_HREF = new URL("../pkg/webmcp_redact.js", import.meta.url).href;
const WASM_URL = new URL("../pkg/webmcp_redact_bg.wasm", import.meta.url);
const DOOR = Symbol.for("webmcp-redact.door");

/** @type {WebAssembly.Module | null} the compiled module, shared by every instance */
let wasmModule = null;
/** @type {any} glue of the live instance, or null after a trap */
let active = null;
/** @type {any} an imported, not yet initialised, copy of the glue */
let spare = null;
/** @type {Promise<void> | null} */
let spareLoad = null;
let copies = 1;
/** @type {Promise<void> | null} */
let ready = null;

/** Bumps when an instance dies and when one goes live: objects made by another are dead. */
export let generation = 0;

async function compileWasm() {
  if (WASM_URL.protocol === "file:") {
    // Node (and other runtimes that load from disk): fetch() does not read file: URLs.
    const { readFile } = await import("node:fs/promises");
    return WebAssembly.compile(await readFile(WASM_URL));
  }
  const res = await fetch(WASM_URL);
  if (!res.ok) throw new Error(`cannot load ${WASM_URL} (HTTP ${res.status})`);
  return WebAssembly.compile(await res.arrayBuffer());
}

function prepareSpare() {
  if (spare || spareLoad) return spareLoad;
  copies += 1;
  spareLoad = import(`${GLUE_HREF}?instance=${copies}`)
    .then((glue) => { spare = glue; }, () => { /* stay fail-closed until a later attempt */ })
    .finally(() => { spareLoad = null; });
  return spareLoad;
}

function activate(glue) {
  glue.initSync({ module: wasmModule });
  active = glue;
  generation += 1;
}

/** Puts the spare in place of a dead instance. Returns whether an instance is live. */
function revive() {
  if (active) return true;
  const glue = spare;
  spare = null;
  if (glue) {
    try {
      activate(glue);
    } catch {
      // A failed init leaves this copy half-initialised: never reuse it.
    }
  }
  prepareSpare();
  return active !== null;
}

/** Loads and instantiates the module once per JS realm. */
export function loadEngine() {
  ready ??= (async () => {
    wasmModule = await compileWasm();
    activate(firstGlue);
    await prepareSpare();
  })().catch((err) => {
    ready = null; // let a later call retry (e.g. after the build finished)
    throw err;
  });
  return ready;
}

/** Was `err` thrown by the core on purpose (an expected failure, not a trap)? */
function fromDoor(err) {
  try {
    return err !== null && typeof err === "object" && err[DOOR] === true;
  } catch {
    return false;
  }
}

/**
 * Runs `fn(glue)` against the live instance. An error the core threw on purpose passes
 * through; anything else kills the instance and becomes a RedactionError `internal`.
 */
export function call(tool, fn) {
  if (!revive()) {
    throw redactionError("internal", tool, "", "no fresh WebAssembly instance is available yet after a trap");
  }
  try {
    return fn(active);
  } catch (err) {
    if (fromDoor(err)) throw err;
    active = null; // its memory can no longer be trusted
    generation += 1; // so that no owner keeps using an object of the dead instance
    revive();
    const what = err instanceof WebAssembly.RuntimeError ? "trapped" : `threw ${err instanceof Error ? err.name : typeof err}`;
    throw redactionError("internal", tool, "", `the WebAssembly module ${what}; it was replaced`, err);
  }
}
