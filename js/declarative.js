// Declarative WebMCP tools: a <form> that is a tool. installRedaction cannot wrap them (no
// registerTool call, no execute), so it reports them, and redacts the one response that passes
// through page script.
//
// What the explainer says (webmachinelearning/webmcp, declarative-api-explainer.md, read for this
// module): a <form> becomes a tool with the `toolname` and `tooldescription` attributes, and the
// boolean `toolautosubmit` lets the agent submit it without the user; form controls add
// `toolparamdescription` (some drafts and Chrome's docs also `toolparamtitle` / `toolparamname`),
// which only shape the input schema and are not read here. Inserting or removing such a form, or
// changing those attributes, registers or unregisters the tool. Its response reaches the agent in
// one of two ways:
//   1. the page's `submit` handler calls `event.preventDefault()` then
//      `event.respondWith(promise)` (`SubmitEvent#respondWith`, with `event.agentInvoked`): the
//      promise's value is the response. It passes through page script, so it is redacted here,
//      by wrapping `SubmitEvent.prototype.respondWith` (tried in Chromium 156 with
//      --enable-features=WebMCP: what the wrapped call passes on is what executeTool returns);
//   2. the form navigates, and the first `<script type="application/ld+json">` of the page it
//      lands on is the response: another document, which this page's script never sees. Such a
//      response cannot be intercepted here, only reported.
// A form is reported as soon as it has a `toolname` (with or without a description: reporting
// one tool too many is the safe error). Forms inside shadow roots or other frames are not scanned.

import { errorText } from "./enforce.js";

export const FORM_TOOL_SELECTOR = "form[toolname]";

/**
 * The names of the form tools in `doc`, distinct, in document order.
 * @param {any} doc
 * @returns {string[]}
 */
export function formToolNames(doc) {
  const names = new Set();
  try {
    for (const form of doc.querySelectorAll(FORM_TOOL_SELECTOR)) {
      const name = attributeOf(form, "toolname");
      if (typeof name === "string" && name.trim() !== "") names.add(name);
    }
  } catch {
    // a document that cannot be queried has no form tools we can see
  }
  return [...names];
}

/**
 * Watches `doc` for form tools added, removed or renamed after installation: `onChange(names)`
 * after each batch of mutations that changed the set. Returns `stop()`. Without a
 * MutationObserver (Node) nothing is watched.
 * @param {any} doc
 * @param {(names: string[]) => void} onChange
 * @param {any} [Observer]
 */
export function watchFormTools(doc, onChange, Observer = globalThis.MutationObserver) {
  if (typeof Observer !== "function" || !doc) return () => {};
  let last = formToolNames(doc).join("\n");
  const observer = new Observer(() => {
    const names = formToolNames(doc);
    const key = names.join("\n");
    if (key === last) return;
    last = key;
    try {
      onChange(names);
    } catch {
      // reporting must not break the page
    }
  });
  observer.observe(doc, { subtree: true, childList: true, attributes: true, attributeFilter: ["toolname"] });
  return () => observer.disconnect();
}

const PATCHED = Symbol.for("webmcp-redact/respondWith");

/**
 * Wraps `SubmitEvent.prototype.respondWith` so that a form tool's response is redacted before
 * the runtime hands it to the agent: `redact(def, raw)` is the installation's (it waits for the
 * module), `def` is `{ name: <toolname> }` (a form declares no outputSchema or annotations, so
 * what applies is what applies to any tool without them: value matching of known secrets,
 * blocks for the user only, the shape rules; `form` when the form has no toolname at the time
 * of the call). A rejected promise becomes an `isError` result,
 * redacted the same way. Returns `restore()`, or null when the runtime has no `respondWith`
 * (then such responses are not intercepted) or another installation wrapped it already.
 * @param {(def: any, raw: unknown) => Promise<any>} redact
 * @param {any} [SubmitEventClass]
 * @returns {(() => void) | null}
 */
export function interceptFormResponses(redact, SubmitEventClass = globalThis.SubmitEvent) {
  const proto = SubmitEventClass?.prototype;
  const own = proto && Object.getOwnPropertyDescriptor(proto, "respondWith");
  const original = own?.value;
  if (typeof original !== "function" || original[PATCHED]) return null;
  /**
   * @this {any}
   * @param {unknown} response
   */
  function respondWith(response) {
    // Every response is redacted, whatever the form looks like now: only an agent-invoked
    // submission may respond at all, and the form's `toolname` at this moment says nothing
    // about it. A DOM-driving agent can take the attribute off for the length of the submit
    // (a capturing listener removes it, a bubbling one puts it back before the runtime's
    // observer notices), and a response keyed on it went to that agent raw (found by review).
    // A form with no toolname now is redacted as one named "form" (a name is required).
    const def = { name: toolNameOf(this) ?? "form" };
    // Redacted only once the runtime took it: one it refuses (not an agent's submission)
    // reaches no agent, and must not reach onResult or the known set either.
    let taken = false;
    const redacted = Promise.resolve(response).then(
      (raw) => (taken ? redact(def, raw) : undefined),
      (err) => (taken ? redact(def, { content: [{ type: "text", text: errorText(err) }], isError: true }) : undefined),
    );
    const out = Reflect.apply(original, this, [redacted]);
    taken = true;
    return out;
  }
  Object.defineProperty(respondWith, PATCHED, { value: true });
  Object.defineProperty(proto, "respondWith", { ...own, value: respondWith });
  return () => {
    if (proto.respondWith === respondWith) Object.defineProperty(proto, "respondWith", own);
  };
}

/** The tool name of the form a submit event is for, or null when it is not a form tool. */
function toolNameOf(event) {
  try {
    const name = attributeOf(event?.target, "toolname");
    return typeof name === "string" && name.trim() !== "" ? name : null;
  } catch {
    return null;
  }
}

/**
 * An attribute of an element, read through Element's own method: HTMLFormElement's named
 * properties override its methods, so a control named "getAttribute" makes `form.getAttribute`
 * that control, and a form tool read that way would answer the agent unredacted. (A stand-in
 * object where there is no DOM.)
 * @param {any} el
 * @param {string} name
 * @returns {string | null}
 */
function attributeOf(el, name) {
  const get = /** @type {any} */ (globalThis).Element?.prototype?.getAttribute;
  if (typeof get === "function") return Reflect.apply(get, el, [name]);
  return typeof el?.getAttribute === "function" ? el.getAttribute(name) : null;
}
