// Review s26 (helper M): lint's findings are capped, through the package's lint module.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lintTools } from "webmcp-redact";

/** `depth` nested objects under one secret-looking name of `width` letters, with a near-miss mark each. */
function deepSecretNames(depth, width) {
  const key = `password${"x".repeat(width)}`;
  let schema = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { [key]: schema }, "x-sensitiv": true };
  return { name: "t", outputSchema: schema };
}

test("1 MB of deep secret-looking names gives at most 1 MiB of findings, ending with findings_limit", async () => {
  // Before: 62 MB of findings (each pointer repeats every key above it).
  const doc = deepSecretNames(60, 16000);
  assert.ok(JSON.stringify(doc).length > 900_000);
  const found = await lintTools(doc);
  const bytes = JSON.stringify(found).length;
  assert.ok(bytes <= 1024 * 1024 + 8192, `${bytes} bytes of findings`);
  const last = found.at(-1);
  assert.deepEqual([last.code, last.severity, last.pointer, last.tool], ["findings_limit", "error", "", ""]);
  assert.equal(found.filter((f) => f.code === "findings_limit").length, 1);
  assert.ok(found.some((f) => f.code === "near_miss_x_sensitive"), "the first findings are kept");
});

test("a file whose findings fit is reported whole", async () => {
  const found = await lintTools(deepSecretNames(40, 10));
  assert.equal(found.length, 80);
  assert.ok(found.every((f) => f.code !== "findings_limit"));
});
