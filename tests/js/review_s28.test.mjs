// Review s28 of the JS layer (helper L): each test states a promise a careless page, a hostile
// script or a supported set-up broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { installRedaction } from "webmcp-redact";
import { CANARY, apiKeyTool, apiKeyRaw, signalContext } from "./helpers.mjs";

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

// --- A name freed by its AbortSignal -----------------------------------------------------------

// A name registered through the patch stayed counted as protected for good: once its signal
// unregistered it, a tool of the same name the runtime got past the patch (a registerTool a
// script took before installation) was never reported, its results raw.
test("a name unregistered by its signal and registered again past the patch is reported", async () => {
  const ctx = signalContext();
  const takenBefore = ctx.registerTool;
  const warnings = [];
  const warn = console.warn;
  console.warn = (m) => warnings.push(String(m));
  try {
    const uninstall = await installRedaction({ modelContext: ctx });
    const controller = new AbortController();
    await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() }, { signal: controller.signal });
    const kept = new AbortController();
    await ctx.registerTool({ name: "kept", description: "x", execute: async () => ({}) }, { signal: kept.signal });
    await settle();
    assert.deepEqual(uninstall.unprotectedTools, [], "nothing unprotected yet");
    controller.abort();
    await settle();
    await takenBefore({ name: apiKeyTool.name, description: "x", execute: async () => ({ secret: CANARY }) });
    await settle();
    await settle();
    const seen = uninstall.unprotectedTools;
    uninstall();
    assert.deepEqual(seen, [apiKeyTool.name]);
    assert.ok(warnings.some((w) => w.includes(apiKeyTool.name)), warnings.join("\n"));
  } finally {
    console.warn = warn;
  }
});

// Registered through the patch again after its signal freed it: protected, so not reported (and
// an abort of the old registration must not free the new one's name).
test("a name unregistered by its signal and registered through the patch again stays protected", async () => {
  const ctx = signalContext();
  const warn = console.warn;
  console.warn = () => {};
  try {
    const uninstall = await installRedaction({ modelContext: ctx });
    const first = new AbortController();
    await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() }, { signal: first.signal });
    first.abort();
    await settle();
    const second = new AbortController();
    await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() }, { signal: second.signal });
    first.abort(); // no effect: already aborted
    await settle();
    await settle();
    const seen = uninstall.unprotectedTools;
    uninstall();
    assert.deepEqual(seen, []);
  } finally {
    console.warn = warn;
  }
});

// The class: any order of registrations through the patch, past it, duplicates the runtime
// refuses and aborts (of live registrations and of refused ones). After each step, every name
// the runtime now holds a raw tool under is reported, and a name never registered past the
// patch is not. Seeded, so a failure replays.
test("random registrations, aborts and raw registrations: every raw tool the runtime holds is reported, no other", async () => {
  let seed = 0x5eed28;
  const rnd = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 16) % n; // the high bits: the low bits of this LCG have short periods
  };
  const names = ["a", "b", "c"];
  const warn = console.warn;
  console.warn = () => {};
  let steps = 0;
  try {
    for (let run = 0; run < 60; run++) {
      const ctx = signalContext();
      const takenBefore = ctx.registerTool;
      const uninstall = await installRedaction({ modelContext: ctx });
      const live = new Map(); // name -> { raw, controller }
      const everRaw = new Set();
      const signals = []; // every registration's controller, accepted or refused as a duplicate
      for (let step = 0; step < 12; step++, steps++) {
        const name = names[rnd(names.length)];
        const op = rnd(3);
        const controller = new AbortController();
        if (op !== 2) signals.push(controller);
        if (op === 0) {
          const ok = await ctx.registerTool({ name, description: "x", execute: async () => ({}) }, { signal: controller.signal }).then(() => true, () => false);
          if (ok) live.set(name, { raw: false, controller });
        } else if (op === 1) {
          const ok = await takenBefore({ name, description: "x", execute: async () => ({}) }, { signal: controller.signal }).then(() => true, () => false);
          if (ok) {
            live.set(name, { raw: true, controller });
            everRaw.add(name);
          }
        } else if (signals.length) {
          // Any registration's signal: a live one unregisters its tool; a refused one, nothing.
          const aborted = signals[rnd(signals.length)];
          aborted.abort();
          for (const [n, t] of live) if (t.controller === aborted) live.delete(n);
        }
        await settle();
        await settle();
        const seen = new Set(uninstall.unprotectedTools ?? []);
        const rawNow = [...live].filter(([, t]) => t.raw).map(([n]) => n);
        const missed = rawNow.filter((n) => !seen.has(n));
        const extra = [...seen].filter((n) => !everRaw.has(n));
        assert.deepEqual({ missed, extra }, { missed: [], extra: [] }, `run ${run}, step ${step}`);
      }
      uninstall();
    }
  } finally {
    console.warn = warn;
  }
  assert.equal(steps, 720);
});
