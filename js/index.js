// webmcp-redact for browsers and bundlers (the "browser" and "default" conditions of package.json
// "exports"): the module is fetched from pkg/ beside this file. See index.d.ts for the
// documentation and README "Architecture" for which file holds what. js/index.node.js (Node)
// and js/inline.js (the module inside) export the same API, each with its own `load`.
//
// The API functions are defined here, not re-exported after a set-up call: a bundler that
// skips modules it thinks free of side effects cannot then skip the choice of module. The four
// entries repeat these three wrappers on purpose: built by a shared factory instead, an unused
// lintTools stays in webpack's output with its lint chunk (tests/e2e/bundlers.test.mjs).

import { createRedactorWith } from "./redactor.js";
import { installRedactionWith } from "./install.js";
import { lintToolsWith } from "./lint.js";
import { fetchWasm } from "./wasm.js";

const load = {
  read: fetchWasm,
  // The pattern Vite, webpack (and Rollup with @web/rollup-plugin-import-meta-assets) turn into
  // an emitted asset. A function: a bundle without import.meta.url (an IIFE) fails at load
  // time, as wasm_unavailable, not when this module is imported.
  wasm: () => new URL("../pkg/webmcp_redact_bg.wasm", import.meta.url),
};

export function createRedactor(options) {
  return createRedactorWith(load, options);
}

export function installRedaction(options) {
  return installRedactionWith(load, options);
}

export function lintTools(definitions) {
  return lintToolsWith(load.read, definitions);
}

export { Session } from "./session.js";
export { RedactionError, RedeemError } from "./errors.js";
export { redeem } from "./vault/store.js";
