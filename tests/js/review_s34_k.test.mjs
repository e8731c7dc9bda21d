// Review s34, helper K: a marked number echoed as JavaScript itself writes it. A page or an
// agent re-serializes through JavaScript (`String(Number(t))`, `JSON.stringify(JSON.parse(t))`,
// template strings), which changes the digits past 2^53 and the layout below 1e-6 and from
// 1e21; each such form must be scrubbed from a later result's text and caught by check(), in
// both formats. Here the oracle is the engine itself (Node's Number::toString), not a model of
// it (tests/review_s34_k.rs). Fails without review s34's `known::js_number`.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { createRedactor } from "webmcp-redact";

const SEED = Number(process.env.WEBMCP_FASTCHECK_SEED ?? 20260522);
const RUNS = Number(process.env.WEBMCP_FASTCHECK_RUNS ?? 150);

const marked = { name: "creds", outputSchema: { properties: { s: { "x-sensitive": true } } } };
const plain = { name: "echo" };
const post = { name: "post", annotations: { openWorldHint: true, readOnlyHint: false } };

const digits = (min, max) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(""));

/** A JSON number text: integers past 2^53, tiny and huge values, trailing zeros, exponents in either case and sign. */
const numberText = fc
  .tuple(
    fc.constantFrom("", "-"),
    fc.integer({ min: 1, max: 9 }),
    digits(0, 23),
    fc.option(digits(1, 20), { nil: "" }),
    fc.option(fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.integer({ min: 0, max: 320 })), { nil: null }),
    fc.boolean(),
  )
  .map(([sign, first, rest, frac, exp, small]) => {
    const mantissa = small ? `0.${"0".repeat(rest.length % 9)}${first}${frac}` : `${first}${rest}${frac ? `.${frac}` : ""}`;
    return `${sign}${mantissa}${exp ? exp.join("") : ""}`;
  });

test("a marked number as String(Number(t)) or JSON.stringify(JSON.parse(t)) is scrubbed and caught by check()", async (t) => {
  t.diagnostic(`fast-check seed ${SEED} (WEBMCP_FASTCHECK_SEED), ${RUNS} runs (WEBMCP_FASTCHECK_RUNS)`);
  let tried = 0;
  await fc.assert(
    fc.asyncProperty(numberText, fc.constantFrom("webmcp", "mcp"), fc.constantFrom("string", "stringify", "template"), async (n, format, how) => {
      const value = Number(n);
      const js = how === "string" ? String(value) : how === "template" ? `${value}` : JSON.stringify(JSON.parse(n));
      // Infinity is not a number text; a form under four characters is known only as a whole value.
      fc.pre(Number.isFinite(value) && js !== n && js.length >= 4);
      tried++;
      const session = (await createRedactor({ format })).session(); // a fresh memory: this number's only
      session.redactJson(marked, `{"s": ${n}}`);
      const text = `balance ${js} due`;
      const later = session.redactJson(plain, JSON.stringify({ content: [{ type: "text", text }] })).json;
      assert.equal(later.includes(js), false, `${n} as ${js}: ${later}`);
      const checked = session.check(post, { body: text });
      assert.ok(checked.reasons.some((x) => x.code === "secret_egress"), `check() let ${n} as ${js} out`);
    }),
    { seed: SEED, numRuns: RUNS * 4 },
  );
  assert.ok(tried >= RUNS, `only ${tried} numbers JavaScript writes differently`);
});
