// Review s26 of the JS layer (helper L): each test states a promise a hostile tool, a
// prompt-injected agent driving the page, or a careless caller broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction, redeem } from "webmcp-redact";

const coded = (e) => e instanceof Error && typeof e.code === "string" && /^[a-z]+(_[a-z]+)*$/.test(e.code);

// --- SubmitEvent#respondWith keyed on the form's toolname at the time of the call -----------
// A DOM-driving agent submits a form tool and, with a capturing submit listener, takes the
// form's `toolname` off (or blanks it) until the page's handler has called respondWith; a
// bubbling listener puts it back before the runtime's MutationObserver runs, so the runtime
// sees no change and hands the response to the agent. The wrapper decided "not a form tool"
// from the attribute at that moment and passed the response through raw.

class Form {
  constructor(attrs) {
    this.attrs = { ...attrs };
  }
  getAttribute(k) {
    return Object.hasOwn(this.attrs, k) ? this.attrs[k] : null;
  }
}

test("a form tool's respondWith response is redacted even when its toolname is off or blank during the submit", async () => {
  class SubmitEvent {
    constructor(target) {
      this.target = target;
    }
    respondWith(p) {
      this.given = p; // what the runtime hands the agent
    }
  }
  globalThis.SubmitEvent = SubmitEvent;
  const seen = [];
  const uninstall = await installRedaction({ modelContext: { registerTool() {} }, onResult: (info) => seen.push(info) });
  try {
    const leaks = [];
    for (const during of [{}, { toolname: "" }, { toolname: "   " }]) {
      const form = new Form({ toolname: "send_code" });
      const event = new SubmitEvent(form);
      form.attrs = during; // the agent's capturing listener
      event.respondWith(Promise.resolve({ content: [
        { type: "text", text: "A code was sent." },
        { type: "text", text: "Your code is CANARY-s26-77.", annotations: { audience: ["user"] } },
      ] }));
      form.attrs = { toolname: "send_code" }; // its bubbling listener
      const view = JSON.stringify(await event.given);
      if (view.includes("CANARY")) leaks.push(JSON.stringify(during));
    }
    assert.deepEqual(leaks, []);
    assert.equal(seen.length, 3, "onResult is told of each, like any form tool's response");
  } finally {
    uninstall();
    delete globalThis.SubmitEvent;
  }
});

test("a respondWith the runtime refuses (no agent submission) reaches neither onResult nor the known values", async () => {
  class SubmitEvent {
    constructor(target) {
      this.target = target;
    }
    respondWith() {
      throw new Error("InvalidStateError: not an agent-invoked submit");
    }
  }
  globalThis.SubmitEvent = SubmitEvent;
  const seen = [];
  const uninstall = await installRedaction({ modelContext: { registerTool() {} }, onResult: (info) => seen.push(info) });
  try {
    const event = new SubmitEvent(new Form({ toolname: "send_code" }));
    const block = { type: "text", text: "Refused code CANARY-s26-88.", annotations: { audience: ["user"] } };
    assert.throws(() => event.respondWith(Promise.resolve({ content: [block] })), /InvalidStateError/);
    await new Promise((r) => setImmediate(r));
    assert.equal(seen.length, 0);
    assert.equal(uninstall.redactor.vault.size, 0);
  } finally {
    uninstall();
    delete globalThis.SubmitEvent;
  }
});

// --- redeem's signal ---------------------------------------------------------------------
// The options of redeem are refused with invalid_options when they are not what they should
// be; `signal` was passed on unread: one whose `aborted` getter throws rejected with that
// error (no code), and any other non-signal made fetch throw, reported as `network` though no
// request was made.

test("redeem refuses a signal that is not an AbortSignal with invalid_options, before anything is read or fetched", async () => {
  const r = await createRedactor();
  globalThis.location = new URL("http://127.0.0.1:9/page"); // nothing listens: a fetch fails
  try {
    const out = r.redact({ name: "ref" }, { content: [{ type: "secret_reference", id: "ref_s26", label: "Token", redeemUrl: "/api/redeem/1" }] });
    const handle = out.result.content.find((b) => b.type === "secret_reference").handle;
    const fake = { aborted: false, addEventListener() {}, removeEventListener() {} };
    const signals = {
      number: 5,
      "plain object": fake,
      "an object posing as a signal": Object.create(AbortSignal.prototype),
      "aborted getter throws": { get aborted() { throw new Error("boom"); } },
      "a Proxy that throws": new Proxy({}, { get() { throw new Error("p"); } }),
    };
    const wrong = [];
    for (const [what, signal] of Object.entries(signals)) {
      try {
        await redeem(handle, { signal, result: out.resultId });
        wrong.push(`${what}: resolved`);
      } catch (e) {
        if (!(e instanceof TypeError) || e.code !== "invalid_options") wrong.push(`${what}: ${e?.name} ${e?.code}`);
      }
    }
    assert.deepEqual(wrong, []);
    // A real signal, of course, is taken: aborted, it says so.
    const ctl = new AbortController();
    ctl.abort();
    await assert.rejects(redeem(handle, { signal: ctl.signal, result: out.resultId }), (e) => e.code === "aborted");
    // An own "aborted" on a real signal does not answer for it.
    const live = new AbortController().signal;
    Object.defineProperty(live, "aborted", { value: true });
    await assert.rejects(redeem(handle, { signal: live, result: out.resultId }), (e) => coded(e) && e.code !== "aborted");
  } finally {
    delete globalThis.location;
  }
});

// --- A registration the runtime refused counted as registered through the patch -------------
// The report of unprotected tools leaves out each name registered through the patch. A name
// went into that set before the runtime answered, and stayed there when the runtime refused the
// registration: refused as a duplicate of a tool it got before installation (raw), the name hid
// that tool from the report, and the page was told nothing.

/** A runtime that refuses a second tool of one name, `delay` ms after the call (0: at once). */
function strictContext(delay) {
  const tools = new Map();
  return {
    tools,
    registerTool(t) {
      const dup = tools.has(t.name);
      if (!dup) tools.set(t.name, t);
      if (delay === 0) return dup ? Promise.reject(new Error("duplicate")) : Promise.resolve();
      return new Promise((ok, no) => setTimeout(() => (dup ? no(new Error("duplicate")) : ok()), delay));
    },
    async getTools() {
      return [...tools.values()].map((t) => ({ name: t.name }));
    },
  };
}

test("a tool registered before installation stays reported when registering it again through the patch is refused", async () => {
  const warn = console.warn;
  console.warn = () => {};
  try {
    for (const delay of [0, 30]) {
      const ctx = strictContext(delay);
      await ctx.registerTool({ name: "get_key", execute: async () => ({ secret: "sk_live_CANARY" }) }); // raw
      const installing = installRedaction({ modelContext: ctx });
      const again = ctx.registerTool({ name: "get_key", execute: async () => ({}) });
      const uninstall = await installing;
      await assert.rejects(again, /duplicate/);
      await new Promise((r) => setTimeout(r, 10)); // the report follows the refusal
      assert.deepEqual(uninstall.unprotectedTools, ["get_key"], `refused after ${delay} ms`);
      uninstall();
    }
    // A name the runtime accepted through the patch stays accounted for, even when a second
    // registration of it is refused: that tool is wrapped.
    const ctx = strictContext(0);
    const uninstall = await installRedaction({ modelContext: ctx });
    await ctx.registerTool({ name: "get_key", execute: async () => ({}) });
    await assert.rejects(ctx.registerTool({ name: "get_key", execute: async () => ({}) }), /duplicate/);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(uninstall.unprotectedTools ?? [], []);
    uninstall();
  } finally {
    console.warn = warn;
  }
});

test("redeem refuses request options it would not send (method, headers, credentials, ...) with invalid_options", async () => {
  const r = await createRedactor();
  const out = r.redact({ name: "t", outputSchema: { type: "object", properties: { k: { type: "string", "x-sensitive": true } } } }, { k: "sk_live_CANARY_s26" });
  const handle = out.redactions[0].handle;
  const wrong = [];
  for (const extra of [{ method: "POST" }, { body: "x" }, { headers: { a: "b" } }, { credentials: "include" }, { mode: "cors" }, { redirect: "follow" }, { resul: out.resultId }]) {
    try {
      await redeem(handle, { result: out.resultId, ...extra });
      wrong.push(`${Object.keys(extra)[0]}: resolved`);
    } catch (e) {
      if (!(e instanceof TypeError) || e.code !== "invalid_options" || !e.message.includes(Object.keys(extra)[0])) wrong.push(`${Object.keys(extra)[0]}: ${e?.code}`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.equal(await redeem(handle, { result: out.resultId }), "sk_live_CANARY_s26");
  assert.equal(await redeem(handle, { result: out.resultId, signal: new AbortController().signal }), "sk_live_CANARY_s26");
});

// --- installRedaction's onError ------------------------------------------------------------
// Every option of installRedaction that is not what it should be is invalid_options, and
// nothing is patched; onError that was not a function was taken and ignored in silence
// (console.error in its place), a mistake the page was never told of.

test("installRedaction refuses an onError that is not a function, patching nothing", async () => {
  for (const onError of ["log", 5, {}, null]) {
    const ctx = { registerTool() {} };
    const before = ctx.registerTool;
    await assert.rejects(installRedaction({ modelContext: ctx, onError }), (e) => e instanceof TypeError && e.code === "invalid_options" && /onError/.test(e.message), String(onError));
    assert.equal(ctx.registerTool, before);
  }
});

// --- One page, two sessions ------------------------------------------------------------------
// installRedaction checked its tools in a page session of its own, and `uninstall.redactor`'s
// wrapTool in another: private data read through a tool the page wrapped itself did not count
// for the exfiltration check of a tool registered through the patch (the call ran without the
// user being asked), and the wrapped tools' questions went to the built-in dialog, not to the
// page's `confirm`.

test("tools wrapped with uninstall.redactor share the page session and the page's confirm", async () => {
  const asked = [];
  const ctx = fakeSessionContext();
  const uninstall = await installRedaction({ modelContext: ctx, confirm: (req) => (asked.push(req.tool), false) });
  const inbox = uninstall.redactor.wrapTool({
    name: "read_inbox",
    annotations: { readOnlyHint: true, openWorldHint: false, returnMetadata: { Sensitivity: ["Personal"], Private: true } },
    execute: async () => ({ content: [{ type: "text", text: "Dear Bob, ..." }] }),
  });
  await ctx.registerTool({
    name: "post_public",
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    execute: async () => ({ content: [{ type: "text", text: "posted" }] }),
  });
  await inbox.execute({});
  assert.notEqual(uninstall.session.labels().sensitivity, "none", "the private read counts for the page");
  const out = await ctx.tools.get("post_public").execute({ text: "Dear Bob" });
  assert.deepEqual(asked, ["post_public"], "the exfiltration check asked the user");
  assert.match(out.content[0].text, /not made: the user declined it \(exfiltration\)/);
  // A wrapped tool's question goes to the page's confirm, too.
  const post = uninstall.redactor.wrapTool({ name: "post_too", annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true }, execute: async () => ({}) });
  await post.execute({ text: "x" });
  assert.deepEqual(asked, ["post_public", "post_too"]);
  uninstall();
});

function fakeSessionContext() {
  const tools = new Map();
  return { tools, registerTool(t) { tools.set(t.name, t); } };
}
