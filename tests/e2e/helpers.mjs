// Shared set-up of the browser tests: Debian's Chromium driven by playwright-core, and two demo
// servers on two loopback ports (two origins), sharing one request log.

import { existsSync, mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { before, after } from "node:test";
import { chromium } from "playwright-core";
import { startServer } from "../../scripts/serve.mjs";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const RESULTS = join(ROOT, "test-results");
export const CHROME = process.env.CHROME_PATH || "/usr/bin/chromium";
export const TIMEOUT = 15_000; // every wait is bounded by this

/** Starts servers A and B and a fresh Chromium; throws a clear error if there is no browser. */
export async function setup({ extraArgs = [] } = {}) {
  if (!existsSync(CHROME)) {
    throw new Error(
      `No Chromium at ${CHROME}. The browser tests need one: install Debian's chromium ` +
        "(sudo apt-get install -y chromium) or set CHROME_PATH to a Chromium/Chrome binary.",
    );
  }
  const log = [];
  const a = await startServer({ test: true, log });
  const b = await startServer({ test: true, log });
  const userDataDir = mkdtempSync(join(tmpdir(), "webmcp-redact-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROME,
      headless: true,
      timeout: 60_000,
      viewport: { width: 1280, height: 900 },
      args: [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        // Hostile hosts resolve to loopback, so that a request to one would reach server B's log.
        "--host-resolver-rules=MAP evil.com 127.0.0.1, MAP app.test 127.0.0.1",
        ...extraArgs,
      ],
    });
  } catch (err) {
    await a.close();
    await b.close();
    rmSync(userDataDir, { recursive: true, force: true });
    throw new Error(`Chromium at ${CHROME} failed to start: ${err.message}`);
  }
  context.setDefaultTimeout(TIMEOUT);
  context.setDefaultNavigationTimeout(TIMEOUT);
  return {
    a,
    b,
    log,
    context,
    async page() {
      const page = await context.newPage();
      page.on("pageerror", (e) => console.error(`[pageerror] ${e.message}`));
      return page;
    },
    async close() {
      await context.close().catch(() => {});
      await a.close();
      await b.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The browser and servers of one test file: started before its first test, closed after its
 * last. The returned object is filled in by then (`env.page()`, `env.a.url`, `env.log`), and
 * `whenReady(env)`, if given, has run.
 */
export function browserForFile(options, whenReady) {
  const env = {};
  // One hook does both: node:test does not run a file's root-level hooks in the order given.
  before(async () => {
    Object.assign(env, await setup(options));
    await whenReady?.(env);
  }, { timeout: 90_000 });
  after(async () => {
    await env.close?.();
  }, { timeout: 30_000 });
  return env;
}

/** Requests in the log other than static files (js/, pkg/, the polyfill, html pages). */
export function apiRequests(log) {
  return log.filter((r) => !/^\/(js|pkg|vendor)\//.test(r.path) && !r.path.endsWith(".html") && r.path !== "/__test/last");
}

export function resultsDir() {
  mkdirSync(RESULTS, { recursive: true });
  return RESULTS;
}

/**
 * In-page helper source: makes a redactor and, for each redeemUrl, a reference in its vault, then
 * redeems each and reports { url, code | value, message }.
 */
export async function redeemAll(frame, urls, options = {}) {
  return frame.evaluate(async ({ urls, options }) => {
    // Absolute against location.href: an injected <base> must not change which module loads.
    const { createRedactor, redeem } = await import(new URL("/js/index.js", location.href).href);
    const r = await createRedactor(options);
    const out = [];
    let i = 0;
    for (const url of urls) {
      i += 1;
      const res = r.redact({ name: "refs" }, {
        content: [{ type: "secret_reference", id: `reference_${i}_${Math.random().toString(36).slice(2)}`, label: "Token", redeemUrl: url }],
      });
      const stub = res.result.content.find((b) => b.type === "secret_reference");
      if (!stub) {
        out.push({ url, code: "no_stub" });
        continue;
      }
      try {
        out.push({ url, value: await redeem(stub.handle) });
      } catch (e) {
        out.push({ url, code: e.code, name: e.name, message: e.message, retryAfter: e.retryAfter });
      }
    }
    return out;
  }, { urls, options });
}

/** Imports the package once in the page (so later steps make no static requests). */
export async function preload(frame) {
  await frame.evaluate(async () => {
    const m = await import(new URL("/js/index.js", location.href).href);
    await m.createRedactor();
  });
}
