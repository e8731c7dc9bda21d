// `webmcp-redact/conformance`: the conformance vectors this package ships (tests/vectors/, whose
// README.md documents the format), and a runner that checks any implementation of WebMCP #110
// against what the proposal itself requires (a vector's `proposal`: strings the agent must never
// see, strings that must reach it), not against this library's own wording. Node only: it reads
// the vector files next to this module.

import { readFileSync, readdirSync } from "node:fs";

const DIR = new URL("../tests/vectors/", import.meta.url);

/** Every vector, by file name. */
export function loadVectors() {
  return readdirSync(DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(f, DIR), "utf8")));
}

/** Every string of a JSON value with its JSON Pointer: keys (pointer of their object) and leaves. */
function strings(value, pointer = "", out = []) {
  if (typeof value === "string") out.push({ pointer, text: value, key: false });
  else if (Array.isArray(value)) value.forEach((x, i) => strings(x, `${pointer}/${i}`, out));
  else if (value !== null && typeof value === "object") {
    for (const [k, x] of Object.entries(value)) {
      const at = `${pointer}/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      out.push({ pointer: at, text: k, key: true });
      strings(x, at, out);
    }
  }
  return out;
}

/**
 * What is wrong with an agent view against a vector's `proposal`; empty when it meets it.
 * `agentJson` is the agent view as JSON text, or `undefined` when the implementation gave the
 * agent nothing (it threw). A hidden string must not occur in the text, nor in any string or
 * key once decoded; a kept string must occur in one of them.
 * @param {{ proposal?: { hidden?: string[], kept?: string[] } }} vector
 * @param {string | undefined} agentJson
 * @returns {string[]}
 */
export function checkProposal(vector, agentJson) {
  const problems = [];
  const { hidden = [], kept = [] } = vector.proposal ?? {};
  let found = [];
  if (agentJson !== undefined) {
    try {
      found = strings(JSON.parse(agentJson));
    } catch {
      return [`the agent view is not JSON: ${agentJson.slice(0, 200)}`];
    }
  }
  const text = agentJson ?? "";
  for (const h of hidden) {
    const at = found.find((s) => s.text.includes(h));
    if (at) problems.push(`the agent saw ${JSON.stringify(h)}, in ${at.key ? "the key" : "the string"} at ${at.pointer || "(root)"}`);
    else if (text.includes(h) || text.includes(JSON.stringify(h).slice(1, -1))) {
      problems.push(`the agent saw ${JSON.stringify(h)} in the view's JSON text`);
    }
  }
  for (const k of kept) {
    if (!found.some((s) => s.text.includes(k)) && !text.includes(k)) {
      problems.push(`${JSON.stringify(k)} should reach the agent but does not`);
    }
  }
  return problems;
}

/**
 * The function to call, from a module or a function: `redactJson(tool, rawText)` returning the
 * agent view as JSON text, else `redact(tool, raw)` (or the default export) returning it as a
 * value. Either may return a promise.
 * @returns {(tool: object, raw: unknown, rawText: string) => Promise<string>}
 */
function adapt(implementation) {
  const impl = /** @type {any} */ (implementation);
  if (typeof impl === "function") return async (tool, raw) => JSON.stringify(await impl(tool, raw));
  if (typeof impl?.redactJson === "function") return async (tool, _raw, text) => String(await impl.redactJson(tool, text));
  const redact = typeof impl?.redact === "function" ? impl.redact : impl?.default;
  if (typeof redact === "function") return async (tool, raw) => JSON.stringify(await redact(tool, raw));
  throw new TypeError("the implementation must be a function, or a module exporting redactJson, redact or a default function");
}

/**
 * Runs every vector that has a `proposal` through an implementation and checks the agent view
 * it returns. Each call gets fresh copies of the tool and the raw result.
 * @param {unknown} implementation a `redact(tool, raw)` function, or a module exporting
 *   `redactJson(tool, rawText)` (JSON text in and out), `redact(tool, raw)` or a default function
 * @param {{ filter?: string }} [options] only the vectors whose name contains `filter`
 * @returns {Promise<{ passed: string[], failed: { name: string, problems: string[] }[] }>}
 */
export async function runConformance(implementation, options = {}) {
  const call = adapt(implementation);
  const passed = [];
  const failed = [];
  const vectors = loadVectors().filter((v) => v.proposal && (!options.filter || v.name.includes(options.filter)));
  for (const v of vectors) {
    const rawText = v.rawText ?? JSON.stringify(v.raw);
    let agentJson;
    let threw = "";
    try {
      agentJson = await call(structuredClone(v.tool), JSON.parse(rawText), rawText);
    } catch (err) {
      // Nothing reached the agent: that meets `hidden`, never `kept`.
      threw = ` (it threw: ${err instanceof Error ? err.message : String(err)})`;
    }
    const problems = checkProposal(v, agentJson).map((p) => p + threw);
    if (problems.length === 0) passed.push(v.name);
    else failed.push({ name: v.name, problems });
  }
  return { passed, failed };
}
