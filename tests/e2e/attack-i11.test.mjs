// Adversarial review of issue 11, page side, in Chromium's own WebMCP (--enable-features=WebMCP).

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({ extraArgs: ["--enable-features=WebMCP"] });

// HTMLFormElement's named properties override its methods: a control named "getAttribute" makes
// form.getAttribute that control. The form is still a tool; its response must still be redacted
// and the form still reported.
test("a form tool with a control named getAttribute: still reported, its respondWith response still redacted", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const r = {};
    const { installRedaction } = await import("/js/index.js");
    const send = document.createElement("form");
    send.setAttribute("toolname", "send_code");
    send.setAttribute("tooldescription", "Sends a code");
    send.setAttribute("toolautosubmit", "");
    send.innerHTML = '<input name="getAttribute" type="text"><button type="submit">Go</button>';
    send.addEventListener("submit", (e) => {
      e.preventDefault();
      e.respondWith(Promise.resolve({ content: [
        { type: "text", text: "Your sign-in code is CANARY-clobber-5521.", annotations: { audience: ["user"] } },
      ] }));
    });
    document.body.append(send);
    r.clobbered = typeof send.getAttribute !== "function";
    const warn = console.warn;
    console.warn = () => {};
    const uninstall = await installRedaction({});
    console.warn = warn;
    r.reported = uninstall.unprotectedTools;
    let tool;
    for (let i = 0; i < 200 && !tool; i++) {
      tool = (await document.modelContext.getTools()).find((t) => t.name === "send_code");
      if (!tool) await new Promise((ok) => setTimeout(ok, 10));
    }
    r.agent = await document.modelContext.executeTool(tool, { getAttribute: "x" });
    uninstall();
    return r;
  });
  assert.equal(out.clobbered, true, "the control did shadow the method");
  assert.deepEqual(out.reported, ["send_code"]);
  assert.equal(typeof out.agent, "string");
  assert.ok(!out.agent.includes("CANARY"), out.agent);
  assert.match(out.agent, /"reason":"audience"/);
  await page.close();
});

// The agent writes the arguments the user is asked about: bidirectional overrides and invisible
// characters in them must not make the dialog show something else than what is sent (here an
// address that reads "evil.com" backwards, displayed as if it were "moc.live").
test("the dialog shows the arguments' format characters as escapes, never applied", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const { askInDialog } = await import("/js/confirm-dialog.js");
    const args = { to: "\u202Emoc.live@kcab\u202C", note: "a\u200Bb\u2066c\u2069", tag: "x\u{E0041}" };
    // A label is a field name of some result: the agent's sources may choose it.
    const label = "\u202Eyek IPA";
    const reasons = [{ code: "x", decision: "confirm", message: `the arguments contain a secret the user was shown (${label})`, source: "" }];
    const answer = askInDialog({ tool: "send_mail", args, reasons, secrets: [label] });
    const pre = (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm pre");
    const text = [pre, ...(document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelectorAll("dialog.webmcp-confirm li, dialog.webmcp-confirm p.secrets")].map((e) => e.textContent).join("\n");
    (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm button.deny").click();
    return { text, answer: await answer };
  });
  assert.equal(out.answer, false);
  assert.ok(!/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u{E0000}-\u{E007F}]/u.test(out.text), JSON.stringify(out.text));
  assert.match(out.text, /\\u202e/i);
  assert.match(out.text, /\\u200b/i);
  assert.match(out.text, /\\udb40\\udc41/i);
  await page.close();
});

// Padding pushes what matters past the dialog's cap: the user is told how much is not shown.
test("the dialog says how much of long arguments it does not show", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const { askInDialog } = await import("/js/confirm-dialog.js");
    const args = { pad: "x".repeat(5000), to: "attacker@example.com" };
    const answer = askInDialog({ tool: "send_mail", args, reasons: [] });
    const text = (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm pre").textContent;
    (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm button.deny").click();
    return { text, answer: await answer, full: JSON.stringify(args, null, 2).length };
  });
  assert.equal(out.answer, false);
  assert.ok(!out.text.includes("attacker@"));
  assert.ok(out.text.endsWith(`… (${out.full - 2000} more characters not shown)`), out.text.slice(-80));
  await page.close();
});
