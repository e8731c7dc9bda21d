/**
 * `webmcp-redact/inline`: the same API as `webmcp-redact`, with the WebAssembly module inside
 * the package's JavaScript (base64, decoded on the first load), so that nothing is fetched: for
 * extensions, workers, CDNs and bundlers that do not emit the `.wasm` (esbuild). A `wasm` option
 * still wins over the inlined module; `lintTools` still loads its own module by URL.
 * @example
 * ```js
 * import { installRedaction } from "webmcp-redact/inline";
 * await installRedaction();
 * ```
 * @packageDocumentation
 */
export * from "./index.js";
