// webmcp-redact: the JS API over the WebAssembly core. See index.d.ts for the documentation.

import * as engine from "./engine.js";
import { RedactionError, redactionError, withheldJson } from "./errors.js";

export { RedactionError };

const FORMATS = ["webmcp", "mcp"];
const LIMIT_KEYS = { maxDepth: 512, maxInputBytes: 2 ** 32 - 1, maxRefHops: 2 ** 32 - 1 };
const CACHE_SIZE = 256;

/** Creates a redactor; the WebAssembly module is loaded once and shared by every redactor. */
export async function createRedactor(options = {}) {
  const { format = "webmcp", limits, ...rest } = options ?? {};
  const unknown = Object.keys(rest);
  if (unknown.length) throw new TypeError(`createRedactor: unknown option ${unknown[0]}`);
  if (!FORMATS.includes(format)) throw new RangeError(`createRedactor: format must be "webmcp" or "mcp"`);
  const wasmLimits = checkLimits(limits);
  await engine.loadEngine();
  return new Redactor(format, wasmLimits);
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

function makeVault() {
  const entries = new Map();
  let known = null; // cached knownJson; null when the vault changed

  const vault = {
    reveal(handle) {
      const e = entries.get(handle);
      if (!e) return undefined;
      if (e.kind === "value") return e.value;
      if (e.kind === "many") return e.values.map((v) => v.value);
      const ref = { id: e.id, redeemUrl: e.redeemUrl };
      if (e.ttl !== undefined) ref.ttl = e.ttl;
      return ref;
    },
    get(handle) {
      return entries.get(handle);
    },
    entries() {
      return [...entries.values()];
    },
    delete(handle) {
      known = null;
      return entries.delete(handle);
    },
    clear() {
      known = null;
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };

  function add(secrets) {
    for (const s of secrets) entries.set(s.handle, s);
    if (secrets.length) known = null;
  }

  // The strings the vault holds, so that the core scrubs them from later results too.
  function knownJson() {
    if (known !== null) return known;
    const seen = new Map();
    const note = (label, value) => {
      if (typeof value === "string" && !seen.has(value)) seen.set(value, label);
    };
    for (const e of entries.values()) {
      if (e.kind === "value") note(e.label, e.value);
      else if (e.kind === "many") for (const v of e.values) note(v.label, v.value);
      else note(e.label, e.id);
    }
    known = JSON.stringify([...seen].map(([value, label]) => ({ label, value })));
    return known;
  }

  return { vault, add, knownJson };
}

class Redactor {
  #format;
  #limits;
  #cache = new Map(); // toolKey -> { generation, wasmTool }, in LRU order
  #vault = makeVault();

  constructor(format, limits) {
    this.#format = format;
    this.#limits = limits;
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
    const wasmTool = engine.call(name, (glue) => glue.compileTool(key, { limits: this.#limits }));
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
      const report = { agentJson, redactions: side.redactions, withheld: side.withheld };
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

function finish(report, view) {
  const out = { ...view, redactions: report.redactions, withheld: report.withheld };
  if (report.error) out.error = report.error;
  return out;
}
