// Review s26 (helper L), page side, in Chromium's own WebMCP (--enable-features=WebMCP).

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({ extraArgs: ["--enable-features=WebMCP"] });

// A DOM-driving agent can listen to the submit it caused: a capturing listener on window takes
// the form's toolname off before the page's handler calls respondWith, and a bubbling one puts
// it back before the runtime observes the change. The respondWith wrapper keyed on the
// attribute at the time of the call, and passed the response to the agent raw.
test("a form tool whose toolname is taken off during the submit: its respondWith response is still redacted", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const r = {};
    const { installRedaction } = await import("/js/index.js");
    const send = document.createElement("form");
    send.setAttribute("toolname", "send_code");
    send.setAttribute("tooldescription", "Sends a code");
    send.setAttribute("toolautosubmit", "");
    send.innerHTML = '<input name="to" type="text"><button type="submit">Go</button>';
    send.addEventListener("submit", (e) => {
      e.preventDefault();
      r.during = send.getAttribute("toolname");
      e.respondWith(Promise.resolve({ content: [
        { type: "text", text: "Your sign-in code is CANARY-toolname-5521.", annotations: { audience: ["user"] } },
      ] }));
    });
    document.body.append(send);
    const warn = console.warn;
    console.warn = () => {};
    const uninstall = await installRedaction({});
    console.warn = warn;
    // The agent's listeners.
    addEventListener("submit", () => send.removeAttribute("toolname"), true);
    addEventListener("submit", () => send.setAttribute("toolname", "send_code"));
    let tool;
    for (let i = 0; i < 200 && !tool; i++) {
      tool = (await document.modelContext.getTools()).find((t) => t.name === "send_code");
      if (!tool) await new Promise((ok) => setTimeout(ok, 10));
    }
    try {
      r.agent = await document.modelContext.executeTool(tool, { to: "x" });
    } catch (e) {
      r.agent = `threw ${e?.name}: ${e?.message}`;
    }
    uninstall();
    return r;
  });
  assert.equal(out.during, null, "the attribute was off when respondWith was called");
  assert.equal(typeof out.agent, "string");
  assert.ok(!out.agent.includes("CANARY"), out.agent);
  assert.match(out.agent, /"reason":"audience"/);
  await page.close();
});

// The built-in consent dialog declines when it is closed any other way than by an answer, so
// that one question cannot hold every later one in the queue. Taken out of the document (a
// page that renders its body again, an agent driving the DOM), it fired no close event: the
// question, and every later one of the page, waited for good.
test("the consent dialog taken out of the document (or its open attribute removed) is a decline, and the next question is asked", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const out = await page.evaluate(async () => {
    const { askInDialog } = await import("/js/confirm-dialog.js");
    const within = (p) => Promise.race([p.then((a) => `answered ${a}`), new Promise((ok) => setTimeout(() => ok("pending"), 1000))]);
    const r = {};
    let answer = askInDialog({ tool: "t", reasons: [] });
    (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm").remove();
    r.removed = await within(answer);
    answer = askInDialog({ tool: "t", reasons: [] });
    document.body.replaceChildren(); // a page rendering its body again
    r.rerendered = await within(answer);
    answer = askInDialog({ tool: "t", reasons: [] });
    (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm").removeAttribute("open"); // hidden, not closed
    r.openRemoved = await within(answer);
    answer = askInDialog({ tool: "t", reasons: [] });
    r.next = Boolean((document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm[open]"));
    (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm button.deny").click();
    r.declined = await within(answer);
    return r;
  });
  assert.deepEqual(out, { removed: "answered false", rerendered: "answered false", openRemoved: "answered false", next: true, declined: "answered false" });
  await page.close();
});
