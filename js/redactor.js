// The JS face of one core redactor (src/wasm/mod.rs: WasmRedactor). Options are validated by
// the core, once; compiled tools, known secrets and session labels live in the core. What JS
// does itself: take one snapshot of a JS value (JSON.stringify), keep the vault entries for the
// page's UI, and rebuild the core after a trap from a journal of the vault records it was given.

import * as engine from "./engine.js";
import { RedactionError, redactionError, withheldJson } from "./errors.js";
import { makeVault } from "./vault/store.js";
import { Session } from "./session.js";
import { checkWasmOption } from "./wasm.js";
import { definitionText, resultText } from "./json.js";
import { asker, checkConfirmOption } from "./enforce.js";
import { LISTING, cleanTools } from "./listing.js";

/**
 * Creates a redactor; the WebAssembly module is loaded once and shared by every redactor.
 * `load` is the entry point's way to find the module (see js/index.js); `options.wasm` and
 * `options.confirm`, if given, are taken out here: they are not plain data, and the core reads
 * only the rest.
 */
export async function createRedactorWith(load, options) {
  const { wasm, confirm, rest } = takeFunctions(options);
  checkWasmOption(wasm, "createRedactor");
  checkConfirmOption(confirm, "createRedactor");
  await engine.loadEngine(load, wasm);
  return new Redactor(rest, confirm);
}

/** Splits `wasm` and `confirm` off plain-data options, without touching the caller's object. */
function takeFunctions(options) {
  try {
    const none = { wasm: undefined, confirm: undefined, rest: options };
    if (options === null || typeof options !== "object") return none;
    if (!Object.hasOwn(options, "wasm") && !Object.hasOwn(options, "confirm")) return none;
    // Options of another prototype are refused whole by optionsJson; leave them as they are.
    const proto = Object.getPrototypeOf(options);
    if (proto !== null && proto !== Object.prototype) return none;
    const { wasm, confirm, ...rest } = options;
    return { wasm, confirm, rest };
  } catch {
    throw plainDataError(); // a Proxy or a getter that throws
  }
}

function plainDataError() {
  const error = new TypeError("createRedactor: options must be plain data (objects, arrays, strings, numbers, booleans)");
  return Object.assign(error, { code: "invalid_options" });
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

// What the redactor and the runtimes read of a tool: copied even when inherited (a class-based
// tool keeps its execute, and may keep its name, on its prototype).
const TOOL_FIELDS = ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta", "execute"];

/**
 * The one read of a tool object, as wrapTool and installRedaction take it: a plain copy of its
 * own enumerable properties (as `{ ...tool }` makes) and of the TOOL_FIELDS it inherits. Its
 * name, execute, definition and what the runtime is given all come from this copy: read twice,
 * a getter or Proxy could give the runtime (and every agent listing the tools) a name or
 * annotations other than those the redactor checked and reported under (found by review).
 * Anything that throws while it is read is a RedactionError `schema_invalid` (pointing at a
 * TOOL_FIELDS member when it was one), never the thrown value.
 * @param {unknown} tool
 * @returns {any}
 */
export function readTool(tool) {
  if (tool === null || (typeof tool !== "object" && typeof tool !== "function")) {
    throw redactionError("schema_invalid", "", "", "the tool definition must be an object");
  }
  const copy = /** @type {any} */ ({});
  const put = (/** @type {PropertyKey} */ key, /** @type {unknown} */ value) => Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  let at = "";
  try {
    for (const key of Reflect.ownKeys(tool)) {
      at = TOOL_FIELDS.includes(/** @type {any} */ (key)) ? `/${String(key)}` : "";
      if (Reflect.getOwnPropertyDescriptor(tool, key)?.enumerable) put(key, tool[key]);
    }
    for (const key of TOOL_FIELDS) {
      at = `/${key}`;
      if (Object.hasOwn(copy, key) || !(key in tool)) continue;
      const value = tool[key];
      if (value !== undefined) put(key, value);
    }
  } catch {
    throw redactionError("schema_invalid", toolName(copy), at, "the tool definition could not be read (a getter or a Proxy threw)");
  }
  return copy;
}

/**
 * The fields the redactor reads, copied once (as JSON) when a tool is registered or wrapped:
 * redaction then reads this copy, so changing the tool object afterwards (an edited or deleted
 * mark, a getter that answers differently later) changes nothing. installRedaction also needs
 * it because runtimes drop what they do not know.
 */
export function definitionOf(tool) {
  const name = toolName(tool);
  if (tool === null || (typeof tool !== "object" && typeof tool !== "function")) {
    throw redactionError("schema_invalid", name, "", "the tool definition must be an object");
  }
  let text;
  try {
    const { title, outputSchema, annotations, _meta } = tool;
    text = judgedText(name, { name, title, outputSchema, annotations, _meta });
  } catch (err) {
    if (err instanceof RedactionError) throw err;
    throw redactionError("schema_invalid", name, "", "the tool definition could not be read (a getter or a Proxy threw)");
  }
  const def = JSON.parse(text);
  // Frozen to the last value (plain data from JSON.parse: no getter, no Proxy), so its key can
  // be taken now, once, for every call: each call made it again, a whole JSON.stringify of a
  // 1.5 MB definition (20 ms in Node) for a result of a few bytes (found by review). The text
  // is the key: JSON.parse's object writes back as it (same members, same order).
  KEYS.set(deepFreeze(def), UTF8.encode(text));
  return def;
}

/**
 * The JSON text of the fields of a tool the core judges it by: a value JSON cannot hold, which
 * JSON.stringify would write as `null` or leave out while JavaScript reads it as true
 * (`sensitiveHint: Infinity`, `"x-sensitive": () => true`), is a `schema_invalid` at its place
 * (js/json.js), as is anything JSON.stringify refuses (a BigInt, a cycle).
 */
function judgedText(name, fields) {
  try {
    return definitionText(fields);
  } catch (err) {
    const unheld = /** @type {any} */ (err);
    if (typeof unheld?.pointer === "string") {
      throw redactionError("schema_invalid", name, unheld.pointer, `JSON cannot hold ${unheld.what}, which it would write as null or leave out: write the value JSON means`);
    }
    // The thrown error is not kept as `cause`: a getter's message could hold a value.
    throw redactionError("schema_invalid", name, "", "the tool definition is not serializable as JSON");
  }
}

/** The key of each definition definitionOf made (frozen: it cannot go stale). */
const KEYS = new WeakMap();

/**
 * The JSON text the core compiles a tool from (only the fields it reads), as UTF-8 bytes: a
 * typed array crosses into the module as one copy, a string a character at a time (18 ms for
 * 1.5 MB).
 */
function keyOf(tool) {
  const { title, outputSchema, annotations, _meta } = tool;
  return UTF8.encode(judgedText(toolName(tool), { name: tool.name, title, outputSchema, annotations, _meta }));
}

/**
 * Makes `wrapped` (the copy a runtime is given) show the fields the core judges a tool by as
 * the frozen copy `def` it judges, and the agent schema `published` (null: none), none of them
 * writable: a copy sharing its annotations or _meta with the page's tool object showed the
 * runtime (which may keep the object and list it again later, as the polyfill does) a mark
 * added after wrapping or registering, while the core judged the copy without it and let the
 * result through raw (found by review).
 */
export function showJudged(wrapped, def, published) {
  const fields = { title: def.title, annotations: def.annotations, _meta: def._meta, outputSchema: published ?? undefined };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) delete wrapped[key];
    else Object.defineProperty(wrapped, key, { value: deepFreeze(value), enumerable: true, writable: false, configurable: false });
  }
  return wrapped;
}

/** Freezes plain JSON data all the way down, without recursion (a definition may be deep). */
function deepFreeze(value) {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== "object") continue;
    Object.freeze(v);
    for (const key in v) stack.push(v[key]);
  }
  return value;
}

const sessions = new FinalizationRegistry((close) => close());

// Not part of the public API: what installRedaction needs to know of a tool wrapTool made, when
// the page registers that copy on the patched context (as README advises for tools it wraps
// itself: `uninstall.redactor.wrapTool`). Each execute wrapTool made -> its redactor, the
// definition its calls are judged by and the schema published for it; each result object such an
// execute returned -> its redaction report (resultId, handles).
const WRAPPED = new WeakMap();
const REPORTS = new WeakMap();
/** Each result object a wrapTool execute returned -> `{ redactor, name }` of the copy that made it. */
const MAKERS = new WeakMap();

/** `{ redactor, def, published }` of the wrapTool call that made `execute`, or undefined. */
export function wrappedBy(execute) {
  return typeof execute === "function" ? WRAPPED.get(execute) : undefined;
}

/**
 * Refuses, in `who` (wrapTool, installRedaction), a tool whose execute another redactor's
 * wrapTool made: wrapped again here, its stubs were foreign to this redactor and stripped, so
 * the notice promised a reveal no one could make and onResult was never told (found by review).
 * @param {any} made what wrappedBy said of the tool's execute
 * @param {unknown} redactor the redactor about to wrap it
 * @param {string} name
 * @param {string} who
 */
export function refuseForeign(made, redactor, name, who) {
  if (!made) return;
  // This redactor's copy under another name: its calls are judged, asked about (the user's
  // question names the tool) and revealed as the tool wrapTool was given, so the runtime
  // would list one name and the user be asked about another (found by review s31).
  if (made.redactor === redactor && made.def && made.def.name !== name) {
    const renamed = `${who}: tool "${name}" is a copy wrapTool made for tool "${made.def.name}", whose calls are checked, asked about and revealed under that name: register it under that name, or wrap the tool itself under this one`;
    throw Object.assign(new TypeError(renamed), { code: "foreign_wrapper" });
  }
  if (made.redactor === redactor) return;
  const message = `${who}: tool "${name}" was wrapped by another redactor's wrapTool, whose secrets this redactor cannot reveal: give the tool itself, or a copy this redactor's wrapTool made (installRedaction's is uninstall.redactor)`;
  throw Object.assign(new TypeError(message), { code: "foreign_wrapper" });
}

/**
 * What a tool's own `execute` returned, refused (thrown, so the call's result is that error)
 * when a wrapTool execute made it for another redactor or another tool: a page function that
 * calls a wrapped copy's execute is not recognised when registered (only the function itself
 * could be), and the copy's stubs, issued for its own result, were stripped here as forged
 * while its notice, kept as the tool's text, promised the agent a reveal no one could make
 * (found by review s31, left open; fixed by review s32). A result this redactor made for the
 * same tool passes: its stubs are kept and reveal (a copy wrapped again, review s30).
 * @param {unknown} raw
 * @param {unknown} redactor the redactor redacting it
 * @param {string} name the tool it is redacted as
 * @param {string} who
 */
export function ownResult(raw, redactor, name, who) {
  const maker = raw !== null && typeof raw === "object" ? MAKERS.get(raw) : undefined;
  if (maker === undefined) return raw;
  refuseForeign({ redactor: maker.redactor }, redactor, name, who);
  if (maker.name === name) return raw;
  const message = `${who}: tool "${name}" returned the result wrapTool made for tool "${maker.name}", whose secrets can be revealed only as that tool's result: register (or wrap) that copy itself`;
  throw Object.assign(new TypeError(message), { code: "foreign_wrapper" });
}

/** The report of a result a wrapTool execute returned (the object itself), or undefined. */
export function reportOf(result) {
  return result !== null && typeof result === "object" ? REPORTS.get(result) : undefined;
}

/**
 * Not part of the public API: installRedaction's way to check and ask in the one session (and
 * with the one question queue) wrapTool's calls use, so that a page has one set of labels.
 */
export const PAGE_SESSION = Symbol("webmcp-redact/page-session");
/** The pointer of a message's block for the user only in a value (not part of the public API). */
export const USER_ONLY = Symbol("webmcp-redact/user-only");
const UTF8 = new TextEncoder();

/**
 * The options as JSON text, the one form the core reads them in. Only plain data can be
 * options: a function, symbol or BigInt anywhere is a TypeError here (JSON would drop or
 * refuse it silently), and a non-finite number is passed as text so the core refuses it.
 */
function optionsJson(options) {
  const plain = (_key, value) => {
    if (typeof value === "function" || typeof value === "symbol") throw new TypeError("not plain data");
    // A Map, a class instance or an object with an inherited option would be read as {} or
    // lose that option: refused rather than misread.
    const proto = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.getPrototypeOf(value) : null;
    if (proto !== null && proto !== Object.prototype) throw new TypeError("not plain data");
    return typeof value === "number" && !Number.isFinite(value) ? String(value) : value;
  };
  try {
    return JSON.stringify(options ?? null, plain);
  } catch {
    throw plainDataError();
  }
}

class Redactor {
  #options; // JSON text, validated by the core; kept to build a fresh core after a trap
  /** @type {any} the WasmRedactor of the live instance */
  #core = null;
  #generation = -1; // the engine generation #core belongs to
  #cores = 0; // how many cores this redactor has had: a session's labels follow it
  #settings;
  #vault;
  // What the core reported it learned, to rebuild a fresh core's known set after a trap:
  // live handle -> [{ label, value }] (each pair once, as the core reports it), and the values
  // held by no handle: value -> label, each value once. An expired handle's records move to
  // the pinned values, as the core pins them: the journal grows with live handles and distinct
  // values, not with calls (one tool returning one secret per call made a record per call).
  #journal = new Map();
  #pinned = new Map();
  #ask; // the consent prompt wrapTool's calls wait on, one question at a time
  /** @type {Session | null} */
  #wrapSession = null; // the session every wrapped tool's calls are checked and redacted in

  constructor(options, confirm) {
    this.#options = optionsJson(options);
    this.#ask = asker(confirm);
    engine.call("", (glue) => this.#coreIn(glue)); // bad options: TypeError / RangeError
    this.#settings = JSON.parse(this.#core.settings());
    this.#vault = makeVault(this.#settings, {
      learn: (handle, label, value) => {
        if (handle === null) this.#pin(label, value);
        else this.#known(handle, { label, value }, (c) => c.learn(handle, label, value));
      },
      forget: (handle) => this.#known(handle, null, (c) => c.forget(handle)),
      forgetAll: () => this.#known(null, null, (c) => c.forgetAll()),
      expire: (handles) => this.#expire(handles),
    });
  }

  get format() {
    return this.#settings.format;
  }

  get vault() {
    return this.#vault.vault;
  }

  /** This redactor's core in the live instance: a fresh one after a trap, with its known values. */
  #coreIn(glue) {
    if (this.#generation === engine.generation) return this.#core;
    // Expired entries first, so that only live handles are replayed (the sweep only moves
    // journal records while the core is not current; see #expire).
    this.#vault?.sweep();
    const core = new glue.WasmRedactor(this.#options);
    for (const [handle, records] of this.#journal) {
      for (const r of records) core.remember(handle, r.label, r.value);
    }
    for (const [value, label] of this.#pinned) core.remember(undefined, label, value);
    this.#core = core;
    this.#generation = engine.generation;
    this.#cores += 1;
    return core;
  }

  #call(name, fn) {
    // A fresh core's rebuild is its own call, so that replaying a large known set is not
    // mistaken for a call that grew the memory (see engine.call).
    engine.call(name, (glue) => this.#coreIn(glue), false);
    return engine.call(name, (glue) => fn(this.#coreIn(glue), glue));
  }

  /** Tells the core's known set about the vault, and keeps the journal in step. */
  #known(handle, record, fn) {
    if (handle === null) {
      this.#journal.clear();
      this.#pinned.clear();
    }
    else if (record === null) this.#journal.delete(handle);
    else this.#journalAdd(handle, record);
    try {
      this.#call("", fn);
    } catch {
      // No live instance: the journal brings the next core up to date.
    }
  }

  /** The vault swept `handles` out: their values stay known, pinned, as the core does. */
  #expire(handles) {
    for (const handle of handles) {
      const records = this.#journal.get(handle);
      if (!records) continue;
      this.#journal.delete(handle);
      for (const r of records) this.#pinAdd(r.label, r.value);
    }
    // A core that is not current is rebuilt from the journal, which is up to date: calling
    // it here would build one from inside #coreIn's own sweep.
    if (this.#generation !== engine.generation) return;
    try {
      this.#call("", (c) => c.expire(handles.join(" ")));
    } catch {
      // No live instance: the journal brings the next core up to date.
    }
  }

  /** A value held by no handle (a redeem that outlasted its entry): known until clear. */
  #pin(label, value) {
    this.#pinAdd(label, value);
    try {
      this.#call("", (c) => c.remember(undefined, label, value));
    } catch {
      // No live instance: the journal brings the next core up to date.
    }
  }

  // The core keeps a value's first label; so does the journal.
  #pinAdd(label, value) {
    if (!this.#pinned.has(value)) this.#pinned.set(value, label);
  }

  // In place: one handle can hold thousands of values (the items of one array), so copying
  // its list per value would be quadratic.
  #journalAdd(handle, record) {
    const records = this.#journal.get(handle);
    if (records) records.push(record);
    else this.#journal.set(handle, [record]);
  }

  /** Keeps what the core took; returns the id of this result when it issued handles. */
  #keep(side) {
    let resultId;
    if (side.secrets.length) {
      // The core names the result from the random fill that drew its handles (one
      // getRandomValues per result, src/wasm/crypto.rs); a missing id is an error, not a guess.
      resultId = side.resultId;
      if (typeof resultId !== "string" || !/^[0-9a-f]{32}$/.test(resultId)) throw new Error("the side record has no result id");
      this.#vault.add(side.secrets, resultId);
    }
    // Runs of one handle and label (src/wire/records.rs).
    for (const { handle, label, values } of side.known ?? []) {
      for (const value of values) {
        if (handle === undefined) this.#pinAdd(label, value);
        else this.#journalAdd(handle, { label, value });
      }
    }
    return resultId;
  }

  /** The tool's key (see keyOf): taken once for a definition wrapTool or installRedaction made,
   * which cannot change; made again on every call for any other object. */
  #toolKey(tool, name) {
    if (tool === null || typeof tool !== "object") throw this.#error(name, "schema_invalid", "the tool definition must be an object");
    const known = KEYS.get(tool);
    if (known !== undefined) return known;
    try {
      return keyOf(tool);
    } catch {
      throw this.#error(name, "schema_invalid", "the tool definition is not serializable as JSON");
    }
  }

  /** A problem found before the core could look: the core words it, with the withheld view. */
  #rejected(name, code, detail) {
    const [agentJson, error] = this.#call(name, (core) => core.withheld(name, code, detail));
    return { agentJson, redactions: [], withheld: true, error };
  }

  /** The error of `#rejected`, thrown on: `withheld` finds the view the core wrote for it. */
  #error(name, code, detail) {
    const { agentJson, error } = this.#rejected(name, code, detail);
    VIEWS.set(error, agentJson);
    return error;
  }

  /** The session's id in the current core: reopened, with its labels, after a trap. */
  #sessionId(core, state) {
    if (!state) return 0;
    if (state.cores !== this.#cores) {
      state.id = core.openSession();
      state.cores = this.#cores;
      if (state.labels) core.setSessionLabels(state.id, JSON.stringify(state.labels));
      state.labels = JSON.parse(core.sessionLabels(state.id));
    }
    return state.id;
  }

  // The text path shared by redact and redactJson: never throws.
  #run(tool, text, state) {
    const name = toolName(tool);
    try {
      const key = this.#toolKey(tool, name);
      if (typeof text !== "string") return this.#rejected(name, "invalid_json", "the result text must be a string");
      // UTF-8 is never shorter than UTF-16 code units: this refuses a huge input before copying it.
      const max = this.#settings.maxInputBytes;
      if (text.length > max) return this.#rejected(name, "size_limit", `the result is larger than ${max} bytes`);
      // As bytes: wasm-bindgen copies a string in a character at a time, a typed array at once.
      const utf8 = UTF8.encode(text);
      const [agentJson, sideJson, error] = this.#call(name, (core) => core.redact(key, utf8, this.#sessionId(core, state)));
      const side = JSON.parse(sideJson);
      const resultId = this.#keep(side);
      if (state && side.sessionLabels) state.labels = side.sessionLabels;
      const report = { agentJson: agentJson ?? text, redactions: side.redactions, withheld: side.withheld, labels: side.labels };
      if (error) report.error = error;
      if (resultId) report.resultId = resultId;
      return report;
    } catch (err) {
      return this.#failed(name, err);
    }
  }

  /**
   * `withheld(name, err)`, its view written by the core where JS wrote it (a trap, an error
   * thrown before the core looked): JS's wording named the tool as given, and a name holding
   * a known value showed it (left open by review s36). A fresh core (the journal replayed)
   * masks it as it masks any; where none can be made, the view names no tool.
   */
  #failed(name, err) {
    const report = withheld(name, err);
    if (VIEWS.has(report.error)) return report;
    try {
      const [agentJson] = this.#call(name, (core) => core.withheld(name, report.error.code, ""));
      return { ...report, agentJson };
    } catch {
      return { ...report, agentJson: withheldJson(UNNAMED, report.error.code) };
    }
  }

  compile(tool) {
    const name = toolName(tool);
    const key = this.#toolKey(tool, name);
    this.#call(name, (core) => core.compile(key));
  }

  redact(tool, raw) {
    return this.#redact(tool, raw, null);
  }

  redactJson(tool, jsonText) {
    return this.#redactJson(tool, jsonText, null);
  }

  #redact(tool, raw, state) {
    let text;
    try {
      // The one text of `raw` everything after works on (resultText reads `raw` a second time
      // when the first text holds `null`, and this is then that second read's text).
      text = resultText(raw);
    } catch {
      // The thrown error is not kept as `cause`: a getter's error message may hold a value.
      const detail = "JSON.stringify failed (a BigInt, a cycle, or a throwing getter or toJSON)";
      const name = toolName(tool);
      let report;
      try {
        report = this.#rejected(name, "unserializable", detail);
      } catch (err) {
        report = this.#failed(name, err);
      }
      return finish(report, { result: JSON.parse(report.agentJson) });
    }
    const report = this.#run(tool, text, state);
    return finish(report, { result: JSON.parse(report.agentJson) });
  }

  #redactJson(tool, jsonText, state) {
    const report = this.#run(tool, jsonText, state);
    return finish(report, { json: report.agentJson });
  }

  /**
   * A tool listing as an agent may see it, cleaned as installRedaction cleans the runtime's
   * (js/listing.js `cleanTools`): an extension's bridge reads a page's listing past any patch,
   * and `redactJson` of it masked a tool named by a known value, leaving an entry no call can
   * reach, where it must be dropped. Fails closed: what cannot be read or scrubbed throws, and
   * nothing of the listing is given.
   * @param {unknown} tools
   */
  cleanToolListing(tools) {
    let entries;
    try {
      // Each index read (`every` skips a hole, which JSON writes as null).
      entries = Array.isArray(tools) && Array.from(tools).every((t) => t !== null && typeof t === "object" && !Array.isArray(t));
    } catch {
      entries = null; // a getter or Proxy that throws: unreadable, below
    }
    if (entries === false) throw Object.assign(new TypeError("cleanToolListing: tools must be an array of tool objects"), { code: "invalid_listing" });
    try {
      if (entries === null) throw new TypeError("unreadable");
      return cleanTools(tools, (strings) => this.#listingStrings(strings));
    } catch (err) {
      if (err instanceof RedactionError) throw err;
      // The thrown error is not kept as `cause`: a getter's error message may hold a value.
      throw redactionError("unserializable", LISTING, "", "the tool listing could not be read as JSON (a BigInt, a cycle, or a throwing getter or toJSON)");
    }
  }

  /** `strings` with what this redactor finds masked (cleanTools' `scrub`); throws where withheld. */
  #listingStrings(strings) {
    const out = this.redact({ name: LISTING }, { strings });
    if (out.withheld) throw out.error ?? redactionError("withheld", LISTING, "", "the listing was withheld: it claims sensitivity itself");
    return (out.result?.structuredContent ?? out.result)?.strings;
  }

  describe(tool) {
    const name = toolName(tool);
    const key = this.#toolKey(tool, name);
    return JSON.parse(this.#call(name, (core) => core.describe(key)));
  }

  agentSchema(tool) {
    const name = toolName(tool);
    const key = this.#toolKey(tool, name);
    return JSON.parse(this.#call(name, (core) => core.agentSchema(key)));
  }

  session() {
    const core = {
      open: () => {
        const state = { id: 0, cores: -1, labels: null };
        this.#call("", (c) => this.#sessionId(c, state));
        return state;
      },
      redact: (tool, raw, state) => this.#redact(tool, raw, state),
      redactJson: (tool, text, state) => this.#redactJson(tool, text, state),
      check: (tool, argsJson, state) => {
        const name = toolName(tool);
        const key = this.#toolKey(tool, name);
        const vault = this.#referable(name, argsJson, state);
        return JSON.parse(this.#call(name, (c) => c.check(key, argsJson, this.#sessionId(c, state), vault)));
      },
      approve: (state, name, handles) => {
        state.approved ??= new Map();
        const set = state.approved.get(name) ?? new Set();
        for (const h of handles) set.add(h);
        state.approved.set(name, set);
      },
      reveal: (handle) => this.#singleValue(handle),
      labelOf: (handle) => this.#vault.vault.get(handle)?.label,
      // The arguments' JSON text as the check read it (never the caller's object again).
      shown: (name, argsJson) => {
        try {
          return JSON.parse(this.#call(name, (c) => c.scrubKnown(argsJson)));
        } catch {
          return null; // nothing that could hold a value is shown
        }
      },
      destination: (tool) => {
        try {
          return this.describe(tool)?.input?.destination?.value ?? undefined;
        } catch {
          return undefined;
        }
      },
      setLabels: (state, labels) => {
        this.#call("", (c) => {
          const id = this.#sessionId(c, state);
          c.setSessionLabels(id, labelsJson(labels));
          state.labels = JSON.parse(c.sessionLabels(id));
        });
      },
      close: (state) => {
        if (state.cores !== this.#cores) return;
        try {
          this.#call("", (c) => c.closeSession(state.id));
        } catch {
          // the core is gone with its sessions
        }
      },
    };
    const state = core.open();
    const session = new Session(core, state);
    sessions.register(session, () => core.close(state));
    return session;
  }

  /** The value of a vault entry that holds one string: the only kind a reference can use. */
  #singleValue(handle) {
    const e = this.#vault.vault.get(handle);
    return e?.kind === "value" && typeof e.value === "string" ? e.value : undefined;
  }

  /**
   * What the check may know of the vault for one call: the handles written in the arguments
   * whose entry holds one string (only those can be put in a call), and those the user
   * approved with this tool. A handle written with escapes is not found: refused, fail closed.
   */
  #referable(name, argsJson, state) {
    const open = "{{secret:";
    if (!argsJson.includes(open)) return undefined;
    // One pass over the text, each opening's next 32 characters (a handle's length) looked up in
    // the vault: linear in the arguments whatever the vault holds, where a search of the text
    // for each of the vault's handles was (many handles) x (long arguments).
    const handles = new Set();
    for (let at = argsJson.indexOf(open); at >= 0; at = argsJson.indexOf(open, at + 1)) {
      const h = argsJson.slice(at + open.length, at + open.length + 32);
      if (this.#singleValue(h) !== undefined) handles.add(h);
    }
    const approved = [...(state?.approved?.get(name) ?? [])].filter((h) => handles.has(h));
    return JSON.stringify({ handles: [...handles], approved });
  }

  /**
   * The session every tool of this redactor is checked and redacted in, and its asker: wrapTool's
   * calls, and installRedaction's (which made this redactor). Two sessions split the labels:
   * private data read through a tool wrapped with `uninstall.redactor.wrapTool` did not count
   * for the exfiltration check of a tool registered through the patch (found by review).
   */
  [PAGE_SESSION]() {
    return { session: (this.#wrapSession ??= this.session()), ask: this.#ask, generation: () => this.#knownGeneration() };
  }

  /**
   * The pointer of the first block for the user only among the messages inside `value` (a
   * prompt's, a sampling request's), or null: the core's rule for a result's blocks
   * (src/redact/blocks.rs), asked through the door, so that it lives once. Throws (a
   * RedactionError) where it cannot be asked: the caller withholds.
   * @param {unknown} value plain JSON
   * @returns {string | null}
   */
  [USER_ONLY](value) {
    const text = JSON.stringify(value) ?? "null";
    // No block names an audience (JSON.stringify writes the key as it is): nothing to ask, and
    // a large read's text is not copied into the core and parsed again.
    if (!text.includes('"audience"')) return null;
    return this.#call("", (core) => core.userOnlyMessage(UTF8.encode(text))) ?? null;
  }

  /**
   * Changes whenever what the known set matches may have (the core's count of its changes, in
   * this redactor's current core): what a scrub found in a text holds while it stays the same.
   * Null when no core can be asked.
   * @returns {string | null}
   */
  #knownGeneration() {
    try {
      return this.#call("", (core) => `${this.#cores}:${core.knownGeneration}`);
    } catch {
      return null;
    }
  }

  wrapTool(tool) {
    // One copy of what the redactor reads, taken now, as installRedaction takes it: every call
    // is checked and redacted by this copy, the one the published outputSchema was made from.
    // Read live, a mark removed from the tool object (or a getter) after wrapping would let
    // later results through raw while the runtime still shows the mark.
    const copy = readTool(tool);
    refuseForeign(wrappedBy(copy.execute), this, toolName(copy), "wrapTool");
    const def = definitionOf(copy);
    this.compile(def); // a bad schema should fail at registration, not at the first call
    const original = copy.execute;
    // A definition that cannot be wrapped, like one that cannot be compiled: a RedactionError
    // with a stable code, pointing at what is missing.
    if (typeof original !== "function") {
      throw redactionError("schema_invalid", def.name, "/execute", "wrapTool needs a tool whose execute is a function");
    }
    const redactor = this;
    const wrapped = {
      ...copy,
      // The call is checked first (see js/enforce.js), in one session shared by every tool this
      // redactor wrapped, so that what one result showed the agent counts for the next call.
      async execute(input, options) {
        const { session, ask } = redactor[PAGE_SESSION]();
        const run = async (args) => ownResult(await original.call(tool, args, options), redactor, def.name, "wrapTool");
        const report = await session.guard(def, input, run, ask);
        if (report.result !== null && typeof report.result === "object") {
          REPORTS.set(report.result, report);
          MAKERS.set(report.result, { redactor, name: def.name });
        }
        return report.result;
      },
    };
    // The runtime, and any MCP client behind it, validates results against the schema it is
    // given: give it the one that describes the redacted view, or none when no view carries
    // structuredContent.
    const published = this.agentSchema(def);
    WRAPPED.set(wrapped.execute, { redactor: this, def, published });
    return showJudged(wrapped, def, published);
  }
}

// Labels JSON would misread (`private: () => true` left out, read as false) are refused too.
function labelsJson(labels) {
  try {
    return definitionText(labels ?? {});
  } catch {
    return "null"; // the core refuses it with its TypeError
  }
}

/**
 * The withheld view the core wrote for an error `#error` made: it masks a tool's name that
 * holds a known value (review s36: a definition JSON cannot write, named "get_" + a known
 * value, showed it in JS's own wording).
 * @type {WeakMap<object, string>}
 */
const VIEWS = new WeakMap();

/** The tool as the withheld view names it when no core can say how its name may be shown. */
const UNNAMED = "this tool";

/**
 * The withheld report when the core could not finish (a trap, or no instance, or an error
 * thrown before it looked): the core's wording where it made the error, JS's otherwise (no
 * core to ask: a rebuild waits for the next call, which sweeps the vault first).
 */
function withheld(name, err) {
  // An unexpected error is not kept as `cause`: its message could quote the side record.
  const error = err instanceof RedactionError ? err : redactionError("internal", name, "", `unexpected ${err?.name ?? "error"}`);
  return { agentJson: VIEWS.get(error) ?? withheldJson(name, error.code), redactions: [], withheld: true, error };
}

function finish(report, view) {
  const out = { ...view, redactions: report.redactions, withheld: report.withheld };
  if (report.labels) out.labels = report.labels;
  if (report.error) out.error = report.error;
  if (report.resultId) out.resultId = report.resultId;
  return out;
}

export { toolName };
