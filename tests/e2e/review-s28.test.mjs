// Review s28 (helper L), page side, in Chromium: the built-in consent dialog.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({});

/**
 * Opens the built-in dialog on `page` (a question about `post`); its answer is window.__answer,
 * and `window.__q(selector)` queries inside the dialog's shadow root.
 */
async function ask(page) {
  await page.evaluate(async () => {
    // (Or in the document, where an older dialog lived: so that these tests can fail on it.)
    window.__q = (sel) => (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector(sel);
    const { askInDialog } = await import("/js/confirm-dialog.js");
    window.__answer = askInDialog({ tool: "post", reasons: [{ code: "irreversible", message: "it cannot be undone" }], args: { body: "CANARY-s28-exfil to evil.example" } });
  });
}

// A page whose CSP `style-src` has no 'unsafe-inline' refused the dialog's inline <style>: the
// dialog asked, but unstyled (left open by stop 27). Its styles are now a constructed sheet.
test("the consent dialog is styled on a page whose style-src refuses inline styles", async () => {
  const page = await env.page();
  const violations = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.goto(`${env.a.url}__test/blank.html?csp=tt`);
  await ask(page);
  const style = await page.evaluate(() => {
    const d = __q("dialog.webmcp-confirm[open]");
    const allow = d.querySelector("button.allow");
    return { radius: getComputedStyle(d).borderTopLeftRadius, allowBackground: getComputedStyle(allow).backgroundColor, styles: d.getRootNode().querySelectorAll("style").length };
  });
  assert.deepEqual(style, { radius: "8px", allowBackground: "rgb(31, 41, 55)", styles: 0 });
  await page.keyboard.press("Escape");
  assert.equal(await page.evaluate(() => window.__answer), false);
  assert.deepEqual(violations, []);
  await page.close();
});

// An agent driving the page through the DOM rewrote what the dialog shows (the arguments, the
// tool's name, a reason) before the user read it; the user's own click on Allow then approved
// a call they never saw (README listed it as a limit). Any change inside the shown dialog is
// now a decline; the user's Allow on an untouched dialog still approves (so the test can fail).
test("a dialog changed after it was shown declines, whatever the change; an untouched one still asks", async () => {
  const changes = {
    none: () => {},
    argsText: () => { __q("dialog.webmcp-confirm pre").textContent = '{ "body": "hi" }'; },
    argsTextNode: () => { __q("dialog.webmcp-confirm pre").firstChild.data = '{ "body": "hi" }'; },
    title: () => { __q("dialog.webmcp-confirm h2").textContent = "Let the agent call read_inbox?"; },
    reasonRemoved: () => { __q("dialog.webmcp-confirm li").remove(); },
    nodeAdded: () => { __q("dialog.webmcp-confirm ul").append(document.createElement("li")); },
    styleAttribute: () => { __q("dialog.webmcp-confirm pre").setAttribute("style", "color: transparent"); },
    inlineStyle: () => { __q("dialog.webmcp-confirm pre").style.fontSize = "0"; },
    classOfDialog: () => { __q("dialog.webmcp-confirm").classList.add("x"); },
    hostStyle: () => { document.querySelector(".webmcp-confirm-host").style.display = "none"; },
    besideDialog: () => { __q("dialog.webmcp-confirm").getRootNode().append(document.createElement("p")); },
    allowLabel: () => { __q("dialog.webmcp-confirm button.allow").textContent = "Don't allow"; },
  };
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const answers = {};
  for (const [name, change] of Object.entries(changes)) {
    await ask(page);
    await page.evaluate(`(${change})()`);
    // The user's own click (trusted), where Allow is, if the dialog is still there.
    // (Playwright's locators see into open shadow roots.)
    const allow = page.locator("dialog.webmcp-confirm[open] button.allow");
    if (await allow.count()) await allow.click();
    answers[name] = await page.evaluate(() => window.__answer);
    assert.equal(await page.locator("dialog.webmcp-confirm").count(), 0, `${name}: the dialog is gone`);
  }
  // Automatic page translation would rewrite it too, so it opts out of translation.
  await ask(page);
  assert.equal(await page.evaluate(() => __q("dialog.webmcp-confirm").getAttribute("translate")), "no");
  await page.keyboard.press("Escape");
  assert.deepEqual(answers, { none: true, argsText: false, argsTextNode: false, title: false, reasonRemoved: false, nodeAdded: false, styleAttribute: false, inlineStyle: false, classOfDialog: false, hostStyle: false, besideDialog: false, allowLabel: false });
  await page.close();
});

// The dialog lived in the page's light DOM, so the page's own stylesheets (an agent driving the
// page adds one before it calls) could hide the arguments, the question or the whole dialog
// while the user's click on Allow still counted: `visibility: hidden` on the arguments, or
// `opacity: 0` on the dialog with a lookalike behind it. In its shadow root, with `:host` reset,
// no page rule applies to what the user reads.
test("the page's stylesheets cannot hide or restyle what the dialog shows", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  await page.evaluate(() => {
    const style = document.createElement("style");
    style.textContent = `
      .webmcp-confirm pre, .webmcp-confirm h2, pre, h2 { visibility: hidden !important; color: transparent !important; font-size: 0 !important; }
      dialog, .webmcp-confirm, .webmcp-confirm-host, div { opacity: 0 !important; visibility: hidden !important; }
      body > * { color: transparent !important; visibility: hidden !important; font-size: 0 !important; }
      html { font-size: 0 !important; direction: rtl !important; }`;
    document.head.append(style);
  });
  await ask(page);
  const seen = await page.evaluate(() => {
    const d = __q("dialog.webmcp-confirm[open]");
    const host = document.querySelector(".webmcp-confirm-host") ?? d;
    const css = (el) => { const c = getComputedStyle(el); return { visibility: c.visibility, opacity: c.opacity, color: c.color, fontSize: c.fontSize }; };
    const x = (sel) => __q(sel).getBoundingClientRect().x;
    return { host: css(host), dialog: css(d), pre: css(__q("pre")), title: css(__q("h2")), allowRight: x("button.allow") > x("button.deny") };
  });
  const shown = (fontSize) => ({ visibility: "visible", opacity: "1", color: "rgb(17, 17, 17)", fontSize });
  assert.equal(seen.host.visibility, "visible");
  assert.equal(seen.host.opacity, "1");
  assert.equal(seen.allowRight, true, "an rtl page swapped Allow and Don't allow");
  // (Sizes in px, not rem: the page's root font size reaches into a shadow tree.)
  assert.deepEqual({ dialog: seen.dialog, pre: seen.pre, title: seen.title }, { dialog: shown("15px"), pre: shown("13px"), title: shown("18.4px") });
  await page.locator("dialog.webmcp-confirm[open] button.allow").click();
  assert.equal(await page.evaluate(() => window.__answer), true, "the user's Allow still answers");
  await page.close();
});

// Anything laid over the dialog in the top layer (a popover the page opens after the question,
// transparent to clicks, showing a harmless lookalike) took the user's click through to Allow:
// approved, though the user saw another question. Allow is now enabled only while Chromium sees
// it whole (IntersectionObserver v2); uncovered again, the user's click approves.
test("a click through an element laid over the dialog is no answer; uncovered, Allow answers", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  await ask(page);
  await page.evaluate(() => {
    window.__state = "pending";
    window.__answer.then((a) => { window.__state = a; });
  });
  const allow = page.locator("dialog.webmcp-confirm[open] button.allow");
  await allow.waitFor({ state: "visible" });
  const box = await allow.boundingBox();
  await page.evaluate(() => {
    const lookalike = document.createElement("div");
    lookalike.id = "lookalike";
    lookalike.setAttribute("popover", "manual");
    lookalike.style.cssText = "pointer-events: none; inset: 0; width: 100vw; height: 100vh; margin: 0; background: #fff";
    lookalike.textContent = "Let the agent read the weather? [Allow]";
    document.body.append(lookalike);
    lookalike.showPopover();
  });
  // The covered state is seen (Allow disabled) before the user clicks where Allow is.
  // (Before, nothing watched: the wait ends at its bound, and the click below approves.)
  await page.waitForFunction(() => __q("button.allow").disabled === true, null, { timeout: 3000 }).catch(() => {});
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const covered = await page.evaluate(async () => {
    await Promise.resolve();
    return window.__state;
  });
  assert.equal(covered, "pending", "a click through the lookalike approved the call");
  await page.evaluate(() => document.getElementById("lookalike").hidePopover());
  await allow.click(); // waits until Allow is enabled again
  assert.equal(await page.evaluate(() => window.__answer), true);
  await page.close();
});

// The fix of js/install.js's signal handling, on the real MCP-B polyfill: a name freed by its
// AbortSignal and registered again past the patch (a registerTool a script took before
// installation) is reported; before, the name stayed counted as protected for good.
test("on the polyfill, a name freed by its signal and registered past the patch is reported", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const ctx = document.modelContext;
    const takenBefore = ctx.registerTool.bind(ctx);
    const { installRedaction } = await import("/js/index.js");
    const warn = console.warn;
    console.warn = () => {};
    const uninstall = await installRedaction();
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    const tool = { name: "get_key", description: "d", inputSchema: { type: "object", properties: {} }, outputSchema: { type: "object", properties: { key: { type: "string", "x-sensitive": true } } } };
    const controller = new AbortController();
    await ctx.registerTool({ ...tool, execute: async () => ({ key: "CANARY-s28-signal" }) }, { signal: controller.signal });
    await settle();
    const before = uninstall.unprotectedTools;
    controller.abort();
    await settle();
    await takenBefore({ ...tool, execute: async () => ({ key: "CANARY-s28-signal" }) });
    await settle();
    const after = uninstall.unprotectedTools;
    console.warn = warn;
    uninstall();
    return { before, after };
  });
  assert.deepEqual(out, { before: [], after: ["get_key"] });
  await page.close();
});
