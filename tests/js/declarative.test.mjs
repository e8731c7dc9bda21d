// Declarative WebMCP tools (<form toolname>) under installRedaction, with a stand-in document,
// MutationObserver and SubmitEvent: reported in unprotectedTools (present at install, added,
// renamed, removed; a warning once per new tool; no watching after uninstall), and a response
// given through SubmitEvent#respondWith redacted. The browser's own is in tests/e2e/install.test.mjs.

import { test, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { installRedaction } from "webmcp-redact";
import { formToolNames } from "../../js/declarative.js";

class FakeForm {
  constructor(attrs) {
    this.attrs = { ...attrs };
  }
  getAttribute(k) {
    return Object.hasOwn(this.attrs, k) ? this.attrs[k] : null;
  }
}

class FakeDocument {
  forms = [];
  querySelectorAll(selector) {
    assert.equal(selector, "form[toolname]");
    return this.forms.filter((f) => f.getAttribute("toolname") !== null);
  }
}

const observers = [];
class FakeObserver {
  constructor(callback) {
    this.callback = callback;
    this.active = false;
    observers.push(this);
  }
  observe(target, options) {
    this.target = target;
    this.options = options;
    this.active = true;
  }
  disconnect() {
    this.active = false;
  }
}
/** What the browser does after a batch of mutations: call every active observer. */
function mutated() {
  for (const o of observers) if (o.active) o.callback([]);
}

class FakeSubmitEvent {
  constructor(target) {
    this.target = target;
  }
}
const originalRespondWith = function (p) {
  this.given = p; // what the runtime would hand the agent
};
FakeSubmitEvent.prototype.respondWith = originalRespondWith;

let warnings;
let savedWarn;
beforeEach(() => {
  observers.length = 0;
  globalThis.document = new FakeDocument();
  globalThis.MutationObserver = FakeObserver;
  globalThis.SubmitEvent = FakeSubmitEvent;
  warnings = [];
  savedWarn = console.warn;
  console.warn = (m) => warnings.push(String(m));
});
afterEach(() => {
  console.warn = savedWarn;
  delete globalThis.document;
  delete globalThis.MutationObserver;
  delete globalThis.SubmitEvent;
});

function context(listed = []) {
  return { async registerTool() {}, async getTools() { return listed.map((name) => ({ name })); } };
}

test("formToolNames: every form with a non-empty toolname, once each, in document order", () => {
  const doc = new FakeDocument();
  doc.forms = [new FakeForm({ toolname: "b" }), new FakeForm({}), new FakeForm({ toolname: "a" }), new FakeForm({ toolname: "b" }), new FakeForm({ toolname: " " })];
  assert.deepEqual(formToolNames(doc), ["b", "a"]);
  assert.deepEqual(formToolNames({ querySelectorAll() { throw new Error("detached"); } }), []);
});

test("forms present at install, added, renamed and removed after it: the report follows; one warning per new tool", async () => {
  const doc = globalThis.document;
  doc.forms.push(new FakeForm({ toolname: "search_flights", tooldescription: "d" }));
  // Chromium lists form tools in getTools() too; "early" is an imperative tool from before.
  const uninstall = await installRedaction({ modelContext: context(["early", "search_flights"]) });
  assert.deepEqual(uninstall.unprotectedTools, ["early", "search_flights"]);
  assert.equal(warnings.filter((w) => w.includes("search_flights")).length, 1);
  assert.equal(warnings.filter((w) => w.includes("early")).length, 1);
  assert.ok(warnings.some((w) => /<form toolname>.*respondWith/.test(w)), warnings.join("\n"));

  const [observer] = observers;
  assert.equal(observer.target, doc);
  assert.deepEqual(observer.options, { subtree: true, childList: true, attributes: true, attributeFilter: ["toolname"] });

  const late = new FakeForm({ toolname: "book_table" });
  doc.forms.push(late);
  mutated();
  assert.deepEqual(uninstall.unprotectedTools, ["early", "search_flights", "book_table"]);
  assert.equal(warnings.filter((w) => w.includes("book_table")).length, 1);
  mutated(); // nothing changed: no new warning
  assert.equal(warnings.filter((w) => w.includes("book_table")).length, 1);

  late.attrs.toolname = "reserve_table";
  mutated();
  assert.deepEqual(uninstall.unprotectedTools, ["early", "search_flights", "reserve_table"]);
  assert.equal(warnings.filter((w) => w.includes("reserve_table")).length, 1);

  doc.forms.splice(0, 1); // the runtime unregisters search_flights, though getTools listed it
  mutated();
  assert.deepEqual(uninstall.unprotectedTools, ["early", "reserve_table"]);

  uninstall();
  assert.equal(observer.active, false, "no watching after uninstall");
  doc.forms.push(new FakeForm({ toolname: "after_uninstall" }));
  mutated();
  assert.ok(!uninstall.unprotectedTools.includes("after_uninstall"));
  assert.ok(!warnings.some((w) => w.includes("after_uninstall")));
});

test("no forms and a runtime that cannot list: null; forms alone are still reported", async () => {
  const bare = { async registerTool() {} };
  const none = await installRedaction({ modelContext: bare });
  assert.equal(none.unprotectedTools, null);
  globalThis.document.forms.push(new FakeForm({ toolname: "contact" }));
  mutated();
  assert.deepEqual(none.unprotectedTools, ["contact"]);
  none();
});

test("a response given through SubmitEvent#respondWith is redacted; uninstall restores respondWith", async () => {
  const seen = [];
  const uninstall = await installRedaction({ modelContext: context(), onResult: (info) => seen.push(info) });
  assert.notEqual(FakeSubmitEvent.prototype.respondWith, originalRespondWith);
  const form = new FakeForm({ toolname: "send_code" });
  const event = new FakeSubmitEvent(form);
  event.respondWith(Promise.resolve({ content: [
    { type: "text", text: "A code was sent." },
    { type: "text", text: "Your code is CANARY-form-77.", annotations: { audience: ["user"] } },
  ] }));
  const view = await event.given;
  assert.ok(!JSON.stringify(view).includes("CANARY"), JSON.stringify(view));
  assert.equal(view.content[0].text, "A code was sent.");
  assert.equal(seen.length, 1);
  assert.equal(seen[0].tool, "send_code");
  assert.equal(uninstall.redactor.vault.get(seen[0].handles[0].handle).kind, "user_only");

  // A rejected response is an error result, redacted too (the known text is scrubbed from it).
  const failing = new FakeSubmitEvent(form);
  failing.respondWith(Promise.reject(new Error("failed: Your code is CANARY-form-77.")));
  const error = await failing.given;
  assert.equal(error.isError, true);
  assert.ok(!JSON.stringify(error).includes("CANARY"), JSON.stringify(error));

  // A form that is not a tool (now): redacted all the same, as a tool of no name (only an
  // agent's submission may respond, and the attribute can be taken off mid-submit).
  const plain = new FakeSubmitEvent(new FakeForm({}));
  const p = Promise.resolve({ content: [{ type: "text", text: "Your code is CANARY-plain-1.", annotations: { audience: ["user"] } }] });
  plain.respondWith(p);
  assert.notEqual(plain.given, p);
  assert.ok(!JSON.stringify(await plain.given).includes("CANARY"));

  uninstall();
  assert.equal(FakeSubmitEvent.prototype.respondWith, originalRespondWith);
});

test("without SubmitEvent#respondWith the warning says results are not redacted", async () => {
  delete globalThis.SubmitEvent;
  globalThis.document.forms.push(new FakeForm({ toolname: "search" }));
  const uninstall = await installRedaction({ modelContext: context() });
  assert.deepEqual(uninstall.unprotectedTools, ["search"]);
  assert.ok(warnings.some((w) => w.includes("not redacted") && w.includes("search")), warnings.join("\n"));
  uninstall();
});
