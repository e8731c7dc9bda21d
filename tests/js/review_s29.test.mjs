// Review s29 of the JS layer (helper L): each test states a promise a careless page, a hostile
// script or a supported set-up broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction } from "webmcp-redact";
import { CANARY, fakeContext } from "./helpers.mjs";

// --- What the runtime is shown of a tool is what the core judges --------------------------------

// The fields of a tool definition the core judges it by (besides its name), each with a change
// that would make the tool sensitive if the core read it.
const JUDGED = {
  title: (t) => { t.title = "Sensitive"; },
  annotations: (t) => { t.annotations.sensitiveHint = true; },
  _meta: (t) => { t._meta["mcp.dev/resultSensitivity"] = "high"; },
};

const freshTool = () => ({
  name: "lookup",
  title: "Lookup",
  description: "looks things up",
  annotations: { readOnlyHint: true },
  _meta: { owner: "page" },
  execute: async () => ({ content: [{ type: "text", text: `token ${CANARY}` }] }),
});

// Each way a page (or a script holding the tool) changes a field after wrapping: the page's own
// object's member, the wrapped copy's member, or the wrapped copy's field replaced.
const CHANGES = {
  "the page's object": (tool) => tool,
  "the wrapped copy's member": (_tool, wrapped) => wrapped,
  "the wrapped copy's field replaced": (_tool, wrapped) => {
    const swap = {};
    for (const key of Object.keys(JUDGED)) swap[key] = structuredClone(wrapped[key]);
    for (const key of Object.keys(JUDGED)) wrapped[key] = swap[key];
    return wrapped;
  },
};

// The copy wrapTool made shared its annotations and _meta with the page's tool object: a mark the
// page added after wrapping (sensitiveHint: true) was shown to the runtime, and by it to the
// agent and the user, while the core judged the frozen copy without it and let the result through
// raw. Each judged field now shows the frozen copy the core reads, and cannot be changed.
test("a wrapped tool shows the runtime the definition its results are judged by, whatever changes later", async () => {
  const redactor = await createRedactor();
  let cases = 0;
  for (const [field, change] of Object.entries(JUDGED)) {
    for (const [how, target] of Object.entries(CHANGES)) {
      const tool = freshTool();
      const wrapped = redactor.wrapTool(tool);
      const before = JSON.stringify(wrapped[field]);
      try {
        change(target(tool, wrapped));
      } catch (err) {
        assert.ok(err instanceof TypeError, `${field}, ${how}: ${err}`); // frozen: refused loudly
      }
      assert.equal(JSON.stringify(wrapped[field]), before, `${field}, ${how}: shown changed`);
      const out = JSON.stringify(await wrapped.execute({}));
      assert.ok(out.includes(CANARY), `${field}, ${how}: judged changed too (the result was redacted)`);
      cases += 1;
    }
  }
  assert.equal(cases, 9);
});

// The same through installRedaction: the polyfill keeps the tool object it was given and lists
// its annotations on each getTools, so a change to the page's object after registration reached
// the agent's listing while the core judged the copy taken at registration.
test("a registered tool shows the runtime the definition its results are judged by", async () => {
  const ctx = fakeContext();
  const uninstall = await installRedaction({ modelContext: ctx });
  try {
    for (const field of Object.keys(JUDGED)) {
      const tool = { ...freshTool(), name: `lookup_${field}` };
      await ctx.registerTool(tool);
      const given = ctx.tools.get(tool.name);
      const before = JSON.stringify(given[field]);
      JUDGED[field](tool);
      assert.equal(JSON.stringify(given[field]), before, `${field}: the runtime's copy changed with the page's object`);
      assert.ok(JSON.stringify(await ctx.call(tool.name, {})).includes(CANARY), field);
    }
  } finally {
    uninstall();
  }
});

// The same class through what JSON reads of a field: annotations whose toJSON hides the hint the
// runtime reads as a property. Shown and judged now come from the one JSON read.
test("a wrapped tool's annotations are shown as the JSON the core judged, toJSON included", async () => {
  const redactor = await createRedactor();
  const tool = freshTool();
  tool.annotations = { sensitiveHint: true, readOnlyHint: true, toJSON: () => ({ readOnlyHint: true }) };
  const wrapped = redactor.wrapTool(tool);
  assert.deepEqual({ ...wrapped.annotations }, { readOnlyHint: true });
  assert.ok(Object.isFrozen(wrapped.annotations));
  assert.ok(JSON.stringify(await wrapped.execute({})).includes(CANARY), "judged without the hint, as shown");
});

// The class, drawn at random: a tool whose judged fields are plain, getters that answer
// differently on each read, toJSON, or inherited from a class, then changed in 0-3 random ways
// after wrapping (members of the page's object or of the copy set, deleted or replaced). Each
// wrapped call must be judged exactly as a fresh redactor judges a tool made of what the copy
// shows (with the outputSchema taken at wrapping): the same view, handles aside.
test("seeded: whatever happens to a tool after wrapping, its calls are judged by what the runtime is shown", async () => {
  let seed = 0x5eed29;
  const pick = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 16) % n;
  };
  const HINTS = [true, false, "high", "low", undefined];
  const LEVELS = ["high", "none", undefined];
  const annotations = () => ({ readOnlyHint: true, sensitiveHint: HINTS[pick(HINTS.length)] });
  const meta = () => ({ "mcp.dev/resultSensitivity": LEVELS[pick(LEVELS.length)] });
  const schema = { type: "object", properties: { id: { type: "string" }, secret: { type: "string", "x-sensitive": pick(2) === 0 } } };
  const execute = async () => ({ structuredContent: { id: "x1", secret: CANARY }, content: [{ type: "text", text: `id x1, ${CANARY}` }] });
  const make = () => {
    const plain = { name: "drawn", description: "d", outputSchema: structuredClone(schema), execute };
    switch (pick(4)) {
      case 0: return Object.assign(plain, { annotations: annotations(), _meta: meta() });
      case 1: { // getters: a different answer on each read
        Object.defineProperty(plain, "annotations", { enumerable: true, get: annotations });
        Object.defineProperty(plain, "_meta", { enumerable: true, get: meta });
        return plain;
      }
      case 2: return Object.assign(plain, { annotations: { ...annotations(), toJSON: annotations }, _meta: meta() });
      default: { // inherited, as a class-based tool has them
        const proto = { annotations: annotations(), _meta: meta() };
        return Object.assign(Object.create(proto), plain);
      }
    }
  };
  const changes = [
    (tool) => { Object.getPrototypeOf(tool).annotations ? (Object.getPrototypeOf(tool).annotations.sensitiveHint = true) : (tool.annotations.sensitiveHint = true); },
    (tool) => { tool.annotations = { sensitiveHint: true, readOnlyHint: true }; },
    (_tool, wrapped) => { wrapped.annotations.sensitiveHint = HINTS[pick(HINTS.length)]; },
    (_tool, wrapped) => { wrapped.annotations = annotations(); },
    (_tool, wrapped) => { delete wrapped._meta; },
    (_tool, wrapped) => { wrapped._meta["mcp.dev/resultSensitivity"] = "high"; },
    (tool) => { tool._meta["mcp.dev/resultSensitivity"] = "high"; },
    (tool) => { tool.outputSchema.properties.id["x-sensitive"] = true; },
  ];
  const view = (out) => JSON.stringify(out).replace(/[0-9a-f]{32}/g, "H");
  const redactor = await createRedactor();
  const judge = await createRedactor();
  let runs = 0;
  let refused = 0;
  for (let i = 0; i < 300; i++) {
    const tool = make();
    const wrapped = redactor.wrapTool(tool);
    const taken = structuredClone(schema);
    for (let n = pick(4); n > 0; n--) {
      try {
        changes[pick(changes.length)](tool, wrapped);
      } catch (err) {
        assert.ok(err instanceof TypeError, String(err)); // frozen or read-only: refused loudly
        refused += 1;
      }
    }
    const shown = { name: wrapped.name, description: "d", title: wrapped.title, annotations: wrapped.annotations, _meta: wrapped._meta, outputSchema: taken, execute };
    const expected = await judge.wrapTool(shown).execute({});
    assert.equal(view(await wrapped.execute({})), view(expected), `run ${i}`);
    runs += 1;
  }
  assert.equal(runs, 300);
  assert.ok(refused > 50, `${refused} changes refused`);
});

// The page redactor's own wrapTool copy is registered as it is (its calls are checked and
// redacted once, by that copy). Spread into a new object with other annotations (a page adjusting
// the copy: `{ ...redactor.wrapTool(tool), annotations: {...} }`), it kept its execute, so the
// runtime listed the new annotations while the calls were judged by the copy's: the hint shown,
// the result raw.
test("a wrapTool copy spread with other judged fields is shown to the runtime as it is judged", async () => {
  const ctx = fakeContext();
  const uninstall = await installRedaction({ modelContext: ctx });
  try {
    let cases = 0;
    for (const [field, change] of Object.entries(JUDGED)) {
      const wrapped = uninstall.redactor.wrapTool({ ...freshTool(), name: `spread_${field}` });
      const before = JSON.stringify(wrapped[field]);
      const spread = structuredClone({ ...wrapped, execute: undefined });
      change(spread);
      await ctx.registerTool({ ...spread, execute: wrapped.execute });
      const given = ctx.tools.get(`spread_${field}`);
      assert.equal(JSON.stringify(given[field]), before, `${field}: the runtime lists what the calls are not judged by`);
      assert.ok(JSON.stringify(await ctx.call(`spread_${field}`, {})).includes(CANARY), field);
      cases += 1;
    }
    assert.equal(cases, 3);
  } finally {
    uninstall();
  }
});

// The registration's options were read twice: once for the signal installRedaction follows, and
// again by the runtime. Options whose `signal` answers differently on each read (a getter) had the
// runtime unregister the tool on a signal installRedaction never followed, so its name stayed
// counted as protected and a raw tool registered past the patch under it went unreported. The
// runtime is now given the signal that was followed.
test("the runtime unregisters a tool on the very signal installRedaction follows", async () => {
  const given = [];
  const ctx = { registerTool: async (_tool, options) => { given.push(options?.signal); } };
  const uninstall = await installRedaction({ modelContext: ctx });
  try {
    const controllers = [new AbortController(), new AbortController()];
    let reads = 0;
    const options = { get signal() { return controllers[Math.min(reads++, 1)].signal; }, exposedTo: [] };
    await ctx.registerTool(freshTool(), options);
    assert.equal(given.length, 1);
    assert.equal(reads, 1, "the options were read once");
    // The runtime is given the patch's own signal (review s30), aborted when the followed one is.
    controllers[1].abort();
    assert.equal(given[0].aborted, false, "the runtime's signal followed another signal");
    controllers[0].abort();
    assert.equal(given[0].aborted, true, "the runtime's signal did not follow the one followed");
  } finally {
    uninstall();
  }
});
