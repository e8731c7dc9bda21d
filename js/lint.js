// Lint of tool definitions (see docs/lint.md for every code). Lint runs in the CLI and at build
// time, not in pages, so it lives in a module of its own (the same core built with lint), whose
// glue and wasm are loaded on the first call (a literal import() that bundlers split off): a
// page that never lints loads neither. Lint keeps no state: after a trap the module is reset.

import { RedactionError, redactionError } from "./errors.js";
import { loadWasm, wasmUnavailable } from "./wasm.js";
import { definitionText } from "./json.js";

/** @type {Promise<typeof import("../pkg/webmcp_redact_lint.js")> | null} */
let ready = null;

/** The lint glue with its module, `read` being the entry point's (js/wasm.js). */
async function load(read) {
  let glue;
  try {
    glue = await import("../pkg/webmcp_redact_lint.js");
  } catch (err) {
    throw wasmUnavailable("the lint module's glue (pkg/webmcp_redact_lint.js)", String(err), err);
  }
  // A function, so that a bundle without import.meta.url fails here, as wasm_unavailable.
  const url = () => new URL("../pkg/webmcp_redact_lint_bg.wasm", import.meta.url);
  await loadWasm(url, read, (module) => glue.initSync({ module }), "webmcp_redact_lint");
  return glue;
}

/**
 * Lints tool definitions (one tool, an array, or a `tools/list` result; an object or JSON
 * text) and returns the findings. `read` is how the entry point reads a URL.
 */
export async function lintToolsWith(read, definitions) {
  ready ??= load(read).catch((err) => {
    ready = null;
    throw err;
  });
  const glue = await ready;
  // Errors with a code, as everywhere else in the API, never the engine's own TypeError: a
  // definition JSON cannot write is `unserializable` (as a result would be), and so is one
  // holding a value JSON would write in another sense than JavaScript reads it (js/json.js:
  // `sensitiveHint: Infinity` linted as null, claiming nothing); `undefined` is linted as
  // `null` (JSON.stringify gives no text for it).
  let text;
  try {
    text = typeof definitions === "string" ? definitions : definitionText(definitions);
  } catch (err) {
    const unheld = /** @type {any} */ (err);
    if (typeof unheld?.pointer === "string") throw redactionError("unserializable", "", unheld.pointer, `JSON cannot hold ${unheld.what}`);
    // The thrown error is not kept as `cause`: a getter's message could hold a value.
    throw redactionError("unserializable", "", "", "JSON.stringify failed (a BigInt, a cycle, or a throwing getter or toJSON)");
  }
  try {
    return JSON.parse(glue.lintTools(text));
  } catch (err) {
    glue.__wbg_reset_state();
    if (err instanceof RedactionError) throw err;
    throw redactionError("internal", "", "", `the lint module failed (${/** @type {any} */ (err)?.name ?? "error"})`, err);
  }
}
