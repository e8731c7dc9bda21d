// webmcp-redact/inline for Node (the "node" condition): the module inside, as in js/inline.js,
// and a `wasm` URL or lintTools' module read as js/index.node.js reads them.

import { createRedactorWith } from "./redactor.js";
import { installRedactionWith } from "./install.js";
import { lintToolsWith } from "./lint.js";
import { readWasm } from "./wasm-node.js";
import { inlineWasm } from "./inline-bytes.js";

const load = { read: readWasm, wasm: inlineWasm };

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
