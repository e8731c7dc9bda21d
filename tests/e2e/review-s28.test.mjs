// Review s28 (helper L), page side, in Chromium: the built-in consent dialog.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({});

/** Opens the built-in dialog on `page` (a question about `post`); its answer is window.__answer. */
async function ask(page) {
  await page.evaluate(async () => {
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
    const d = document.querySelector("dialog.webmcp-confirm[open]");
    const allow = d.querySelector("button.allow");
    return { radius: getComputedStyle(d).borderTopLeftRadius, allowBackground: getComputedStyle(allow).backgroundColor, styles: d.querySelectorAll("style").length };
  });
  assert.deepEqual(style, { radius: "8px", allowBackground: "rgb(31, 41, 55)", styles: 0 });
  // Asked twice on one page, the sheet is adopted once.
  await page.keyboard.press("Escape");
  assert.equal(await page.evaluate(() => window.__answer), false);
  await ask(page);
  assert.equal(await page.evaluate(() => document.adoptedStyleSheets.length), 1);
  await page.keyboard.press("Escape");
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
    argsText: () => { document.querySelector("dialog.webmcp-confirm pre").textContent = '{ "body": "hi" }'; },
    argsTextNode: () => { document.querySelector("dialog.webmcp-confirm pre").firstChild.data = '{ "body": "hi" }'; },
    title: () => { document.querySelector("dialog.webmcp-confirm h2").textContent = "Let the agent call read_inbox?"; },
    reasonRemoved: () => { document.querySelector("dialog.webmcp-confirm li").remove(); },
    nodeAdded: () => { document.querySelector("dialog.webmcp-confirm ul").append(document.createElement("li")); },
    styleAttribute: () => { document.querySelector("dialog.webmcp-confirm pre").setAttribute("style", "color: transparent"); },
    inlineStyle: () => { document.querySelector("dialog.webmcp-confirm pre").style.fontSize = "0"; },
    classOfDialog: () => { document.querySelector("dialog.webmcp-confirm").classList.add("x"); },
    allowLabel: () => { document.querySelector("dialog.webmcp-confirm button.allow").textContent = "Don't allow"; },
  };
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const answers = {};
  for (const [name, change] of Object.entries(changes)) {
    await ask(page);
    await page.evaluate(`(${change})()`);
    // The user's own click (trusted), where Allow is, if the dialog is still there.
    const allow = page.locator("dialog.webmcp-confirm[open] button.allow");
    if (await allow.count()) await allow.click();
    answers[name] = await page.evaluate(() => window.__answer);
    assert.equal(await page.locator("dialog.webmcp-confirm").count(), 0, `${name}: the dialog is gone`);
  }
  assert.deepEqual(answers, { none: true, argsText: false, argsTextNode: false, title: false, reasonRemoved: false, nodeAdded: false, styleAttribute: false, inlineStyle: false, classOfDialog: false, allowLabel: false });
  await page.close();
});
