// Rule 7: in the "mcp" format every result validates against the MCP SDK's CallToolResultSchema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRedactor } from "webmcp-redact";
import { CANARY, HANDLE, apiKeyTool, apiKeyRaw, plainTool, sensitiveTool } from "./helpers.mjs";

const mcp = await createRedactor({ format: "mcp" });
const webmcp = await createRedactor({ format: "webmcp" });

const cases = [
  ["a marked field", apiKeyTool, apiKeyRaw()],
  ["a sensitive tool without marks", sensitiveTool, { messages: [{ from: "ada", body: CANARY }] }],
  ["a tool's own secret_reference", plainTool, {
    content: [
      { type: "text", text: "Key created." },
      { type: "secret_reference", id: "ref_123456", label: "API key", redeemUrl: "/redeem/ref_123456", ttl: 300 },
    ],
  }],
  ["an unknown block and a user-only block", plainTool, {
    content: [
      { type: "text", text: "hello" },
      { type: "widget", html: "<b>x</b>" },
      { type: "text", text: CANARY, annotations: { audience: ["user"] } },
    ],
  }],
  ["more than 32 marked values", {
    name: "many_keys",
    outputSchema: { type: "array", items: { type: "string", "x-sensitive": true } },
  }, Array.from({ length: 40 }, (_, i) => `${CANARY}_${i}`)],
  ["an error (BigInt)", apiKeyTool, { id: "key_1", secret: CANARY, n: 1n }],
  ["a bad schema", { name: "bad", outputSchema: { "x-sensitive": 1 } }, { secret: CANARY }],
  ["a plain CallToolResult passed through", plainTool, { content: [{ type: "text", text: "ok" }], isError: false }],
];

for (const [what, tool, raw] of cases) {
  test(`mcp format validates with the SDK: ${what}`, () => {
    const out = mcp.redact(tool, raw);
    const parsed = CallToolResultSchema.safeParse(out.result);
    assert.ok(parsed.success, `${what}: ${JSON.stringify(parsed.error?.issues)}\n${JSON.stringify(out.result)}`);
    assert.equal(JSON.stringify(out.result).includes(CANARY), false);
    assert.equal(JSON.stringify(out.result).includes("ref_123456"), false);
    for (const block of out.result.content) {
      assert.ok(["text", "image", "audio", "resource_link", "resource"].includes(block.type), block.type);
    }
  });
}

test("an mcp stub is a text block carrying the label and handle in _meta", () => {
  const out = mcp.redact(apiKeyTool, apiKeyRaw());
  const stub = out.result.content[1];
  assert.equal(stub.type, "text");
  assert.equal(stub.text, "[secret withheld: secret]");
  assert.deepEqual(Object.keys(stub._meta["webmcp-redact/secret"]).sort(), ["handle", "label"]);
  assert.equal(stub._meta["webmcp-redact/secret"].label, "secret");
  assert.match(stub._meta["webmcp-redact/secret"].handle, HANDLE);
  assert.equal(mcp.vault.reveal(stub._meta["webmcp-redact/secret"].handle), CANARY);
});

test("the webmcp format's secret_reference is what an SDK client would reject", () => {
  const out = webmcp.redact(apiKeyTool, apiKeyRaw());
  assert.equal(out.result.content[1].type, "secret_reference");
  assert.equal(CallToolResultSchema.safeParse(out.result).success, false);
});

test("a tool's own secret_reference goes to the vault as a reference", () => {
  const [, tool, raw] = cases[2];
  const out = webmcp.redact(tool, raw);
  const ref = out.result.content.find((b) => b.type === "secret_reference");
  assert.deepEqual(Object.keys(ref).sort(), ["handle", "label", "type"]);
  assert.deepEqual(webmcp.vault.reveal(ref.handle), { id: "ref_123456", redeemUrl: "/redeem/ref_123456", ttl: 300 });
});
