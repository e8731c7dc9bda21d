// webmcp-redact: the JS API over the WebAssembly core. See index.d.ts for the documentation.

import * as engine from "./engine.js";
import { RedactionError, redactionError, withheldJson } from "./errors.js";
import { checkVaultOptions, makeVault } from "./vault.js";
import { Session } from "./session.js";

export { RedactionError };
export { RedeemError, redeem } from "./vault.js";
export { installRedaction } from "./install.js";
export { Session } from "./session.js";

const FORMATS = ["webmcp", "mcp"];
const LIMIT_KEYS = { maxDepth: 512, maxInputBytes: 2 ** 32 - 1, maxRefHops: 2 ** 32 - 1 };
const CACHE_SIZE = 256;

/**
 * Lints tool definitions (one tool, an array, or a `tools/list` result; an object or JSON
 * text) and returns the findings; see docs/lint.md for every code.
 */
export async function lintTools(definitions) {
  await engine.loadEngine();
  const text = typeof definitions === "string" ? definitions : JSON.stringify(definitions);
  return JSON.parse(engine.call("", (glue) => glue.lintTools(text)));
}

/** Creates a redactor; the WebAssembly module is loaded once and shared by every redactor. */
export async function createRedactor(options = {}) {
  const { format = "webmcp", limits, vault, redeem, policy, ...rest } = options ?? {};
  const unknown = Object.keys(rest);
  if (unknown.length) throw new TypeError(`createRedactor: unknown option ${unknown[0]}`);
  if (!FORMATS.includes(format)) throw new RangeError(`createRedactor: format must be "webmcp" or "mcp"`);
  const wasmLimits = checkLimits(limits);
  const vaultOptions = checkVaultOptions(vault, redeem);
  await engine.loadEngine();
  const policyJson = checkPolicy(policy);
  return new Redactor(format, wasmLimits, vaultOptions, policyJson);
}

// The wasm side validates again; this check gives a plain JS error before anything is loaded.
function checkLimits(limits) {
  if (limits === undefined) return {};
  if (limits === null || typeof limits !== "object") throw new TypeError("createRedactor: limits must be an object");
  const out = {};
  for (const [key, value] of Object.entries(limits)) {
    if (!(key in LIMIT_KEYS)) throw new TypeError(`createRedactor: unknown limit ${key}`);
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1 || value > LIMIT_KEYS[key]) {
      throw new RangeError(`createRedactor: limits.${key} must be an integer from 1 to ${LIMIT_KEYS[key]}`);
    }
    out[key] = value;
  }
  return out;
}

// Used on error paths too, so it must not throw (a tool could be a Proxy or have a getter).
function toolName(tool) {
  try {
    const name = tool !== null && typeof tool === "object" ? tool.name : undefined;
    return typeof name === "string" ? name : "";
  } catch {
    return "";
  }
}

// The compile cache key, and the JSON text the core compiles: only the fields it reads.
function toolKey(tool) {
  const name = toolName(tool);
  if (tool === null || typeof tool !== "object") {
    throw redactionError("schema_invalid", name, "", "the tool definition must be an object");
  }
  try {
    const { title, outputSchema, annotations, _meta } = tool;
    return JSON.stringify({ name: tool.name, title, outputSchema, annotations, _meta });
  } catch (err) {
    throw redactionError("schema_invalid", name, "", "the tool definition is not serializable as JSON", err);
  }
}

class Redactor {
  #format;
  #limits;
  #cache = new Map(); // toolKey -> { generation, wasmTool }, in LRU order
  #vault;

  #policy; // JSON text, validated by the core in createRedactor

  constructor(format, limits, vaultOptions, policyJson = "{}") {
    this.#policy = policyJson;
    this.#format = format;
    this.#limits = limits;
    this.#vault = makeVault(vaultOptions);
  }

  get format() {
    return this.#format;
  }

  get vault() {
    return this.#vault.vault;
  }

  #entry(tool) {
    const key = toolKey(tool);
    const hit = this.#cache.get(key);
    if (hit) {
      this.#cache.delete(key);
      if (hit.generation === engine.generation) {
        this.#cache.set(key, hit);
        return hit;
      }
    }
    const name = toolName(tool);
    const wasmTool = engine.call(name, (glue) => glue.compileTool(key, { limits: this.#limits }, this.#policy));
    const entry = { generation: engine.generation, wasmTool };
    this.#cache.set(key, entry);
    if (this.#cache.size > CACHE_SIZE) {
      const [oldKey, old] = this.#cache.entries().next().value;
      this.#cache.delete(oldKey);
      if (old.generation === engine.generation) old.wasmTool.free();
    }
    return entry;
  }

  compile(tool) {
    this.#entry(tool);
  }

  // The text path shared by redact and redactJson: never throws.
  #run(tool, text) {
    const name = toolName(tool);
    try {
      const { wasmTool } = this.#entry(tool);
      if (typeof text !== "string") throw redactionError("invalid_json", name, "", "the result text must be a string");
      // UTF-8 is never shorter than UTF-16 code units: this refuses a huge input before copying it.
      if (text.length > wasmTool.maxInputBytes) {
        throw redactionError("size_limit", name, "", `the result is larger than ${wasmTool.maxInputBytes} bytes`);
      }
      const known = this.#vault.knownJson();
      const [agentJson, sideJson] = engine.call(name, (glue) => {
        const out = glue.redact(wasmTool, text, this.#format, known);
        try {
          return [out.agentJson, out.sideJson];
        } finally {
          out.free();
        }
      });
      const side = JSON.parse(sideJson);
      this.#vault.add(side.secrets);
      const report = { agentJson, redactions: side.redactions, withheld: side.withheld, labels: side.labels };
      if (side.error) report.error = new RedactionError(side.error.message, side.error);
      return report;
    } catch (err) {
      return this.#withheld(name, err);
    }
  }

  #withheld(name, err) {
    // An unexpected error is not kept as `cause`: its message could quote the side JSON.
    const error = err instanceof RedactionError ? err : redactionError("internal", name, "", `unexpected ${err?.name ?? "error"}`);
    return { agentJson: withheldJson(name, error.code), redactions: [], withheld: true, error };
  }

  redact(tool, raw) {
    let text;
    try {
      // The one and only read of `raw`: everything after works on this text.
      text = JSON.stringify(raw) ?? "null";
    } catch {
      // The thrown error is not kept as `cause`: a getter's error message may hold a value.
      const detail = "JSON.stringify failed (a BigInt, a cycle, or a throwing getter or toJSON)";
      const report = this.#withheld(toolName(tool), redactionError("unserializable", toolName(tool), "", detail));
      return finish(report, { result: JSON.parse(report.agentJson) });
    }
    const report = this.#run(tool, text);
    return finish(report, { result: JSON.parse(report.agentJson) });
  }

  redactJson(tool, jsonText) {
    const report = this.#run(tool, jsonText);
    return finish(report, { json: report.agentJson });
  }

  describe(tool) {
    const { wasmTool } = this.#entry(tool);
    return JSON.parse(engine.call(toolName(tool), (glue) => glue.describeTool(wasmTool)));
  }

  session() {
    return new Session({
      redact: (tool, raw) => this.redact(tool, raw),
      redactJson: (tool, text) => this.redactJson(tool, text),
      check: (tool, argsJson, labelsJson) => {
        const { wasmTool } = this.#entry(tool);
        const known = this.#vault.knownJson();
        return JSON.parse(engine.call(toolName(tool), (glue) => glue.checkCall(wasmTool, argsJson, labelsJson, known)));
      },
      merge: (a, b) => engine.call("", (glue) => glue.mergeLabels(a, b)),
      name: toolName,
    });
  }

  wrapTool(tool) {
    this.#entry(tool); // a bad schema should fail at registration, not at the first call
    if (typeof tool.execute !== "function") throw new TypeError(`wrapTool: tool "${toolName(tool)}" has no execute function`);
    const original = tool.execute;
    const redactor = this;
    return {
      ...tool,
      async execute(input, options) {
        let raw;
        try {
          raw = await original.call(tool, input, options);
        } catch (err) {
          raw = { content: [{ type: "text", text: errorText(err) }], isError: true };
        }
        return redactor.redact(tool, raw).result;
      },
    };
  }
}

// The thrown error's text goes through redaction like any result, so it cannot leak a value.
function errorText(err) {
  try {
    return String(err?.message ?? err);
  } catch {
    return "The tool failed.";
  }
}

// The policy crosses as JSON text; the core checks it here, before any tool is compiled.
function checkPolicy(policy) {
  if (policy === undefined) return "{}";
  if (policy === null || typeof policy !== "object" || Array.isArray(policy)) throw new TypeError("createRedactor: policy must be an object");
  const json = JSON.stringify(policy);
  const problem = engine.call("", (glue) => glue.policyProblem(json));
  if (problem) throw new TypeError(`createRedactor: ${problem}`);
  return json;
}

function finish(report, view) {
  const out = { ...view, redactions: report.redactions, withheld: report.withheld };
  if (report.labels) out.labels = report.labels;
  if (report.error) out.error = report.error;
  return out;
}
