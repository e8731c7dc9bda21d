// A fresh JS realm for one scenario of tests/js/load.test.mjs: the engine is loaded once per
// realm, so each way of loading it is tried in a worker thread of its own. The worker runs
// `workerData.body` as an async function of `ctx` ({ data, import }) and posts back what it
// returned or threw (errors as { name, code, message, causeName }).
// (Not named *.test.mjs: `node --test tests/js/` must not run it as a test file.)

import { parentPort, workerData } from "node:worker_threads";

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;

function describe(e) {
  return { name: e?.name, code: e?.code, message: e?.message, causeName: e?.cause?.name, isRedactionError: e?.constructor?.name === "RedactionError" };
}

try {
  const fn = new AsyncFunction("ctx", workerData.body);
  // import() is called here, so that "webmcp-redact" resolves as in any test file.
  const value = await fn({ data: workerData.data, import: (specifier) => import(specifier) });
  parentPort.postMessage({ value });
} catch (e) {
  parentPort.postMessage({ thrown: describe(e) });
}
