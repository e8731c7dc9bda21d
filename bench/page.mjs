// The ratio bench in a page (bench/ratios.bench.mjs opens it in headless Chromium): the same
// bench/cases.mjs as in Node, on the package as a page loads it.

import { bench, captureInstances } from "./cases.mjs";

const capture = captureInstances(); // before the package makes its instance
// The browser entry (package.json "exports", "browser" condition), which fetches the module.
const ENTRY = "/js/index.js";
const { createRedactor } = await import(ENTRY);
const peers = {
  "fast-redact": (await import("/peers/fast-redact.mjs")).default,
  "@pinojs/redact": (await import("/peers/pinojs-redact.mjs")).default,
};
const wasm = await (await fetch("/pkg/webmcp_redact_bg.wasm")).arrayBuffer();

/** Runs the bench; called by the driver with page.evaluate. */
globalThis.runBench = ({ only } = {}) =>
  bench({
    name: "Chromium",
    details: `cross-origin isolated: ${crossOriginIsolated}, so the clock ticks in ${crossOriginIsolated ? "5" : "100"} us; entry ${ENTRY.slice(1)}`,
    createRedactor,
    peers,
    capture,
    wasm,
    only,
    log: (line) => console.log(`[bench] ${line}`),
  });
globalThis.benchReady = true;
