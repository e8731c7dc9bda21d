// MCP-B's inner server: `modelContext.mcpServer`, the MCP SDK's McpServer, which MCP-B documents
// for multi-round tools. Everything registered on it reached MCP clients past the patch of the
// context: a tool's result claiming `sensitiveHint`, a resource serving a known value, raw, and
// unreported (found by review s32). Each registration route it has is patched here so that each
// function it is given (the callback) is the one `wrap` gives, as is a callback given later
// through the handle's `update`; what its listings answer goes through `listed` (js/listing.js).
// The SDK internals this relies on are named where they are used: its registries and their
// entries' members (REGISTRIES, EXISTING, CALLED), the protocol's `_requestHandlers` map,
// `_onrequest`, `_wrapHandler` and `fallbackRequestHandler`, the v2 prompt handler remade by
// `update`, and the v1 zod schema's `~standard` and `_zod.def.shape`.

import { LISTINGS } from "./listing.js";

/**
 * The SDK's registration methods (v1 and v2) -> what they register. v2 (`@modelcontextprotocol/
 * server`, MCP-B 5.1's) has only the `register*` ones; v1's `tool`, `resource` and `prompt`
 * are patched where a server has them.
 */
const ROUTES = { registerTool: "tool", tool: "tool", registerResource: "resource", resource: "resource", registerPrompt: "prompt", prompt: "prompt" };
/** The SDK's (v1 and v2) methods answering completion/complete -> the kind they complete. */
const COMPLETIONS = { handlePromptCompletion: "prompt", handleResourceCompletion: "resource" };
/** The SDK's registries (its own members, read only to report what was registered before). */
const REGISTRIES = { tool: ["_registeredTools"], resource: ["_registeredResources", "_registeredResourceTemplates", "_registeredPrompts"] };

/**
 * The context's inner MCP server: an object with a `registerTool` function, or null.
 * @param {any} modelContext
 */
export function innerServerOf(modelContext) {
  try {
    const server = modelContext.mcpServer;
    return server !== null && typeof server === "object" && typeof server.registerTool === "function" ? server : null;
  } catch {
    return null; // a context that throws when read has no inner server this module can patch
  }
}

/**
 * What was registered on the inner server before installation: its tools' names, and how many
 * resources and prompts (the SDK's registries; none where they cannot be read).
 * @param {any} server
 * @returns {{ tools: string[], others: number }}
 */
export function registeredOn(server) {
  const keys = (/** @type {string} */ registry) => {
    try {
      const value = server?.[registry];
      return value !== null && typeof value === "object" ? Object.keys(value) : [];
    } catch {
      return []; // cannot tell
    }
  };
  return { tools: REGISTRIES.tool.flatMap(keys), others: REGISTRIES.resource.reduce((n, r) => n + keys(r).length, 0) };
}

/**
 * Patches each route `server` has. `wrap(kind, state, config, callback)` gives the callback the
 * server is to call instead (it may throw: the registration then throws, nothing registered);
 * `state.name` is the name registered, kept current by the handle's `update({ name })`.
 * The handle a registration returns has its `update` patched too: `update({ callback })` gave
 * the SDK a raw callback for a name already registered, `update({ name })` renamed it.
 * What was registered before is wrapped too (scrubRegistered). Returns `{ restore,
 * scrubbedBefore }` (how many registrations made before were wrapped); throws (nothing left
 * patched) when a method cannot be replaced.
 * The context's `mcpServer`, the server's `server` and its registries are fenced (fenceRegistries).
 * @param {any} server
 * @param {(kind: string, state: { name: string, outputSchema?: object, claims?: () => any[] }, config: any, callback: Function) => Function} wrap
 * @param {any} [context] the model context whose `mcpServer` this is
 * @param {(method: string, result: unknown) => Promise<unknown>} [listed] what a listing answers (js/listing.js)
 */
export function patchInner(server, wrap, context, listed = async (_m, r) => r) {
  /** @type {(() => void)[]} what undoes each change */
  const done = [];
  let restoreHandlers = () => {};
  const restore = () => {
    restoreHandlers();
    for (const undo of done) {
      try {
        undo();
      } catch {
        // a server that now refuses: what could be undone was
      }
    }
  };
  const replace = (/** @type {any} */ target, /** @type {string} */ key, /** @type {Function} */ ours) => {
    const own = Object.getOwnPropertyDescriptor(target, key);
    const held = FENCES.get(target)?.get(key); // fenced by an earlier installation
    const before = held ? held.value : own?.value;
    if (held) held.value = ours;
    else Object.defineProperty(target, key, { configurable: true, enumerable: false, writable: true, value: ours });
    done.push(() => {
      const state = FENCES.get(target)?.get(key); // fenced since (guardMembers)
      if (state) {
        if (state.value === ours) state.value = before;
      } else if (target[key] === ours) {
        if (own) Object.defineProperty(target, key, own);
        else delete target[key];
      }
    });
  };
  /**
   * `target[key]` kept as `value`: assigning it throws `unprotected_route` (`why`), and so does
   * redefining it (fenceMember). Uninstalled, it holds what it held before, assignable.
   */
  const fence = (/** @type {any} */ target, /** @type {string} */ key, /** @type {unknown} */ value, /** @type {string} */ why) => {
    const before = target[key];
    const refuse = () => {
      throw unprotected(why);
    };
    const state = fenceMember(target, key, value, refuse);
    done.push(() => {
      if (state.refuse !== refuse) return;
      state.refuse = null;
      if (state.value === value) state.value = before;
    });
  };
  // Inside a patched route or update, the SDK sets its own request handlers and handle members.
  const inside = { depth: 0 };
  let scrubbedBefore = 0;
  try {
    for (const [key, kind] of Object.entries(ROUTES)) {
      const fn = server[key];
      if (typeof fn !== "function") continue;
      /** @this {any} */
      const ours = function (/** @type {any[]} */ ...args) {
        const state = { name: typeof args[0] === "string" ? args[0] : "" };
        const config = kind === "tool" && args.length > 2 ? args[1] : undefined;
        // Every function given after the name: the SDK takes the callback by its place, not as
        // the last argument, so one followed by another argument (`registerTool(name, config,
        // cb, undefined)`) reached MCP clients raw (found by review s34).
        for (let i = 1; i < args.length; i += 1) if (typeof args[i] === "function") args[i] = wrap(kind, state, config, args[i]);
        if (kind === "resource") args[1] = templateThrough(args[1], (cb) => wrap(kind, state, undefined, cb), listed);
        return patchHandle(within(inside, () => Reflect.apply(fn, this, args)), kind, state, config, wrap, inside, listed);
      };
      replace(server, key, ours);
    }
    restoreHandlers = guardRequestHandlers(server.server, inside, replace, fence, listed);
    scrubbedBefore = scrubRegistered(server, wrap, replace, inside, listed);
    fenceRegistries(server, inside, fence);
    if (context) fence(context, "mcpServer", server, "modelContext.mcpServer cannot be replaced while installRedaction is installed");
    // What completion/complete suggests (a prompt argument's `completable` callback rides on
    // the SDK's schema object, a template's on the template): the server's own two methods
    // that ask them, scrubbed as the kind's values are.
    for (const [key, kind] of Object.entries(COMPLETIONS)) {
      const fn = server[key];
      if (typeof fn !== "function") continue;
      /** @this {any} */
      const ours = function (/** @type {any} */ request, /** @type {any} */ ref, /** @type {any[]} */ ...rest) {
        let name = "";
        try {
          name = String(ref?.name ?? ref?.uri ?? "");
        } catch {
          // a name for messages only
        }
        return wrap(kind, { name: `${name} completion` }, undefined, () => Reflect.apply(fn, this, [request, ref, ...rest]))();
      };
      replace(server, key, ours);
    }
    // The SDK v1's task tools: their results come from a task store the page fills, past any
    // callback, so they are refused (v2, MCP-B 5.1's, has none).
    const tasks = server.experimental?.tasks;
    if (tasks !== null && typeof tasks === "object" && typeof tasks.registerToolTask === "function") {
      replace(tasks, "registerToolTask", () => {
        throw unprotected("mcpServer.experimental.tasks.registerToolTask is refused: a task tool's results come from its task store, which installRedaction cannot redact");
      });
    }
  } catch {
    restore();
    throw new Error("unpatchable");
  }
  return { restore, scrubbedBefore };
}

/**
 * The SDK's registries of resources, templates and prompts (v1, v2), each entry's member the
 * server calls (see CALLED), and what it registers.
 */
const EXISTING = [
  ["_registeredResources", "readCallback", "resource"],
  ["_registeredResourceTemplates", "readCallback", "resource"],
  ["_registeredPrompts", "handler", "prompt"],
  ["_registeredPrompts", "callback", "prompt"],
];

/**
 * What was registered before installation (a resource's read, a template's read and list, a
 * prompt's get) goes through `wrap` from now on, as a registration through the routes does:
 * only warned about, it served known values raw (left open by review s32). Its handle, which
 * the page may hold, is patched as a new one's is (patchHandle). Entries the SDK's registries
 * do not hold this way are left, and counted by the caller's warning. Returns how many entries
 * were wrapped.
 * @param {any} server
 * @param {(kind: string, state: { name: string }, config: any, callback: Function) => Function} wrap
 * @param {(target: any, key: string, ours: Function) => void} replace
 * @param {{ depth: number }} inside
 * @param {(method: string, result: unknown) => Promise<unknown>} listed
 */
function scrubRegistered(server, wrap, replace, inside, listed) {
  const wrapped = new Set();
  for (const [registry, key, kind] of EXISTING) {
    const entries = server[registry];
    if (entries === null || typeof entries !== "object") continue;
    for (const [id, entry] of Object.entries(entries)) {
      const fn = entry?.[key];
      if (typeof fn !== "function") continue;
      const state = { name: typeof entry.name === "string" ? entry.name : id };
      replace(entry, key, wrap(kind, state, undefined, fn));
      if (registry === "_registeredResourceTemplates") {
        const template = entry.resourceTemplate;
        const through = templateThrough(template, (cb) => wrap(kind, state, undefined, cb), listed);
        if (through !== template) replace(entry, "resourceTemplate", through);
      }
      patchHandle(entry, kind, state, undefined, wrap, inside, listed);
      wrapped.add(entry);
    }
  }
  return wrapped.size;
}

/**
 * A resource template (the SDK's `ResourceTemplate`: not a string) as the server is to see it:
 * an object over it whose `listCallback` (what `resources/list` shows of it, a page callback
 * whose answer reached the client raw: found by review s32) is wrapped. Its answer is a
 * listing: cleaned as `resources/list` is (`listed`, js/listing.js) before the wrap scrubs it,
 * so that an entry whose URI holds a value is dropped, not masked (masked first, the listing's
 * own cleaning no longer saw a value in it and kept an entry no read could serve: review s36).
 * The page's template itself is left as it is; a URI string passes. (Its completions: see
 * COMPLETIONS.)
 * @param {any} template
 * @param {(callback: Function) => Function} wrap
 * @param {(method: string, result: unknown) => Promise<unknown>} listed
 */
function templateThrough(template, wrap, listed) {
  if (template === null || typeof template !== "object") return template;
  const list = template.listCallback;
  if (typeof list !== "function") return Object.create(template, { listCallback: { value: list } });
  /** @this {any} */
  const cleaned = async function (/** @type {any[]} */ ...args) {
    return listed("resources/list", await Reflect.apply(list, this, args));
  };
  return Object.create(template, { listCallback: { value: wrap(cleaned) } });
}

/**
 * A handle's `update`, through `wrap`: a callback given there is wrapped too, and a rename
 * changes `state.name`, the name every wrapped callback of the handle redacts under. A handle
 * that cannot be patched is refused: its registration is undone (`remove()`), and the page's
 * call throws.
 * @param {any} handle
 * @param {string} kind
 * @param {{ name: string, outputSchema?: object, claims?: () => any[] }} state
 * @param {any} config
 * @param {(kind: string, state: { name: string, outputSchema?: object, claims?: () => any[] }, config: any, callback: Function) => Function} wrap
 * @param {{ depth: number }} inside
 * @param {(method: string, result: unknown) => Promise<unknown>} listed
 */
function patchHandle(handle, kind, state, config, wrap, inside, listed) {
  if (handle === null || typeof handle !== "object") return handle;
  // The JSON Schema the SDK (v2) made of a tool's outputSchema (what tools/list shows): its
  // `x-sensitive` marks are the tool's, as an outputSchema given to the context is.
  const follow = () => {
    if (kind === "tool") state.outputSchema = outputSchemaOf(handle);
  };
  try {
    follow();
  } catch (err) {
    removed(handle);
    throw err;
  }
  // What a tool's calls are judged by: the claims the handle lists now (see installRedaction).
  if (kind === "tool") state.claims = () => [handle.annotations, handle._meta];
  // The SDK's own update (an earlier installation's wrapper is not wrapped again).
  const update = BARE_UPDATES.get(handle) ?? handle.update;
  if (typeof update !== "function") return handle;
  try {
    // Fenced, as the members it sets are (guardMembers): a data property, it was redefined or
    // assigned by a page script, and the SDK's own update then took a raw callback (review s36).
    /** @this {any} */
    const ours = function (/** @type {any} */ updates, /** @type {any[]} */ ...rest) {
      let given = updates;
      if (updates !== null && typeof updates === "object") {
        given = { ...updates };
        if (typeof given.name === "string") state.name = given.name;
        if (typeof given.callback === "function") given.callback = wrap(kind, state, config, given.callback);
        // A template given here has a `list` as the registration's has (review s34).
        if (kind === "resource") given.template = templateThrough(given.template, (cb) => wrap(kind, state, undefined, cb), listed);
      }
      // The SDK v2 remakes a prompt's handler from the callback its update last saw: one a
      // script gave an update it kept from before installation (refused there, as the handler
      // it assigns is, but seen) came back raw at the next remake (an `argsSchema` update),
      // past the wrap (review s36). A handler remade from what this update was not given is
      // wrapped (one made from a wrapped callback is then scrubbed twice, which changes nothing).
      const before = kind === "prompt" ? handle.handler : undefined;
      const out = within(inside, () => Reflect.apply(update, this, [given, ...rest]));
      const after = kind === "prompt" ? handle.handler : undefined;
      if (after !== before && typeof after === "function" && typeof given?.callback !== "function") {
        within(inside, () => {
          handle.handler = wrap(kind, state, config, after);
        });
      }
      try {
        follow();
      } catch (err) {
        removed(handle);
        throw err;
      }
      return out;
    };
    fenceMember(handle, "update", ours, () => {
      if (inside.depth === 0) throw unprotected(`a registered ${kind}'s update was replaced: the callbacks it is given would reach MCP clients unredacted`);
    });
    BARE_UPDATES.set(handle, update);
    guardMembers(handle, kind, inside);
  } catch {
    removed(handle);
    throw new TypeError(`webmcp-redact: the ${kind} registered on modelContext.mcpServer was removed: its handle's update could not be patched`);
  }
  return handle;
}

/**
 * Each patched handle -> the SDK's own `update`, which a later installation wraps in place of
 * the earlier one's (fenced, it can no longer be read back from the handle).
 * @type {WeakMap<object, Function>}
 */
const BARE_UPDATES = new WeakMap();

/** The registration of `handle` undone, as far as it can be. */
function removed(/** @type {any} */ handle) {
  try {
    handle.remove?.();
  } catch {
    // nothing more to undo
  }
}

/**
 * The JSON Schema a tool's calls are judged by: the SDK v2's (`outputSchemaJson`, what
 * tools/list shows), or the SDK v1's zod `outputSchema` read as zod 4 reads itself
 * (`~standard.jsonSchema.output`, the Standard JSON Schema interface the SDK v2 uses too): its
 * `.meta({ "x-sensitive": true })` marks were not read, and marked fields went raw (left open
 * by review s34). A schema whose marks cannot be read that way (zod 3, another library) is
 * refused: code `unprotected_route`.
 * @param {any} handle
 * @returns {object | undefined}
 */
function outputSchemaOf(handle) {
  try {
    if ("outputSchemaJson" in handle) {
      const json = handle.outputSchemaJson;
      return json !== null && typeof json === "object" ? json : undefined;
    }
    const schema = handle.outputSchema;
    if (schema === undefined || schema === null) return undefined;
    const json = standardJson(schema);
    if (json) return json;
    // A raw shape the SDK v1 made into a zod mini object (which has no JSON Schema of its own):
    // its fields' (zod 4's own objects).
    const shape = schema._zod?.def?.type === "object" ? schema._zod.def.shape : undefined;
    if (shape !== null && typeof shape === "object") {
      const properties = Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, standardJson(field)]));
      if (Object.values(properties).every(Boolean)) return { type: "object", properties };
    }
  } catch {
    // unreadable: refused below
  }
  throw unprotected("a tool's outputSchema whose marks cannot be read (give a zod 4 schema, or a JSON Schema through modelContext.registerTool) is refused: its marked fields would reach MCP clients unredacted");
}

/**
 * `run()` counted as inside a patched route or update (see guardMembers, guardRequestHandlers).
 * @template T
 * @param {{ depth: number }} inside
 * @param {() => T} run
 * @returns {T}
 */
function within(inside, run) {
  inside.depth += 1;
  try {
    return run();
  } finally {
    inside.depth -= 1;
  }
}

/**
 * The members of a handle that the SDKs (v1, v2) call (a callback, or what runs one), and a
 * tool's output schema, which its calls are judged by.
 */
const CALLED = ["handler", "executor", "callback", "readCallback", "resourceTemplate", "outputSchema", "outputSchemaJson"];

/**
 * The handle's members the server calls (CALLED), each kept as it is but settable only by the
 * SDK's own `update` (patched above): a page assigning `handle.handler` or `.executor` (or a
 * resource's `readCallback`, a template) gave the server a raw callback (left open by review
 * s32); one assigning a tool's `outputSchema` had the SDK list marks its calls were not judged
 * by (review s34). Such an assignment throws a TypeError, code `unprotected_route`: `update` is
 * the way.
 * @param {any} handle
 * @param {string} kind
 * @param {{ depth: number }} inside
 */
function guardMembers(handle, kind, inside) {
  const refuse = (/** @type {string} */ key) => () => {
    if (inside.depth === 0) throw unprotected(`a registered ${kind}'s ${key} was assigned: what it calls would reach MCP clients unredacted; give it through the handle's update({ callback })`);
  };
  for (const key of CALLED) {
    const held = FENCES.get(handle)?.get(key); // by an earlier installation: armed again
    const own = Object.getOwnPropertyDescriptor(handle, key);
    if (!held && (!own || !("value" in own))) continue;
    fenceMember(handle, key, held ? held.value : own?.value, refuse(key));
  }
}

/**
 * Each fenced member: target -> key -> `{ value, refuse }` (see fenceMember). Module-wide, so
 * that a later installation finds the fences an earlier one left.
 * @type {WeakMap<object, Map<string, { value: unknown, refuse: ((next: unknown) => void) | null }>>}
 */
const FENCES = new WeakMap();

/**
 * `target[key]` held by an accessor that is not configurable: read, it is the state's `value`;
 * assigned, its `refuse(next)` decides first (it throws to refuse; none, it is assigned). A
 * configurable one was redefined past its setter with `Object.defineProperty` (a registry,
 * the handler map, `_onrequest`, a handle's handler: review s36); this one cannot be, and a
 * later call (another installation) arms it again. Returns the state.
 * @param {any} target
 * @param {string} key
 * @param {unknown} value
 * @param {(next: unknown) => void} refuse
 */
function fenceMember(target, key, value, refuse) {
  let members = FENCES.get(target);
  if (!members) FENCES.set(target, (members = new Map()));
  let state = members.get(key);
  if (!state) {
    const own = Object.getOwnPropertyDescriptor(target, key);
    /** @type {{ value: unknown, refuse: ((next: unknown) => void) | null }} */
    const made = { value, refuse };
    Object.defineProperty(target, key, {
      configurable: false,
      enumerable: own?.enumerable ?? false,
      get: () => made.value,
      set: (/** @type {unknown} */ next) => {
        made.refuse?.(next);
        made.value = next;
      },
    });
    members.set(key, (state = made));
  }
  state.value = value;
  state.refuse = refuse;
  return state;
}

/** The SDK's registries (v1, v2): what the server answers tools/call, resources/read, ... from. */
const REGISTRY_KEYS = ["_registeredTools", "_registeredResources", "_registeredResourceTemplates", "_registeredPrompts"];

/**
 * The SDK's registries, each behind a Proxy that refuses a new entry outside the patched routes
 * and updates, and the server's members that hold them (and its `server`) fenced: a registration
 * past the routes (the SDK's method called through its prototype, `_createRegisteredResource`
 * called directly, an entry written into a registry, a registry or the server replaced) reached
 * MCP clients raw (found by review s34). Reading and removing pass as they are.
 * @param {any} server
 * @param {{ depth: number }} inside
 * @param {(target: any, key: string, value: unknown, why: string) => void} fence
 */
function fenceRegistries(server, inside, fence) {
  const why = "a registration on modelContext.mcpServer past its registerTool, registerResource and registerPrompt would reach MCP clients unredacted";
  const refuse = () => {
    if (inside.depth === 0) throw unprotected(why);
  };
  for (const key of REGISTRY_KEYS) {
    const registry = server[key];
    if (registry === null || typeof registry !== "object") continue;
    const fenced = new Proxy(registry, {
      set: (target, name, value) => (refuse(), Reflect.set(target, name, value)),
      defineProperty: (target, name, desc) => (refuse(), Reflect.defineProperty(target, name, desc)),
    });
    fence(server, key, fenced, why);
  }
  const protocol = server.server;
  if (protocol !== null && typeof protocol === "object") fence(server, "server", protocol, why);
}

/** The requests a Server answers itself, whose answers hold no page data. */
const PLUMBING = new Set(["initialize", "ping", "server/discover", "logging/setLevel"]);
/**
 * The protocol's own methods that dispatch a request or wrap a handler (SDK v1: `_onrequest`;
 * v2: `_onrequest`, `_wrapHandler`): replaced by a page, each answered clients past every
 * handler (left open by review s34). Fenced where the server has them.
 */
const DISPATCH = ["_onrequest", "_wrapHandler"];

/**
 * The inner server's `server.setRequestHandler`, refused outside the routes for any method but
 * PLUMBING: a handler a page sets (`tools/call`, `resources/read`, ...) answers MCP clients
 * with what it returns, past every route (left open by review s32). Inside a route the SDK
 * sets its own handlers, which call the wrapped callbacks. So is a handler written into the
 * map those go to or set as its `fallbackRequestHandler` (which answers every method with no
 * handler of its own): each answered clients raw (found by review s34).
 * The map (the SDK's `_requestHandlers`, which both SDKs only `get`, `set`, `has` and `delete`)
 * is moved into a new Map only this module holds, and the protocol's member is fenced to a
 * stand-in that is no Map: `Map.prototype.set.call(map, ...)` wrote past any own `set` of the
 * SDK's map (review s36), and on the old map (kept by a script from before) it now writes
 * where nothing reads. A listing handler (LISTINGS) answers through `listed(method, result)`
 * (js/listing.js). Returns `restore()` putting the handlers back into the SDK's map.
 * @param {any} protocol
 * @param {{ depth: number }} inside
 * @param {(target: any, key: string, ours: Function) => void} replace
 * @param {(target: any, key: string, value: unknown, why: string) => void} fence
 * @param {(method: string, result: unknown) => Promise<unknown>} listed
 */
function guardRequestHandlers(protocol, inside, replace, fence, listed) {
  const fn = protocol?.setRequestHandler;
  if (typeof fn !== "function") return () => {};
  const refuse = (/** @type {string} */ name) => {
    if (inside.depth === 0 && !PLUMBING.has(name)) throw unprotected(`mcpServer.server.setRequestHandler("${name}") is refused: its answers would reach MCP clients unredacted; register tools, resources and prompts through mcpServer's routes`);
  };
  /** @this {any} */
  const ours = function (/** @type {any} */ method, /** @type {any[]} */ ...rest) {
    let name = "";
    try {
      // A method name (v2), or the request's zod schema (v1).
      name = typeof method === "string" ? method : String(method?.shape?.method?.value ?? "");
    } catch {
      // unnamed: refused outside a route
    }
    refuse(name);
    return Reflect.apply(fn, this, [method, ...rest]);
  };
  replace(protocol, "setRequestHandler", ours);
  for (const key of DISPATCH) {
    if (typeof protocol[key] === "function") fence(protocol, key, protocol[key], `mcpServer.server.${key} cannot be replaced while installRedaction is installed: it would answer MCP clients unredacted`);
  }
  if ("fallbackRequestHandler" in protocol) {
    fence(protocol, "fallbackRequestHandler", protocol.fallbackRequestHandler, "mcpServer.server.fallbackRequestHandler is refused: its answers would reach MCP clients unredacted");
  }
  const original = protocol._requestHandlers;
  if (!(original instanceof Map)) return () => {};
  // Each listing handler's wrapper -> the SDK's own handler (put back by restore).
  /** @type {WeakMap<object, unknown>} */
  const bare = new WeakMap();
  const through = (/** @type {unknown} */ method, /** @type {unknown} */ handler) => {
    if (typeof method !== "string" || !Object.hasOwn(LISTINGS, method) || typeof handler !== "function") return handler;
    /** @this {any} */
    const wrapped = async function (/** @type {any[]} */ ...args) {
      return listed(method, await Reflect.apply(handler, this, args));
    };
    bare.set(wrapped, handler);
    return wrapped;
  };
  const map = new Map([...original].map(([method, handler]) => [method, through(method, handler)]));
  const stand = Object.freeze({
    get: (/** @type {unknown} */ method) => map.get(method),
    has: (/** @type {unknown} */ method) => map.has(method),
    delete: (/** @type {unknown} */ method) => map.delete(method),
    set(/** @type {unknown} */ method, /** @type {unknown} */ handler) {
      refuse(typeof method === "string" ? method : "");
      map.set(method, through(method, handler));
      return stand;
    },
    get size() {
      return map.size;
    },
    keys: () => map.keys(),
    values: () => map.values(),
    entries: () => map.entries(),
    [Symbol.iterator]: () => map.entries(),
  });
  fence(protocol, "_requestHandlers", stand, "mcpServer.server's request handlers cannot be replaced while installRedaction is installed");
  // Uninstalled, the SDK's map holds its handlers again (a listing's unwrapped).
  return () => {
    original.clear();
    for (const [method, handler] of map) original.set(method, (typeof handler === "function" && bare.get(handler)) || handler);
  };
}

/**
 * `schema`'s output JSON Schema through the Standard JSON Schema interface (zod 4.2+), or null.
 * @param {any} schema
 * @returns {object | null}
 */
function standardJson(schema) {
  const json = schema?.["~standard"]?.jsonSchema?.output?.({ target: "draft-2020-12" });
  return json !== null && typeof json === "object" ? json : null;
}

/** @param {string} why */
function unprotected(why) {
  return Object.assign(new TypeError(`webmcp-redact: ${why}`), { code: "unprotected_route" });
}
