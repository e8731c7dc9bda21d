// Lint of tool definitions (see docs/lint.md for every code). Lint runs in the CLI and at build
// time, not in pages, so it lives in a module of its own (the same core built with lint), loaded
// on the first call; the page's module stays smaller. Lint keeps no state: after a trap the
// module is simply reset.

import * as glue from "../pkg/webmcp_redact_lint.js";
import { compileWasm } from "./engine.js";

const LINT_URL = new URL("../pkg/webmcp_redact_lint_bg.wasm", import.meta.url);
/** @type {Promise<void> | null} */
let ready = null;

/**
 * Lints tool definitions (one tool, an array, or a `tools/list` result; an object or JSON
 * text) and returns the findings.
 */
export async function lintTools(definitions) {
  ready ??= compileWasm(LINT_URL).then((module) => { glue.initSync({ module }); }, (err) => {
    ready = null;
    throw err;
  });
  await ready;
  const text = typeof definitions === "string" ? definitions : JSON.stringify(definitions);
  try {
    return JSON.parse(glue.lintTools(text));
  } catch (err) {
    glue.__wbg_reset_state();
    throw err;
  }
}
