// Review s25 of the JS layer and the ways the package is used: each test states a promise a
// hostile tool, page data, result or prompt-injected agent broke before (a form tool's response
// answered from a shadow root, buttons a script can click, installRedaction's coded errors,
// tools registered past the patch after installation).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction } from "webmcp-redact";
import { interceptFormResponses } from "../../js/declarative.js";
import { CANARY, apiKeyTool, apiKeyRaw, fakeContext } from "./helpers.mjs";

const coded = (e) => e instanceof Error && typeof e.code === "string" && /^[a-z]+(_[a-z]+)*$/.test(e.code);

// --- A form tool inside a shadow root, answered by a listener outside it -------------------

// An element of a stand-in DOM: attributes only.
const node = (attrs = {}) => ({ getAttribute: (k) => (Object.hasOwn(attrs, k) ? attrs[k] : null) });

/** A SubmitEvent class whose respondWith hands the response to `given` (the runtime's side). */
function submitEventClass(given) {
  class FakeSubmitEvent {
    constructor(init) {
      Object.assign(this, init);
    }
  }
  FakeSubmitEvent.prototype.respondWith = function (p) {
    given.push(p);
  };
  return FakeSubmitEvent;
}

test("a form tool in a shadow root answered by a listener outside it (target retargeted to the host) is redacted", async () => {
  // The browser retargets `event.target` to the shadow host for a listener outside the shadow
  // tree (a page delegating submit handling to `document`); the polyfill still takes the
  // response (it marked the event agent-invoked from its own listener inside the root).
  const given = [];
  const Ev = submitEventClass(given);
  const redacted = [];
  const restore = interceptFormResponses(async (def, raw) => {
    redacted.push(def.name);
    return { redacted: true };
  }, Ev);
  try {
    const form = node({ toolname: "get_key" });
    const host = node({});
    const cases = {
      "open root: the form is first on the composed path": new Ev({ target: host, agentInvoked: true, composedPath: () => [form, host] }),
      "closed root: only the host is seen": new Ev({ target: host, agentInvoked: true, composedPath: () => [host] }),
      "no agentInvoked (a runtime without it)": new Ev({ target: host }),
    };
    const leaked = [];
    for (const [what, ev] of Object.entries(cases)) {
      ev.respondWith(Promise.resolve({ content: [{ type: "text", text: CANARY }] }));
      const out = await given.at(-1);
      if (JSON.stringify(out).includes(CANARY)) leaked.push(what);
    }
    assert.deepEqual(leaked, [], "the raw response reached the runtime");
    assert.equal(redacted[0], "get_key", "the form found on the composed path names the tool");
  } finally {
    restore?.();
  }
});

test("a submit event that is not agent-invoked passes its response through (the runtime refuses it anyway)", async () => {
  const given = [];
  const Ev = submitEventClass(given);
  let calls = 0;
  const restore = interceptFormResponses(async () => {
    calls += 1;
    return {};
  }, Ev);
  try {
    new Ev({ target: node({}), agentInvoked: false }).respondWith("plain");
    assert.equal(await given[0], "plain");
    assert.equal(calls, 0);
  } finally {
    restore?.();
  }
});
