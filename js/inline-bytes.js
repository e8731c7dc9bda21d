// The page's module as bytes, from the base64 that scripts/build.mjs writes into pkg/, for the
// inline entries (js/inline.js, js/inline.node.js). Decoded on the first load only.

import { wasmBase64 } from "../pkg/webmcp_redact_inline.js";

export function inlineWasm() {
  const binary = atob(wasmBase64); // in every browser, worker and Node 16+
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
