// The extension's module service worker: the one place that redacts. Content scripts send it a
// tool result as JSON text and get back what the agent may see; they also ask it whether a call
// may go ahead. A content script cannot redact itself: its WebAssembly follows the host page's
// CSP, which often lacks 'wasm-unsafe-eval'. The extension's own CSP (manifest.json) has it.
//
// lib/ is copied from the package by build.mjs: a module service worker resolves no bare
// specifier without a bundler, and import() is disallowed in service workers, so the inline
// entry (the module inside its JavaScript, nothing to fetch) is imported by relative path.
import { createRedactor } from "./lib/js/inline.js";

// Chrome may stop this worker whenever it is idle and start a fresh one for the next event, so
// what must outlive it is kept in chrome.storage.session (in memory, never on disk; cleared when
// the browser quits or the extension reloads; by default only readable by the extension's own
// pages and this worker, not by content scripts):
//   "labels"        the session's SEP-1913 labels, for check()
//   "vault:<handle>" { label, kind, value }: each removed value, what vault.reveal(handle) gave
const VAULT = "vault:";

// Which instance of the worker answered: a fresh one after a stop has a new id.
const bootId = crypto.randomUUID();

const ready = start();

async function start() {
  const redactor = await createRedactor();
  const session = redactor.session();
  const saved = await chrome.storage.session.get(null);
  for (const [key, entry] of Object.entries(saved)) {
    if (key.startsWith(VAULT)) relearn(redactor, entry);
  }
  if (saved.labels) session.restore(saved.labels);
  return { redactor, session };
}

/**
 * Teaches a fresh redactor's known-secret set a value an earlier worker removed, so that later
 * results are scrubbed of it and check() still denies its egress. The library cannot export or
 * import that set, so the value is redacted again under a schema that marks it: the core learns
 * every string and number inside a value it takes, as it did the first time. (The new handle this
 * makes stays in the new redactor's in-memory vault and is never handed out.)
 */
function relearn(redactor, { label, kind, value }) {
  // A reference's reveal() is { id, redeemUrl, ttl? }: its id and URL are what the core knew.
  const taken = kind === "reference" ? [value.id, value.redeemUrl] : value;
  const tool = {
    name: "restore_known_value",
    outputSchema: { type: "object", properties: { v: { "x-sensitive": true, title: label } } },
  };
  const out = redactor.redactJson(tool, JSON.stringify({ v: taken }));
  // Fail loudly rather than run with a known set that silently lacks a value.
  if (out.error) throw out.error;
}

// Added in the first turn of the script: Chrome only delivers the event that woke a stopped
// worker to listeners registered synchronously.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id) return false;
  answer(message).then(sendResponse, (err) => sendResponse({ error: String(err?.message ?? err), bootId }));
  return true; // sendResponse is called asynchronously
});

async function answer(message) {
  const { redactor, session } = await ready;
  switch (message?.type) {
    case "redact": {
      // message.json is the tool's result as JSON text; message.tool its definition.
      const out = session.redactJson(message.tool, message.json);
      await persist(redactor, session, out.redactions);
      // The error itself stays here: only its code goes out, like the withheld result says.
      return { json: out.json, redactions: out.redactions, withheld: out.withheld, error: out.error?.code, bootId };
    }
    case "check":
      return { ...session.check(message.tool, message.args), bootId };
    case "list":
      // message.tools is a page's tool listing (getTools(), tools/list's tools): what the agent
      // may see of it, a tool named by a known value dropped. One that cannot be read or
      // scrubbed gives the agent no listing, only the error's code.
      try {
        return { tools: redactor.cleanToolListing(message.tools), bootId };
      } catch (err) {
        return { error: String(err?.code ?? "internal"), bootId };
      }
    default:
      return { error: `unknown request ${JSON.stringify(message?.type)}`, bootId };
  }
}

/**
 * Saves the labels and the values behind the new handles before answering: once the agent has
 * seen a handle, a worker restart must not lose the value the user may reveal, nor the fact that
 * the value is secret.
 */
async function persist(redactor, session, redactions) {
  const items = { labels: session.labels() };
  for (const { handle } of redactions) {
    const entry = handle && redactor.vault.get(handle);
    if (entry) items[VAULT + handle] = { label: entry.label, kind: entry.kind, value: redactor.vault.reveal(handle) };
  }
  await chrome.storage.session.set(items);
}
