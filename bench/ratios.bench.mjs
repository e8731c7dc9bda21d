#!/usr/bin/env node
// The ratio bench of issue 9 (`npm run bench`): webmcp-redact's text and object paths against
// fast-redact, @pinojs/redact, the JSON.parse/JSON.stringify floors and the copy floor, in one
// process, interleaved, medians; first in Node, then in headless Chromium. Prints each
// environment's medians, the ratios and the targets beside them. It never fails on a
// target: it measures.
//
//   node bench/ratios.bench.mjs [--env node|chromium] [--cases all,pass,2kb,tree,call]
//
// The package must be built (pkg/); `npm run bench` builds it first.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { bench, captureInstances } from "./cases.mjs";
import { report } from "./report.mjs";

const capture = captureInstances(); // before the package makes its instance
// By its own name, as a user imports it: package.json "exports" gives Node js/index.node.js.
const ENTRY = import.meta.resolve("webmcp-redact");
const { createRedactor } = await import(ENTRY);

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WASM = new URL("../pkg/webmcp_redact_bg.wasm", import.meta.url);
const CHROME = process.env.CHROME_PATH || "/usr/bin/chromium";

function parseArgs(argv) {
  const opts = { envs: ["node", "chromium"], only: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--env" && ["node", "chromium"].includes(argv[i + 1])) opts.envs = [argv[++i]];
    else if (argv[i] === "--cases" && argv[i + 1]) opts.only = argv[++i].split(",");
    else {
      console.error("usage: node bench/ratios.bench.mjs [--env node|chromium] [--cases all,pass,2kb,tree,call]");
      process.exit(2);
    }
  }
  return opts;
}

const log = (line) => console.error(`  ${line}`);

async function inNode(only) {
  const require = createRequire(import.meta.url);
  return bench({
    name: `Node ${process.version}`,
    details: `V8 ${process.versions.v8}, ${process.arch}; entry ${relative(ROOT, fileURLToPath(ENTRY))}`,
    createRedactor,
    peers: { "fast-redact": require("fast-redact"), "@pinojs/redact": require("@pinojs/redact") },
    capture,
    wasm: readFileSync(WASM),
    only,
    log,
  });
}

async function inChromium(only) {
  if (!existsSync(CHROME)) {
    throw new Error(`No Chromium at ${CHROME}: install Debian's chromium or set CHROME_PATH (or run with --env node).`);
  }
  // Imported here so that a Node-only run needs neither playwright-core nor a browser.
  const { chromium } = await import("playwright-core");
  const { startBenchServer } = await import("./server.mjs");
  const server = await startBenchServer();
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROME,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
    const page = await browser.newPage();
    page.on("console", (m) => m.text().startsWith("[bench] ") && log(m.text().slice(8)));
    page.on("pageerror", (e) => console.error(`[pageerror] ${e.message}`));
    await page.goto(`${server.url}bench/page.html`);
    await page.waitForFunction(() => globalThis.benchReady === true, null, { timeout: 30_000 });
    const result = await page.evaluate((only) => globalThis.runBench({ only }), only);
    // The page's user agent says only "156.0.0.0"; the browser knows its full version.
    return { ...result, name: `Chromium ${browser.version()} (headless)` };
  } finally {
    await browser?.close();
    await server.close();
  }
}

const opts = parseArgs(process.argv.slice(2));
const bytes = readFileSync(WASM);
const size = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
for (const env of opts.envs) {
  console.error(`${env}:`);
  const result = env === "node" ? await inNode(opts.only) : await inChromium(opts.only);
  console.log(report(result, env === "node" ? size : undefined));
}
