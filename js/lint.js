// Lint of tool definitions, in the core (see docs/lint.md for every code).

import * as engine from "./engine.js";

/**
 * Lints tool definitions (one tool, an array, or a `tools/list` result; an object or JSON
 * text) and returns the findings.
 */
export async function lintTools(definitions) {
  await engine.loadEngine();
  const text = typeof definitions === "string" ? definitions : JSON.stringify(definitions);
  return JSON.parse(engine.call("", (glue) => glue.lintTools(text)));
}
