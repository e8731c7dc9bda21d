// installRedaction: patches a WebMCP modelContext so that every tool registered through it
// returns only the redacted result to the agent.
//
// The redaction of each result goes through one small object, the "session"
// (`{ compile(tool), redact(tool, raw) -> { result, redactions, withheld, error? } }`, the
// shape of Redactor.redact), so that it can be swapped for another that also records labels,
// without touching the patching.

import { RedactionError, redactionError, withheldJson } from "./errors.js";
import { loadEngine } from "./engine.js";
import { PAGE_SESSION, USER_ONLY, createRedactorWith, definitionOf, ownResult, readTool, refuseForeign, reportOf, showJudged, toolName as nameOf, wrappedBy } from "./redactor.js";
import { formToolNames, interceptFormResponses, watchFormTools } from "./declarative.js";
import { checkWasmOption, isOptionError, wasmUnavailable } from "./wasm.js";
import { checkConfirmOption } from "./enforce.js";
import { innerServerOf, patchInner, registeredOn } from "./inner.js";
import { LISTING, cleanListing, cleanTools } from "./listing.js";
import { definitionText, resultText } from "./json.js";

const INSTALLED = Symbol.for("webmcp-redact/installed");

// `@mcp-b/global` makes `document.modelContext` a BrowserMcpServer, which exposes every tool to
// MCP clients; this own property is how `isBrowserMcpServer()` of `@mcp-b/webmcp-ts-sdk` (the
// check its README gives) recognises one.
const MCP_B_SERVER = "__isBrowserMcpServer";

/** An option error, like the core's: a TypeError with code `invalid_options`. */
function optionError(message) {
  return usageError("invalid_options", message);
}

/**
 * A mistake in the call, not in the module: a TypeError, like every such error of the API, with
 * a stable `code` (README "Errors"), so that a page can tell them apart without reading the
 * message: `invalid_options`, `no_model_context` (nothing to patch: a browser without WebMCP
 * can be told from a bad option) and `already_installed` (harmless to ignore).
 */
function usageError(code, message) {
  return Object.assign(new TypeError(`installRedaction: ${message}`), { code });
}

/**
 * Is the runtime an MCP bridge (`"mcp"`: results must be MCP-valid CallToolResults) or not
 * (`"none"`)? The page may say so; otherwise the runtime tells.
 */
function bridgeOf(modelContext, given) {
  if (given !== undefined) {
    // Named by its kind, never converted: a value's own toString could throw (found by review).
    if (given !== "mcp" && given !== "none") throw optionError(`bridge must be "mcp" or "none", not ${typeof given === "string" ? JSON.stringify(given) : typeof given}`);
    return given;
  }
  try {
    return modelContext[MCP_B_SERVER] === true ? "mcp" : "none";
  } catch {
    return "none"; // a context that throws on a property read is not MCP-B's
  }
}

// AbortSignal's own members, taken when this module is evaluated: the signal a registration gives
// is checked and followed through them, never through members the signal (or a script that ran
// later) could answer for.
/**
 * `read()`, the claims a registered inner tool's handle lists now; one that throws is refused.
 * @param {string} name
 * @param {() => any[]} read
 */
function readClaims(name, read) {
  try {
    return read();
  } catch {
    throw redactionError("schema_invalid", name, "", "the tool's annotations or _meta on mcpServer could not be read");
  }
}

/**
 * What a page's function returned, read once: a plain copy of its JSON text as the redactor
 * writes it (js/json.js), so that every later look at it (a round's requests, the redaction)
 * sees that one read. A result this page's redactor made is kept as it is (the guard knows it
 * by identity); one that cannot be written is given back as it is, for the redaction to fail
 * closed on it.
 * @param {unknown} raw
 */
function readOnce(raw) {
  if (reportOf(raw)) return raw;
  try {
    return JSON.parse(resultText(raw));
  } catch {
    return raw;
  }
}

/**
 * `value` frozen with everything it holds (plain data: what this module parsed). Iterative: a
 * deep result must not overflow the stack.
 * @template T
 * @param {T} value
 * @returns {T}
 */
function frozen(value) {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== "object" || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const key of Object.keys(v)) stack.push(/** @type {any} */ (v)[key]);
  }
  return value;
}

const SIGNAL = globalThis.AbortSignal?.prototype;
const abortedOf = SIGNAL ? Object.getOwnPropertyDescriptor(SIGNAL, "aborted")?.get : undefined;
const reasonOf = SIGNAL ? Object.getOwnPropertyDescriptor(SIGNAL, "reason")?.get : undefined;
const listen = globalThis.EventTarget?.prototype.addEventListener;
const unlisten = globalThis.EventTarget?.prototype.removeEventListener;

/** Aborts `relay` with `signal`'s reason (the runtime sees the page's reason). */
function relayAbort(relay, signal) {
  relay?.abort(reasonOf ? Reflect.apply(reasonOf, signal, []) : undefined);
}

/** Is `value` a real AbortSignal (its `aborted` getter throws for anything else)? */
function isSignal(value) {
  try {
    return abortedOf !== undefined && listen !== undefined && (Reflect.apply(abortedOf, value, []), true);
  } catch {
    return false;
  }
}

/**
 * A registration's options as the runtime is given them, and the page's signal the patch
 * follows. The options are read once, each own member (enumerable or not, symbols too) copied
 * as a value onto an object of their prototype: a copy of the enumerable ones dropped the rest,
 * and options that could not be copied were given as they were, so the runtime read their
 * `signal` again (a Proxy refusing `ownKeys` answered it with another signal: found by review).
 * The runtime's signal is the patch's own, aborted when the page's aborts, after the name is
 * freed: given the page's, a signal with an own `addEventListener` (or a lookalike) could call
 * the runtime's abort listener alone, and the runtime dropped a tool whose name the patch still
 * counted as protected (found by review). A `signal` that is not an AbortSignal is refused, as
 * WebIDL refuses it; so are options that throw when read.
 * @param {any} options
 * @returns {{ options: any, signal?: AbortSignal, relay?: AbortController }}
 */
function registrationOptions(options) {
  if (options === null || typeof options !== "object") return { options };
  let copy;
  let signal;
  try {
    copy = Object.create(Reflect.getPrototypeOf(options));
    for (const key of Reflect.ownKeys(options)) {
      const enumerable = Reflect.getOwnPropertyDescriptor(options, key)?.enumerable === true;
      Object.defineProperty(copy, key, { value: Reflect.get(options, key), enumerable, writable: true, configurable: true });
    }
    signal = copy.signal; // own, or the prototype's (read once, of the copy)
    // Not own, it stays whatever the prototype has, which the runtime would read again (a
    // getter giving it another signal than the patch's: found by review): what was read is made
    // own, absent too (not enumerable then, so the copy lists the members it listed).
    if (!Object.hasOwn(copy, "signal")) {
      Object.defineProperty(copy, "signal", { value: signal, enumerable: signal !== undefined, writable: true, configurable: true });
    }
  } catch {
    throw optionError("registerTool's options could not be read (a getter or a Proxy threw)");
  }
  // None (null too: the polyfill and MCP-B read it as none; a runtime that refuses it says so).
  if (signal === undefined || signal === null) return { options: copy };
  if (!isSignal(signal)) throw optionError("registerTool's signal must be an AbortSignal");
  const relay = new AbortController();
  Object.defineProperty(copy, "signal", { value: relay.signal, enumerable: true, writable: true, configurable: true });
  return { options: copy, signal, relay };
}

function findModelContext(given) {
  if (given !== undefined) return given;
  const doc = /** @type {any} */ (globalThis.document);
  if (doc && doc.modelContext) return doc.modelContext;
  const nav = /** @type {any} */ (globalThis.navigator);
  if (nav && nav.modelContext) return nav.modelContext; // deprecated alias
  return undefined;
}

/**
 * The page session over a redactor: compile at registration, redact each result through one
 * `Session`, so that the page's labels record every result and `check` reads them. It is the
 * session (and the question queue, with the page's `confirm`) of the redactor's `wrapTool`.
 */
export function redactorSession(redactor) {
  const { session: page, ask, generation } = redactor[PAGE_SESSION]();
  return {
    redactor,
    compile(tool) {
      redactor.compile(tool);
    },
    agentSchema: (tool) => redactor.agentSchema(tool),
    redact: (tool, raw) => page.redact(tool, raw),
    // Where a message's block for the user only is (the core's rule, js/redactor.js USER_ONLY).
    userOnlyAt: (value) => redactor[USER_ONLY](value),
    // What the known set matches changes with this (js/redactor.js, PAGE_SESSION).
    generation,
    check: (tool, args) => page.check(tool, args),
    // The call under the check (js/enforce.js): resolves to the redaction report.
    guard: (tool, args, call) => page.guard(tool, args, call, ask),
    labels: () => page.labels(),
    reset: () => page.reset(),
  };
}

/** A session for when the module could not load: every result is withheld. */
function unavailableSession(error) {
  return {
    redactor: null,
    error,
    compile() {},
    // Every result is withheld as an error, which no runtime validates against a schema.
    agentSchema: () => null,
    redact(tool) {
      const result = JSON.parse(withheldJson(nameOf(tool), "wasm_unavailable"));
      return { result, redactions: [], withheld: true, error };
    },
    // Nothing can be checked without the module: fail closed, and the tool is never called.
    check: () => ({ decision: "deny", reasons: [{ code: "wasm_unavailable", decision: "deny", message: error.message, source: "" }] }),
    guard(tool) {
      return Promise.resolve(this.redact(tool));
    },
    // The core's empty labels, for when there is no core to ask.
    labels: () => ({ sensitivity: "none", private: false, openWorld: false, malicious: false, attribution: [] }),
    reset() {},
  };
}

async function listTools(modelContext) {
  try {
    const getTools = modelContext.getTools;
    if (typeof getTools === "function") {
      const tools = await Reflect.apply(RAW_LISTERS.get(getTools) ?? getTools, modelContext, []);
      if (Array.isArray(tools)) return tools.map(nameOf);
    }
  } catch {
    // fall through
  }
  try {
    const testing = /** @type {any} */ (globalThis.navigator)?.modelContextTesting;
    const list = testing?.listTools;
    if (typeof list === "function") {
      const tools = await Reflect.apply(RAW_LISTERS.get(list) ?? list, testing, []);
      if (Array.isArray(tools)) return tools.map(nameOf);
    }
  } catch {
    // the runtime cannot list its tools
  }
  return null;
}

/**
 * `navigator.modelContextTesting.listTools` replaced by `listed(itself)` (js/install.js's
 * listedTools); returns what puts it back (a no-op where there is none, or it cannot be
 * replaced: that listing then stays as the runtime gives it).
 * @param {(fn: Function) => Function} listed
 */
function patchTestingList(listed) {
  try {
    const testing = /** @type {any} */ (globalThis.navigator)?.modelContextTesting;
    const fn = testing?.listTools;
    if (typeof fn !== "function") return () => {};
    const own = Object.getOwnPropertyDescriptor(testing, "listTools");
    const ours = listed(fn);
    Object.defineProperty(testing, "listTools", { configurable: true, enumerable: true, writable: true, value: ours });
    return () => {
      try {
        if (testing.listTools !== ours) return;
        if (own) Object.defineProperty(testing, "listTools", own);
        else delete testing.listTools;
      } catch {
        // a shim that now refuses
      }
    };
  } catch {
    return () => {};
  }
}

/**
 * A page callback's promise, if it returned one: its rejection is ignored as its throw is (an
 * async callback that failed was an unhandled rejection, which ends a Node process; found by
 * review).
 */
function ignoreRejection(value) {
  try {
    if (value !== null && typeof value === "object" && typeof value.then === "function") value.then(undefined, () => {});
  } catch {
    // a thenable that throws: nothing to wait for
  }
}

/**
 * Calls `onChange()` after each `toolchange` event of the context (the polyfill, MCP-B's server
 * and Chromium fire it). Returns `stop()`; a context that is no EventTarget is not followed.
 */
function followToolChanges(modelContext, onChange) {
  const listener = () => {
    onChange().catch(() => {});
  };
  try {
    if (typeof modelContext.addEventListener !== "function") return () => {};
    modelContext.addEventListener("toolchange", listener);
  } catch {
    return () => {};
  }
  return () => {
    try {
      modelContext.removeEventListener("toolchange", listener);
    } catch {
      // nothing to stop
    }
  };
}

/**
 * The options, read once. A getter or a Proxy that throws is a mistake in the call like any
 * other: a coded TypeError, never the thrown value itself (found by review).
 */
function readOptions(options) {
  try {
    const { modelContext, wasm, format, bridge, limits, vault, redeem, policy, onError, onResult, confirm, ...rest } = options ?? {};
    return { modelContext, wasm, format, bridge, limits, vault, redeem, policy, onError, onResult, confirm, unknown: Object.keys(rest) };
  } catch {
    throw optionError("the options could not be read (a getter or a Proxy threw)");
  }
}

/**
 * The context to patch, its `registerTool` and own descriptor of it, each read once. A context
 * that throws when read is a coded error too: `invalid_options` when it was given,
 * `no_model_context` when it was found (the page's environment).
 */
function contextToPatch(given) {
  let modelContext;
  let original;
  let ownBefore;
  let installed;
  let provide;
  /** @type {Record<string, { fn: Function, own: PropertyDescriptor | undefined }>} */
  const extras = {};
  try {
    modelContext = findModelContext(given);
    original = modelContext ? modelContext.registerTool : undefined;
    if (typeof original === "function") {
      ownBefore = Object.getOwnPropertyDescriptor(modelContext, "registerTool");
      installed = Boolean(modelContext[INSTALLED]);
      const fn = modelContext.provideContext;
      if (typeof fn === "function") provide = { fn, own: Object.getOwnPropertyDescriptor(modelContext, "provideContext") };
      for (const key of [...Object.keys(SCRUBBED), ...LISTERS]) {
        const f = modelContext[key];
        if (typeof f === "function") extras[key] = { fn: f, own: Object.getOwnPropertyDescriptor(modelContext, key) };
      }
    }
  } catch {
    if (given !== undefined) throw optionError("modelContext could not be read (a getter or a Proxy threw)");
    throw usageError("no_model_context", "the modelContext could not be read (a getter or a Proxy threw)");
  }
  if (typeof original !== "function") {
    // One given that is not one is a bad option; none found is the page's environment.
    if (given !== undefined) throw optionError("modelContext has no registerTool function");
    throw usageError("no_model_context", "no modelContext with a registerTool function (load a WebMCP polyfill first, or pass modelContext)");
  }
  if (installed) throw usageError("already_installed", "already installed on this modelContext");
  return { modelContext, original, ownBefore, provide, extras };
}

/**
 * MCP-B's server (`@mcp-b/global`'s `document.modelContext`) serves resources and prompts too:
 * what their `read` and `get` return reached MCP clients as the page wrote it, so a value a
 * tool's redacted result held, written again into a resource (an "account" resource showing
 * the API key a tool made), reached the agent raw (found by review). Each registration's
 * descriptor member (`read`, `get`) is wrapped so that what it returns goes through the page
 * session as a result of no tool: known values and detectors are matched in it, and its own
 * claims (`_meta.sensitiveHint`) apply. The registration's method -> [member, kind].
 */
const SCRUBBED = { registerResource: ["read", "resource"], registerPrompt: ["get", "prompt"] };
/**
 * The runtime's listings of its tools (`getTools`: the spec's, MCP-B's server's, Chromium's;
 * `listTools`: MCP-B's server's), answered through js/listing.js's `cleanTools`.
 */
const LISTERS = ["getTools", "listTools"];
/** Each patched lister -> the runtime's own (what this module's own report of tools reads). */
const RAW_LISTERS = new WeakMap();
/** How many names refusedName keeps what it found for (then it starts again). */
const CHECKED_NAMES = 1024;
/**
 * The detail of a RedactionError's message (the words after its tool, code and place), read
 * back to say it again under another name.
 * @param {any} error
 */
function detailOf(error) {
  const head = `tool "${error.tool}": ${error.code} at ${error.pointer === "" ? "the root" : error.pointer}: `;
  return typeof error.message === "string" && error.message.startsWith(head) ? error.message.slice(head.length) : String(error.code);
}
/** A redaction at one of these (MCP's base64 fields) withholds the read: see `scrubbed`. */
const BASE64_FIELD = /\/(?:blob|data)$/;
/**
 * Except in a log line's `data` (any JSON, masked in place): taken for base64, a log line
 * naming a known value was withheld whole (review s34's open item).
 */
const LOG_LINE = "message notifications/message";
const LOG_DATA = /^\/data(?:\/|$)/;
/** What MCP-B reads of a resource or prompt descriptor besides that member. */
const DESCRIBED = ["name", "title", "uri", "description", "mimeType", "argsSchema", "icons", "annotations", "_meta"];

/**
 * How many resources and prompts MCP-B's server had before installation (its `registrations`,
 * one per registerResource or registerPrompt): their reads were never patched, and went
 * unreported (found by review s32). 0 on any other context.
 * @param {any} modelContext
 */
function registeredBefore(modelContext) {
  try {
    const size = modelContext.registrations?.size;
    return Number.isSafeInteger(size) ? size : 0;
  } catch {
    return 0; // cannot tell
  }
}

/**
 * MCP-B's server sends the client messages of its own besides results: a log line
 * (`sendLoggingMessage`), a sampling request (`createMessage`), an elicitation
 * (`elicitInput`), each through its inner MCP server's `notification` or `request`. A tool that
 * logged or asked about what it had fetched gave the agent the raw value past the redactor
 * (found by review s32). Both are replaced on that server (`modelContext.mcpServer.server`) by
 * ones that send the message as `scrub(kind, ...)` gives its `params` and its other members (it
 * throws, and the page's call rejects, when they are withheld).
 * Returns `restore()`, or null where there is no such server.
 * @param {any} modelContext
 * @param {(name: string, value: unknown) => unknown} scrub the value, or a promise of it before the session is ready
 */
function scrubOutgoing(modelContext, scrub) {
  let server;
  try {
    server = modelContext.mcpServer?.server;
  } catch {
    return null; // no inner server to read: nothing of its own is sent through one
  }
  if (server === null || typeof server !== "object") return null;
  /** @type {[string, Function, PropertyDescriptor | undefined, Function][]} */
  const done = [];
  const restore = () => {
    for (const [key, , own, ours] of done) {
      try {
        if (server[key] !== ours) continue;
        if (own) Object.defineProperty(server, key, own);
        else delete server[key];
      } catch {
        // a server that now refuses: what could be undone was
      }
    }
  };
  try {
    for (const key of ["notification", "request"]) {
      const fn = server[key];
      if (typeof fn !== "function") continue;
      /** @this {any} */
      const ours = function (/** @type {any} */ message, /** @type {any[]} */ ...rest) {
        return sendScrubbed(message, scrub, (/** @type {any} */ clean) => Reflect.apply(fn, this, [clean, ...rest]));
      };
      const own = Object.getOwnPropertyDescriptor(server, key);
      Object.defineProperty(server, key, { configurable: true, enumerable: false, writable: true, value: ours });
      done.push([key, fn, own, ours]);
    }
  } catch {
    restore();
    throw optionError("modelContext.mcpServer.server cannot be patched: its notification or request cannot be replaced, so the page's own messages to MCP clients could not be scrubbed");
  }
  return restore;
}

/**
 * `send(clean)`, `clean` being `message` as `scrub(kind, ...)` gives its `params` and its other
 * members; what `send` returns (or a promise of it), or a rejected promise when they are
 * withheld (the page's call rejects, as the SDK's would). Read once: the text scrubbed is the
 * text sent. The SDK sends every member of the message, not only `params`: the others are
 * scrubbed too (a member beside `params`, or a message without any, went out raw: found by
 * review s34).
 * @param {unknown} message
 * @param {(name: string, value: unknown) => unknown} scrub
 * @param {(clean: unknown) => unknown} send
 */
function sendScrubbed(message, scrub, send) {
  const once = readOnce(message);
  // The SDK spreads the message into its JSON-RPC envelope: an array's items, or a string's
  // characters one by one, went out as members, unscrubbed (found by review s34). A message is
  // an object; anything else is withheld.
  if (once === null || typeof once !== "object" || Array.isArray(once)) {
    return Promise.reject(redactionError("withheld", "message", "", "the message was withheld: a message is an object"));
  }
  const { params, ...others } = once;
  const name = `message ${typeof others.method === "string" ? others.method : ""}`;
  const rebuilt = (/** @type {any} */ head, /** @type {any} */ clean) => send(clean === undefined ? { ...head } : { ...head, params: clean });
  try {
    const head = scrub(name, others);
    const clean = params === undefined || params === null ? params : scrub(name, params);
    if (head instanceof Promise || clean instanceof Promise) return Promise.all([head, clean]).then(([h, c]) => rebuilt(h, c));
    return rebuilt(head, clean);
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * The arguments an inner server's callback is given, its last one (the SDK v2's `ctx`) with
 * `mcpReq.notify`, `send` and `log` sending what `scrub` leaves (sendScrubbed): they reach the
 * transport through the server's internal funnels, past its `notification` and `request`, so a
 * log line, a progress message or a sampling request a handler sent through its `ctx` reached
 * the client raw (found by review s34). (The SDK v1's `extra.sendNotification` and `sendRequest`
 * call `notification` and `request`; its `elicitInput` and `requestSampling` do too.)
 * @param {any[]} args
 * @param {(name: string, value: unknown) => unknown} scrub
 */
function scrubbedContextArgs(args, scrub) {
  const ctx = args[args.length - 1];
  const req = ctx !== null && typeof ctx === "object" ? ctx.mcpReq : undefined;
  if (req === null || typeof req !== "object") return args;
  const through = (/** @type {unknown} */ fn) =>
    typeof fn === "function" ? (/** @type {unknown} */ message, /** @type {any[]} */ ...rest) => sendScrubbed(message, scrub, (clean) => Reflect.apply(fn, req, [clean, ...rest])) : fn;
  const { log } = req;
  const mcpReq = {
    ...req,
    notify: through(req.notify),
    send: through(req.send),
    log:
      typeof log === "function"
        ? (/** @type {unknown} */ level, /** @type {unknown} */ data, /** @type {unknown} */ logger) =>
            sendScrubbed({ method: "notifications/message", params: { level, data, logger } }, scrub, (/** @type {any} */ clean) =>
              Reflect.apply(log, req, [clean?.params?.level, clean?.params?.data, clean?.params?.logger]))
        : log,
  };
  return [...args.slice(0, -1), { ...ctx, mcpReq }];
}

/**
 * Patches `modelContext.registerTool`; resolves to an `uninstall()` function that restores it,
 * carrying the report: `uninstall.error`, `uninstall.unprotectedTools`, `uninstall.redactor`.
 * `load` is the entry point's way to find the module (see js/index.js).
 */
export async function installRedactionWith(load, options = {}) {
  const { modelContext: given, wasm, format, bridge: toldBridge, limits, vault, redeem, policy, onError, onResult, confirm, unknown } = readOptions(options);
  if (onResult !== undefined && typeof onResult !== "function") throw optionError("onResult must be a function");
  // Like onResult: one that is not a function was ignored in silence (console.error took its
  // place), a mistake the page was never told of (found by review).
  if (onError !== undefined && typeof onError !== "function") throw optionError("onError must be a function");
  checkWasmOption(wasm, "installRedaction");
  checkConfirmOption(confirm, "installRedaction");
  if (unknown.length) throw optionError(`unknown option ${unknown[0]}`);
  const { modelContext, original, ownBefore, provide, extras } = contextToPatch(given);
  // MCP-B's inner server (js/inner.js), and what was registered on it before: reported.
  const inner = innerServerOf(modelContext);
  const innerBefore = inner ? registeredOn(inner) : { tools: [], others: 0 };
  // Less what the inner server's registries held, which patchInner wraps.
  let unscrubbed = Math.max(registeredBefore(modelContext), innerBefore.others);
  // Over an MCP bridge every result must be one MCP clients accept: `secret_reference` blocks
  // are not, so the format is "mcp" there, and asking for "webmcp" is a contradiction.
  const bridge = bridgeOf(modelContext, toldBridge);
  if (bridge === "mcp" && format === "webmcp") {
    throw optionError('format "webmcp" writes secret_reference blocks, which MCP clients reject: over an MCP bridge the format is "mcp"');
  }
  const effectiveFormat = bridge === "mcp" ? "mcp" : format;

  // Patch first, synchronously, so that no registration made while the module loads escapes.
  // Such registrations wait for the session below.
  const registered = new Set();
  // Looks for tools the runtime lists that no registration through the patch accounts for (set
  // once the report below is ready).
  let recheck = () => {};
  /** @type {any} the page session, once the module has loaded */
  let session = null;
  /** @type {(s: any) => void} */
  let resolveSession = () => {};
  const sessionReady = new Promise((resolve) => { resolveSession = resolve; });
  const getSession = () => session ?? sessionReady;
  // The results this installation made (each redacted once): the inner server's callback of a
  // tool, resource or prompt registered through the context returns one, passed as it is.
  // Frozen, all the way down: a page holding one (a context tool's executor, called by the page
  // itself) added a known value to it and returned it from an inner resource, which passed it
  // as it is (found by review s34).
  const produced = /** @type {WeakSet<any>} */ (new WeakSet());
  /** @type {<T>(value: T) => T} */
  const keep = (value) => {
    if (value !== null && typeof value === "object") produced.add(frozen(value));
    return value;
  };
  // Tool names whose registration through the context is under way: the inner server's
  // registration of such a name is the context's own (see innerCallback).
  /** @type {Map<string, number>} */
  const outerPending = new Map();

  /**
   * @this {any}
   * @param {any} tool
   * @param {...any} args
   */
  async function registerTool(tool, ...args) {
    if (replaced()) {
      throw usageError(
        "context_replaced",
        "document.modelContext was replaced after installRedaction patched it (e.g. @mcp-b/global set up later): the layer on top registers each tool here without its outputSchema and answers its own clients raw, so this registration is refused; uninstall, and call installRedaction after that layer is set up",
      );
    }
    if (tool === null || (typeof tool !== "object" && typeof tool !== "function")) {
      return Reflect.apply(original, this, [tool, ...args]);
    }
    // One read of the tool (js/redactor.js readTool): its name, execute, definition and the
    // runtime's copy all come from it.
    const copy = readTool(tool);
    const name = nameOf(copy);
    // Not a function: the runtime says what it says about such a tool, but is given the copy,
    // never the tool itself: a getter, or an execute set after registration, would otherwise
    // give the runtime a function that runs unchecked.
    if (typeof copy.execute !== "function") return Reflect.apply(original, this, [copy, ...args]);
    const given = args.length ? registrationOptions(args[0]) : { options: undefined };
    if (args.length) args[0] = given.options;
    const wrapped = runtimeCopy(tool, copy, await getSession());
    return registerWrapped(name, () => Reflect.apply(original, this, [wrapped, ...args]), given);
  }

  /**
   * What the runtime is given for a tool with an `execute` function: `copy` (readTool's) whose
   * execute is checked and redacted in the page session. With the session `s`, the definition
   * is compiled now (a bad schema throws the RedactionError) and the runtime is given the
   * agent schema; with none yet (the module still loading), no outputSchema is given, and the
   * definition is compiled by the first call's check (a bad schema then denies the call).
   * @param {any} tool the page's own object: `this` of its execute
   * @param {any} copy
   * @param {any} s
   */
  function runtimeCopy(tool, copy, s) {
    const name = nameOf(copy);
    const execute = copy.execute;
    // A copy this page's own redactor made with wrapTool checks and redacts each call in the
    // page session already: wrapped again, each call was checked twice (a question asked twice)
    // and redacted twice, and the second pass, issuing no handle, never told onResult of the
    // first's: the user could not reveal (found by review). The runtime is shown the fields
    // that copy's calls are judged by, whatever object carried its execute here (a page that
    // spread the copy with other annotations had the runtime list a hint no call applied).
    const made = wrappedBy(execute);
    // Another redactor's copy (or its execute in another object) is refused.
    refuseForeign(made, s?.redactor, name, "installRedaction");
    if (made) {
      const wrapped = {
        ...copy,
        async execute(/** @type {any} */ input, /** @type {any[]} */ ...more) {
          const result = await Reflect.apply(execute, tool, [input, ...more]);
          const report = reportOf(result);
          if (report) tellPage(name, report);
          return keep(result);
        },
      };
      return listedAs(showJudged(wrapped, made.def, made.published), s);
    }
    const def = definitionOf(copy);
    // The runtime (and an MCP client behind it) validates results against the outputSchema it
    // is given: the one that describes the redacted view, or none when no view carries
    // structuredContent. Redaction itself keeps reading the tool's own (`def`).
    let published = null;
    if (s) {
      s.compile(def);
      published = s.agentSchema(def);
    }
    const wrapped = {
      ...copy,
      // The page session checks the call first (allow / ask the user / deny, js/enforce.js) and
      // redacts what comes back, refusals included.
      async execute(/** @type {any} */ input, /** @type {any[]} */ ...more) {
        const s = session ?? (await sessionReady);
        const run = async (/** @type {any} */ args) => ownResult(await Reflect.apply(execute, tool, [args, ...more]), s.redactor, name, "installRedaction");
        const out = await s.guard(def, input, run);
        tellPage(name, out);
        return keep(out.result);
      },
    };
    return listedAs(showJudged(wrapped, def, published), s);
  }

  /**
   * The runtime's copy `wrapped` with its `description` and `inputSchema` as the session `s`
   * lists them (cleanTools): a runtime lists them as given, and Chromium's own agent reads them
   * inside the browser, past any listing this module patches (left open by review s36). A
   * known value in them is masked now; one learned later is masked only where the listings
   * above are. A member is replaced only when masking changed it; the name is the page's (a
   * listing leaves out a tool named by a value). With no module, there is nothing to mask.
   * @param {any} wrapped
   * @param {any} s
   */
  function listedAs(wrapped, s) {
    if (!s?.redactor) return wrapped;
    const shown = { name: "t", description: wrapped.description, inputSchema: wrapped.inputSchema };
    const [clean] = /** @type {any[]} */ (cleanTools([shown], (strings) => /** @type {any} */ (scrubbedIn(s, LISTING, { strings }))?.strings));
    for (const key of ["description", "inputSchema"]) {
      if (JSON.stringify(clean?.[key]) !== JSON.stringify(shown[/** @type {"description" | "inputSchema"} */ (key)])) wrapped[key] = clean?.[key];
    }
    return wrapped;
  }

  /**
   * The callback the inner server (js/inner.js) is given for `callback`, registered there as a
   * `kind` under `state.name`. A resource's or prompt's value is scrubbed as the context's
   * registerResource scrubs it. A tool's call is checked and its result redacted in the page
   * session, as the context's tools are, with the definition its registration gives
   * (`annotations`, `_meta`, and the JSON Schema the SDK made of its outputSchema);
   * a multi-round tool's `input_required` result is scrubbed in place (its requests go to the
   * client). The context's own registrations reach the inner server with a callback returning
   * what this installation made: that passes as it is (checked twice, a call was asked about
   * twice; the redaction itself is idempotent). Anything else returned there is redacted (a
   * page's raw callback registered under a name being registered).
   * @param {string} kind
   * @param {{ name: string, outputSchema?: object, claims?: () => any[] }} state
   * @param {any} config
   * @param {Function} callback
   */
  function innerCallback(kind, state, config, callback) {
    if (kind !== "tool") {
      /** @this {any} */
      return async function (/** @type {any[]} */ ...given) {
        // A resource is read by its URI (the SDK's first argument, a URL), a prompt by name.
        await refusedName(kind, kind === "resource" ? String(given[0]?.href ?? given[0] ?? "") : state.name);
        const name = `${kind} ${state.name}`;
        const args = scrubbedContextArgs(given, scrubMessage);
        const value = await thrownScrubbed(name, () => Reflect.apply(callback, this, args));
        return produced.has(value) ? value : keep(await scrubbed(name, value));
      };
    }
    const judged = (/** @type {string} */ name, /** @type {unknown} */ outputSchema, /** @type {any[]} */ [annotations, _meta]) => {
      try {
        return definitionOf({ name, outputSchema, annotations, _meta });
      } catch (err) {
        if (err instanceof RedactionError) throw err;
        throw redactionError("schema_invalid", name, "", "the tool's config given to mcpServer could not be read");
      }
    };
    // The claims (`annotations`, `_meta`) as text: what the handle lists them as may change
    // after registration (its update, an assignment, a change in place), and the calls are
    // judged by what it lists (found by review s34: a hint added later was never applied).
    const claimsText = (/** @type {any[]} */ claims) => {
      try {
        return definitionText(claims);
      } catch {
        return null; // unreadable, or a value JSON cannot hold: judged again, which refuses it
      }
    };
    let claims = [config?.annotations, config?._meta];
    let def = judged(state.name, undefined, claims); // a bad definition throws now: nothing is registered
    let schema;
    let claimed = claimsText(claims);
    const outer = outerPending.has(state.name);
    /** @this {any} */
    return async function (/** @type {any[]} */ ...given) {
      const s = session ?? (await sessionReady);
      await refusedName("tool", state.name);
      const args = scrubbedContextArgs(given, scrubMessage);
      // The name, the outputSchema and the claims the handle has now (js/inner.js keeps them).
      const now = state.claims ? readClaims(state.name, state.claims) : claims;
      const nowText = claimsText(now);
      if (def.name !== state.name || schema !== state.outputSchema || nowText === null || nowText !== claimed) {
        schema = state.outputSchema;
        def = judged(state.name, schema, now);
        [claims, claimed] = [now, nowText];
      }
      const name = state.name;
      if (outer) {
        const raw = await thrownScrubbed(`tool ${name}`, () => Reflect.apply(callback, this, args));
        return produced.has(raw) ? raw : keep(s.redact(def, raw).result);
      }
      // The SDK calls (input, ctx) for a tool with an inputSchema, (ctx) for one without.
      const withInput = args.length >= 2;
      let multi = null;
      const run = async (/** @type {any} */ input) => {
        const raw = ownResult(await Reflect.apply(callback, this, withInput ? [input, ...args.slice(1)] : args), s.redactor, name, "installRedaction");
        // Read once: what the guard redacts is what a round's requests are scrubbed from. Read
        // again, a getter answered the guard harmlessly and gave the scrub (no schema, no
        // annotations) the value (found by review s34).
        const once = readOnce(raw);
        if (once !== null && typeof once === "object" && once.resultType === "input_required") multi = once;
        return once;
      };
      const out = await s.guard(def, withInput ? args[0] : {}, run);
      if (multi) return keep(await scrubbed(`tool ${name}`, multi));
      tellPage(name, out);
      return keep(out.result);
    };
  }

  /**
   * An older draft's `provideContext({ tools })` (a runtime that still has it): each tool of the
   * set is given to the runtime as registerTool gives it, wrapped. Before, the set reached the
   * agent past the patch, raw, and was at most reported (found by review). Synchronous, as that
   * API was: a tool that cannot be read or compiled throws, and no set is provided.
   * @this {any}
   * @param {any} context
   * @param {...any} args
   */
  function provideContext(context, ...args) {
    if (replaced()) throw usageError("context_replaced", "document.modelContext was replaced after installRedaction patched it: this provideContext is refused");
    let copy;
    let tools;
    try {
      copy = context !== null && typeof context === "object" ? { ...context } : context;
      tools = Array.isArray(copy?.tools) ? [...copy.tools] : null;
    } catch {
      throw redactionError("schema_invalid", "", "/tools", "the context given to provideContext could not be read (a getter or a Proxy threw)");
    }
    if (tools === null) return Reflect.apply(provide.fn, this, [context, ...args]);
    const given = tools.map((tool) => {
      if (tool === null || (typeof tool !== "object" && typeof tool !== "function")) return tool;
      const read = readTool(tool);
      return typeof read.execute === "function" ? runtimeCopy(tool, read, session) : read;
    });
    for (const tool of given) registered.add(nameOf(tool));
    return Reflect.apply(provide.fn, this, [{ ...copy, tools: given }, ...args]);
  }

  /**
   * Counts `name` as registered through the patch while the runtime's call is pending (so that a
   * `toolchange` it fires meanwhile does not report it), and no longer once the runtime refused
   * it, unless it was registered here before: refused as a duplicate of a tool the runtime got
   * past the patch (before installation, say), the name hid that raw tool from the report
   * (found by review).
   * Unregistered by its `signal` (the spec's way), the name is free again: counted still, a
   * tool of that name the runtime later got past the patch went unreported (found by review).
   * The runtime is given the patch's own signal (`relay`, see registrationOptions), aborted
   * here once the name is freed, so it drops the tool only then.
   * @param {string} name
   * @param {() => unknown} register the runtime's registerTool call
   * @param {{ signal?: AbortSignal, relay?: AbortController }} given the registration's signal, if it has one
   */
  function registerWrapped(name, register, { signal, relay }) {
    const before = registered.has(name);
    // No recheck on abort: the runtime may list the tool until its own abort listener (which
    // the relay calls after this one) removes it; a tool registered past the patch later fires
    // its toolchange.
    const freed = () => {
      registered.delete(name);
      relayAbort(relay, signal);
    };
    const follow = (/** @type {boolean} */ on) => {
      if (!signal) return;
      Reflect.apply(/** @type {any} */ (on ? listen : unlisten), signal, ["abort", freed, { once: true }]);
      // Aborted already (before the call, or while the module loaded): the runtime sees it
      // aborted, and refuses the tool.
      if (on && Reflect.apply(/** @type {any} */ (abortedOf), signal, [])) relayAbort(relay, signal);
    };
    const refused = () => {
      follow(false); // a refused registration's signal frees nothing (the name may be another's)
      if (before) return;
      registered.delete(name);
      recheck();
    };
    follow(true);
    registered.add(name);
    // Pending until the runtime's call settles: the inner server's registration of the name
    // meanwhile is this one's (see innerCallback).
    outerPending.set(name, (outerPending.get(name) ?? 0) + 1);
    const settled = () => {
      const n = (outerPending.get(name) ?? 1) - 1;
      if (n > 0) outerPending.set(name, n);
      else outerPending.delete(name);
    };
    let out;
    try {
      out = register();
    } catch (err) {
      settled();
      refused();
      throw err;
    }
    Promise.resolve(out).then(settled, () => {
      settled();
      refused();
    });
    return out;
  }

  /**
   * Has the page's context been replaced since this one was found? A layer put on top later
   * (`@mcp-b/global`'s server over the browser's context) calls this patched registerTool to
   * mirror its tools: with no outputSchema (it drops it), while its own clients call the tool's
   * execute directly. Both paths were raw (found by review). A context the page passed is its
   * own choice, never second-guessed.
   */
  function replaced() {
    if (given !== undefined) return false;
    try {
      const now = findModelContext(undefined);
      return now !== undefined && now !== modelContext;
    } catch {
      return false; // cannot tell: not evidence of a replacement
    }
  }

  /** onResult, for each result that issued handles. */
  function tellPage(name, out) {
    if (!onResult || !out.resultId) return;
    try {
      // The handles come from the core's report, not from the view: in the mcp format
      // (on an MCP bridge) they are in the stubs' _meta, not in secret_reference blocks.
      const handles = out.redactions.filter((r) => r.handle !== undefined).map(({ handle, label }) => ({ handle, label }));
      // A copy: the page may fill revealed values into what it renders, and the view the
      // agent gets must not change with it (found by review).
      ignoreRejection(onResult({ tool: name, resultId: out.resultId, result: structuredClone(out.result), handles }));
    } catch {
      // the page's callback must not change what the agent gets
    }
  }

  /** Puts back what was patched (registerTool, provideContext), each only if it is still ours. */
  function unpatch() {
    const restore = (/** @type {string} */ key, /** @type {any} */ ours, /** @type {any} */ own) => {
      try {
        if (modelContext[key] !== ours) return;
        if (own) Object.defineProperty(modelContext, key, own);
        else delete modelContext[key];
      } catch {
        // a context that refuses: what could be undone was
      }
    };
    restore("registerTool", registerTool, ownBefore);
    if (provide) restore("provideContext", provideContext, provide.own);
    for (const [key, { own }] of Object.entries(extras)) restore(key, patchedExtras[key], own);
  }

  /**
   * `registerResource` / `registerPrompt` (SCRUBBED) through the patch: the runtime is given a
   * copy of the descriptor (its own enumerable members, and `member` even when inherited) whose
   * `member` is scrubbed.
   * @param {string} key
   * @param {Function} fn
   */
  function scrubbedRegistration(key, fn) {
    const [member, kind] = SCRUBBED[/** @type {keyof typeof SCRUBBED} */ (key)];
    /** @this {any} */
    return function (/** @type {any} */ descriptor, /** @type {any[]} */ ...args) {
      // A function is an object too: MCP-B spreads one as it spreads any descriptor, and its
      // `read` was served unscrubbed (found by review s32).
      if (descriptor === null || (typeof descriptor !== "object" && typeof descriptor !== "function")) return Reflect.apply(fn, this, [descriptor, ...args]);
      let copy;
      try {
        copy = { ...descriptor };
        // Inherited members too (a class-based descriptor), as readTool copies a tool's: the
        // runtime spreads what it is given, and would lose them.
        for (const key of [member, ...DESCRIBED]) {
          const value = Object.hasOwn(copy, key) ? undefined : descriptor[key]; // read once
          if (value !== undefined) copy[key] = value;
        }
      } catch {
        throw redactionError("schema_invalid", "", "", `the ${kind} given to ${key} could not be read (a getter or a Proxy threw)`);
      }
      const handler = copy[member];
      if (typeof handler === "function") {
        const name = `${kind} ${typeof copy.name === "string" ? copy.name : ""}`;
        copy[member] = async (/** @type {any[]} */ ...more) => scrubbed(name, await thrownScrubbed(name, () => Reflect.apply(handler, descriptor, more)));
      }
      return Reflect.apply(fn, this, [copy, ...args]);
    };
  }

  /**
   * The runtime's lister `fn` (LISTERS) through the patch: what it answers is cleaned
   * (js/listing.js, `cleanTools`). `getTools` answers a promise, scrubbed once the module has
   * loaded; `listTools` answers at once, and throws while the module is loading (fail closed).
   * A module that could not load never took a value: the listing then passes as it is, so
   * that an agent can still call each tool and be told why its result was withheld.
   * @param {Function} fn
   */
  function listedTools(fn) {
    /** @this {any} */
    const ours = function (/** @type {any[]} */ ...args) {
      const tools = Reflect.apply(fn, this, args);
      if (tools !== null && typeof tools === "object" && typeof tools.then === "function") return Promise.resolve(tools).then(async (t) => ((await getSession()).redactor ? cleanTools(t, scrubStrings) : t));
      if (!session) throw new TypeError("webmcp-redact: the tool listing cannot be scrubbed before the module has loaded");
      const s = session;
      return s.redactor ? cleanTools(tools, (strings) => /** @type {any} */ (scrubbedIn(s, LISTING, { strings }))?.strings) : tools;
    };
    RAW_LISTERS.set(ours, fn);
    return ours;
  }

  /**
   * What a resource's read or a prompt's get returned, as the agent may see it: the value with
   * what was found masked in place (the view's structuredContent: a value that is no tool
   * result is carried there, in the "mcp" format always, in "webmcp" once something is found;
   * unchanged, the value itself); or, withheld (its own claim, an error, no module), a
   * rejection with a RedactionError (code `withheld`, or the core's error), which the
   * server answers as an error: a view of another shape is not one MCP clients accept. So is a
   * value masked inside base64 (a resource's `blob`, an image's or audio's `data`): masked in
   * place it is no longer base64, which the client refused with its own validation error
   * (found by review s32); withheld, the client gets a stable code and the pointer.
   * @param {string} name
   * @param {unknown} value
   */
  async function scrubbed(name, value) {
    return scrubbedIn(session ?? (await sessionReady), name, value);
  }
  /**
   * `strings` with what the page session finds in them masked, in one call (js/listing.js);
   * throws where `scrubbed` rejects.
   * @param {string[]} strings
   */
  async function scrubStrings(strings) {
    return /** @type {any} */ (await scrubbed(LISTING, { strings }))?.strings;
  }
  /**
   * Rejects (RedactionError, code `withheld`) when `id`, the name or URI a call of an inner
   * `kind` names, holds what the page session finds: its listing drops such an entry (js/
   * listing.js), and neither the call nor its error may name it. The message names neither.
   * @param {string} kind
   * @param {string} id
   */
  async function refusedName(kind, id) {
    const s = session ?? (await sessionReady);
    // Asked once per known set (a scrub of each call's name cost ~90 µs): the generation
    // changes whenever the set may match otherwise, and a hit is only taken in the same one.
    const generation = s.generation?.() ?? null;
    const hit = generation === null ? undefined : checkedNames.get(id);
    /** @type {string | undefined} */
    let clean = hit && hit.generation === generation ? hit.clean : undefined;
    if (clean === undefined) {
      [clean] = await scrubStrings([id]);
      if (typeof clean === "string" && generation !== null && s.generation() === generation) {
        if (checkedNames.size >= CHECKED_NAMES) checkedNames.clear();
        checkedNames.set(id, { generation, clean });
      }
    }
    if (clean !== id) throw redactionError("withheld", kind, "", `the ${kind} was withheld: its name holds a value the agent may not see`);
  }
  /**
   * What refusedName found in each name or URI, and in which generation of the known set.
   * @type {Map<string, { generation: string, clean: string }>}
   */
  const checkedNames = new Map();
  /**
   * A message's part (sendScrubbed) scrubbed: synchronous once the session is ready, since the
   * SDK sends its own notifications (a list changed) when it is told, not a turn later, when it
   * may have closed.
   * @param {string} name
   * @param {unknown} value
   */
  function scrubMessage(name, value) {
    return session ? scrubbedIn(session, name, value) : scrubbed(name, value);
  }
  /**
   * `scrubbed` in the session `s`, synchronously (it throws where `scrubbed` rejects).
   * @param {any} s
   * @param {string} name
   * @param {unknown} value
   */
  function scrubbedIn(s, name, value) {
    const out = s.redact({ name }, value);
    const encoded = out.redactions.find((/** @type {any} */ r) => BASE64_FIELD.test(r.pointer) && !(name === LOG_LINE && LOG_DATA.test(r.pointer)));
    // A message's block for the user only (a prompt's, a sampling request's), in what the core
    // gave back: withheld (review s37: a prompt's one-time code reached the agent as written).
    // Asked of the core (src/redact/blocks.rs, the rule of a result's blocks); where it cannot
    // be asked, withheld too.
    let forUser = null;
    if (!out.withheld && !encoded) {
      try {
        forUser = s.userOnlyAt(out.result?.structuredContent ?? out.result);
      } catch (err) {
        throw withheldError(s, name, /** @type {any} */ (err)?.code ?? "internal", "", "its blocks could not be read");
      }
    }
    if (forUser !== null) throw withheldError(s, name, "withheld", forUser, "a block for the user only");
    if (!out.withheld && !encoded) {
      if (out.result?.structuredContent !== undefined) return keep(out.result.structuredContent);
      if (out.redactions.length === 0) return keep(out.result);
    }
    // The core's error (or wasm_unavailable) names `name` as given: said again, as shown.
    if (out.error) throw withheldError(s, name, out.error.code, out.error.pointer, detailOf(out.error));
    const [pointer, why] = encoded ? [encoded.pointer, `a value was masked in base64 (${encoded.reason})`] : ["", out.redactions[0]?.reason ?? "its own claim"];
    throw withheldError(s, name, "withheld", pointer, why);
  }
  /**
   * The RedactionError a client gets for `name` (a resource's, a prompt's, a message's): the
   * name as the session shows it, a known value in it masked (named as registered, a resource
   * named after a value a tool's result withheld showed it in every error of its reads, which
   * the listing masked: review s37), or none where it cannot be scrubbed.
   * @param {any} s
   * @param {string} name
   * @param {string} code
   * @param {string} pointer
   * @param {string} why
   */
  function withheldError(s, name, code, pointer, why) {
    let shown = "";
    try {
      const out = s.redact({ name: LISTING }, { strings: [name] });
      const view = out.result?.structuredContent ?? out.result;
      if (!out.withheld && typeof view?.strings?.[0] === "string") shown = view.strings[0];
    } catch {
      // named by nothing
    }
    return redactionError(code, shown, pointer, `the ${shown || "value"} was withheld: ${why}`);
  }
  /**
   * What `call()` resolves to; if it throws, an Error whose message is the thrown one scrubbed
   * (as `scrubbed` scrubs a value; withheld, the RedactionError): MCP's server sends a read's,
   * get's or call's error message to the client, and one naming a known value gave it raw
   * (found by review s32). This module's own RedactionErrors name no value and pass as they are.
   * @param {string} name
   * @param {() => unknown} call
   */
  async function thrownScrubbed(name, call) {
    try {
      return await call();
    } catch (err) {
      if (err instanceof RedactionError) throw err;
      let message = "";
      try {
        message = String(/** @type {any} */ (err)?.message ?? err);
      } catch {
        message = "an error that could not be read";
      }
      const clean = /** @type {any} */ (await scrubbed(name, { message }))?.message;
      throw new Error(typeof clean === "string" ? clean : "the call failed");
    }
  }
  /** @type {Record<string, Function>} */
  const patchedExtras = {};
  for (const [key, { fn }] of Object.entries(extras)) patchedExtras[key] = LISTERS.includes(key) ? listedTools(fn) : scrubbedRegistration(key, fn);

  try {
    Object.defineProperty(modelContext, "registerTool", { configurable: true, enumerable: true, writable: true, value: registerTool });
    if (provide) Object.defineProperty(modelContext, "provideContext", { configurable: true, enumerable: true, writable: true, value: provideContext });
    for (const [key, value] of Object.entries(patchedExtras)) Object.defineProperty(modelContext, key, { configurable: true, enumerable: true, writable: true, value });
    Object.defineProperty(modelContext, INSTALLED, { configurable: true, value: true });
  } catch {
    // A frozen or non-extensible context, a registerTool that cannot be redefined, a Proxy
    // that refuses: nothing stays half-installed (a patched registerTool waiting for a session
    // that never comes), and the caller gets a coded error (found by review).
    unpatch();
    throw optionError("modelContext cannot be patched: its registerTool (or provideContext, registerResource, registerPrompt) cannot be replaced (a frozen or non-extensible object, or a Proxy that refuses)");
  }
  /** @type {(() => void) | null} */
  let restoreOutgoing = null;
  /** @type {(() => void) | null} */
  let restoreInner = null;
  try {
    restoreOutgoing = bridge === "mcp" ? scrubOutgoing(modelContext, scrubMessage) : null;
    try {
      const patched = inner ? patchInner(inner, innerCallback, modelContext, (method, result) => cleanListing(method, result, scrubStrings)) : null;
      restoreInner = patched?.restore ?? null;
      unscrubbed = Math.max(0, unscrubbed - (patched?.scrubbedBefore ?? 0));
    } catch {
      restoreOutgoing?.();
      throw optionError("modelContext.mcpServer cannot be patched: its registerTool, registerResource or registerPrompt cannot be replaced, so what is registered on it would reach MCP clients raw");
    }
  } catch (err) {
    unpatch();
    try {
      delete modelContext[INSTALLED];
    } catch {
      // a context that now refuses: what could be undone was
    }
    throw err;
  }
  // Declarative tools (<form toolname>, see declarative.js): a response a submit handler gives
  // through SubmitEvent#respondWith is redacted, like an execute result; null where the runtime
  // has no respondWith.
  // The testing API's listing (Chromium's `navigator.modelContextTesting`, the polyfill's shim):
  // the same tools, listed by name, description and schema text, cleaned as getTools is.
  const restoreTestingList = patchTestingList(listedTools);
  const restoreRespondWith = interceptFormResponses(async (def, raw) => {
    const out = (await getSession()).redact(def, raw);
    tellPage(def.name, out);
    return out.result;
  });

  const report = (err) => {
    try {
      if (typeof onError === "function") ignoreRejection(onError(err));
      // The message starts with "webmcp-redact: wasm_unavailable:" already.
      else globalThis.console?.error?.(`${err.message} (installRedaction: every tool result is withheld)`);
    } catch {
      // a reporting callback must not break installation
    }
  };

  let error;
  try {
    await loadEngine(load, wasm);
  } catch (err) {
    if (isOptionError(err)) {
      uninstallNow(); // a promise given as wasm resolved to something else: as a bad option
      resolveSession(unavailableSession(err));
      throw err;
    }
    // loadEngine rejects only with wasm_unavailable otherwise; anything else is said the same way.
    error = err instanceof RedactionError ? err : wasmUnavailable("the WebAssembly module", String(err), err);
  }
  if (error) {
    session = unavailableSession(error);
    report(error);
  } else {
    try {
      // `confirm` too: the redactor's wrapTool asks the way the page asked for.
      session = redactorSession(await createRedactorWith(load, { format: effectiveFormat, limits, vault, redeem, policy, confirm }));
    } catch (err) {
      if ((err instanceof TypeError || err instanceof RangeError) && /** @type {any} */ (err).code === "invalid_options") {
        uninstallNow(); // bad options: undo, and let the caller see the mistake
        resolveSession(unavailableSession(err));
        throw err;
      }
      // Anything else (a module that loaded but is not this one, a trap): the patch stays and
      // every result is withheld, as for a module that did not load. Never the raw results.
      error = wasmUnavailable("the WebAssembly module", `it loaded, but no redactor could be made with it (${/** @type {any} */ (err)?.name ?? "error"})`, err);
      session = unavailableSession(error);
      report(error);
    }
  }
  resolveSession(session);

  function uninstallNow() {
    unpatch();
    restoreOutgoing?.();
    restoreInner?.();
    try {
      delete modelContext[INSTALLED];
    } catch {
      // a context that now refuses: what could be undone was
    }
    restoreRespondWith?.();
    restoreTestingList();
  }

  // Tools the runtime already had are not covered: report them. Form tools are followed live
  // (Chromium lists them too: those are the scan's, so that a removed form leaves the report).
  const listed = await listTools(modelContext);
  const doc = /** @type {any} */ (globalThis.document);
  let forms = formToolNames(doc);
  // Tools on the inner server before installation (MCP-B lists only the context's) too.
  const innerEarly = innerBefore.tools.filter((n) => !registered.has(n) && !listed?.includes(n));
  const early = listed === null && !innerEarly.length ? null : [...(listed ?? []).filter((n) => !registered.has(n) && !forms.includes(n)), ...innerEarly];
  if (early?.length) {
    globalThis.console?.warn?.(`webmcp-redact: tools registered before installRedaction are not redacted: ${early.join(", ")}`);
  }
  if (unscrubbed) {
    globalThis.console?.warn?.(`webmcp-redact: ${unscrubbed} resources or prompts registered before installRedaction are not scrubbed`);
  }
  const warned = new Set();
  const warnForms = () => {
    const fresh = forms.filter((n) => !warned.has(n));
    if (!fresh.length) return;
    for (const n of fresh) warned.add(n);
    const how = restoreRespondWith
      ? "only the responses their submit handlers give through SubmitEvent.respondWith are redacted, not one taken from a page the form navigates to"
      : "their results are not redacted (this runtime has no SubmitEvent.respondWith to intercept)";
    globalThis.console?.warn?.(`webmcp-redact: declarative tools (<form toolname>) are not wrapped, ${how}: ${fresh.join(", ")}`);
  };
  warnForms();
  const stopWatching = watchFormTools(doc, (names) => {
    forms = names;
    warnForms();
  });
  // Tools that reach the runtime later without passing the patch (a registerTool a script took
  // before installation and calls now, another path of the runtime) are not wrapped either: the
  // runtime says when its tools change, and each name it then lists that was not registered
  // here is reported (found by review: such a tool went unreported, its results raw).
  const late = new Set();
  let stopped = false;
  const findUnpatched = async () => {
    const names = await listTools(modelContext);
    const fresh = (names ?? []).filter((n) => !registered.has(n) && !forms.includes(n) && !early?.includes(n) && !late.has(n));
    if (!fresh.length || stopped) return;
    for (const n of fresh) late.add(n);
    globalThis.console?.warn?.(`webmcp-redact: tools the runtime got past installRedaction's registerTool are not redacted: ${fresh.join(", ")}`);
  };
  const stopFollowing = followToolChanges(modelContext, findUnpatched);
  recheck = () => {
    findUnpatched().catch(() => {});
  };
  /** @returns {string[] | null} */
  const unprotectedTools = () => (early === null && !forms.length && !late.size ? null : [...new Set([...(early ?? []), ...late, ...forms])]);

  const uninstall = () => {
    stopped = true;
    stopFollowing();
    stopWatching();
    uninstallNow();
  };
  uninstall.error = error;
  uninstall.bridge = bridge;
  Object.defineProperty(uninstall, "unprotectedTools", { enumerable: true, get: unprotectedTools });
  uninstall.redactor = session.redactor;
  uninstall.session = session;
  return uninstall;
}
