// Rule 9: a trap in the module withholds the result and the next call gets a fresh instance.
// The trap is real: crypto.getRandomValues is made to throw once, the module's handle source
// cannot continue without randomness and aborts (wasm `unreachable`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor } from "webmcp-redact";
import { CANARY, HANDLE, apiKeyTool, apiKeyRaw, plainTool, withheldText, trapOnce } from "./helpers.mjs";

test("a trap withholds the result with internal, then the module works again", async () => {
  const r = await createRedactor();
  r.compile(apiKeyTool); // cached in the instance that is about to die
  const restore = trapOnce();
  let out;
  try {
    out = r.redact(apiKeyTool, apiKeyRaw());
  } finally {
    restore();
  }
  assert.equal(out.withheld, true);
  assert.equal(out.error.code, "internal");
  assert.match(out.error.message, /trapped/);
  assert.ok(out.error.cause instanceof WebAssembly.RuntimeError);
  assert.equal(JSON.stringify(out.result), withheldText("generate_api_key", "internal"));
  assert.equal(JSON.stringify(out).includes(CANARY), false);
  assert.equal(r.vault.size, 0, "nothing from the trapped call reaches the vault");

  const next = r.redact(apiKeyTool, apiKeyRaw());
  assert.equal(next.error, undefined);
  assert.match(next.result.content[1].handle, HANDLE);
  assert.equal(r.vault.reveal(next.result.content[1].handle), CANARY);
  assert.equal(r.redactJson(plainTool, "[1,2]").json, "[1,2]");
});

test("the module recovers from several traps in a row, for every redactor", async () => {
  const a = await createRedactor();
  const b = await createRedactor({ format: "mcp" });
  for (let i = 0; i < 3; i++) {
    const restore = trapOnce();
    const out = a.redact(apiKeyTool, apiKeyRaw());
    restore();
    assert.equal(out.error?.code, "internal", `trap ${i}`);
  }
  const fromA = a.redact(apiKeyTool, apiKeyRaw());
  assert.equal(fromA.error, undefined);
  assert.equal(fromA.redactions.length, 1);
  const fromB = b.redact(apiKeyTool, apiKeyRaw());
  assert.equal(fromB.error, undefined);
  assert.equal(fromB.result.content[1].text, "[secret withheld: secret]");
});

test("while no fresh instance can be made, results stay withheld; then work resumes", async () => {
  const r = await createRedactor();
  // A fresh instance comes from the same compiled module (the glue's __wbg_reset_state); make
  // that fail once, as a page out of memory would.
  const RealInstance = WebAssembly.Instance;
  WebAssembly.Instance = function () {
    throw new RangeError("out of memory");
  };
  const restore = trapOnce();
  try {
    assert.equal(r.redact(apiKeyTool, apiKeyRaw()).error?.code, "internal");
    const meanwhile = r.redactJson(plainTool, "[1]");
    assert.equal(meanwhile.error?.code, "internal");
    assert.match(meanwhile.error.message, /no fresh WebAssembly instance/);
    // No core can say how the tool's name may be shown (one holding a known value is masked):
    // the view names no tool.
    assert.equal(meanwhile.json, withheldText("this tool", "internal"));
  } finally {
    restore();
    WebAssembly.Instance = RealInstance;
  }
  assert.equal(r.redactJson(plainTool, "[1]").json, "[1]");
});

test("two traps in a row without yielding: each result is withheld, the next call works", async () => {
  const r = await createRedactor();
  for (let i = 0; i < 2; i++) {
    const restore = trapOnce();
    assert.equal(r.redact(apiKeyTool, apiKeyRaw()).error?.code, "internal");
    restore();
  }
  const out = r.redact(apiKeyTool, apiKeyRaw());
  assert.equal(out.error, undefined);
  assert.equal(r.vault.reveal(out.result.content[1].handle), CANARY);
});
