// Where a WebAssembly module comes from: the `wasm` option (a URL, bytes, a Response or a promise
// of one, a WebAssembly.Module) or an entry point's default, compiled and handed to its glue.
// Every way that can fail becomes one RedactionError `wasm_unavailable` whose message says what
// was being loaded and why it failed, once; the original error is only its `cause` (so a
// CompileError from a Content-Security-Policy never surfaces raw).
//
// Nothing here imports a Node module: how a URL becomes bytes is the entry point's `read`
// (fetchWasm below for browsers and bundlers, js/wasm-node.js for Node).

import { RedactionError } from "./errors.js";

/** The `load` of the browser entries: a URL is fetched (a Response comes back). */
export function fetchWasm(url) {
  if (url.protocol === "file:") {
    // fetch() cannot read file: URLs (in Node it throws "not implemented"): say what to do.
    throw new Error('fetch() cannot read file: URLs; in Node, import "webmcp-redact" by its name (the "node" export condition reads them from disk)');
  }
  return fetch(url);
}

const tag = (value) => Object.prototype.toString.call(value);
const isModule = (value) => tag(value) === "[object WebAssembly.Module]";
const isBytes = (value) => ArrayBuffer.isView(value) || tag(value) === "[object ArrayBuffer]";
const isResponse = (value) => typeof Response === "function" && value instanceof Response;
const isThenable = (value) => {
  try {
    return value !== null && typeof value === "object" && typeof value.then === "function";
  } catch {
    return false; // a `then` getter that throws: no promise, so a bad option
  }
};

/** Is `value` one of the forms the `wasm` option takes, once a promise has settled? */
function isSource(value) {
  return typeof value === "string" || value instanceof URL || isBytes(value) || isResponse(value) || isModule(value);
}

function optionError(prefix) {
  const error = new TypeError(
    `${prefix}: wasm must be a URL (a string or URL), bytes (an ArrayBuffer or typed array), a Response, ` +
      "a promise of one of these, or a WebAssembly.Module",
  );
  return Object.assign(error, { code: "invalid_options" });
}

/** Is `err` the TypeError of a `wasm` option of the wrong kind? */
export function isOptionError(err) {
  return err instanceof TypeError && /** @type {any} */ (err).code === "invalid_options";
}

/**
 * Throws the TypeError (`code: "invalid_options"`) for a `wasm` option of the wrong kind; a
 * promise is checked when it settles.
 */
export function checkWasmOption(value, who) {
  if (value === undefined || isSource(value) || isThenable(value)) return;
  throw optionError(who);
}

/** The `wasm_unavailable` error: `what` failed to load because of `why`. */
export function wasmUnavailable(what, why, cause) {
  return new RedactionError(`webmcp-redact: wasm_unavailable: cannot load ${what}: ${why}`, { code: "wasm_unavailable", cause });
}

// Why an error stopped the load, in a few words. A browser refusing to compile WebAssembly
// because of the page's Content-Security-Policy throws a CompileError (Chromium, Firefox) or an
// EvalError (Safari) whose message names the directive: that one is said in words a page
// author can act on.
function why(err) {
  let name = "Error";
  let message = "";
  try {
    name = String(err?.name ?? typeof err);
    message = String(err?.message ?? err);
  } catch {
    // an unreadable error: its kind is all there is
  }
  if (/content.security.policy|wasm-unsafe-eval|unsafe-eval|\bCSP\b/i.test(message)) {
    const directive = message.match(/directive:?\s*"([^"]+)"/);
    const which = directive ? `directive "${directive[1]}"` : "";
    return `the page's Content-Security-Policy ${which}${which ? " " : ""}does not allow WebAssembly: add 'wasm-unsafe-eval' to script-src`;
  }
  // Node's file errors put the path in their message, after a comma; the path is named already.
  if (typeof err?.code === "string" && typeof err?.syscall === "string") return message.split(",")[0];
  return `${name}: ${message}`;
}

/** A Response's bytes, or an error naming its URL and HTTP status. */
async function responseBytes(res, what) {
  if (!res.ok) {
    throw wasmUnavailable(what, `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`);
  }
  return res.arrayBuffer();
}

// What a handed-in module must look like before its glue may touch it: every import from the
// glue's namespace, and the exports the glue starts it with. Without this check, a foreign
// module with no imports would instantiate, and the glue would keep it as its instance for good.
function checkShape(module, glueName) {
  const namespace = `./${glueName}_bg.js`;
  const imports = WebAssembly.Module.imports(module);
  const exports = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  const foreign = imports.find((i) => i.module !== namespace);
  const missing = ["memory", "__wbindgen_start"].find((name) => !exports.has(name));
  if (foreign || missing || imports.length === 0) {
    throw new Error(`it is not ${glueName}_bg.wasm of this version of webmcp-redact`);
  }
}

/**
 * Compiles `source` (a `wasm` option value, or a function returning the entry point's default)
 * and hands the module to `instantiate`. `read(url)` turns a URL into a Response or bytes.
 * `glueName` is the wasm-bindgen output name the module must fit. Rejects with
 * `wasm_unavailable` on any failure.
 */
export async function loadWasm(source, read, instantiate, glueName) {
  let what = `the WebAssembly module ${glueName}_bg.wasm`;
  const given = typeof source !== "function"; // else the entry point's default
  try {
    let value = given ? source : source();
    if (isThenable(value)) {
      what = "the WebAssembly module from the promise given as wasm";
      value = await value;
    }
    if (!isSource(value)) throw optionError("webmcp-redact: the promise given as wasm resolved to another kind of value");
    let module;
    if (isModule(value)) {
      what = "the WebAssembly.Module given as wasm";
      module = value;
    } else {
      let bytes = value;
      if (typeof value === "string" || value instanceof URL) {
        // Relative to the page's own address, never to a <base> element (an injected one must
        // not choose which code redacts); with no page (Node), only an absolute URL resolves.
        const base = globalThis.location?.href;
        let url;
        try {
          url = new URL(value, base);
        } catch {
          throw new Error(`${JSON.stringify(String(value))} is not an absolute URL, and there is no page address to resolve it against`);
        }
        what = url.href;
        bytes = await read(url);
      } else if (isResponse(value)) {
        what = value.url ? `the Response from ${value.url}` : "the Response given as wasm";
      } else {
        what = given ? "the bytes given as wasm" : `the inlined ${glueName}_bg.wasm`;
      }
      if (isResponse(bytes)) bytes = await responseBytes(bytes, what);
      // WebAssembly.compile takes an ArrayBuffer or a typed array, not a DataView.
      if (ArrayBuffer.isView(bytes)) bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      module = await WebAssembly.compile(bytes);
    }
    checkShape(module, glueName);
    instantiate(module);
  } catch (err) {
    if (err instanceof RedactionError || isOptionError(err)) throw err;
    throw wasmUnavailable(what, why(err), err);
  }
}
