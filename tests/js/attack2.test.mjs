// Attack findings (review 0740): each test fails at commit c08c573.
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

test("attack2: structuredContent null is kept in the mcp format and the SDK rejects the view", () => {
  // README: in "mcp" every result is a valid CallToolResult; a non-object structuredContent
  // is removed (not_mcp). null is left alone ("null is never redacted"), but zod's record()
  // rejects it.
  for (const text of [
    '{"content":[{"type":"text","text":"a"}],"structuredContent":null}',
    '{"content":[],"structuredContent":null}',
  ]) {
    const out = mcp.redactJson(plain, text);
    assertValid(JSON.parse(out.json), text);
  }
});
