// Review s36 (lead): a tool's name in the withheld view. A tool named after a value the
// redactor knows put it back in front of the agent through "The result of <name> was withheld"
// (found by helper L). Each case failed at a5550bb.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor } from "webmcp-redact";

const marked = { name: "creds", outputSchema: { properties: { s: { "x-sensitive": true } } } };

/** Seeded canaries, each learned by a fresh redactor of each format. */
async function* learned(count) {
  let x = 0x36a5;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    const canary = `Cz${x.toString(16).padStart(8, "0")}Qx`;
    for (const format of ["webmcp", "mcp"]) {
      const r = await createRedactor({ format });
      r.redact(marked, { s: canary });
      yield { r, canary, format };
    }
  }
}

test("review s36: a withheld view does not name a known value, on every way a result is withheld", async () => {
  const bad = [];
  let cases = 0;
  for await (const { r, canary, format } of learned(40)) {
    const name = `get_${canary}`;
    const views = {
      "result no JSON": r.redactJson({ name }, "x").json,
      "result JSON cannot write": JSON.stringify(r.redact({ name }, { a: 1n }).result),
      "definition JSON cannot write": JSON.stringify(r.redact({ name, outputSchema: { a: 1n } }, { a: 1 }).result),
      "definition that does not compile": JSON.stringify(r.redact({ name, outputSchema: { patternProperties: { "(?=a)": {} } } }, {}).result),
    };
    for (const [how, view] of Object.entries(views)) {
      cases++;
      assert.match(view, /was withheld/, `${how}: not withheld`);
      if (view.includes(canary)) bad.push(`${format} ${how}: ${view}`);
    }
  }
  assert.deepEqual(bad, [], `${bad.length} of ${cases} views named the known value`);
});

test("review s36: a name holding nothing known is written as it is", async () => {
  const r = await createRedactor();
  r.redact(marked, { s: "Cz0000beefQx" });
  assert.equal(r.redactJson({ name: "get_report" }, "x").json, '{"content":[{"type":"text","text":"The result of get_report was withheld: invalid_json."}],"isError":true}');
});
