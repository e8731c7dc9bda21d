#!/usr/bin/env node
// The ratio bench of issue 9 (`npm run bench`): webmcp-redact's text and object paths against
// fast-redact, @pinojs/redact, the JSON.parse/JSON.stringify floors and the copy floor, in one
// process, interleaved, medians; in Node. Prints each
// environment's medians, the ratios and the targets beside them. It never fails on a
// target: it measures.
//
//   node bench/ratios.bench.mjs [--env node] [--cases all,pass,2kb,tree]
//
// The package must be built (pkg/); `npm run bench` builds it first.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { gzipSync } from "node:zlib";
import { bench, captureInstances } from "./cases.mjs";
import { report } from "./report.mjs";

const capture = captureInstances(); // before the package makes its instance
const { createRedactor } = await import("../js/index.js");

const WASM = new URL("../pkg/webmcp_redact_bg.wasm", import.meta.url);

function parseArgs(argv) {
  const opts = { envs: ["node"], only: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--env") opts.envs = [argv[++i]];
    else if (argv[i] === "--cases") opts.only = argv[++i].split(",");
    else {
      console.error("usage: node bench/ratios.bench.mjs [--env node] [--cases all,pass,2kb,tree]");
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
    details: `${process.arch}`,
    createRedactor,
    peers: { "fast-redact": require("fast-redact"), "@pinojs/redact": require("@pinojs/redact") },
    capture,
    wasm: readFileSync(WASM),
    only,
    log,
  });
}

const opts = parseArgs(process.argv.slice(2));
const bytes = readFileSync(WASM);
const size = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
for (const env of opts.envs) {
  console.error(`${env}:`);
  const result = await inNode(opts.only);
  console.log(report(result, env === "node" ? size : undefined));
}
