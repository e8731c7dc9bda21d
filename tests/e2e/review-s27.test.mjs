// Review s27 (helper L), page side, in Chromium.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({});

// A page that enforces Trusted Types (`require-trusted-types-for 'script'`) refuses a string
// assigned to innerHTML, and one whose `style-src` has no 'unsafe-inline' refuses an inline
// <style>. The Reveal element built its shadow root from an HTML string: on such a page its
// constructor threw, the element never upgraded, and the user had no Reveal button at all.
test("the Reveal element works on a page that enforces Trusted Types and forbids inline styles", async () => {
  const page = await env.page();
  const violations = [];
  page.on("console", (m) => {
    if (/Trusted|Content Security Policy|TrustedHTML/i.test(m.text())) violations.push(m.text());
  });
  await page.goto(`${env.a.url}__test/blank.html?csp=tt`);
  const out = await page.evaluate(async () => {
    const r = {};
    window.addEventListener("error", (e) => { r.error = String(e.message); });
    const { createRedactor } = await import("/js/index.js");
    await import("/js/secret-element.js");
    const redactor = await createRedactor();
    const tool = { name: "k", outputSchema: { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } } };
    const { result, resultId } = redactor.redact(tool, { secret: "CANARY-tt-1" });
    const handle = result.content.find((b) => b.type === "secret_reference").handle;
    const el = document.createElement("webmcp-secret");
    el.setAttribute("handle", handle);
    el.setAttribute("result", resultId);
    el.setAttribute("label", "API key");
    document.body.append(el);
    r.upgraded = el.shadowRoot !== null && el.shadowRoot.querySelector("button.reveal") !== null;
    r.label = el.shadowRoot?.querySelector(".label")?.textContent ?? null;
    if (r.upgraded) {
      await el.reveal();
      r.shown = el.shadowRoot.querySelector(".value")?.textContent ?? null;
      r.copyHidden = el.shadowRoot.querySelector("button.copy").hidden;
      const copy = el.shadowRoot.querySelector("button.copy");
      r.copyDisplay = getComputedStyle(copy).display;
      r.labelWeight = getComputedStyle(el.shadowRoot.querySelector(".label")).fontWeight;
      el.hide();
      r.afterHide = el.shadowRoot.querySelector(".value").textContent;
      r.copyDisplayAfterHide = getComputedStyle(copy).display;
    }
    return r;
  });
  assert.equal(out.error, undefined, out.error);
  assert.equal(out.upgraded, true, "the element built its shadow root");
  assert.equal(out.label, "API key");
  assert.equal(out.shown, "CANARY-tt-1");
  assert.equal(out.copyHidden, false);
  assert.equal(out.labelWeight, "600", "its own styles apply without an inline <style>");
  assert.equal(out.afterHide, "");
  assert.equal(out.copyDisplayAfterHide, "none");
  assert.deepEqual(violations, []);
  await page.close();
});
