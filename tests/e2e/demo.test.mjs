// The demo page in real Chromium: every tool called the way an agent calls it (getTools +
// executeTool on the MCP-B polyfill), no canary in what the agent receives while the raw view
// beside it shows the tool's own result (canary included), Reveal shows the right value, a second redeem is expired, and a screenshot after a Reveal; and the pre-call
// check, enforced by installRedaction: a public post after reading billing details waits for
// the user's click in the built-in dialog (rule "exfiltration"), a secret in a post never
// reaches the tool (secret_egress), and deploy_with_key uses the API key by reference.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { browserForFile, resultsDir, apiRequests, TIMEOUT } from "./helpers.mjs";

let page;
const env = browserForFile({}, async () => {
  page = await openDemo();
});

/** A new tab on the demo, ready (so with a fresh page session). */
async function openDemo() {
  const p = await env.page();
  await p.goto(env.a.url);
  await p.waitForSelector("html[data-ready]", { state: "attached", timeout: TIMEOUT });
  assert.equal(await p.getAttribute("html", "data-ready"), "true", await p.textContent("#status"));
  return p;
}


async function last() {
  return (await fetch(`${env.a.url}__test/last`)).json();
}

/** Clicks the tool's "Call as agent" button; returns the JSON text the agent received. */
async function callAsAgent(tool, p = page) {
  await p.evaluate(() => { delete document.getElementById("agent-json").dataset.tool; });
  await p.click(`button[data-tool="${tool}"]`);
  await p.waitForFunction((t) => document.getElementById("agent-json").dataset.tool === t, tool, { timeout: TIMEOUT });
  return p.getAttribute("#agent-json", "data-raw");
}

/** The raw view: what the page shows the tool returned before redaction, and where it sits. */
async function rawView(p = page) {
  return p.evaluate(() => {
    const raw = document.getElementById("raw-json");
    const agent = document.getElementById("agent-json");
    const box = (e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width };
    };
    return { text: raw.textContent, outcome: raw.dataset.outcome, raw: box(raw), agent: box(agent) };
  });
}

/** Asserts the raw view shows `secrets` (the agent view must not) and sits beside the agent view. */
async function rawBeside(agentJson, secrets, p = page) {
  const view = await rawView(p);
  assert.equal(view.outcome, "result");
  for (const s of secrets) {
    assert.ok(view.text.includes(s), `the raw view lacks ${s}: ${view.text}`);
    assert.ok(!agentJson.includes(s), `${s} reached the agent`);
  }
  // Beside: side by side in one row, both visible, neither covering the other.
  assert.ok(view.raw.width > 100 && view.agent.width > 100, JSON.stringify(view));
  assert.ok(view.raw.right <= view.agent.left, `the raw view is not left of the agent view: ${JSON.stringify(view)}`);
  assert.ok(view.raw.top < view.agent.bottom && view.agent.top < view.raw.bottom, `not in one row: ${JSON.stringify(view)}`);
  return view.text;
}

/** What the page shows of the last pre-call check, and of the session's labels. */
async function shownCheck(p) {
  return p.evaluate(() => {
    const box = document.querySelector('[data-testid="decision"]');
    const labels = document.querySelector('[data-testid="labels"]');
    return {
      tool: box.dataset.tool,
      decision: box.dataset.decision,
      shownDecision: box.querySelector(".verdict")?.textContent,
      reasons: [...box.querySelectorAll(".reasons li[data-code]")].map((li) => ({ code: li.dataset.code, text: li.textContent })),
      live: box.getAttribute("aria-live"),
      sensitivity: labels.querySelector('dd[data-label="sensitivity"]')?.textContent,
      confirmShown: (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm[open]") !== null,
      output: document.getElementById("agent-json").dataset.outcome,
      outputTool: document.getElementById("agent-json").dataset.tool,
      posts: window.webmcpRedact.forumPosts.length,
    };
  });
}

/** The newest <webmcp-secret> of a tool (with that label, if given): clicks Reveal, returns what it shows. */
async function reveal(tool, label) {
  await page.evaluate(({ tool, label }) => {
    for (const e of document.querySelectorAll("webmcp-secret[data-target]")) delete e.dataset.target;
    const items = [...document.querySelectorAll("#secrets li")].filter((li) => li.querySelector(".from").textContent === tool);
    const el = items.map((li) => li.querySelector("webmcp-secret"))
      .find((e) => label === undefined || e.shadowRoot.querySelector(".label").textContent === label);
    if (!el) throw new Error(`no <webmcp-secret> for ${tool} ${label ?? ""}`);
    el.dataset.target = "1";
  }, { tool, label });
  const el = page.locator("webmcp-secret[data-target]");
  await el.locator("button.reveal").click();
  await page.waitForFunction(() => {
    const e = document.querySelector("webmcp-secret[data-target]");
    const r = e.shadowRoot;
    return !r.querySelector("button.reveal").disabled && (r.querySelector(".value").textContent !== "" || e.dataset.error);
  }, null, { timeout: TIMEOUT });
  const value = await el.evaluate((e) => e.shadowRoot.querySelector(".value code")?.textContent ?? null);
  return { el, value, error: (await el.getAttribute("data-error")) ?? null, message: await el.locator(".error").textContent() };
}

function noCanary(agentJson) {
  assert.ok(!/CANARY/.test(agentJson), `a canary reached the agent: ${agentJson}`);
}

test("the page registers six tools through the polyfill, after installRedaction", async () => {
  const names = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name));
  assert.deepEqual(names.sort(), ["create_deploy_token", "deploy_with_key", "generate_api_key", "get_billing_details", "post_to_forum", "search_messages"]);
  assert.equal(await page.evaluate(() => document.modelContext.__isWebMCPPolyfill), true);
  assert.deepEqual(await page.evaluate(() => window.webmcpRedact.installed.unprotectedTools), []);
});

test("generate_api_key: the secret stays out of the agent view; Reveal shows it", async () => {
  const json = await callAsAgent("generate_api_key");
  const { apiKey } = await last();
  noCanary(json);
  assert.ok(!json.includes(apiKey));
  const raw = await rawBeside(json, [apiKey]);
  assert.match(raw, /CANARY/);
  assert.deepEqual(Object.keys(JSON.parse(raw)).sort(), ["id", "name", "secret"]);
  const agent = JSON.parse(json);
  assert.ok(agent.content.some((b) => b.type === "secret_reference" && b.label === "API key" && /^[0-9a-f]{32}$/.test(b.handle)));
  assert.equal(agent.structuredContent.secret, undefined);
  const shown = await reveal("generate_api_key");
  assert.equal(shown.value, apiKey);
});

test("create_deploy_token: redeemed from the server once; the second redeem is expired", async () => {
  const json = await callAsAgent("create_deploy_token");
  const { deployToken } = await last();
  noCanary(json);
  assert.ok(!json.includes("/api/redeem/"), "redeemUrl never reaches the agent");
  // The raw result holds the reference (the server keeps the token itself).
  const raw = await rawBeside(json, ["/api/redeem/"]);
  assert.ok(!raw.includes(deployToken));
  // The page says why a second Reveal fails: the single-use endpoint, fetched on each Reveal.
  const why = await page.textContent("#once");
  assert.match(why, /redeemUrl/);
  assert.match(why, /410 Gone/);
  const first = await reveal("create_deploy_token");
  assert.equal(first.value, deployToken);
  // The screenshot of the demo after a Reveal, kept in test-results/ (CI keeps that folder).
  await page.screenshot({ path: join(resultsDir(), "demo-after-reveal.png"), fullPage: true });
  const el = first.el;
  await el.locator("button.reveal").click(); // Hide
  const second = await reveal("create_deploy_token");
  assert.equal(second.value, null);
  assert.equal(second.error, "expired");
  assert.match(second.message, /expired|already/i);
  // And through the API directly: a RedeemError with code "expired".
  const code = await page.evaluate(async (h) => {
    const { redeem } = await import("/js/index.js");
    try {
      await redeem(h);
      return "resolved";
    } catch (e) {
      return e.code;
    }
  }, await el.getAttribute("handle"));
  assert.equal(code, "expired");

  // The redeemed value is now a known secret: another tool that returns it has it scrubbed,
  // and a call that would send it out is refused before the tool runs (secret_egress).
  const echoed = await page.evaluate(async (token) => {
    const calls = [];
    await document.modelContext.registerTool({
      name: "echo_text",
      description: "Echoes text",
      execute: async ({ text }) => {
        calls.push(text);
        return { content: [{ type: "text", text: `token=${token} ${text}` }] };
      },
    });
    const tool = (await document.modelContext.getTools()).find((t) => t.name === "echo_text");
    const returned = await document.modelContext.executeTool(tool, JSON.stringify({ text: "hi" }));
    const sent = await document.modelContext.executeTool(tool, JSON.stringify({ text: token }));
    return { returned, sent, calls };
  }, deployToken);
  assert.ok(!echoed.returned.includes(deployToken), echoed.returned);
  assert.match(echoed.returned, /value_match/);
  assert.match(echoed.sent, /secret_egress/);
  assert.ok(!echoed.sent.includes(deployToken));
  assert.deepEqual(echoed.calls, ["hi"], "the call holding the token never ran");
});

test("get_billing_details: sensitive tool; the card number and undeclared fields are withheld", async () => {
  const json = await callAsAgent("get_billing_details");
  const { cardNumber } = await last();
  noCanary(json);
  assert.ok(!json.includes(cardNumber) && !json.includes(cardNumber.replace(/ /g, "")));
  await rawBeside(json, [cardNumber, "1 CANARY Street"]);
  const agent = JSON.parse(json);
  assert.equal(agent.structuredContent.plan, "Team");
  const shown = await reveal("get_billing_details", "Card number");
  assert.equal(shown.value, cardNumber);
});

test("search_messages: a block for the user's eyes only reaches the user view, never the agent", async () => {
  const json = await callAsAgent("search_messages");
  const { messageCode } = await last();
  noCanary(json);
  assert.ok(!json.includes(messageCode));
  await rawBeside(json, [messageCode]);
  assert.match(json, /Build passed/);
  assert.match(json, /"reason":"audience"/);
  // The user view has it behind Reveal (fed by onResult), bound to the handle the agent holds.
  const handle = JSON.parse(json).content.find((b) => b.type === "secret_reference" && b.label === "text for the user")?.handle;
  assert.match(handle ?? "", /^[0-9a-f]{32}$/, json);
  const item = page.locator(`#secrets li[data-kind="user_only"]:has(webmcp-secret[handle="${handle}"])`);
  assert.equal(await item.count(), 1);
  assert.ok(!(await page.locator("#secrets").innerText()).includes(messageCode), "hidden until revealed");
  const shown = await reveal("search_messages", "Private message");
  assert.equal(shown.error, null, shown.message);
  assert.match(shown.value, new RegExp(`sign-in code is ${messageCode}\\.$`));
  // Nothing the agent was given since holds it: the result, and the page's own copy of it.
  assert.ok(!(await page.getAttribute("#agent-json", "data-raw")).includes(messageCode));
  assert.ok(!(await page.textContent("#agent-json")).includes(messageCode));
  await shown.el.evaluate((e) => e.hide()); // as the user leaves it (the next test reveals the first element)
});

test("search_messages: a token no tool declared is caught by the detectors and vaulted", async () => {
  const json = await callAsAgent("search_messages");
  const { ciToken } = await last();
  assert.match(ciToken, /^ghp_CANARY[0-9A-Za-z]{30}$/);
  noCanary(json);
  await rawBeside(json, [ciToken]);
  assert.match(json, /The new CI token is \[redacted: GitHub token\]\. Update your runners\./);
  assert.match(json, /"reason":"detected:github_token"/);
  // Vaulted like any withheld value: the user can reveal it in the page.
  const { el, value } = await reveal("search_messages", "GitHub token");
  assert.equal(value, ciToken);
  // Hidden again, as the tests after this one expect to find it.
  await el.locator("button.reveal").click();
  await page.waitForFunction((e) => e.shadowRoot.querySelector(".value").textContent === "", await el.elementHandle(), { timeout: TIMEOUT });
});

test("the Reveal element is accessible: a real button, aria-live value and errors", async () => {
  const el = page.locator("webmcp-secret").first();
  const info = await el.evaluate((e) => {
    const r = e.shadowRoot;
    const b = r.querySelector("button.reveal");
    b.focus();
    return {
      tag: b.tagName,
      type: b.type,
      focused: r.activeElement === b,
      label: b.getAttribute("aria-label"),
      valueLive: r.querySelector(".value").getAttribute("aria-live"),
      errorLive: r.querySelector(".error").getAttribute("aria-live"),
      errorRole: r.querySelector(".error").getAttribute("role"),
    };
  });
  assert.deepEqual(
    { ...info, label: undefined },
    { tag: "BUTTON", type: "button", focused: true, label: undefined, valueLive: "polite", errorLive: "polite", errorRole: "status" },
  );
  assert.match(info.label, /^(Reveal|Hide) /);
  // Keyboard: Enter on the focused button reveals.
  await page.keyboard.press("Enter");
  await page.waitForFunction((e) => e.shadowRoot.querySelector(".value").textContent !== "" || e.dataset.error, await el.elementHandle(), { timeout: TIMEOUT });
});

/** Calls a tool as an agent does; returns the handle the agent got and the id of its result (from the user view). */
async function agentHandle(tool) {
  return page.evaluate(async (name) => {
    const tools = await document.modelContext.getTools();
    const text = await document.modelContext.executeTool(tools.find((t) => t.name === name), "{}");
    const handle = JSON.parse(text).content.find((b) => b.type === "secret_reference").handle;
    const shown = document.querySelector(`webmcp-secret[handle="${handle}"]`);
    return { handle, result: shown?.getAttribute("result") ?? null };
  }, tool);
}

test("the element reveals only a handle of the result it is bound to", async () => {
  const key = await agentHandle("generate_api_key");
  const other = await agentHandle("generate_api_key");
  assert.match(key.result ?? "", /^[0-9a-f]{32}$/, "the user view binds each element to its result");
  assert.notEqual(key.result, other.result);
  const tries = await page.evaluate(async ({ key, other }) => {
    const attempt = async (result) => {
      const el = document.createElement("webmcp-secret");
      el.setAttribute("handle", key.handle);
      if (result !== null) el.setAttribute("result", result);
      document.body.append(el);
      await el.reveal();
      const out = { label: el.shadowRoot.querySelector(".label").textContent, value: el.shadowRoot.querySelector(".value").textContent, error: el.dataset.error ?? null };
      el.remove();
      return out;
    };
    return { own: await attempt(key.result), other: await attempt(other.result), none: await attempt(null) };
  }, { key, other });
  assert.match(tries.own.value, /^sk_live_CANARY/);
  for (const t of [tries.other, tries.none]) assert.deepEqual(t, { label: "secret", value: "", error: "foreign_reference" });
});

test("the element hides the value again after hide-after seconds", async () => {
  const { handle, result } = await agentHandle("generate_api_key");
  const shownAndHidden = await page.evaluate(async ({ h, result }) => {
    const el = document.createElement("webmcp-secret");
    el.setAttribute("handle", h);
    el.setAttribute("result", result);
    el.setAttribute("hide-after", "0.2");
    document.body.append(el);
    await el.reveal();
    const shown = el.shadowRoot.querySelector(".value").textContent;
    await new Promise((r) => setTimeout(r, 400));
    const hidden = el.shadowRoot.querySelector(".value").textContent;
    el.remove();
    return { shown, hidden };
  }, { h: handle, result });
  assert.match(shownAndHidden.shown, /^sk_live_CANARY/);
  assert.equal(shownAndHidden.hidden, "");
});

test("pre-call check: a public post after reading billing details waits for the user (exfiltration)", async () => {
  const p = await openDemo(); // a fresh page session: the agent has seen nothing yet
  try {
    const start = await shownCheck(p);
    assert.equal(start.sensitivity, "none");

    // 1. Before any sensitive read: allowed, no rule applies, and the post is made.
    const first = await callAsAgent("post_to_forum", p);
    let shown = await shownCheck(p);
    assert.deepEqual(
      { tool: shown.tool, decision: shown.decision, shownDecision: shown.shownDecision, reasons: shown.reasons, posts: shown.posts, output: shown.output },
      { tool: "post_to_forum", decision: "allow", shownDecision: "allow", reasons: [], posts: 1, output: "result" },
    );
    assert.match(first, /Posted post_1 to the public forum/);

    // 2. The agent reads the billing details (a sensitive tool, output level high).
    const billing = await callAsAgent("get_billing_details", p);
    noCanary(billing);
    shown = await shownCheck(p);
    assert.equal(shown.decision, "allow");
    assert.equal(shown.sensitivity, "high");
    assert.equal(await p.evaluate(() => window.webmcpRedact.installed.session.labels().sensitivity), "high");

    // 3. The same post now needs the user's answer, in the built-in dialog: not called yet.
    const before = apiRequests(env.log).length;
    await p.evaluate(() => { delete document.getElementById("agent-json").dataset.tool; });
    await p.click('button[data-tool="post_to_forum"]');
    await p.waitForSelector('[data-testid="decision"][data-decision="confirm"]', { timeout: TIMEOUT });
    const dialog = p.locator("dialog.webmcp-confirm[open]");
    await dialog.waitFor({ state: "visible", timeout: TIMEOUT });
    shown = await shownCheck(p);
    assert.equal(shown.tool, "post_to_forum");
    assert.equal(shown.shownDecision, "confirm");
    assert.deepEqual(shown.reasons.map((r) => r.code), ["exfiltration"]);
    assert.match(shown.reasons[0].text, /sensitive data.*public destination/);
    assert.equal(shown.live, "polite");
    assert.equal(shown.sensitivity, "high");
    assert.equal(shown.confirmShown, true);
    assert.equal(shown.output, "pending");
    assert.equal(shown.outputTool, undefined, "the agent view got no result");
    assert.equal(shown.posts, 1, "post_to_forum was not called before the user confirmed");
    assert.equal((await rawView(p)).outcome, "pending", "no raw result: the tool has not run");
    assert.match(await p.textContent("#agent-json"), /has not been called/);
    // The dialog names the tool, where its input goes, and the reason in words.
    const said = await dialog.textContent();
    assert.match(said, /post_to_forum/);
    assert.match(said, /public place that anyone can read/);
    assert.match(said, /The session holds sensitive data, and this tool sends its input to a public destination/);
    await p.screenshot({ path: join(resultsDir(), "demo-exfiltration.png"), fullPage: true });
    // Still not called a moment later, and nothing went to the server meanwhile.
    await p.waitForTimeout(300);
    assert.equal((await shownCheck(p)).posts, 1);
    assert.equal(apiRequests(env.log).length, before);

    // 4. The user allows: the call runs and the agent gets its result.
    await dialog.getByRole("button", { name: "Allow post_to_forum", exact: true }).click();
    await p.waitForFunction(() => document.getElementById("agent-json").dataset.tool === "post_to_forum", null, { timeout: TIMEOUT });
    shown = await shownCheck(p);
    assert.deepEqual({ output: shown.output, posts: shown.posts, confirmShown: shown.confirmShown }, { output: "result", posts: 2, confirmShown: false });
    assert.match(await p.getAttribute("#agent-json", "data-raw"), /Posted post_2 to the public forum/);

    // Declined: asked again, the user says no; the call is not made, the agent gets an error.
    await p.click('button[data-tool="post_to_forum"]');
    await dialog.waitFor({ state: "visible", timeout: TIMEOUT });
    await dialog.getByRole("button", { name: "Don't allow post_to_forum", exact: true }).click();
    await p.waitForFunction(() => document.getElementById("agent-json").dataset.outcome === "declined", null, { timeout: TIMEOUT });
    assert.equal((await shownCheck(p)).posts, 2);
    const declined = JSON.parse(await p.getAttribute("#agent-json", "data-raw"));
    assert.equal(declined.isError, true);
    assert.match(declined.content[0].text, /the user declined it \(exfiltration\)/);

    // The agent calls executeTool directly (no page button, no preview): still asked.
    const direct = p.evaluate(async () => {
      const tools = await document.modelContext.getTools();
      return document.modelContext.executeTool(tools.find((t) => t.name === "post_to_forum"), JSON.stringify({ text: "direct" }));
    });
    await dialog.waitFor({ state: "visible", timeout: TIMEOUT });
    await dialog.getByRole("button", { name: "Don't allow post_to_forum", exact: true }).click();
    assert.match(await direct, /not made/);
    assert.equal((await shownCheck(p)).posts, 2, "the forum got nothing");

    // Denied: the card number (which the vault holds) in the post is a secret leaving: never called, never asked.
    const { cardNumber } = await last();
    await p.fill('textarea[aria-label="Input for post_to_forum"]', JSON.stringify({ text: `my card is ${cardNumber}` }));
    await p.click('button[data-tool="post_to_forum"]');
    await p.waitForFunction(() => document.getElementById("agent-json").dataset.outcome === "denied", null, { timeout: TIMEOUT });
    shown = await shownCheck(p);
    assert.equal(shown.decision, "deny");
    assert.deepEqual(shown.reasons.map((r) => r.code), ["exfiltration", "secret_egress"]);
    assert.deepEqual({ posts: shown.posts, confirmShown: shown.confirmShown }, { posts: 2, confirmShown: false });
    const denied = await p.getAttribute("#agent-json", "data-raw");
    assert.match(denied, /secret_egress/);
    assert.ok(!denied.includes(cardNumber));
    // And directly, with the card number pasted by an agent that calls executeTool itself.
    const sent = await p.evaluate(async (card) => {
      const tools = await document.modelContext.getTools();
      const text = await document.modelContext.executeTool(tools.find((t) => t.name === "post_to_forum"), JSON.stringify({ text: card }));
      return { text, posts: window.webmcpRedact.forumPosts.map((x) => x.text) };
    }, cardNumber);
    assert.match(sent.text, /secret_egress/);
    assert.ok(!sent.posts.some((t) => t.includes(cardNumber)), "no post holds the card number");
  } finally {
    await p.close();
  }
});

test("the consent dialog is accessible: a named dialog, focus inside, Tab stays inside, Escape declines", async () => {
  const p = await openDemo();
  try {
    await callAsAgent("get_billing_details", p); // the session now holds sensitive data
    await p.click('button[data-tool="post_to_forum"]');
    const dialog = p.getByRole("dialog", { name: "Let the agent call post_to_forum?" });
    await dialog.waitFor({ state: "visible", timeout: TIMEOUT });
    const focus = () => p.evaluate(() => {
      const d = (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm[open]");
      // In the dialog's shadow root the document's active element is its host: ask the root.
      const at = d.getRootNode().activeElement;
      return { inside: d.contains(at), label: at?.getAttribute("aria-label") ?? at?.tagName };
    });
    assert.deepEqual(await focus(), { inside: true, label: "Don't allow post_to_forum" }, "the safe answer has the focus");
    assert.equal(await p.locator("dialog.webmcp-confirm").count(), 1);
    assert.ok(await p.evaluate(() => (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelector("dialog.webmcp-confirm").getAttribute("aria-describedby")));
    for (let i = 0; i < 6; i++) {
      await p.keyboard.press("Tab");
      assert.equal((await focus()).inside, true, `Tab ${i + 1} left the dialog`);
    }
    for (let i = 0; i < 3; i++) {
      await p.keyboard.press("Shift+Tab");
      assert.equal((await focus()).inside, true, `Shift+Tab ${i + 1} left the dialog`);
    }
    await p.keyboard.press("Escape");
    await p.waitForFunction(() => document.getElementById("agent-json").dataset.outcome === "declined", null, { timeout: TIMEOUT });
    assert.equal(await p.locator("dialog.webmcp-confirm").count(), 0, "the dialog is gone");
    assert.equal(await p.evaluate(() => window.webmcpRedact.forumPosts.length), 0, "Escape declined: nothing posted");
    // Focus goes back to where it was.
    assert.equal(await p.evaluate(() => document.activeElement?.dataset.tool), "post_to_forum");
  } finally {
    await p.close();
  }
});

test("concurrent calls queue their questions: one dialog at a time", async () => {
  const p = await openDemo();
  try {
    await callAsAgent("get_billing_details", p);
    const both = p.evaluate(async () => {
      const tools = await document.modelContext.getTools();
      const post = tools.find((t) => t.name === "post_to_forum");
      return Promise.all(["one", "two"].map((text) => document.modelContext.executeTool(post, JSON.stringify({ text }))));
    });
    const dialog = p.locator("dialog.webmcp-confirm[open]");
    await dialog.waitFor({ state: "visible", timeout: TIMEOUT });
    assert.equal(await p.locator("dialog.webmcp-confirm").count(), 1, "not stacked");
    await dialog.getByRole("button", { name: "Allow post_to_forum", exact: true }).click();
    await p.waitForFunction(() => (document.querySelector(".webmcp-confirm-host")?.shadowRoot ?? document).querySelectorAll("dialog.webmcp-confirm[open]").length === 1 && window.webmcpRedact.forumPosts.length === 1, null, { timeout: TIMEOUT });
    await dialog.getByRole("button", { name: "Don't allow post_to_forum", exact: true }).click();
    const [first, second] = await both;
    assert.match(first, /Posted post_1/);
    assert.match(second, /not made/);
    assert.deepEqual(await p.evaluate(() => window.webmcpRedact.forumPosts.map((x) => x.text)), ["one"]);
  } finally {
    await p.close();
  }
});

test("deploy_with_key uses the API key by reference: asked the first time, not the second, never in the agent's view", async () => {
  const p = await openDemo();
  try {
    const keyJson = await callAsAgent("generate_api_key", p);
    const { apiKey } = await last();
    assert.ok(!keyJson.includes(apiKey));
    const handle = JSON.parse(keyJson).content.find((b) => b.type === "secret_reference").handle;
    // The page filled in what an agent would write.
    const input = await p.inputValue('textarea[aria-label="Input for deploy_with_key"]');
    assert.deepEqual(JSON.parse(input), { key: `{{secret:${handle}}}`, environment: "staging" });

    await p.evaluate(() => { delete document.getElementById("agent-json").dataset.tool; });
    await p.click('button[data-tool="deploy_with_key"]');
    const dialog = p.locator("dialog.webmcp-confirm[open]");
    await dialog.waitFor({ state: "visible", timeout: TIMEOUT });
    const said = await dialog.textContent();
    assert.match(said, /deploy_with_key/);
    assert.match(said, /by reference/);
    assert.match(said, /this service only \(internal\)/);
    assert.match(said, /your API key/);
    assert.ok(!said.includes(apiKey), "the dialog never shows the key");
    assert.deepEqual(await p.evaluate(() => window.webmcpRedact.deploys.length), 0);
    await dialog.getByRole("button", { name: "Allow deploy_with_key", exact: true }).click();
    await p.waitForFunction(() => document.getElementById("agent-json").dataset.tool === "deploy_with_key", null, { timeout: TIMEOUT });
    const first = await p.getAttribute("#agent-json", "data-raw");
    assert.ok(!first.includes(apiKey), `the key reached the agent: ${first}`);
    assert.match(first, /Deployed deploy_1 to staging with key \[redacted: /);
    assert.deepEqual(await p.evaluate(() => window.webmcpRedact.deploys.map((d) => d.key)), [apiKey], "the tool got the real key");

    // The second use of this key with this tool is not asked.
    const second = await callAsAgent("deploy_with_key", p);
    assert.equal(await p.locator("dialog.webmcp-confirm").count(), 0);
    assert.ok(!second.includes(apiKey));
    assert.equal(await p.evaluate(() => window.webmcpRedact.deploys.length), 2);

    // The same reference to the public forum is refused: never called, never asked.
    await p.fill('textarea[aria-label="Input for post_to_forum"]', JSON.stringify({ text: `{{secret:${handle}}}` }));
    await p.click('button[data-tool="post_to_forum"]');
    await p.waitForFunction(() => document.getElementById("agent-json").dataset.outcome === "denied", null, { timeout: TIMEOUT });
    assert.match(await p.getAttribute("#agent-json", "data-raw"), /secret_reference_refused/);
    assert.equal(await p.evaluate(() => window.webmcpRedact.forumPosts.length), 0);
  } finally {
    await p.close();
  }
});
