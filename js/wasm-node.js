// How Node reads a URL (the `read` of js/index.node.js and js/inline.node.js): a file: URL from
// disk, fetch() cannot; anything else with fetch(). Only the "node" entries import this file,
// so no Node-only import is on a browser's or a bundler's path.

import { readFile } from "node:fs/promises";

export function readWasm(url) {
  return url.protocol === "file:" ? readFile(url) : fetch(url);
}
