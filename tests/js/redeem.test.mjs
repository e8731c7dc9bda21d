// redeem() and the vault in Node, against the real demo server (scripts/serve.mjs --test).
// The browser's own behaviour (CORS modes, sandboxing, CSP, <base>) is in tests/e2e/.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../scripts/serve.mjs";
import { createRedactor, redeem, RedeemError, installRedaction } from "webmcp-redact";
import { checkRedeemUrl } from "../../js/vault/redeem.js";
import { CANARY, apiKeyTool, apiKeyRaw } from "./helpers.mjs";

let srv;
const log = [];
before(async () => {
  srv = await startServer({ test: true, log });
  // Node has no page: stand in for one on the server's origin.
  globalThis.location = new URL(srv.url);
});
after(async () => {
  delete globalThis.location;
  await srv.close();
});

const refTool = { name: "server_token" };
function reference(redactor, redeemUrl, extra = {}) {
  const out = redactor.redact(refTool, { content: [{ type: "secret_reference", id: `ref_${Math.random().toString(36).slice(2)}`, label: "Token", redeemUrl, ...extra }] });
  const stub = out.result.content.find((b) => b.type === "secret_reference");
  assert.ok(stub?.handle, "the core made a stub");
  return stub.handle;
}

async function code(promise) {
  try {
    await promise;
    return "resolved";
  } catch (err) {
    assert.ok(err instanceof RedeemError, `a RedeemError, got ${err}`);
    assert.ok(err instanceof Error);
    return err.code;
  }
}

test("a value the core removed is returned from the vault, with no request", async () => {
  const r = await createRedactor();
  const { result } = r.redact(apiKeyTool, apiKeyRaw());
  const n = log.length;
  assert.equal(await redeem(result.content[1].handle), CANARY);
  assert.equal(await r.vault.redeem(result.content[1].handle), CANARY);
  assert.equal(log.length, n);
});

test("bound to a result: a handle of any other result is refused, before any request or read", async () => {
  const r = await createRedactor();
  const a = r.redact(apiKeyTool, apiKeyRaw());
  const b = r.redact(refTool, { content: [{ type: "secret_reference", id: "ref_bound", label: "Token", redeemUrl: "/__test/matrix/ok" }] });
  const none = r.redact(apiKeyTool, { id: "k", name: "n" });
  assert.match(a.resultId, /^[0-9a-f]{32}$/);
  assert.match(b.resultId, /^[0-9a-f]{32}$/);
  assert.notEqual(a.resultId, b.resultId);
  assert.equal(none.resultId, undefined, "a result that issued no handle has no id");
  assert.equal(r.redactJson(apiKeyTool, JSON.stringify(apiKeyRaw())).resultId?.length, 32);
  const keyHandle = a.result.content[1].handle;
  const refHandle = b.result.content.find((x) => x.type === "secret_reference").handle;
  const n = log.length;
  for (const [handle, result] of [[keyHandle, b.resultId], [refHandle, a.resultId], [keyHandle, ""], [keyHandle, undefined]]) {
    assert.equal(await code(redeem(handle, { result })), "foreign_reference", `${handle} under ${result}`);
    assert.equal(await code(r.vault.redeem(handle, { result })), "foreign_reference");
  }
  assert.equal(log.length, n, "no request was made");
  assert.equal(await redeem(keyHandle, { result: a.resultId }), CANARY);
  assert.equal(await redeem(keyHandle), CANARY, "without `result` the page takes the handle as its own");
});

test("unknown handles are refused with no request: made up, an id, a URL, another vault's after clear", async () => {
  const r = await createRedactor();
  const h = reference(r, "/__test/matrix/ok");
  const n = log.length;
  for (const bad of ["0".repeat(32), "ref_123", "/__test/matrix/ok", srv.url, "", undefined, null, 42, {}]) {
    assert.equal(await code(redeem(bad)), "unknown_reference", String(bad));
  }
  r.vault.clear();
  assert.equal(await code(redeem(h)), "unknown_reference");
  assert.equal(log.length, n, "no request was made");
});

test("the redeem matrix: every status and bad body gives its code (Node's fetch)", async () => {
  const r = await createRedactor();
  const cases = {
    ok: "resolved", "ok-charset": "resolved", "just-under": "resolved",
    s401: "unauthorized", s403: "forbidden", s404: "not_found", s410: "expired", s429: "rate_limited", "s429-noheader": "rate_limited",
    s500: "bad_response", s201: "bad_response", s204: "bad_response",
    "s302-same": "redirected", "s301-same": "redirected", "s302-body": "redirected",
    text: "bad_response", html: "bad_response", "no-type": "bad_response", "bad-json": "bad_response", "no-value": "bad_response",
    "num-value": "bad_response", "null-value": "bad_response", "extra-key": "bad_response", array: "bad_response", string: "bad_response",
    big: "bad_response", "big-chunked": "bad_response", "not-utf8": "bad_response", reset: "network",
  };
  for (const [name, want] of Object.entries(cases)) {
    const h = reference(r, `/__test/matrix/${name}?q=QUERYSECRET`);
    let got;
    try {
      const value = await redeem(h);
      got = "resolved";
      assert.ok(value === "matrix-ok" || /^U+$/.test(value), name);
    } catch (err) {
      got = err.code;
      for (const leak of ["QUERYSECRET", "BODY-SECRET", "matrix-ok", "?q="]) assert.ok(!err.message.includes(leak), `${name}: message leaks ${leak}`);
      if (name === "s429") assert.equal(err.retryAfter, 7);
      if (name === "s429-noheader") assert.equal(err.retryAfter, undefined);
    }
    assert.equal(got, want, name);
  }
});

test("a redirect is `redirected`: nothing is followed, the redirect's own body is not taken", async () => {
  const r = await createRedactor();
  for (const name of ["s302-same", "s301-same", "s302-body"]) {
    const h = reference(r, `/__test/matrix/${name}`);
    const before = log.length;
    let err;
    await redeem(h).catch((e) => { err = e; });
    assert.equal(err?.code, "redirected", name);
    assert.ok(err.status >= 300 && err.status < 400, "Node's fetch hands back the 3xx itself");
    assert.ok(!err.message.includes("REDIRECT-BODY"));
    // Only the redirecting URL was asked for: the Location (/__test/matrix/ok) never was.
    assert.deepEqual(log.slice(before).map((x) => x.path), [`/__test/matrix/${name}`], name);
  }
});

test("redirect shapes: the browser's opaque redirect and a 3xx are both `redirected`, bodies unread", async () => {
  // A stand-in fetch, installed before a fresh copy of redeem.js captures it, returning the
  // response shapes of each runtime with a body that records any read.
  const saved = globalThis.fetch;
  const calls = [];
  let reads = 0;
  const body = () => new ReadableStream({ pull(c) { reads++; c.enqueue(new TextEncoder().encode('{"value":"REDIRECT-BODY"}')); c.close(); } }, { highWaterMark: 0 });
  const shapes = [
    () => ({ type: "opaqueredirect", status: 0, redirected: false, body: null, headers: new Headers() }),
    () => new Response(body(), { status: 302, headers: { Location: "/ok", "Content-Type": "application/json" } }),
    () => new Response(body(), { status: 308, headers: { Location: "/ok", "Content-Type": "application/json" } }),
  ];
  let shape;
  globalThis.fetch = async (url, init) => { calls.push(init); return shape(); };
  let fresh;
  try {
    fresh = await import(`../../js/vault/redeem.js?fake-fetch`);
  } finally {
    globalThis.fetch = saved;
  }
  const v = { entry: () => ({ kind: "reference", label: "Token", redeemUrl: "/__test/matrix/ok" }), referenceExpired: () => false, allowedPaths: null, learn() { throw new Error("nothing to learn"); } };
  for (shape of shapes) {
    let err;
    await fresh.redeemWith(v, "h").catch((e) => { err = e; });
    assert.equal(err?.code, "redirected");
  }
  assert.equal(reads, 0, "no redirect body was read");
  assert.equal(calls.length, shapes.length, "one request each, nothing followed");
  for (const init of calls) assert.equal(init.redirect, "manual");
});

test("a redeemed value joins the known secrets: later results have it scrubbed (value_match)", async () => {
  const r = await createRedactor();
  const h = reference(r, "/__test/matrix/ok");
  assert.equal(await redeem(h), "matrix-ok");
  const echo = { name: "echo" };
  const out = r.redact(echo, { content: [{ type: "text", text: "the token is matrix-ok, right?" }] });
  assert.ok(!JSON.stringify(out.result).includes("matrix-ok"));
  assert.deepEqual(out.redactions.map((x) => x.reason), ["value_match"]);
});

test("a reference past its ttl (capped by maxTtl) is expired with no request", async () => {
  const r = await createRedactor({ redeem: { maxTtl: 0.05 } });
  const long = reference(r, "/__test/matrix/ok", { ttl: 3600 }); // capped to 50 ms
  await new Promise((res) => setTimeout(res, 80));
  const n = log.length;
  assert.equal(await code(redeem(long)), "expired");
  assert.equal(log.length, n);
});

test("vault entries expire after vault.ttl; clear() drops them and the known set", async () => {
  const r = await createRedactor({ vault: { ttl: 0.05 } });
  const { result } = r.redact(apiKeyTool, apiKeyRaw());
  const h = result.content[1].handle;
  assert.equal(r.vault.size, 1);
  await new Promise((res) => setTimeout(res, 80));
  assert.equal(r.vault.size, 0);
  assert.equal(r.vault.reveal(h), undefined);
  assert.equal(await code(redeem(h)), "unknown_reference");
  // Still scrubbed after expiry (until clear), so it cannot come back to the agent.
  const echo = { name: "echo" };
  assert.ok(!JSON.stringify(r.redact(echo, { content: [{ type: "text", text: CANARY }] }).result).includes(CANARY));
  r.vault.clear();
  assert.ok(JSON.stringify(r.redact(echo, { content: [{ type: "text", text: CANARY }] }).result).includes(CANARY));
});

test("the path allowlist refuses other paths with no request", async () => {
  const r = await createRedactor({ redeem: { allowedPaths: ["/api/redeem/"] } });
  const n = log.length;
  assert.equal(await code(redeem(reference(r, "/__test/matrix/ok"))), "path_not_allowed");
  assert.equal(await code(redeem(reference(r, "/api/redeem/../../__test/matrix/ok"))), "path_not_allowed");
  assert.equal(log.length, n);
});

test("an allowed path is a whole path segment, and encoded separators or ..; never climb out of it", () => {
  const page = new URL("https://app.example.com/page");
  const ok = (u, allowed) => assert.equal(checkRedeemUrl(u, "L", allowed, page).pathname, new URL(u, page).pathname);
  const refused = (u, allowed) =>
    assert.throws(() => checkRedeemUrl(u, "L", allowed, page), (e) => e.code === "path_not_allowed", `${u} under ${allowed}`);
  for (const allowed of [["/api/redeem"], ["/api/redeem/"]]) {
    ok("/api/redeem/1", allowed);
    ok("/api/redeem/a/b?x=1", allowed);
    for (const u of ["/api/redeemer/1", "/api/redeem-admin", "/api/redeem/..%2Fadmin", "/api/redeem/..%2fadmin", "/api/redeem/%2e%2e%2Fadmin",
      "/api/redeem/..%5Cadmin", "/api/redeem/..;/admin", "/api/redeem/.;/x", "/api/redeem/%2e%2e/admin", "/api/redeem/.%2E/admin", "/api/redeem/%2e%2e;/admin", "/api/redeem/.%2E;/x", "/api/redeem/%2e;/x", "/api/redeem/..%3b/admin",
      "/api/redeem/%252e%252e/admin", "/api/redeem\\..\\admin"]) {
      refused(u, allowed);
    }
  }
  ok("/api/redeem", ["/api/redeem"]);
  refused("/api/redeem", ["/api/redeem/"]);
});

test("an aborted signal gives aborted", async () => {
  const r = await createRedactor();
  const ac = new AbortController();
  ac.abort();
  assert.equal(await code(redeem(reference(r, "/__test/matrix/ok"), { signal: ac.signal })), "aborted");
});

test("checkRedeemUrl: scheme, loopback, userinfo, origin and null-origin rules", () => {
  const page = new URL("https://app.example.com/page/x");
  const loop = new URL("http://127.0.0.1:8000/p");
  const refused = (u, loc, want) => assert.throws(() => checkRedeemUrl(u, "L", null, loc), (e) => e.code === want, `${JSON.stringify(u)}`);
  assert.equal(checkRedeemUrl("/redeem/1?x=1", "L", null, page).href, "https://app.example.com/redeem/1?x=1");
  assert.equal(checkRedeemUrl("/redeem/1", "L", null, loop).href, "http://127.0.0.1:8000/redeem/1");
  for (const u of ["//evil.com", "/\\evil.com", "\\\\evil.com", "https:\\\\evil.com", "/\t/evil.com", "/\n/evil.com", " //evil.com",
    "https://app.example.com.", "https://app.example.com:444/", "https://evil.com\\@app.example.com/"]) refused(u, page, "cross_origin");
  for (const u of ["http:evil.com", "http://app.example.com/x", "data:application/json,{}", "blob:https://app.example.com/1", "javascript:1",
    "https://app.example.com@evil.com/", "https://u:p@app.example.com/x", "file:///etc/passwd"]) refused(u, page, "insecure_url");
  refused("/x", new URL("http://app.example.com/"), "insecure_url"); // http: on a non-loopback page
  refused("/x", { href: "about:blank", origin: "null", protocol: "about:" }, "cross_origin");
  for (const u of ["http://localhost:8000/x", "http://127.0.0.1:8001/x", "https://127.0.0.1:8000/x"]) refused(u, loop, "cross_origin");
});

test("RedeemError: stable shape; bad options are refused", async () => {
  const e = new RedeemError("expired", "m", { label: "L" });
  assert.equal(e.name, "RedeemError");
  assert.equal(e.code, "expired");
  assert.ok(e instanceof Error);
  await assert.rejects(createRedactor({ redeem: { maxTtl: -1 } }), RangeError);
  await assert.rejects(createRedactor({ redeem: { allowedPaths: ["x"] } }), TypeError);
  await assert.rejects(createRedactor({ vault: { nope: 1 } }), TypeError);
});

test("the demo server: session, single use, ttl, 429 burst, Sec-Fetch-Site, no-store everywhere", async () => {
  const page = await fetch(srv.url);
  assert.equal(page.headers.get("cache-control"), "no-store");
  const cookie = page.headers.get("set-cookie").split(";")[0];
  const same = { "Sec-Fetch-Site": "same-origin", cookie };
  const token = async (ttl) => (await fetch(`${srv.url}__test/token${ttl ? `?ttl=${ttl}` : ""}`, { headers: { cookie } })).json();
  const get = (path, headers) => fetch(new URL(path, srv.url), { headers, redirect: "manual" });

  const t1 = await token();
  let res = await get(t1.redeemUrl, { "Sec-Fetch-Site": "same-origin" });
  assert.equal(res.status, 401, "no session cookie");
  res = await get(t1.redeemUrl, { cookie });
  assert.equal(res.status, 403, "no Sec-Fetch-Site");
  res = await get(t1.redeemUrl, { ...same, "Sec-Fetch-Site": "cross-site" });
  assert.equal(res.status, 403, "cross-site");
  res = await get(t1.redeemUrl, same);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.deepEqual(await res.json(), { value: t1.value });
  res = await get(t1.redeemUrl, same);
  assert.equal(res.status, 410, "single use");
  assert.equal(res.headers.get("cache-control"), "no-store");
  res = await get("/api/redeem/dt_unknown", same);
  assert.equal(res.status, 404);

  const t2 = await token(0.05);
  await new Promise((r) => setTimeout(r, 80));
  assert.equal((await get(t2.redeemUrl, same)).status, 410, "ttl expired");

  const statuses = [];
  for (let i = 0; i < 10; i++) statuses.push((await get("/api/redeem/dt_burst", same)).status);
  assert.ok(statuses.includes(429), `a burst is rate limited: ${statuses}`);
  const limited = await get("/api/redeem/dt_burst", same);
  assert.equal(limited.status, 429);
  assert.match(limited.headers.get("retry-after"), /^\d+$/);
  assert.equal(limited.headers.get("cache-control"), "no-store");
  for (const p of ["/js/index.js", "/nope", "/api/keys"]) assert.equal((await get(p, {})).headers.get("cache-control"), "no-store", p);
});

test("installRedaction on a minimal modelContext: compile at registration, redact, uninstall", async () => {
  const registered = [];
  const proto = { async registerTool(tool, options) { registered.push({ tool, options }); return "runtime-result"; } };
  const mc = Object.create(proto);
  const before = { name: "early", description: "d", execute: () => ({}) };
  mc.getTools = async () => [before, ...registered.map((r) => r.tool)];
  const uninstall = await installRedaction({ modelContext: mc });
  assert.deepEqual(uninstall.unprotectedTools, ["early"]);
  const ac = new AbortController();
  const tool = { ...apiKeyTool, title: "Key", inputSchema: { type: "object" }, annotations: { sensitiveHint: false }, execute: async () => apiKeyRaw() };
  assert.equal(await mc.registerTool(tool, { signal: ac.signal }), "runtime-result");
  const got = registered[0];
  // The runtime follows installRedaction's own signal, aborted with the page's (review s30).
  assert.ok(got.options.signal instanceof AbortSignal && !got.options.signal.aborted);
  assert.equal(got.tool.title, "Key");
  assert.equal(got.tool.inputSchema, tool.inputSchema);
  const result = await got.tool.execute({});
  assert.ok(!JSON.stringify(result).includes(CANARY));
  tool.outputSchema = {}; // changing the definition after registration changes nothing
  assert.ok(!JSON.stringify(await got.tool.execute({})).includes(CANARY));
  const bad = { name: "bad_tool", description: "d", outputSchema: { "x-sensitive": 5 }, execute: () => ({}) };
  await assert.rejects(mc.registerTool(bad), (e) => e.name === "RedactionError" && e.code === "schema_invalid" && e.message.includes("bad_tool"));
  assert.equal(registered.length, 1);
  const thrower = { name: "thrower", description: "d", execute: () => { throw new Error(`failed with ${CANARY}`); } };
  await mc.registerTool(thrower);
  const v = uninstall.redactor.redact(apiKeyTool, apiKeyRaw()); // CANARY is now known
  assert.ok(v.redactions.length);
  assert.ok(!JSON.stringify(await registered[1].tool.execute({})).includes(CANARY));
  uninstall();
  assert.equal(mc.registerTool, proto.registerTool);
  assert.equal(Object.hasOwn(mc, "registerTool"), false);
});

test("installRedaction's onResult: each result that issued handles, with its id; a throwing callback changes nothing", async () => {
  const registered = [];
  const mc = { async registerTool(tool) { registered.push(tool); } };
  const seen = [];
  let fail = false;
  const onResult = (info) => {
    seen.push(info);
    if (fail) throw new Error("page bug");
  };
  await assert.rejects(installRedaction({ modelContext: {...mc}, onResult: 5 }), TypeError);
  const uninstall = await installRedaction({ modelContext: mc, onResult });
  await mc.registerTool({ ...apiKeyTool, description: "d", execute: async () => apiKeyRaw() });
  await mc.registerTool({ name: "plain", description: "d", execute: async () => ({ content: [{ type: "text", text: "hi" }] }) });
  const first = await registered[0].execute({});
  assert.equal((await registered[1].execute({})).content[0].text, "hi");
  assert.equal(seen.length, 1, "only a result that issued handles is reported");
  assert.equal(seen[0].tool, apiKeyTool.name);
  assert.deepEqual(seen[0].result, first);
  const stub = first.content.find((b) => b.type === "secret_reference");
  const handle = stub.handle;
  assert.deepEqual(seen[0].handles, [{ handle, label: stub.label }]);
  assert.equal(await redeem(handle, { result: seen[0].resultId }), CANARY);
  fail = true;
  const second = await registered[0].execute({});
  assert.ok(second.content.some((b) => b.type === "secret_reference"), "the agent still gets its result");
  assert.equal(await code(redeem(handle, { result: seen[1].resultId })), "foreign_reference");
  uninstall();
});

test("installRedaction's onResult names the handles in the mcp format too (an MCP bridge), where no secret_reference block carries them", async () => {
  const registered = [];
  const mc = { async registerTool(tool) { registered.push(tool); } };
  const seen = [];
  const uninstall = await installRedaction({ modelContext: mc, format: "mcp", onResult: (info) => seen.push(info) });
  await mc.registerTool({ ...apiKeyTool, description: "d", execute: async () => apiKeyRaw() });
  const view = await registered[0].execute({});
  assert.ok(!view.content.some((b) => b.type === "secret_reference"));
  assert.equal(seen.length, 1);
  assert.equal(seen[0].handles.length, 1);
  const [{ handle, label }] = seen[0].handles;
  assert.ok(JSON.stringify(view).includes(handle), "the handle the agent holds");
  assert.ok(JSON.stringify(view).includes(`withheld: ${label}]`), "its label, as the stub shows it");
  assert.equal(await redeem(handle, { result: seen[0].resultId }), CANARY);
  uninstall();
});
