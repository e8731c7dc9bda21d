// Lint of tool definitions (see docs/lint.md for every code). Lint runs in the CLI and at build
// time, not in pages, so it lives in a module of its own (the same core built with lint), whose
// glue and wasm are loaded on the first call (a literal import() that bundlers split off): a
// page that never lints loads neither. Lint keeps no state: after a trap the module is reset.

import { compileWasm } from "./engine.js";

const LINT_URL = new URL("../pkg/webmcp_redact_lint_bg.wasm", import.meta.url);
/** @type {Promise<typeof import("../pkg/webmcp_redact_lint.js")> | null} */
let ready = null;

async function load() {
  const glue = await import("../pkg/webmcp_redact_lint.js");
  glue.initSync({ module: await compileWasm(LINT_URL) });
  return glue;
}

/**
 * Lints tool definitions (one tool, an array, or a `tools/list` result; an object or JSON
 * text) and returns the findings.
 */
export async function lintTools(definitions) {
  ready ??= load().catch((err) => {
    ready = null;
    throw err;
  });
  const glue = await ready;
  const text = typeof definitions === "string" ? definitions : JSON.stringify(definitions);
  try {
    return JSON.parse(glue.lintTools(text));
  } catch (err) {
    glue.__wbg_reset_state();
    throw err;
  }
}
