// The browser module reads a JSON number's f64 with JavaScript's parseFloat, not Rust's own
// reading (src/json/float.rs: 16 KiB raw, 12 KiB gzip of the module). What rests on that reading,
// checked through the module over generated number texts: a taken number's JavaScript form
// (`String(Number(text))`) is known with it, and option values read as the numbers they are.
import { test } from "node:test";
import assert from "node:assert/strict";

import { createRedactor } from "webmcp-redact";

const marked = { name: "k", outputSchema: { properties: { s: { "x-sensitive": true } } } };
const plain = { name: "echo" };

/** Seeded number texts: long digit runs, with and without a fraction and an exponent. */
function* numberTexts(count, seed = 36) {
  let x = seed;
  const below = (n) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
  for (let i = 0; i < count; i++) {
    const digits = Array.from({ length: 12 + below(12) }, (_, j) => String(j === 0 ? 1 + below(9) : below(10))).join("");
    const cut = 1 + below(digits.length - 1);
    const mantissa = below(2) ? `${digits.slice(0, cut)}.${digits.slice(cut)}` : digits;
    const exponent = below(2) ? `${["e", "E", "e+", "e-"][below(4)]}${below(330)}` : "";
    yield `${below(4) ? "" : "-"}${mantissa}${exponent}`;
  }
}

test("a taken number is known in the form JavaScript writes it, over 400 generated texts", async () => {
  const r = await createRedactor();
  let checked = 0;
  for (const text of numberTexts(400)) {
    const js = String(Number(text));
    const out = r.redactJson(marked, `{"s":${text}}`);
    assert.equal(out.json.includes(text), false, text);
    if (!Number.isFinite(Number(text)) || js === text || js.replace(/^-/, "").replace(/[.e+-]/g, "").length < 10) continue;
    const echoed = JSON.stringify(r.redact(plain, { content: [{ type: "text", text: `x ${js} y` }] }).result);
    assert.equal(echoed.includes(js), false, `${text} echoed as ${js}`);
    checked++;
  }
  assert.ok(checked > 80, `${checked} echoes checked`);
});

test("option numbers read as their value in any notation", async () => {
  for (const maxWork of [1e3, 1000, 2.5e6]) await createRedactor({ limits: { maxWork } });
  for (const maxWork of [1000.5, 0, -1, 1e300]) {
    await assert.rejects(createRedactor({ limits: { maxWork } }), RangeError, String(maxWork));
  }
  await createRedactor({ vault: { ttl: 1e-3 } });
  await assert.rejects(createRedactor({ vault: { ttl: -0.5 } }), RangeError);
});
