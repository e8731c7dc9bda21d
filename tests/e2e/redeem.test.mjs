// redeem() in real Chromium: the response matrix, hostile redeemUrls, redirects to the other
// origin, an injected <base>, a sandboxed (origin "null") frame, and http: on a non-loopback page.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile, apiRequests, redeemAll, preload, TIMEOUT } from "./helpers.mjs";

const env = browserForFile();

async function blankPage(origin = env.a.url) {
  const page = await env.page();
  await page.goto(`${origin}__test/blank.html`);
  await preload(page);
  return page;
}

test("the redeem matrix: every status and bad-body case gives its code", { timeout: 60_000 }, async () => {
  const page = await blankPage();
  // redirect: "manual" gives Chromium's opaque-redirect response (status 0): `redirected`, as
  // in Node (tests/js/redeem.test.mjs), with nothing followed and no body read.
  const cases = {
    ok: "value", "ok-charset": "value", "just-under": "value",
    s401: "unauthorized", s403: "forbidden", s404: "not_found", s410: "expired", s429: "rate_limited", "s429-noheader": "rate_limited",
    s500: "bad_response", s201: "bad_response", s204: "bad_response",
    "s302-same": "redirected", "s301-same": "redirected", "s302-body": "redirected",
    [`s307-cross?to=${encodeURIComponent(env.b.url.slice(0, -1))}`]: "redirected",
    text: "bad_response", html: "bad_response", "no-type": "bad_response", "bad-json": "bad_response", "no-value": "bad_response",
    "num-value": "bad_response", "null-value": "bad_response", "extra-key": "bad_response", array: "bad_response", string: "bad_response",
    big: "bad_response", "big-chunked": "bad_response", "not-utf8": "bad_response", reset: "network",
  };
  const names = Object.keys(cases);
  const urls = names.map((n) => `/__test/matrix/${n}${n.includes("?") ? "&" : "?"}q=QUERYSECRET`);
  const results = await redeemAll(page, urls);
  results.forEach((r, i) => {
    const want = cases[names[i]];
    if (want === "value") {
      assert.ok(r.value === "matrix-ok" || /^U+$/.test(r.value), `${names[i]}: ${JSON.stringify(r).slice(0, 200)}`);
    } else {
      assert.equal(r.code, want, `${names[i]}: ${r.message}`);
      assert.equal(r.name, "RedeemError");
      for (const leak of ["QUERYSECRET", "BODY-SECRET", "FAKE-from-other-origin", "matrix-ok", "REDIRECT-BODY"]) {
        assert.ok(!r.message.includes(leak), `${names[i]} message leaks ${leak}: ${r.message}`);
      }
    }
  });
  assert.equal(results[names.indexOf("s429")].retryAfter, 7);
  // No redirect was followed: neither the cross-origin target nor the same-origin Location
  // (/__test/matrix/ok is asked for once, by the "ok" case itself).
  assert.equal(env.log.filter((r) => r.port === env.b.port && r.path.includes("ok-cors")).length, 0);
  assert.equal(env.log.filter((r) => r.path === "/__test/matrix/ok").length, 1);
  await page.close();
});

test("at least 30 hostile redeemUrls are refused, and no request is made for any", { timeout: 60_000 }, async () => {
  const page = await blankPage();
  const A = env.a.port;
  const B = env.b.port;
  const E = `evil.com:${B}`; // resolves to loopback: a request would land in server B's log
  const hostile = {
    [`//${E}/r`]: "cross_origin",
    [`/\\${E}/r`]: "cross_origin",
    [`\\\\${E}/r`]: "cross_origin",
    [`\\/${E}/r`]: "cross_origin",
    [`https:\\\\${E}/r`]: "cross_origin",
    [`/\t/${E}/r`]: "cross_origin",
    [`/\n/${E}/r`]: "cross_origin",
    [` //${E}/r`]: "cross_origin",
    [`\t//${E}/r`]: "cross_origin",
    [`https:${E}/r`]: "cross_origin", // ("http:evil.com" is a same-origin path on an http: page)
    [`http://${E}/r`]: "cross_origin",
    [`HTTP://EVIL.COM:${B}/r`]: "cross_origin",
    [`http://${E}#@127.0.0.1:${A}/r`]: "cross_origin",
    [`http://${E}?@127.0.0.1:${A}/r`]: "cross_origin",
    [`http://${E}\\@127.0.0.1:${A}/r`]: "cross_origin",
    [`http://localhost.:${A}/r`]: "cross_origin", // trailing dot (127.0.0.1. is the same IPv4 address, so not that)
    [`http://${E.replace(":", ".:")}/r`]: "cross_origin",
    [`http://127.0.0.1:${B}/r`]: "cross_origin", // other port
    [`//127.0.0.1:${B}/r`]: "cross_origin",
    [`http://localhost:${A}/r`]: "cross_origin",
    [`//localhost:${A}/r`]: "cross_origin",
    [`http://127.0.0.2:${A}/r`]: "cross_origin",
    [`http://[::1]:${A}/r`]: "cross_origin",
    [`http://[::ffff:127.0.0.1]:${A}/r`]: "cross_origin",
    [`https://127.0.0.1:${A}/r`]: "cross_origin",
    [`https://${E}/r`]: "cross_origin",
    [`http://127.0.0.1:${A}@${E}/r`]: "insecure_url", // userinfo
    [`http://user:pass@127.0.0.1:${A}/__test/matrix/ok`]: "insecure_url",
    [`http://user@127.0.0.1:${A}/__test/matrix/ok`]: "insecure_url",
    [`http://127.0.0.1:${A}.evil.com:${B}/r`]: "insecure_url", // not a URL
    ['data:application/json,{"value":"x"}']: "insecure_url",
    [`blob:http://127.0.0.1:${A}/0b1d6f1c-2f2a-4b7e-9d5e-000000000000`]: "insecure_url",
    ["javascript:fetch('/__test/matrix/ok')"]: "insecure_url",
    ["about:blank"]: "insecure_url",
    ["file:///etc/passwd"]: "insecure_url",
    [`ftp://127.0.0.1:${A}/r`]: "insecure_url",
    [`ws://127.0.0.1:${A}/r`]: "insecure_url",
    [`filesystem:http://127.0.0.1:${A}/temporary/r`]: "insecure_url",
    [`view-source:http://127.0.0.1:${A}/__test/matrix/ok`]: "insecure_url",
    ["http://[bad/r"]: "insecure_url",
  };
  const urls = Object.keys(hostile);
  assert.ok(urls.length >= 30);
  const seen = [];
  const onRequest = (req) => seen.push(req.url());
  page.on("request", onRequest);
  const before = env.log.length;
  const results = await redeemAll(page, urls);
  page.off("request", onRequest);
  results.forEach((r, i) => assert.equal(r.code, hostile[urls[i]], `${JSON.stringify(urls[i])}: ${r.message ?? r.value}`));
  assert.deepEqual(seen, [], "the browser made no request");
  assert.deepEqual(env.log.slice(before), [], "neither server logged a request");
  await page.close();
});

test("http: on a non-loopback page is refused even on the page's own origin", async () => {
  const page = await blankPage(`http://app.test:${env.a.port}/`);
  const before = apiRequests(env.log).length;
  const results = await redeemAll(page, ["/__test/matrix/ok", `http://app.test:${env.a.port}/__test/matrix/ok`]);
  for (const r of results) assert.equal(r.code, "insecure_url", r.message);
  assert.equal(apiRequests(env.log).length, before);
  await page.close();
});

test("a same-origin URL that redirects to the other origin is refused; the other origin sees nothing", async () => {
  const page = await blankPage();
  const to = encodeURIComponent(env.b.url.slice(0, -1));
  const before = env.log.length;
  const [r] = await redeemAll(page, [`/__test/matrix/s307-cross?to=${to}`]);
  assert.notEqual(r.value, "FAKE-from-other-origin");
  assert.equal(r.code, "redirected", r.message);
  const after = env.log.slice(before);
  assert.deepEqual(after.map((x) => [x.port, x.path]), [[env.a.port, "/__test/matrix/s307-cross"]]);
  await page.close();
});

test("an injected <base href> changes nothing: the URL resolves against location.href", async () => {
  const page = await blankPage();
  await page.evaluate((b) => {
    const base = document.createElement("base");
    base.href = b;
    document.head.prepend(base);
  }, env.b.url);
  assert.equal(await page.evaluate(() => document.baseURI), env.b.url);
  const before = env.log.length;
  const [rel, abs] = await redeemAll(page, ["matrix/ok", `${env.b.url}__test/matrix/ok`]);
  assert.equal(rel.value, "matrix-ok", rel.message);
  assert.equal(abs.code, "cross_origin");
  const after = env.log.slice(before);
  assert.deepEqual(after.map((x) => [x.port, x.path]), [[env.a.port, "/__test/matrix/ok"]]);
  await page.close();
});

test("a sandboxed iframe (origin \"null\") refuses every redeemUrl with no request", async () => {
  const page = await blankPage();
  await page.evaluate(() => {
    const f = document.createElement("iframe");
    f.sandbox = "allow-scripts";
    f.src = "/__test/blank.html?frame=1";
    document.body.append(f);
  });
  const frame = await (async () => {
    const deadline = Date.now() + TIMEOUT;
    while (Date.now() < deadline) {
      const f = page.frames().find((x) => x.url().includes("frame=1"));
      if (f) return f;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("the sandboxed frame did not load");
  })();
  await frame.waitForLoadState("load", { timeout: TIMEOUT });
  assert.equal(await frame.evaluate(() => self.origin), "null");
  await preload(frame);
  const before = apiRequests(env.log).length;
  const urls = ["/__test/matrix/ok", "__test/matrix/ok", `${env.a.url}__test/matrix/ok`, `${env.b.url}__test/matrix/ok`,
    "https://127.0.0.1/__test/matrix/ok", 'data:application/json,{"value":"x"}', "blob:null/1"];
  const results = await redeemAll(frame, urls);
  results.forEach((r, i) => assert.ok(["cross_origin", "insecure_url"].includes(r.code), `${urls[i]}: ${r.code} ${r.message ?? r.value}`));
  assert.equal(results[0].code, "cross_origin");
  assert.equal(apiRequests(env.log).length, before);
  await page.close();
});

test("a reference past its (capped) ttl is expired with no request", async () => {
  const page = await blankPage();
  const before = apiRequests(env.log).length;
  const [r] = await page.evaluate(async () => {
    const { createRedactor, redeem } = await import("/js/index.js");
    const red = await createRedactor({ redeem: { maxTtl: 0.05 } });
    const res = red.redact({ name: "t" }, { content: [{ type: "secret_reference", id: "reference_ttl", label: "T", redeemUrl: "/__test/matrix/ok", ttl: 3600 }] });
    await new Promise((ok) => setTimeout(ok, 100));
    try {
      return [{ value: await redeem(res.result.content[0].handle) }];
    } catch (e) {
      return [{ code: e.code }];
    }
  });
  assert.equal(r.code, "expired");
  assert.equal(apiRequests(env.log).length, before);
  await page.close();
});
