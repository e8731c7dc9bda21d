// Checks enforced on the agent's path (installRedaction and wrapTool run the session's check
// before execute: allow runs, deny answers isError without calling, confirm asks the page's
// callback, fail closed) and secret use by reference ({{secret:<handle>}} put in place only for
// a tool that accepts credentials, a handle this page's vault holds, and after the policy's yes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor, installRedaction } from "webmcp-redact";
import { substitute } from "../../js/enforce.js";
import { CANARY, apiKeyTool, apiKeyRaw, fakeContext } from "./helpers.mjs";

// Not destructive, said outright: MCP's default for a tool that is not read-only is destructive,
// which would add `irreversible` to every answer here.
const publicPost = { name: "post_to_forum", annotations: { destructiveHint: false, inputMetadata: { Destination: "Public" } } };
const destructive = { name: "delete_all", annotations: { destructiveHint: true } };
const readOnly = { name: "read_news", annotations: { readOnlyHint: true } };
const sink = { name: "deploy_with_key", annotations: { destructiveHint: false, inputMetadata: { Sensitivity: ["Credentials"], Destination: "Internal" } } };
const text = (t) => ({ content: [{ type: "text", text: t }] });

/** A tool whose execute records its calls. */
function spy(def, answer = text("done")) {
  const calls = [];
  return { calls, tool: { ...def, async execute(args) { calls.push(args); return typeof answer === "function" ? answer(args) : answer; } } };
}

async function installed(options = {}) {
  const ctx = fakeContext();
  const uninstall = await installRedaction({ modelContext: ctx, ...options });
  return { ctx, uninstall };
}

/** A page that has shown the agent an API key: the key tool is called once. Returns its handle. */
async function withKey(ctx) {
  await ctx.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
  const out = await ctx.call("generate_api_key", {});
  return out.content.find((b) => b.type === "secret_reference").handle;
}

test("allow runs the tool; its result is redacted as before", async () => {
  const { ctx } = await installed({ confirm: () => assert.fail("nothing to ask") });
  const { calls, tool } = spy(readOnly, text(`news ${CANARY}`));
  await ctx.registerTool(tool);
  const out = await ctx.call("read_news", { q: "x" });
  assert.deepEqual(calls, [{ q: "x" }]);
  assert.equal(out.isError, undefined);
});

test("deny never calls execute: secret_egress, through redaction, naming the code", async () => {
  const asked = [];
  const { ctx } = await installed({ confirm: (r) => { asked.push(r); return true; } });
  await withKey(ctx);
  const { calls, tool } = spy({ name: "send", annotations: { readOnlyHint: false, destructiveHint: false } });
  await ctx.registerTool(tool);
  const out = await ctx.call("send", { body: `key: ${CANARY}` });
  assert.deepEqual(calls, [], "the tool never ran");
  assert.equal(asked.length, 0, "a deny asks nobody");
  assert.equal(out.isError, true);
  assert.match(out.content[0].text, /not made: the page's policy denied it \(secret_egress\)/);
  assert.ok(!JSON.stringify(out).includes(CANARY));
});

test("confirm asks the page's callback: true runs, false / throw / non-true never run", async () => {
  for (const [answer, runs] of [
    [() => true, true],
    [async () => true, true],
    [() => false, false],
    [() => { throw new Error("boom"); }, false],
    [async () => { throw new Error("boom"); }, false],
    [() => "yes", false],
    [() => 1, false],
    [() => undefined, false],
  ]) {
    const asked = [];
    const { ctx } = await installed({ confirm: (req) => { asked.push(req); return answer(); } });
    const { calls, tool } = spy(destructive);
    await ctx.registerTool(tool);
    const out = await ctx.call("delete_all", { what: "everything" });
    assert.equal(asked.length, 1, String(answer));
    assert.deepEqual(asked[0].reasons.map((r) => r.code), ["irreversible"]);
    assert.equal(asked[0].tool, "delete_all");
    assert.deepEqual(asked[0].args, { what: "everything" });
    assert.equal(calls.length, runs ? 1 : 0, String(answer));
    if (!runs) {
      assert.equal(out.isError, true);
      assert.match(out.content[0].text, /the user declined it \(irreversible\)/);
    }
  }
});

test("without a callback and without a document, confirm is a decline", async () => {
  const { ctx } = await installed();
  const { calls, tool } = spy(destructive);
  await ctx.registerTool(tool);
  const out = await ctx.call("delete_all", {});
  assert.equal(calls.length, 0);
  assert.equal(out.isError, true);
});

test("the callback never sees a value the vault knows, and the destination is named", async () => {
  const asked = [];
  const { ctx } = await installed({ confirm: (r) => { asked.push(r); return false; }, policy: { rules: { secret_egress: "confirm" } } });
  await withKey(ctx);
  const { tool } = spy(publicPost);
  await ctx.registerTool(tool);
  await ctx.call("post_to_forum", { text: `look: ${CANARY}`, [CANARY]: [CANARY] });
  assert.equal(asked.length, 1);
  assert.ok(!JSON.stringify(asked[0]).includes(CANARY), JSON.stringify(asked[0]));
  assert.match(asked[0].args.text, /^look: \[redacted: /);
  assert.equal(asked[0].destination, "public");
});

test("policy.rules: off drops a rule, allow runs, deny refuses", async () => {
  for (const [rule, runs] of [["off", true], ["allow", true], ["deny", false]]) {
    const { ctx } = await installed({ confirm: () => assert.fail("not asked"), policy: { rules: { irreversible: rule } } });
    const { calls, tool } = spy(destructive);
    await ctx.registerTool(tool);
    await ctx.call("delete_all", {});
    assert.equal(calls.length, runs ? 1 : 0, rule);
  }
});

test("concurrent confirms queue: one question at a time, in order", async () => {
  let open = 0;
  let most = 0;
  const order = [];
  const confirm = async (req) => {
    open += 1;
    most = Math.max(most, open);
    order.push(req.args.n);
    await new Promise((r) => setImmediate(r));
    open -= 1;
    return req.args.n !== 2;
  };
  const { ctx } = await installed({ confirm });
  const { calls, tool } = spy(destructive);
  await ctx.registerTool(tool);
  const outs = await Promise.all([1, 2, 3].map((n) => ctx.call("delete_all", { n })));
  assert.equal(most, 1, "never two questions open");
  assert.deepEqual(order, [1, 2, 3]);
  assert.deepEqual(calls.map((c) => c.n), [1, 3]);
  assert.equal(outs[1].isError, true);
});

test("confirm must be a function", async () => {
  await assert.rejects(installRedaction({ modelContext: fakeContext(), confirm: true }), TypeError);
  await assert.rejects(createRedactor({ confirm: "yes" }), (e) => e instanceof TypeError && e.code === "invalid_options");
});

test("wrapTool enforces too, in one session shared by the tools it wrapped", async () => {
  const asked = [];
  const r = await createRedactor({ confirm: (req) => { asked.push(req); return false; } });
  const billing = r.wrapTool({ name: "billing", annotations: { readOnlyHint: true, sensitiveHint: true }, execute: async () => text("Visa 4111") });
  const post = spy(publicPost);
  const wrappedPost = r.wrapTool(post.tool);
  assert.equal((await wrappedPost.execute({ text: "hi" })).isError, undefined, "nothing sensitive seen yet: allowed");
  await billing.execute({});
  const out = await wrappedPost.execute({ text: "hi again" });
  assert.deepEqual(asked.map((a) => a.reasons.map((x) => x.code)), [["exfiltration"]]);
  assert.equal(out.isError, true);
  assert.deepEqual(post.calls, [{ text: "hi" }]);
});

test("substitute: whole string, inside a string, nested, several; keys and unknown handles untouched", () => {
  const values = new Map([["aa", "VALUE1"], ["bb", "VALUE2"]]);
  const args = {
    whole: "{{secret:aa}}",
    inside: "Bearer {{secret:aa}}!",
    nested: [{ deep: ["x {{secret:aa}} y {{secret:bb}} z"] }],
    "{{secret:aa}}": "key stays",
    unknown: "{{secret:cc}}",
    unclosed: "{{secret:aa",
    n: 5,
    none: null,
  };
  assert.deepEqual(substitute(args, values), {
    whole: "VALUE1",
    inside: "Bearer VALUE1!",
    nested: [{ deep: ["x VALUE1 y VALUE2 z"] }],
    "{{secret:aa}}": "key stays",
    unknown: "{{secret:cc}}",
    unclosed: "{{secret:aa",
    n: 5,
    none: null,
  });
  // The text put in is not read again.
  assert.equal(substitute("{{secret:aa}}", new Map([["aa", "{{secret:bb}}"], ["bb", "NO"]])), "{{secret:bb}}");
});

test("secret by reference: asked once per (handle, tool), then allowed; the tool gets the value, the agent never", async () => {
  const asked = [];
  const { ctx } = await installed({ confirm: (r) => { asked.push(r); return true; } });
  const handle = await withKey(ctx);
  const deploy = spy(sink, (args) => text(`deployed with ${args.key}`));
  await ctx.registerTool(deploy.tool);
  const args = { key: `{{secret:${handle}}}`, note: [`auth={{secret:${handle}}};x`] };
  const first = await ctx.call("deploy_with_key", args);
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0].reasons.map((r) => r.code), ["secret_reference"]);
  assert.deepEqual(asked[0].secrets, ["secret"]);
  assert.ok(!JSON.stringify(asked[0]).includes(CANARY));
  assert.deepEqual(deploy.calls, [{ key: CANARY, note: [`auth=${CANARY};x`] }]);
  assert.ok(!JSON.stringify(first).includes(CANARY), "the result is scrubbed of the value");
  assert.match(JSON.stringify(first), /deployed with \[redacted: /);
  await ctx.call("deploy_with_key", { key: `{{secret:${handle}}}` });
  assert.equal(asked.length, 1, "the second use with this tool is not asked");
  assert.equal(deploy.calls.length, 2);
  // The same handle with another accepting tool is asked again.
  const other = spy({ ...sink, name: "rotate_with_key" });
  await ctx.registerTool(other.tool);
  await ctx.call("rotate_with_key", { key: `{{secret:${handle}}}` });
  assert.equal(asked.length, 2);
});

test("secret by reference: declined, refused anywhere else, never the value", async () => {
  const asked = [];
  const { ctx } = await installed({ confirm: (r) => { asked.push(r); return false; } });
  const handle = await withKey(ctx);
  const deploy = spy(sink);
  const post = spy(publicPost);
  await ctx.registerTool(deploy.tool);
  await ctx.registerTool(post.tool);
  const declined = await ctx.call("deploy_with_key", { key: `{{secret:${handle}}}` });
  assert.equal(declined.isError, true);
  assert.deepEqual(deploy.calls, []);
  for (const [name, args] of [
    ["post_to_forum", { text: `{{secret:${handle}}}` }],
    ["deploy_with_key", { key: "{{secret:0123456789abcdef0123456789abcdef}}" }],
    ["deploy_with_key", { key: `{{secret:${handle}` }],
    ["deploy_with_key", { [`{{secret:${handle}}}`]: "x" }],
  ]) {
    const out = await ctx.call(name, args);
    assert.equal(out.isError, true, JSON.stringify(args));
    assert.match(out.content[0].text, /secret_reference_refused/, JSON.stringify(args));
  }
  assert.deepEqual(deploy.calls, []);
  assert.deepEqual(post.calls, []);
  assert.equal(asked.length, 1, "refusals ask nobody");
});

test("a handle issued by another redactor (another page's vault) is unknown here", async () => {
  const elsewhere = await createRedactor();
  const foreign = elsewhere.redact(apiKeyTool, apiKeyRaw()).result.content[1].handle;
  const { ctx } = await installed({ confirm: () => true });
  const deploy = spy(sink);
  await ctx.registerTool(deploy.tool);
  const out = await ctx.call("deploy_with_key", { key: `{{secret:${foreign}}}` });
  assert.match(out.content[0].text, /secret_reference_refused/);
  assert.deepEqual(deploy.calls, []);
});

test("a deleted handle is refused; secret_egress still fires for a pasted value, not for a reference", async () => {
  const { ctx, uninstall } = await installed({ confirm: () => true });
  const handle = await withKey(ctx);
  const session = uninstall.session;
  const send = { name: "send", annotations: { readOnlyHint: false, destructiveHint: false } };
  assert.deepEqual(session.check(send, { body: CANARY }).reasons.map((r) => r.code), ["secret_egress"]);
  const ref = session.check(sink, { key: `{{secret:${handle}}}` });
  assert.deepEqual([ref.decision, ref.reasons.map((r) => r.code), ref.references], ["confirm", ["secret_reference"], [handle]]);
  uninstall.redactor.vault.delete(handle);
  const gone = session.check(sink, { key: `{{secret:${handle}}}` });
  assert.deepEqual([gone.decision, gone.reasons.map((r) => r.code)], ["deny", ["secret_reference_refused"]]);
});

test("a refused call of a sensitive tool: the agent is told why, and the session's labels do not rise", async () => {
  const { ctx, uninstall } = await installed({ confirm: () => false });
  const { calls, tool } = spy({ name: "wipe_inbox", annotations: { sensitiveHint: true, destructiveHint: true } });
  await ctx.registerTool(tool);
  const out = await ctx.call("wipe_inbox", {});
  assert.deepEqual(calls, []);
  assert.match(out.content[0].text, /The call to wipe_inbox was not made: the user declined it \(irreversible\)/);
  assert.equal(uninstall.session.labels().sensitivity, "none", "nothing was read");
  assert.equal(uninstall.redactor.vault.size, 0, "the refusal is not a secret");
});
