// Review s30 of the JS layer (helper L): each test states a promise a careless page, a hostile
// script or a supported set-up broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction } from "webmcp-redact";
import { CANARY, apiKeyTool, apiKeyRaw, fakeContext, random, signalContext } from "./helpers.mjs";
import { reportAfterUnregister, sensitive, settle } from "./install-helpers.mjs";

const coded = (code) => (/** @type {any} */ e) => e instanceof TypeError && e.code === code;

// --- registerTool's options --------------------------------------------------------------------

// Options that could not be copied were given to the runtime as they were, so the runtime read
// their `signal` again: a Proxy refusing `ownKeys` (which the runtime never asks) and answering
// `signal` with another signal on each read had the runtime unregister the tool on a signal
// installRedaction never followed. The name stayed counted as protected, and a raw tool
// registered past the patch under it went unreported (stop 29's fix, bypassed).
test("options that cannot be copied do not let the runtime follow another signal than the patch", async () => {
  const followed = new AbortController();
  const other = new AbortController();
  let reads = 0;
  const options = new Proxy({}, {
    ownKeys() {
      throw new Error("no keys");
    },
    get(_t, key) {
      return key === "signal" ? [followed, other][Math.min(reads++, 1)].signal : undefined;
    },
  });
  let seen;
  try {
    seen = await reportAfterUnregister(options, () => other.abort());
  } catch (err) {
    // Refused, with the code of a mistake in the call: as good, nothing was registered.
    assert.ok(coded("invalid_options")(err), String(err));
    return;
  }
  if (seen !== "kept") assert.deepEqual(seen, ["lookup"], "unregistered by a signal never followed, the name stayed protected");
});

// A real AbortSignal with an own `addEventListener` (or a signal-like object) can tell its
// listeners apart: called for the runtime's alone (its abort listener does not look at
// `aborted`), the runtime dropped the tool while the patch still counted its name.
test("the runtime unregisters a tool only when the signal the patch follows aborts", async () => {
  const cases = {
    "a real signal whose own addEventListener keeps the listeners": () => {
      const signal = new AbortController().signal;
      const listeners = [];
      signal.addEventListener = (_type, fn) => listeners.push(fn);
      return { options: { signal }, unregister: () => listeners.at(-1)?.() };
    },
    "an object posing as a signal": () => {
      const listeners = [];
      const signal = { aborted: false, reason: undefined, throwIfAborted() {}, addEventListener: (_type, fn) => listeners.push(fn), removeEventListener() {} };
      return { options: { signal }, unregister: () => listeners.at(-1)?.() };
    },
  };
  for (const [what, make] of Object.entries(cases)) {
    const { options, unregister } = make();
    let seen;
    try {
      seen = await reportAfterUnregister(options, unregister);
    } catch (err) {
      assert.ok(coded("invalid_options")(err), `${what}: ${err}`);
      continue;
    }
    if (seen !== "kept") assert.deepEqual(seen, ["lookup"], `${what}: the runtime dropped the tool, the name stayed protected`);
  }
});

// The options the runtime is given are a copy (read once): own members that are not enumerable
// (or that are symbols) were dropped from it, though the runtime reads them as the page set them.
test("registerTool's options reach the runtime with every own member, read once", async () => {
  const ctx = signalContext();
  const uninstall = await installRedaction({ modelContext: ctx });
  try {
    const key = Symbol("key");
    let reads = 0;
    const options = {};
    Object.defineProperty(options, "exposedTo", { value: ["https://a.example"], enumerable: false });
    Object.defineProperty(options, "counted", { get: () => ++reads, enumerable: false });
    options[key] = "symbol";
    await ctx.registerTool(sensitive("lookup"), options);
    const given = ctx.options[0];
    assert.deepEqual(given.exposedTo, ["https://a.example"]);
    assert.equal(given[key], "symbol");
    assert.equal(given.counted, 1);
    assert.equal(given.counted, 1, "a getter is read once, not again by the runtime");
    assert.equal(reads, 1);
    // A null signal is no signal, as the polyfill and MCP-B read it.
    await ctx.registerTool(sensitive("nulled"), { signal: null });
    assert.equal(ctx.options[1].signal, null);
  } finally {
    uninstall();
  }
});

// A real signal still unregisters the tool, also after uninstall (the runtime holds the tool),
// and one aborted already is one the runtime sees aborted.
test("a real signal unregisters a tool through the patch, before and after uninstall", async () => {
  for (const when of ["installed", "uninstalled", "aborted before"]) {
    const ctx = signalContext();
    const uninstall = await installRedaction({ modelContext: ctx });
    const controller = new AbortController();
    if (when === "aborted before") controller.abort(new Error("gone"));
    const registering = ctx.registerTool(sensitive("lookup"), { signal: controller.signal });
    if (when === "aborted before") {
      await assert.rejects(registering, /gone/);
      uninstall();
      continue;
    }
    await registering;
    assert.deepEqual((await ctx.getTools()).map((t) => t.name), ["lookup"]);
    if (when === "uninstalled") uninstall();
    controller.abort();
    await settle();
    assert.deepEqual(await ctx.getTools(), [], when);
    if (when === "installed") uninstall();
  }
});

// --- Another redactor's wrapTool copy -----------------------------------------------------------

// Registered on the patched context, another redactor's copy was wrapped again by the page's: its
// stubs were foreign to the page's redactor (stripped as malformed references), so the notice said
// "the user can reveal it" while no one could, and onResult was never told (open since stop 27).
// It is refused now, loudly, with a code that says what to do.
test("another redactor's wrapTool copy is refused by the patched registerTool and provideContext", async () => {
  const ctx = fakeContext();
  let provided = null;
  ctx.provideContext = ({ tools }) => {
    provided = tools;
  };
  const uninstall = await installRedaction({ modelContext: ctx });
  try {
    const other = await createRedactor();
    const copy = other.wrapTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    const shapes = {
      "the copy": copy,
      "the copy spread": { ...copy, description: "spread" },
      "its execute in a tool of the page's": { name: "mine", description: "mine", execute: copy.execute },
    };
    for (const [what, tool] of Object.entries(shapes)) {
      await assert.rejects(ctx.registerTool(tool), coded("foreign_wrapper"), `registerTool, ${what}`);
      assert.throws(() => ctx.provideContext({ tools: [tool] }), coded("foreign_wrapper"), `provideContext, ${what}`);
    }
    assert.equal(ctx.tools.size, 0);
    assert.equal(provided, null);
    // The page's own redactor's copy, and the tool itself, are taken as before.
    await ctx.registerTool(uninstall.redactor.wrapTool({ ...apiKeyTool, execute: async () => apiKeyRaw() }));
    assert.ok(!JSON.stringify(await ctx.call(apiKeyTool.name, {})).includes(CANARY));
  } finally {
    uninstall();
  }
});

// The same copy wrapped again by another redactor's wrapTool lost its stubs the same way (the
// second redactor stripped the first's as malformed references, and the user could reveal
// neither). Refused too; wrapping a copy of the same redactor again is not refused.
test("wrapTool refuses another redactor's wrapTool copy with foreign_wrapper", async () => {
  const [one, two] = [await createRedactor(), await createRedactor()];
  const tool = { ...apiKeyTool, description: "d", execute: async () => apiKeyRaw() };
  const copy = one.wrapTool(tool);
  for (const given of [copy, { ...copy, name: "renamed" }, { name: "mine", execute: copy.execute }]) {
    assert.throws(() => two.wrapTool(given), coded("foreign_wrapper"));
  }
  const again = one.wrapTool(copy);
  const view = await again.execute({});
  assert.ok(!JSON.stringify(view).includes(CANARY));
  const stub = view.content.find((b) => b.type === "secret_reference");
  assert.equal(one.vault.reveal(stub.handle), CANARY, "the stub of a copy wrapped again by its own redactor reveals");
});

// --- Seeded: whatever the options, the runtime drops a tool exactly when the patch frees it ------


/**
 * Options a page (careless or hostile) could give registerTool: a real signal, aborted or not,
 * with or without an own addEventListener, removeEventListener or aborted; a lookalike; a
 * getter; inherited; non-enumerable; behind a Proxy refusing some traps; with other members.
 * Returns the options, the signal the page holds (to abort it), and how to call listeners the
 * signal kept for itself.
 */
function pageOptions(rnd) {
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const controller = new AbortController();
  const kept = [];
  let signal = controller.signal;
  const kind = pick(["real", "real", "own listeners", "own aborted", "lookalike", "none"]);
  if (kind === "own listeners") {
    signal.addEventListener = (_type, fn) => kept.push(fn);
    signal.removeEventListener = () => {};
  } else if (kind === "own aborted") {
    Object.defineProperty(signal, "aborted", { value: rnd() < 0.5 });
  } else if (kind === "lookalike") {
    signal = { aborted: false, reason: undefined, throwIfAborted() {}, addEventListener: (_t, fn) => kept.push(fn), removeEventListener() {} };
  } else if (kind === "none") {
    signal = undefined;
  }
  const abortedBefore = rnd() < 0.2 && signal !== undefined;
  if (abortedBefore) controller.abort(new Error("aborted before"));
  const reads = [signal, new AbortController().signal];
  let read = 0;
  const how = pick(["own", "getter", "inherited", "hidden", "proxy"]);
  let options = { exposedTo: pick([undefined, [], ["https://a.example"]]) };
  if (how === "own") options.signal = signal;
  else if (how === "getter") Object.defineProperty(options, "signal", { get: () => reads[Math.min(read++, 1)], enumerable: true });
  else if (how === "inherited") options = Object.assign(Object.create({ signal }), options);
  else if (how === "hidden") Object.defineProperty(options, "signal", { value: signal, enumerable: false });
  else {
    const refuse = pick(["ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf", "none"]);
    options = new Proxy({ ...options, signal }, {
      [refuse]() {
        throw new Error("refused");
      },
      get: (t, key) => (key === "signal" ? reads[Math.min(read++, 1)] : Reflect.get(t, key)),
    });
  }
  return { options, controller, kept, abortedBefore };
}

test("seeded: registerTool's options never let the runtime drop a tool the patch still counts", async () => {
  const rnd = random(20261124);
  const outcomes = { refused: 0, kept: 0, freed: 0, "aborted before": 0 };
  for (let i = 0; i < 300; i += 1) {
    const { options, controller, kept, abortedBefore } = pageOptions(rnd);
    const ctx = signalContext();
    const takenBefore = ctx.registerTool;
    const warn = console.warn;
    console.warn = () => {};
    const uninstall = await installRedaction({ modelContext: ctx });
    try {
      try {
        await ctx.registerTool(sensitive("lookup"), options);
      } catch (err) {
        if (abortedBefore && /aborted before/.test(String(err?.message))) {
          outcomes["aborted before"] += 1;
          continue;
        }
        assert.ok(coded("invalid_options")(err), `case ${i}: ${err}`);
        outcomes.refused += 1;
        continue;
      }
      assert.ok(!abortedBefore, `case ${i}: registered though its signal was aborted`);
      // Whatever the page does to the listeners its signal kept, then an abort of the signal
      // it holds: the runtime keeps the tool until the patch frees the name, and a raw tool of
      // that name registered past the patch afterwards is reported.
      for (const fn of kept) fn();
      await settle();
      const before = (await ctx.getTools()).map((t) => t.name);
      if (before.length === 0) {
        await takenBefore({ name: "lookup", description: "x", execute: async () => ({ secret: CANARY }) });
        await settle();
        await settle();
        assert.deepEqual(uninstall.unprotectedTools, ["lookup"], `case ${i}: dropped by the runtime, still counted`);
        outcomes.freed += 1;
        continue;
      }
      controller.abort();
      await settle();
      if ((await ctx.getTools()).length === 0) outcomes.freed += 1;
      else outcomes.kept += 1;
      try {
        await takenBefore({ name: "lookup", description: "x", execute: async () => ({ secret: CANARY }) });
      } catch {
        continue; // the runtime still has the patched tool: refused as a duplicate
      }
      await settle();
      await settle();
      assert.deepEqual(uninstall.unprotectedTools, ["lookup"], `case ${i}: dropped by the runtime, still counted`);
    } finally {
      uninstall();
      console.warn = warn;
    }
  }
  // Each way came up: the test asserts something on each.
  for (const [what, n] of Object.entries(outcomes)) assert.ok(n > 0, `${what}: ${JSON.stringify(outcomes)}`);
});

// --- Hostile results through both wrappers -----------------------------------------------------

// What a careless or hostile tool can return or throw, each holding the marked value (or a value
// the redactor already knows) somewhere, some answering differently on a second read. The agent
// gets the redaction of one snapshot: never the value, whatever is read again or changed later.
const HOSTILE = {
  plain: () => apiKeyRaw(),
  "a getter": () => ({ id: "k", get secret() { return CANARY; } }),
  "a getter that changes on the second read": () => {
    let reads = 0;
    return { id: "k", get name() { return reads++ ? CANARY : "prod"; }, secret: "s" };
  },
  "toJSON": () => ({ toJSON: () => apiKeyRaw() }),
  "toJSON that changes": () => {
    let calls = 0;
    return { toJSON: () => (calls++ ? { name: CANARY } : apiKeyRaw()) };
  },
  "a Proxy": () => new Proxy({}, {
    ownKeys: () => ["id", "secret"],
    getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true }),
    get: (_t, key) => (key === "secret" ? CANARY : key === "id" ? "k" : undefined),
  }),
  "a Proxy whose keys change": () => {
    let calls = 0;
    return new Proxy({ secret: CANARY }, { ownKeys: () => (calls++ ? ["name"] : ["secret"]), get: () => CANARY, getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true }) });
  },
  "a null-prototype object": () => Object.assign(Object.create(null), apiKeyRaw()),
  "a class instance": () => new (class { secret = CANARY; name = "n"; })(),
  "a late promise": () => new Promise((resolve) => setTimeout(() => resolve(apiKeyRaw()), 5)),
  "a thenable": () => ({ then: (resolve) => setTimeout(() => resolve(apiKeyRaw()), 1) }),
  "changed after return": () => {
    const raw = { id: "k", name: "prod", secret: "s" };
    setTimeout(() => { raw.name = CANARY; }, 0);
    return raw;
  },
  "the value in text": () => ({ content: [{ type: "text", text: `key ${CANARY}` }] }),
  "the value in a key": () => ({ [CANARY]: 1 }),
  "the value in _meta": () => ({ content: [], _meta: { note: CANARY } }),
  "a BigInt": () => ({ secret: CANARY, n: 1n }),
  "a cycle": () => {
    const raw = { secret: CANARY };
    raw.self = raw;
    return raw;
  },
  "a Symbol-keyed member": () => ({ [Symbol(CANARY)]: CANARY, name: "n" }),
  "an Error thrown": () => { throw new Error(`bad key ${CANARY}`); },
  "an Error with a cause": () => { throw new Error("failed", { cause: CANARY }); },
  "a message that changes": () => {
    let reads = 0;
    throw { get message() { return reads++ ? CANARY : "failed"; } };
  },
  "a thrown object": () => { throw { message: `bad ${CANARY}` }; },
  "a thrown string": () => { throw `bad ${CANARY}`; },
  "a thrown Proxy": () => { throw new Proxy({}, { get() { throw new Error(CANARY); } }); },
  "a rejected promise": () => Promise.reject(new Error(CANARY)),
  "a Response": () => new Response(CANARY),
  "a typed array holding text": () => ({ name: "n", bytes: new TextEncoder().encode("abc") }),
};

test("hostile results through wrapTool and installRedaction: the agent never gets the value", async () => {
  const ctx = fakeContext();
  const uninstall = await installRedaction({ modelContext: ctx });
  try {
    const redactor = uninstall.redactor;
    let kind = "plain";
    const tool = { ...apiKeyTool, description: "d", execute: async () => HOSTILE[kind]() };
    const wrapped = redactor.wrapTool({ ...tool, name: "wrapped" });
    await ctx.registerTool({ ...tool, name: "registered" });
    // First the plain result: its marked value becomes known, so every later echo is scrubbed.
    for (const call of [() => wrapped.execute({}), () => ctx.call("registered", {})]) {
      assert.ok(!JSON.stringify(await call()).includes(CANARY));
    }
    let cases = 0;
    for (kind of Object.keys(HOSTILE)) {
      for (const [how, call] of [["wrapTool", () => wrapped.execute({})], ["installRedaction", () => ctx.call("registered", {})]]) {
        const view = await call();
        await new Promise((resolve) => setTimeout(resolve, 10)); // anything changed later has changed
        const text = JSON.stringify(view);
        assert.ok(typeof text === "string" && !text.includes(CANARY), `${kind} via ${how}: ${text}`);
        cases += 1;
      }
    }
    assert.equal(cases, 2 * Object.keys(HOSTILE).length);
  } finally {
    uninstall();
  }
});

// --- The CLI's terminal output ------------------------------------------------------------------

// The CLI's report (stderr) and lint's text lines printed labels, JSON Pointers, tool names and
// messages as they came, from the result's keys and the tool's definition: control characters
// (an ESC sequence that erases the line above, moves the cursor, or sets the clipboard; a CR; a
// C1 CSI) and format characters (a bidi override) rewrote what the tool author saw in the
// terminal, e.g. erased the report line that names the field holding a secret; a format character beyond
// the BMP (a TAG character) is escaped as both its UTF-16 units. The agent view on
// stdout is JSON, which escapes them; the rest now shows each as its \uXXXX escape.
test("the CLI shows control and format characters of a result or tool as escapes, never raw", async () => {
  const { spawnSync } = await import("node:child_process");
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const root = new URL("../..", import.meta.url).pathname;
  const dir = mkdtempSync(join(tmpdir(), "s30-cli-"));
  const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u{E0000}-\u{E007F}]/u;
  let cases = 0;
  for (const evil of ["\u001b[2K\u001b[1A", "\r", "\u009b2K", "\u202e", "\u001b]52;c;aGk=\u0007", "a\nb", "\u{E0041}\u{E007F}"]) {
    const key = `key${evil}`;
    const tool = { name: `t${evil}`, outputSchema: { type: "object", properties: { [key]: { type: "string", "x-sensitive": true, title: `label${evil}` } } } };
    writeFileSync(join(dir, "tool.json"), JSON.stringify(tool));
    writeFileSync(join(dir, "result.json"), JSON.stringify({ [key]: "sk_live_x" }));
    const cli = (args) => spawnSync(process.execPath, ["bin/webmcp-redact.mjs", ...args], { cwd: root, encoding: "utf8" });
    const redact = cli(["redact", "--tool", join(dir, "tool.json"), "--result", join(dir, "result.json")]);
    assert.ok(!RAW.test(redact.stderr.replace(/\n/g, "")), `redact report: ${JSON.stringify(redact.stderr)}`);
    assert.ok(!RAW.test(redact.stdout.replace(/\n/g, "")), `redact view: ${JSON.stringify(redact.stdout)}`);
    assert.ok(!redact.stdout.includes("sk_live_x"));
    const json = cli(["redact", "--json", "--tool", join(dir, "tool.json"), "--result", join(dir, "result.json")]);
    assert.ok(!RAW.test(json.stdout.replace(/\n/g, "")), `redact --json: ${JSON.stringify(json.stdout)}`);
    // The view printed is the same JSON value, its characters escaped.
    assert.equal(JSON.parse(json.stdout).agent.structuredContent !== undefined, true);
    assert.equal(JSON.parse(redact.stdout).content[1].label, `label${evil}`);
    const lint = cli(["lint", join(dir, "tool.json")]);
    assert.ok(!RAW.test(lint.stdout.replace(/\n/g, "")), `lint: ${JSON.stringify(lint.stdout)}`);
    // Every line of the report is one redaction or a heading: no value split a line.
    assert.equal(redact.stderr.trim().split("\n").length, 2, JSON.stringify(redact.stderr));
    cases += 1;
  }
  assert.equal(cases, 7);
});
