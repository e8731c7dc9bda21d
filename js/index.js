// webmcp-redact: the JS API over the WebAssembly core. See index.d.ts for the documentation
// and README "Architecture" for which file holds what.

export { createRedactor } from "./redactor.js";
export { lintTools } from "./lint.js";
export { installRedaction } from "./install.js";
export { Session } from "./session.js";
export { RedactionError, RedeemError } from "./errors.js";
export { redeem } from "./vault/store.js";
