// MCP-B's inner server: `modelContext.mcpServer`, the MCP SDK's McpServer, which MCP-B documents
// for multi-round tools. Everything registered on it reached MCP clients past the patch of the
// context: a tool's result claiming `sensitiveHint`, a resource serving a known value, raw, and
// unreported (found by review s32). Each registration route it has is patched here so that each
// function it is given (the callback) is the one `wrap` gives, as is a callback given later
// through the handle's `update`.

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
 */
export function patchInner(server, wrap, context) {
  /** @type {[any, string, PropertyDescriptor | undefined, unknown][]} */
  const done = [];
  const restore = () => {
    for (const [target, key, own, ours] of done) {
      try {
        if (target[key] !== ours) continue;
        if (own) Object.defineProperty(target, key, own);
        else delete target[key];
      } catch {
        // a server that now refuses: what could be undone was
      }
    }
  };
  const replace = (/** @type {any} */ target, /** @type {string} */ key, /** @type {Function} */ ours) => {
    const own = Object.getOwnPropertyDescriptor(target, key);
    Object.defineProperty(target, key, { configurable: true, enumerable: false, writable: true, value: ours });
    done.push([target, key, own, ours]);
  };
  /** `target[key]` kept as `value`: assigning it throws `unprotected_route` (`why`). */
  const fence = (/** @type {any} */ target, /** @type {string} */ key, /** @type {unknown} */ value, /** @type {string} */ why) => {
    const own = Object.getOwnPropertyDescriptor(target, key);
    const set = () => {
      throw unprotected(why);
    };
    Object.defineProperty(target, key, { configurable: true, enumerable: own?.enumerable ?? false, get: () => value, set });
    done.push([target, key, own, value]);
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
        if (kind === "resource") args[1] = templateThrough(args[1], (cb) => wrap(kind, state, undefined, cb));
        return patchHandle(within(inside, () => Reflect.apply(fn, this, args)), kind, state, config, wrap, inside);
      };
      replace(server, key, ours);
    }
    guardRequestHandlers(server.server, inside, replace, fence);
    scrubbedBefore = scrubRegistered(server, wrap, replace, inside);
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
 */
function scrubRegistered(server, wrap, replace, inside) {
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
        const through = templateThrough(template, (cb) => wrap(kind, state, undefined, cb));
        if (through !== template) replace(entry, "resourceTemplate", through);
      }
      patchHandle(entry, kind, state, undefined, wrap, inside);
      wrapped.add(entry);
    }
  }
  return wrapped.size;
}

/**
 * A resource template (the SDK's `ResourceTemplate`: not a string) as the server is to see it:
 * an object over it whose `listCallback` (what `resources/list` shows of it, a page callback
 * whose answer reached the client raw: found by review s32) is wrapped. The page's template
 * itself is left as it is; a URI string passes. (Its completions: see COMPLETIONS.)
 * @param {any} template
 * @param {(callback: Function) => Function} wrap
 */
function templateThrough(template, wrap) {
  if (template === null || typeof template !== "object") return template;
  const list = template.listCallback;
  return Object.create(template, { listCallback: { value: typeof list === "function" ? wrap(list) : list } });
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
 */
function patchHandle(handle, kind, state, config, wrap, inside) {
  if (handle === null || typeof handle !== "object") return handle;
  // The JSON Schema the SDK (v2) made of a tool's outputSchema (what tools/list shows): its
  // `x-sensitive` marks are the tool's, as an outputSchema given to the context is.
  const follow = () => {
    if (kind !== "tool") return;
    try {
      const json = handle.outputSchemaJson;
      state.outputSchema = json !== null && typeof json === "object" ? json : undefined;
    } catch {
      state.outputSchema = undefined;
    }
  };
  follow();
  // What a tool's calls are judged by: the claims the handle lists now (see installRedaction).
  if (kind === "tool") state.claims = () => [handle.annotations, handle._meta];
  const update = handle.update;
  if (typeof update !== "function") return handle;
  try {
    Object.defineProperty(handle, "update", {
      configurable: true,
      writable: true,
      value: function (/** @type {any} */ updates, /** @type {any[]} */ ...rest) {
        let given = updates;
        if (updates !== null && typeof updates === "object") {
          given = { ...updates };
          if (typeof given.name === "string") state.name = given.name;
          if (typeof given.callback === "function") given.callback = wrap(kind, state, config, given.callback);
          // A template given here has a `list` as the registration's has (review s34).
          if (kind === "resource") given.template = templateThrough(given.template, (cb) => wrap(kind, state, undefined, cb));
        }
        const out = within(inside, () => Reflect.apply(update, this, [given, ...rest]));
        follow();
        return out;
      },
    });
    guardMembers(handle, kind, inside);
  } catch {
    try {
      handle.remove?.();
    } catch {
      // nothing more to undo
    }
    throw new TypeError(`webmcp-redact: the ${kind} registered on modelContext.mcpServer was removed: its handle's update could not be patched`);
  }
  return handle;
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
  for (const key of CALLED) {
    const own = Object.getOwnPropertyDescriptor(handle, key);
    if (!own || !("value" in own)) continue;
    let value = own.value;
    Object.defineProperty(handle, key, {
      configurable: true,
      enumerable: own.enumerable,
      get: () => value,
      set: (/** @type {unknown} */ next) => {
        if (inside.depth === 0) throw unprotected(`a registered ${kind}'s ${key} was assigned: what it calls would reach MCP clients unredacted; give it through the handle's update({ callback })`);
        value = next;
      },
    });
  }
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
 * The inner server's `server.setRequestHandler`, refused outside the routes for any method but
 * PLUMBING: a handler a page sets (`tools/call`, `resources/read`, ...) answers MCP clients
 * with what it returns, past every route (left open by review s32). Inside a route the SDK
 * sets its own handlers, which call the wrapped callbacks. So is a handler written into the
 * map those go to (`server._requestHandlers.set("prompts/get", ...)`, that map replaced) or set
 * as its `fallbackRequestHandler` (which answers every method with no handler of its own): each
 * answered clients raw (found by review s34).
 * @param {any} protocol
 * @param {{ depth: number }} inside
 * @param {(target: any, key: string, ours: Function) => void} replace
 * @param {(target: any, key: string, value: unknown, why: string) => void} fence
 */
function guardRequestHandlers(protocol, inside, replace, fence) {
  const fn = protocol?.setRequestHandler;
  if (typeof fn !== "function") return;
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
  const handlers = protocol._requestHandlers;
  if (handlers instanceof Map) {
    const set = handlers.set;
    /** @this {any} */
    const guarded = function (/** @type {unknown} */ method, /** @type {unknown} */ handler) {
      refuse(typeof method === "string" ? method : "");
      return Reflect.apply(set, this, [method, handler]);
    };
    replace(handlers, "set", guarded);
    fence(protocol, "_requestHandlers", handlers, "mcpServer.server's request handlers cannot be replaced while installRedaction is installed");
  }
  if ("fallbackRequestHandler" in protocol) {
    fence(protocol, "fallbackRequestHandler", protocol.fallbackRequestHandler, "mcpServer.server.fallbackRequestHandler is refused: its answers would reach MCP clients unredacted");
  }
}

/** @param {string} why */
function unprotected(why) {
  return Object.assign(new TypeError(`webmcp-redact: ${why}`), { code: "unprotected_route" });
}
