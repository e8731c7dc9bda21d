// examples/extension/ loaded unpacked into Debian's Chromium (new headless mode, a persistent
// context): a page whose CSP forbids WebAssembly hands a tool result, as JSON text, to the
// content script, which sends it to the module service worker; the agent view that comes back
// has no canary and a secret_reference, and the worker's check() denies sending the value on.
// Then the browser stops the worker (CDP), and the fresh worker still knows the value and the
// session's labels, and still holds the value for the user (chrome.storage.session).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startServer } from "../../scripts/serve.mjs";
import { CHROME, ROOT, TIMEOUT } from "./helpers.mjs";

const EXTENSION = join(ROOT, "examples", "extension");
const CANARY = `sk_live_EXTENSION_CANARY_${Math.random().toString(36).slice(2)}`;

// The example's tool, and a private-data hint so that the session's labels matter to check().
const KEY_TOOL = {
  name: "generate_api_key",
  annotations: { privateHint: true },
  outputSchema: {
    type: "object",
    properties: { id: { type: "string" }, secret: { type: "string", title: "API key", "x-sensitive": true } },
  },
};
// A tool that sends data out: a value the vault knows in its arguments is secret_egress.
const SEND_TOOL = { name: "send_message", annotations: { openWorldHint: true } };
// A tool with no schema: only the known-secret set can keep the value out of its results.
const ECHO_TOOL = { name: "echo" };

let server, context, userDataDir, page;

before(async () => {
  if (!existsSync(CHROME)) {
    throw new Error(
      `No Chromium at ${CHROME}. The extension test needs one: install Debian's chromium ` +
        "(sudo apt-get install -y chromium) or set CHROME_PATH to a Chromium binary.",
    );
  }
  // The worker imports the package from lib/ (see examples/extension/build.mjs).
  execFileSync(process.execPath, [join(EXTENSION, "build.mjs")], { stdio: "inherit" });
  server = await startServer({ test: true });
  userDataDir = mkdtempSync(join(tmpdir(), "webmcp-redact-extension-"));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROME,
    headless: true,
    timeout: 60_000,
    // Playwright passes --disable-extensions by default.
    ignoreDefaultArgs: ["--disable-extensions"],
    args: [
      "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      `--disable-extensions-except=${EXTENSION}`, `--load-extension=${EXTENSION}`,
    ],
  });
  context.setDefaultTimeout(TIMEOUT);
  page = await context.newPage();
  page.on("pageerror", (e) => console.error(`[pageerror] ${e.message}`));
  // A page whose CSP lacks 'wasm-unsafe-eval': the content script could not redact here.
  await page.goto(`${server.url}/__test/blank.html?csp=nowasm`);
}, { timeout: 90_000 });

after(async () => {
  await context?.close().catch(() => {});
  await server?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
}, { timeout: 30_000 });

/** The extension's service worker, waiting for it to start if it has not yet. */
async function serviceWorker() {
  const running = context.serviceWorkers().find((w) => w.url().endsWith("/worker.js"));
  if (running) return running;
  const w = await context.waitForEvent("serviceworker", { predicate: (w) => w.url().endsWith("/worker.js") });
  return w;
}

/**
 * Stops the extension's service worker as the browser does when it is idle. CDP's ServiceWorker
 * domain sees only the workers of its page's origin, so it is driven from a page of the
 * extension's own origin; resolves when the browser reports the worker stopped.
 */
async function stopWorker() {
  // Node gives a chrome-extension: URL no origin ("null"): build it from the host.
  const origin = `chrome-extension://${new URL((await serviceWorker()).url()).host}`;
  const extensionPage = await context.newPage();
  try {
    await extensionPage.goto(`${origin}/manifest.json`);
    const cdp = await context.newCDPSession(extensionPage);
    const ours = (v) => v.scriptURL === `${origin}/worker.js`;
    let stop;
    const stopped = new Promise((resolve) => { stop = resolve; });
    let versionId;
    const seen = new Promise((resolve) => {
      cdp.on("ServiceWorker.workerVersionUpdated", ({ versions }) => {
        for (const v of versions.filter(ours)) {
          if (versionId === undefined) resolve((versionId = v.versionId));
          if (v.versionId === versionId && v.runningStatus === "stopped") stop();
        }
      });
    });
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.stopWorker", { versionId: await seen });
    await stopped;
  } finally {
    await extensionPage.close();
  }
}

/** Sends `request` through the content script (window.postMessage) and returns the worker's reply. */
function ask(request) {
  return page.evaluate((request) => new Promise((resolve) => {
    const id = Math.random().toString(36).slice(2);
    window.addEventListener("message", function onReply(event) {
      if (event.source !== window || event.data?.from !== "webmcp-redact-extension" || event.data.id !== id) return;
      window.removeEventListener("message", onReply);
      resolve(event.data.reply);
    });
    window.postMessage({ to: "webmcp-redact-extension", id, request }, location.origin);
  }), request);
}

function redact(tool, value) {
  return ask({ type: "redact", tool, json: JSON.stringify(value) });
}

let handle, firstBoot;

test("the worker redacts a result the content script sends as JSON text", async () => {
  const reply = await redact(KEY_TOOL, { id: "key_1", secret: CANARY });
  assert.equal(reply.error, undefined, JSON.stringify(reply));
  assert.equal(reply.withheld, false);
  assert.ok(!reply.json.includes(CANARY), reply.json);
  const view = JSON.parse(reply.json);
  const stub = view.content.find((b) => b.type === "secret_reference");
  assert.ok(stub && typeof stub.handle === "string", reply.json);
  assert.deepEqual(view.structuredContent, { id: "key_1" });
  assert.deepEqual(reply.redactions.map((r) => [r.pointer, r.handle]), [["/secret", stub.handle]]);
  handle = stub.handle;
  firstBoot = reply.bootId;

  // What the user may reveal is in chrome.storage.session, under the handle the agent saw.
  const worker = await serviceWorker();
  const stored = await worker.evaluate((key) => chrome.storage.session.get(key), `vault:${handle}`);
  assert.deepEqual(stored[`vault:${handle}`], { label: "API key", kind: "value", value: CANARY });
});

// A page's tool listing, read by the extension past any patch the page has: a tool named by the
// value the worker now knows is dropped (redactJson masked it into a tool no call reaches), one
// describing it masked; one that cannot be read gives the agent only the error's code.
test("the worker cleans a page's tool listing: a tool named by a known value dropped, the rest masked", async () => {
  const tools = [
    { name: `get_${CANARY}`, description: "d" },
    { name: "lookup", description: `finds ${CANARY}`, inputSchema: JSON.stringify({ type: "object", properties: { q: { type: "string", default: CANARY } } }) },
    { name: "plain", description: "nothing here" },
  ];
  const reply = await ask({ type: "list", tools });
  assert.equal(reply.error, undefined, JSON.stringify(reply));
  assert.ok(!JSON.stringify(reply).includes(CANARY), JSON.stringify(reply));
  assert.deepEqual(reply.tools.map((t) => t.name), ["lookup", "plain"]);
  assert.match(reply.tools[0].description, /^finds \[redacted: API key\]$/);
  assert.equal(JSON.parse(reply.tools[0].inputSchema).type, "object");
  assert.deepEqual(reply.tools[1], tools[2]);
  assert.deepEqual(await ask({ type: "list", tools: { tools } }), { error: "invalid_listing", bootId: reply.bootId });
});

test("check() before a call denies sending a removed value, and confirms after private data", async () => {
  const leak = await ask({ type: "check", tool: SEND_TOOL, args: { body: `here is the key: ${CANARY}` } });
  assert.equal(leak.decision, "deny", JSON.stringify(leak));
  assert.ok(leak.reasons.some((r) => r.code === "secret_egress"), JSON.stringify(leak));

  const benign = await ask({ type: "check", tool: SEND_TOOL, args: { body: "see you tomorrow" } });
  assert.equal(benign.decision, "confirm", JSON.stringify(benign));
  assert.ok(!benign.reasons.some((r) => r.code === "secret_egress"), JSON.stringify(benign));
  assert.ok(benign.reasons.some((r) => r.code === "exfiltration"), JSON.stringify(benign));
});

test("after the browser stops the worker, a fresh one keeps the vault, the known value and the labels", async () => {
  assert.ok(handle, "needs the first test's handle");
  await stopWorker();

  // The next message starts a new worker instance (a new bootId): in-memory state is gone.
  const leak = await ask({ type: "check", tool: SEND_TOOL, args: { body: `here is the key: ${CANARY}` } });
  assert.ok(leak.bootId && leak.bootId !== firstBoot, `expected a restarted worker: ${leak.bootId} vs ${firstBoot}`);
  assert.equal(leak.decision, "deny", JSON.stringify(leak));
  assert.ok(leak.reasons.some((r) => r.code === "secret_egress"), JSON.stringify(leak));

  // The session's labels came back: private data is still in the agent's context.
  const benign = await ask({ type: "check", tool: SEND_TOOL, args: { body: "see you tomorrow" } });
  assert.ok(benign.reasons.some((r) => r.code === "exfiltration"), JSON.stringify(benign));

  // The known value is scrubbed from another tool's result, which has no schema to mark it.
  const echoed = await redact(ECHO_TOOL, { content: [{ type: "text", text: `the key was ${CANARY}, base64 ${btoa(CANARY)}` }] });
  assert.equal(echoed.error, undefined, JSON.stringify(echoed));
  assert.ok(!echoed.json.includes(CANARY) && !echoed.json.includes(btoa(CANARY)), echoed.json);
  assert.match(echoed.json, /\[redacted: API key\]/);

  // The value behind the handle the agent saw is still there for the user.
  const fresh = await serviceWorker();
  const stored = await fresh.evaluate((key) => chrome.storage.session.get(key), `vault:${handle}`);
  assert.equal(stored[`vault:${handle}`]?.value, CANARY);
});

/** `s` as a JSON string literal with every other character written as `\uXXXX`. */
const escaped = (s) => `"${[...s].map((c, i) => (i % 2 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}` : c)).join("")}"`;

// The worker's view of text the page wrote, not JSON.stringify's: the known value escaped
// character by character (in a text, as a member name, in JSON text inside a text block), a
// bare JSON string (the polyfill's string result, as the README says to send it), and `json`
// that is no text at all. No reply holds the value, in any decoding (a guard: it found nothing).
test("after a restart, hostile JSON text through the worker gives no reply holding the known value", async () => {
  const texts = [
    `{"content":[{"type":"text","text":${escaped(`the key ${CANARY}`)}}]}`,
    `{"content":[{"type":"text","text":"ok"}],"structuredContent":{${escaped(CANARY)}:1}}`,
    JSON.stringify({ content: [{ type: "text", text: `{"inner":${escaped(CANARY)}}` }] }),
    JSON.stringify(`just ${CANARY}`),
    escaped(CANARY),
  ];
  const replies = [];
  for (const json of texts) replies.push(await ask({ type: "redact", tool: ECHO_TOOL, json }));
  for (const json of [{ text: CANARY }, [CANARY], 7]) replies.push(await ask({ type: "redact", tool: ECHO_TOOL, json }));
  for (const [i, reply] of replies.entries()) {
    const seen = JSON.stringify(reply);
    assert.ok(!seen.includes(CANARY), `${i}: ${seen}`);
    // Decoded: the view's strings, and the JSON text inside them.
    const decoded = typeof reply.json === "string" ? JSON.stringify(JSON.parse(reply.json), (_k, v) => (typeof v === "string" && /^[[{"]/.test(v) ? (() => { try { return JSON.parse(v); } catch { return v; } })() : v)) : "";
    assert.ok(!decoded.includes(CANARY), `${i}: ${decoded}`);
  }
  assert.equal(replies.length, 8);
  assert.match(replies[0].json, /the key \[redacted: API key\]/, "masked, not only withheld");
});
