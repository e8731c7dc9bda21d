// Copies the package files the service worker imports into lib/ (git-ignored). A module service
// worker cannot resolve "webmcp-redact" without a bundler, and import() is disallowed there, so
// it imports lib/js/inline.js by relative path: that entry has the WebAssembly inside its
// JavaScript, so the worker fetches nothing.
//
//   node examples/extension/build.mjs            (from this repository, after `npm run build`)
//
// In your own extension, copy node_modules/webmcp-redact/js/ and the two pkg/ files below the
// same way (keeping js/ and pkg/ side by side: js/ imports ../pkg/).

import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = new URL(".", import.meta.url);
const root = new URL("../../", import.meta.url);
const lib = new URL("lib/", here);

// The glue and the inlined module; the .wasm files and the lint module are not needed.
const PKG = ["webmcp_redact.js", "webmcp_redact_inline.js"];

for (const f of PKG) {
  if (!existsSync(new URL(`pkg/${f}`, root))) {
    console.error(`pkg/${f} is missing: run \`npm run build\` first.`);
    process.exit(1);
  }
}
rmSync(lib, { recursive: true, force: true });
mkdirSync(new URL("pkg/", lib), { recursive: true });
cpSync(new URL("js/", root), new URL("js/", lib), { recursive: true });
for (const f of PKG) cpSync(new URL(`pkg/${f}`, root), new URL(`pkg/${f}`, lib));
console.log(`copied js/ and pkg/{${PKG.join(",")}} into ${fileURLToPath(lib)}`);
