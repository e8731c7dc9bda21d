// webmcp-redact for Node (the "node" condition of package.json "exports"): the same API as
// js/index.js, with the module read from pkg/ on disk.

import { createRedactorWith } from "./redactor.js";
import { installRedactionWith } from "./install.js";
import { lintToolsWith } from "./lint.js";
import { readWasm } from "./wasm-node.js";

const load = { read: readWasm, wasm: () => new URL("../pkg/webmcp_redact_bg.wasm", import.meta.url) };

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
