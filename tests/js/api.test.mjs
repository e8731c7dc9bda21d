import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRedactor, RedactionError } from "webmcp-redact";
import { CANARY, HANDLE, apiKeyTool, apiKeyRaw, plainTool, withheldText } from "./helpers.mjs";

test("the package exports createRedactor and RedactionError, and the types declare them", () => {
  assert.equal(typeof createRedactor, "function");
  assert.equal(typeof RedactionError, "function");
  const dts = readFileSync(new URL("../../js/index.d.ts", import.meta.url), "utf8");
  assert.match(dts, /export function createRedactor\(/);
  assert.match(dts, /export class RedactionError extends Error/);
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  assert.equal(pkg.exports["."].types, "./js/index.d.ts");
  assert.equal(pkg.bin["webmcp-redact"], "bin/webmcp-redact.mjs");
});

test("a redactor has the documented methods and an empty vault", async () => {
  const r = await createRedactor();
  for (const m of ["compile", "redact", "redactJson", "wrapTool"]) assert.equal(typeof r[m], "function", m);
  for (const m of ["reveal", "get", "entries", "delete", "clear"]) assert.equal(typeof r.vault[m], "function", m);
  assert.equal(r.vault.size, 0);
  assert.equal(r.format, "webmcp");
  assert.equal((await createRedactor({ format: "mcp" })).format, "mcp");
});

test("the API-key example: secret replaced by a stub, report and vault filled", async () => {
  const r = await createRedactor();
  const out = r.redact(apiKeyTool, apiKeyRaw());
  const { content, structuredContent, _meta } = out.result;

  assert.equal(out.withheld, false);
  assert.equal(out.error, undefined);
  assert.equal(content.length, 3);
  assert.deepEqual(content[0], { type: "text", text: '{"id":"key_1","name":"prod"}' });
  assert.equal(content[1].type, "secret_reference");
  assert.equal(content[1].label, "secret");
  assert.match(content[1].handle, HANDLE);
  assert.deepEqual(Object.keys(content[1]).sort(), ["handle", "label", "type"]);
  assert.equal(content[2].type, "text");
  assert.match(content[2].text, /secret/);
  assert.deepEqual(structuredContent, { id: "key_1", name: "prod" });
  assert.deepEqual(_meta["webmcp-redact/redactions"], [{ pointer: "/secret", reason: "x_sensitive", label: "secret" }]);

  assert.deepEqual(out.redactions, [{ pointer: "/secret", reason: "x_sensitive", label: "secret", handle: content[1].handle }]);
  assert.equal(JSON.stringify(out).includes("CANARY"), false, "the canary is nowhere in what redact returns");
  assert.equal(r.vault.size, 1);
  assert.equal(r.vault.reveal(content[1].handle), CANARY);
  assert.deepEqual(r.vault.get(content[1].handle), { handle: content[1].handle, label: "secret", kind: "value", value: CANARY });
  assert.equal(r.vault.reveal("0".repeat(32)), undefined);
});

test("handles are fresh random values each time", async () => {
  const r = await createRedactor();
  const a = r.redact(apiKeyTool, apiKeyRaw()).redactions[0].handle;
  const b = r.redact(apiKeyTool, apiKeyRaw()).redactions[0].handle;
  assert.match(a, HANDLE);
  assert.notEqual(a, b);
  assert.equal(r.vault.size, 2);
  assert.deepEqual(r.vault.entries().map((e) => e.handle), [a, b]);
  assert.equal(r.vault.delete(a), true);
  assert.equal(r.vault.reveal(a), undefined);
  r.vault.clear();
  assert.equal(r.vault.size, 0);
});

test("redactJson: passes an unmarked result through byte for byte, and is idempotent", async () => {
  const r = await createRedactor();
  const text = '{ "b": 1.50, "a": [12345678901234567890, "x"] }';
  const plain = r.redactJson(plainTool, text);
  assert.equal(plain.json, text);
  assert.deepEqual(plain.redactions, []);
  assert.equal(plain.withheld, false);

  const first = r.redactJson(apiKeyTool, JSON.stringify(apiKeyRaw()));
  assert.equal(first.json.includes(CANARY), false);
  assert.equal(first.redactions.length, 1);
  const again = r.redactJson(apiKeyTool, first.json);
  assert.equal(again.json, first.json);
  assert.deepEqual(again.redactions, []);
});

test("a top-level undefined is redacted as null", async () => {
  const r = await createRedactor();
  const out = r.redact(plainTool, undefined);
  assert.equal(out.result, null);
  assert.equal(out.withheld, false);
});

test("values in the vault are scrubbed from later results of any tool", async () => {
  const r = await createRedactor();
  r.redact(apiKeyTool, apiKeyRaw());
  const out = r.redact(plainTool, { content: [{ type: "text", text: `the key was ${CANARY}, keep it safe` }] });
  assert.equal(JSON.stringify(out.result).includes(CANARY), false);
  assert.match(out.result.content[0].text, /\[redacted: secret\]/);
  assert.deepEqual(out.redactions.map((x) => x.reason), ["value_match"]);
});

test("compile: a bad x-sensitive value is a RedactionError schema_invalid naming tool and pointer", async () => {
  const r = await createRedactor();
  const bad = { name: "bad_tool", outputSchema: { type: "object", properties: { secret: { type: "string", "x-sensitive": 5 } } } };
  let caught;
  try {
    r.compile(bad);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof RedactionError);
  assert.ok(caught instanceof Error);
  assert.equal(caught.name, "RedactionError");
  assert.equal(caught.code, "schema_invalid");
  assert.equal(caught.tool, "bad_tool");
  assert.equal(caught.pointer, "/outputSchema/properties/secret/x-sensitive");
  assert.match(caught.message, /bad_tool/);
  assert.match(caught.message, /\/outputSchema\/properties\/secret\/x-sensitive/);
});

test("compile: a $ref to another document is remote_ref, and is never fetched", async () => {
  const r = await createRedactor();
  const tool = { name: "remote", outputSchema: { $ref: "https://schemas.example.com/key.json" } };
  assert.throws(() => r.compile(tool), (err) => err instanceof RedactionError && err.code === "remote_ref" && err.pointer === "/outputSchema/$ref");
});

test("compile: a tool that is not an object is schema_invalid", async () => {
  const r = await createRedactor();
  assert.throws(() => r.compile("generate_api_key"), (err) => err instanceof RedactionError && err.code === "schema_invalid");
  assert.throws(() => r.compile(null), (err) => err instanceof RedactionError && err.code === "schema_invalid");
});

test("redact with a bad schema does not throw: the result is withheld with the error", async () => {
  const r = await createRedactor();
  const bad = { name: "bad_tool", outputSchema: { properties: { secret: { "x-sensitive": [] } } } };
  const out = r.redact(bad, { secret: CANARY });
  assert.equal(out.withheld, true);
  assert.ok(out.error instanceof RedactionError);
  assert.equal(out.error.code, "schema_invalid");
  assert.equal(JSON.stringify(out.result), withheldText("bad_tool", "schema_invalid"));
});

test("invalid JSON text is withheld as invalid_json, the same bytes the JS side makes", async () => {
  const r = await createRedactor();
  const out = r.redactJson(apiKeyTool, `{"secret": "${CANARY}"`);
  assert.equal(out.json, withheldText("generate_api_key", "invalid_json"));
  assert.equal(out.error.code, "invalid_json");
  assert.equal(out.withheld, true);
  const notText = r.redactJson(apiKeyTool, { secret: CANARY });
  assert.equal(notText.error.code, "invalid_json");
  assert.equal(notText.json.includes(CANARY), false);
});

test("limits: depth and size are enforced; both size checks give size_limit", async () => {
  const shallow = await createRedactor({ limits: { maxDepth: 4 } });
  const deep = shallow.redactJson(plainTool, "[[[[[[1]]]]]]");
  assert.equal(deep.error.code, "depth_limit");
  assert.equal(deep.json, withheldText("plain_tool", "depth_limit"));
  assert.equal(shallow.redactJson(plainTool, "[[1]]").json, "[[1]]");

  // The limit applies to the tool definition's JSON too: {"name":"t"} is 12 bytes.
  const r = await createRedactor({ limits: { maxInputBytes: 16 } });
  const t = { name: "t" };
  // 18 code units > 16: refused before entering wasm.
  assert.equal(r.redactJson(t, '"0123456789abcdef"').error.code, "size_limit");
  // 10 code units but 18 UTF-8 bytes: refused by the core.
  const utf8 = r.redactJson(t, '"éééééééé"');
  assert.equal(utf8.error.code, "size_limit");
  assert.match(utf8.error.message, /18 bytes/);
  assert.equal(r.redactJson(t, '"abc"').json, '"abc"');
  assert.equal(r.redactJson(plainTool, '"abc"').error.code, "size_limit", "a tool definition over the limit");
});

test("createRedactor rejects bad options with plain JS errors", async () => {
  await assert.rejects(createRedactor({ format: "json" }), RangeError);
  await assert.rejects(createRedactor({ limits: { maxDepth: 0 } }), RangeError);
  await assert.rejects(createRedactor({ limits: { maxDepth: 513 } }), RangeError);
  await assert.rejects(createRedactor({ limits: { maxRefHops: 1.5 } }), RangeError);
  await assert.rejects(createRedactor({ limits: { maxWork: 0 } }), RangeError);
  await assert.rejects(createRedactor({ limits: { maxdepth: 4 } }), TypeError);
  await assert.rejects(createRedactor({ formats: "mcp" }), TypeError);
  const ok = await createRedactor({ limits: { maxDepth: 512, maxRefHops: 1 } });
  ok.compile(apiKeyTool);
});

test("the compile cache is bounded and evicted tools compile again", async () => {
  const r = await createRedactor();
  const tools = Array.from({ length: 300 }, (_, i) => ({ ...apiKeyTool, name: `tool_${i}` }));
  for (const t of tools) r.compile(t);
  const out = r.redact(tools[0], apiKeyRaw());
  assert.equal(out.error, undefined);
  assert.equal(out.redactions.length, 1);
  // The cache key is the tool's JSON: a changed schema is a different tool.
  const unmarked = { ...tools[0], outputSchema: { type: "object" } };
  const raw = { id: "key_2", secret: "sk_live_other" };
  assert.deepEqual(r.redact(unmarked, raw).result, raw);
});

test("redact never throws, even for a hostile tool object", async () => {
  const r = await createRedactor();
  const hostile = new Proxy({}, { get() { throw new Error(CANARY); } });
  const out = r.redact(hostile, { secret: CANARY });
  assert.equal(out.withheld, true);
  assert.equal(out.error.code, "schema_invalid");
  assert.equal(JSON.stringify(out.result), withheldText("", "schema_invalid"));
  assert.throws(() => r.compile(hostile), RedactionError);
});

test("more than 32 marked values: 32 stubs, then one stub whose reveal is the rest", async () => {
  const r = await createRedactor();
  const tool = { name: "many", outputSchema: { type: "array", items: { type: "string", "x-sensitive": true } } };
  const raw = Array.from({ length: 40 }, (_, i) => `${CANARY}_${i}`);
  const out = r.redact(tool, raw);
  const stubs = out.result.content.filter((b) => b.type === "secret_reference");
  assert.equal(stubs.length, 33);
  assert.equal(r.vault.reveal(stubs[0].handle), `${CANARY}_0`);
  assert.deepEqual(r.vault.reveal(stubs[32].handle), raw.slice(32));
  assert.equal(JSON.stringify(out.result).includes(CANARY), false);
  // Indexes keep their meaning; an array is not an MCP structuredContent, so only the text has it.
  assert.equal(out.result.content[0].text, JSON.stringify(Array(40).fill(null)));
});
