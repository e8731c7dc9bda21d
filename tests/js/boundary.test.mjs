// The boundary between JS and the core: one redactor object, one error channel, the known-secret
// set in the core, and the texts and words that only the core defines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRedactor, RedactionError } from "webmcp-redact";
import * as engine from "../../js/engine.js";
import { redactionError, withheldJson } from "../../js/errors.js";
import { CANARY, apiKeyTool, apiKeyRaw, plainTool, trapOnce } from "./helpers.mjs";

const loginTool = {
  name: "read_login",
  outputSchema: { type: "object", properties: { id: { type: "string" }, login: { "x-sensitive": true } } },
};
const postTool = { name: "post_to_forum", annotations: { readOnlyHint: false, openWorldHint: true } };
const textResult = (text) => ({ content: [{ type: "text", text }] });

test("a bad option, a bad policy and bad labels leave the instance alive and cached tools usable", async () => {
  const r = await createRedactor();
  r.compile(apiKeyTool);
  const session = r.session();
  const before = engine.generation;
  for (const [options, kind] of [
    [{ limits: { maxDepth: 0 } }, RangeError],
    [{ limits: { maxDepth: NaN } }, RangeError],
    [{ format: "json" }, RangeError],
    [{ policy: { withholdAt: "max" } }, TypeError],
    [{ policy: { rules: { exfiltration: "maybe" } } }, TypeError],
    [{ vault: { ttl: () => 1 } }, TypeError],
    [{ limits: { maxDepth: 10n } }, TypeError],
  ]) {
    const err = await createRedactor(options).then(() => null, (e) => e);
    assert.ok(err instanceof kind, `${JSON.stringify(options, (_, v) => typeof v === "bigint" ? `${v}n` : v)}: ${err}`);
    assert.equal(err.code, "invalid_options");
    assert.match(err.message, /^createRedactor: /);
  }
  for (const labels of [{ sensitivity: "max" }, { private: "yes" }, { attribution: [1] }, 7]) {
    assert.throws(() => session.restore(labels), TypeError, JSON.stringify(labels));
  }
  assert.throws(() => r.compile({ name: "bad", outputSchema: { properties: { a: { "x-sensitive": 5 } } } }), RedactionError);
  assert.equal(engine.generation, before, "no expected error replaced the instance");
  const out = r.redact(apiKeyTool, apiKeyRaw());
  assert.equal(out.error, undefined);
  assert.equal(r.vault.reveal(out.result.content[1].handle), CANARY);
  assert.equal(session.redact(plainTool, textResult("fine")).error, undefined);
});

test("the core's errors reach JS as real RedactionErrors with code, pointer and tool", async () => {
  const r = await createRedactor();
  const bad = { name: "bad_tool", outputSchema: { properties: { a: { $ref: "https://evil.example/s.json" } } } };
  const err = (() => {
    try {
      r.compile(bad);
    } catch (e) {
      return e;
    }
  })();
  assert.ok(err instanceof RedactionError && err instanceof Error);
  assert.equal(err.name, "RedactionError");
  assert.deepEqual([err.code, err.pointer, err.tool], ["remote_ref", "/outputSchema/properties/a/$ref", "bad_tool"]);
  assert.match(err.message, /^tool "bad_tool": remote_ref at \/outputSchema\/properties\/a\/\$ref: /);
  const out = r.redactJson(bad, "{}");
  assert.ok(out.error instanceof RedactionError);
  assert.equal(out.error.code, "remote_ref");
  assert.equal(out.json, withheldJson("bad_tool", "remote_ref"));
});

test("a nested secret, a marked number and a reference id are scrubbed from later results of any tool", async () => {
  const r = await createRedactor();
  const session = r.session();
  session.redact(loginTool, { id: "u1", login: { user: "ann", password: "hunter2-CANARY-NESTED", pin: 73914 } });
  const later = session.redact(plainTool, textResult("pw hunter2-CANARY-NESTED, pin 73914"));
  const text = later.result.content[0].text;
  assert.equal(text.includes("hunter2-CANARY-NESTED") || text.includes("73914"), false, text);
  assert.ok(later.redactions.length > 0 && later.redactions.every((x) => x.reason === "value_match"));

  const ref = { type: "secret_reference", id: "ref-CANARY-ID-1", label: "Deploy token", redeemUrl: "/api/redeem/ref-CANARY-ID-1" };
  r.redact(plainTool, { content: [ref] });
  const echoed = r.redactJson(plainTool, JSON.stringify(textResult("id was ref-CANARY-ID-1")));
  assert.equal(echoed.json.includes("ref-CANARY-ID-1"), false, echoed.json);

  const check = session.check(postTool, { body: "here: hunter2-CANARY-NESTED" });
  assert.equal(check.decision, "deny");
  assert.ok(check.reasons.some((x) => x.code === "secret_egress"));
});

test("vault.delete forgets what only its entry held, vault.clear forgets all, expiry forgets nothing", async () => {
  const r = await createRedactor({ vault: { ttl: 0.001 } });
  const first = r.redact(apiKeyTool, { id: "1", secret: "sk_live_CANARY_A" });
  const second = r.redact(apiKeyTool, { id: "2", secret: "sk_live_CANARY_B" });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(r.vault.size, 0, "both entries expired");
  const scrubbed = (value) => !r.redactJson(plainTool, JSON.stringify(textResult(`x ${value} y`))).json.includes(value);
  assert.ok(scrubbed("sk_live_CANARY_A") && scrubbed("sk_live_CANARY_B"), "expiry does not forget");

  const keep = await createRedactor();
  const a = keep.redact(apiKeyTool, { id: "1", secret: "sk_live_CANARY_A" }).result.content[1].handle;
  const b = keep.redact(apiKeyTool, { id: "2", secret: "sk_live_CANARY_B" }).result.content[1].handle;
  const shared = keep.redact(apiKeyTool, { id: "3", secret: "sk_live_CANARY_B" }).result.content[1].handle;
  const seen = (value) => keep.redactJson(plainTool, JSON.stringify(textResult(`x ${value} y`))).json.includes(value);
  keep.vault.delete(a);
  assert.equal(seen("sk_live_CANARY_A"), true, "deleted: no longer scrubbed");
  keep.vault.delete(b);
  assert.equal(seen("sk_live_CANARY_B"), false, "another entry still holds it");
  keep.vault.delete(shared);
  assert.equal(seen("sk_live_CANARY_B"), true);
  keep.redact(apiKeyTool, { id: "4", secret: "sk_live_CANARY_C" });
  keep.vault.clear();
  assert.equal(seen("sk_live_CANARY_C"), true);
  assert.equal(keep.vault.size, 0);
});

test("after a trap, the fresh core still knows every secret and every session keeps its labels", async () => {
  const r = await createRedactor();
  const session = r.session();
  session.redact(loginTool, { id: "u1", login: { password: "hunter2-CANARY-TRAP" } });
  session.redact(plainTool, { content: [], _meta: { privateHint: true, attribution: ["mail.example"] } });
  const labels = session.labels();
  const restore = trapOnce();
  const trapped = r.redact(apiKeyTool, apiKeyRaw());
  restore();
  assert.equal(trapped.error?.code, "internal");
  const later = session.redact(plainTool, textResult("pw hunter2-CANARY-TRAP"));
  assert.equal(later.error, undefined);
  assert.equal(later.result.content[0].text.includes("hunter2-CANARY-TRAP"), false);
  assert.deepEqual(session.labels(), labels);
  assert.equal(session.check(postTool, { body: "hunter2-CANARY-TRAP" }).decision, "deny");
});

test("session.restore sets the labels a later check reads; reset is the only other way down", async () => {
  const r = await createRedactor();
  const s = r.session();
  s.restore({ sensitivity: "high", private: true, openWorld: false, malicious: false, attribution: ["x.example"] });
  assert.deepEqual(s.labels(), { sensitivity: "high", private: true, openWorld: false, malicious: false, attribution: ["x.example"] });
  assert.ok(s.check(postTool, { body: "hello" }).reasons.some((x) => x.code === "exfiltration"));
  s.reset();
  assert.equal(s.labels().sensitivity, "none");
});

test("the JS fallbacks write exactly what the core writes", async () => {
  await createRedactor();
  const vocabulary = JSON.parse(engine.call("", (glue) => glue.vocabulary()));
  for (const code of vocabulary.errorCodes) {
    for (const tool of ["t", "name with \"quotes\" and \\ and é"]) {
      assert.equal(withheldJson(tool, code), engine.call("", (glue) => glue.withheldJson(tool, code)));
    }
  }
  const r = await createRedactor();
  const out = r.redactJson(plainTool, 42);
  assert.equal(out.error.message, redactionError("invalid_json", "plain_tool", "", "the result text must be a string").message);
});

/** The members of `export type Name = "a" | "b" ...;` in index.d.ts. */
function union(dts, name) {
  const m = dts.replace(/\/\*[\s\S]*?\*\//g, "").match(new RegExp(`export type ${name} =([^;]*);`));
  assert.ok(m, `index.d.ts has no type ${name}`);
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]).sort();
}

test("the unions in index.d.ts are exactly the core's words", async () => {
  await createRedactor();
  const v = JSON.parse(engine.call("", (glue) => glue.vocabulary()));
  const dts = readFileSync(new URL("../../js/index.d.ts", import.meta.url), "utf8");
  const sorted = (xs) => [...xs].sort();
  assert.deepEqual(union(dts, "ErrorCode"), sorted(v.errorCodes));
  assert.deepEqual(union(dts, "Reason"), sorted(v.reasons));
  assert.deepEqual(union(dts, "CheckCode"), sorted(v.checkCodes));
  assert.deepEqual(union(dts, "Decision"), sorted(v.decisions));
  assert.deepEqual(union(dts, "Level"), sorted(v.levels));
  assert.deepEqual(union(dts, "DataClass"), sorted(v.classes));
  assert.deepEqual(union(dts, "Format"), sorted(v.formats));
  assert.deepEqual(union(dts, "DetectKind"), sorted(v.detectKinds));
  const limits = dts.match(/maxDepth\?: number;/);
  assert.ok(limits, "Limits documents maxDepth");
  assert.match(dts, new RegExp(`Default ${v.limits.maxDepth[0]}, at most ${v.limits.maxDepth[1]}`));
});
