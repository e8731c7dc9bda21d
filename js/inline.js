// webmcp-redact/inline for browsers, workers, extensions and bundlers: the same API as
// js/index.js, with the module inside this package's JavaScript (pkg/webmcp_redact_inline.js),
// so nothing is fetched. A `wasm` option still wins, and lintTools still fetches its own module.

import { createRedactorWith } from "./redactor.js";
import { installRedactionWith } from "./install.js";
import { lintToolsWith } from "./lint.js";
import { fetchWasm } from "./wasm.js";
import { inlineWasm } from "./inline-bytes.js";

const load = { read: fetchWasm, wasm: inlineWasm };

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
