// Attack findings (review 0722): the "mcp" format must always be a CallToolResult the MCP SDK
// accepts, and learning values is bounded. Each failed when the review found it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRedactor } from "webmcp-redact";

const mcp = await createRedactor({ format: "mcp" });
const plain = { name: "plain_tool" };

function assertValid(result, what) {
  const parsed = CallToolResultSchema.safeParse(result);
  assert.ok(parsed.success, `${what}: ${JSON.stringify(parsed.error?.issues)}\n${JSON.stringify(result)}`);
}

test("attack: a progressToken integer outside the safe range is kept and the SDK rejects the view", () => {
  // JSON.stringify writes 2**53 as 9007199254740992: an integer to the core, not to zod's int().
  const out = mcp.redact(plain, { content: [{ type: "text", text: "hi" }], _meta: { progressToken: 2 ** 53 } });
  assertValid(out.result, "progressToken 2**53");
});

test("attack: a resource_link size of 1e400 (Infinity once parsed) is kept and the SDK rejects the view", () => {
  const out = mcp.redactJson(plain, '{"content":[{"type":"resource_link","uri":"https://a.test/b","name":"n","size":1e400}]}');
  assertValid(JSON.parse(out.json), "size 1e400");
});

test("attack: values that would add more than maxWork bytes to the known set fail closed with work_limit", async () => {
  // Counted, not timed: a small maxWork makes the same result cross the budget.
  const small = await createRedactor({ limits: { maxWork: 20_000 } }); // 44 KB of values
  const tool = { name: "creds", outputSchema: { properties: { s: { "x-sensitive": true } } } };
  const values = Array.from({ length: 200 }, (_, i) => `<&"'>é+/ ${i}`.repeat(20));
  const out = small.redact(tool, { s: values });
  assert.equal(out.error?.code, "work_limit");
  assert.equal(out.withheld, true);
  assert.ok(!JSON.stringify(out.result).includes("é+/"));
  const fine = small.redact(tool, { s: values.slice(0, 2) });
  assert.equal(fine.error, undefined);
});
