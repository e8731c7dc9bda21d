// Rule 1: a JS value is serialized exactly once, and never read again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor } from "webmcp-redact";
import { CANARY, apiKeyTool, withheldText } from "./helpers.mjs";

const redactor = await createRedactor();

function assertWithheldUnserializable(out) {
  assert.equal(out.withheld, true);
  assert.equal(out.error.code, "unserializable");
  assert.equal(out.error.tool, "generate_api_key");
  assert.equal(JSON.stringify(out.result), withheldText("generate_api_key", "unserializable"));
  assert.equal(JSON.stringify(out).includes(CANARY), false);
  assert.equal(String(out.error.message).includes(CANARY), false);
  assert.equal(out.error.cause, undefined, "the thrown error may hold a value; it is not kept");
}

test("a getter is read exactly once, and changing the object afterwards changes nothing", () => {
  let reads = 0;
  const raw = {
    id: "key_1",
    get secret() {
      reads += 1;
      return reads === 1 ? CANARY : "sk_live_SECOND_READ";
    },
  };
  const out = redactor.redact(apiKeyTool, raw);
  assert.equal(reads, 1);
  raw.id = "changed";
  assert.deepEqual(out.result.structuredContent, { id: "key_1" });
  assert.equal(redactor.vault.reveal(out.redactions[0].handle), CANARY);
});

test("toJSON is honoured: what it returns is what gets redacted", () => {
  const raw = { toJSON: () => ({ id: "from_toJSON", secret: CANARY }), secret: "not this one" };
  const out = redactor.redact(apiKeyTool, raw);
  assert.deepEqual(out.result.structuredContent, { id: "from_toJSON" });
  assert.equal(JSON.stringify(out.result).includes(CANARY), false);
  assert.equal(redactor.vault.reveal(out.redactions[0].handle), CANARY);
});

test("a Proxy is read once through its traps, and never after redact returns", async () => {
  const gets = [];
  const target = { id: "key_1", name: "prod", secret: CANARY };
  const raw = new Proxy(target, {
    get(t, key, receiver) {
      gets.push(key);
      return Reflect.get(t, key, receiver);
    },
  });
  const out = redactor.redact(apiKeyTool, raw);
  assert.equal(gets.filter((k) => k === "secret").length, 1);
  const after = gets.length;
  target.secret = "sk_live_MUTATED";
  JSON.stringify(out.result);
  redactor.vault.reveal(out.redactions[0].handle);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(gets.length, after, "nothing read the proxy after redact returned");
  assert.equal(redactor.vault.reveal(out.redactions[0].handle), CANARY);
  assert.equal(JSON.stringify(out.result).includes("MUTATED"), false);
});

test("undefined and functions inside the value are dropped as JSON.stringify drops them", () => {
  const out = redactor.redact(apiKeyTool, { id: "key_1", name: undefined, helper() {}, secret: CANARY });
  assert.deepEqual(out.result.structuredContent, { id: "key_1" });
});

test("a BigInt is withheld as unserializable", () => {
  assertWithheldUnserializable(redactor.redact(apiKeyTool, { id: "key_1", secret: CANARY, count: 10n }));
});

test("a cycle is withheld as unserializable", () => {
  const raw = { id: "key_1", secret: CANARY };
  raw.self = raw;
  assertWithheldUnserializable(redactor.redact(apiKeyTool, raw));
});

test("a throwing getter is withheld as unserializable, and its message is not kept", () => {
  const raw = {
    secret: CANARY,
    get id() {
      throw new Error(`cannot read ${CANARY}`);
    },
  };
  assertWithheldUnserializable(redactor.redact(apiKeyTool, raw));
});

test("a throwing toJSON is withheld as unserializable", () => {
  const raw = {
    toJSON() {
      throw new TypeError(CANARY);
    },
  };
  assertWithheldUnserializable(redactor.redact(apiKeyTool, raw));
});
