// A small throughput bench: `npm run bench`. Prints MB/s of JSON text for redact (JS value in,
// snapshot included) and redactJson (text in), on a list of records with one sensitive field.

import { createRedactor } from "webmcp-redact";

const tool = {
  name: "list_keys",
  outputSchema: {
    type: "object",
    properties: {
      keys: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "string" },
            name: { type: "string" },
            created: { type: "integer" },
            secret: { type: "string", "x-sensitive": true },
          },
        },
      },
    },
  },
};
const plain = { name: "list_keys_plain", outputSchema: { type: "object" } };

function records(n) {
  const keys = [];
  for (let i = 0; i < n; i++) {
    keys.push({ id: `key_${i}`, name: `key number ${i}`, created: 1700000000 + i, secret: `sk_live_${i.toString(36).padStart(24, "x")}` });
  }
  return { keys };
}

function time(fn, minMs = 500) {
  let runs = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    fn();
    runs++;
    elapsed = performance.now() - start;
  }
  return elapsed / runs;
}

const redactor = await createRedactor();
const cases = [
  ["redact (value in)", (raw) => redactor.redact(tool, raw)],
  ["redactJson (text in)", (raw, text) => redactor.redactJson(tool, text)],
  ["redactJson pass-through", (raw, text) => redactor.redactJson(plain, text)],
];
// Every record holds one secret, so the larger sizes also show how cost grows with the number
// of redacted values (each is scrubbed from every other string).
const sizes = [10, 100, 1000, 4000];
console.log("case                      records     bytes    ms/call     MB/s");
for (const n of sizes) {
  const raw = records(n);
  const text = JSON.stringify(raw);
  const mb = Buffer.byteLength(text) / 1e6;
  for (const [label, fn] of cases) {
    redactor.vault.clear(); // the vault would otherwise grow, and be scrubbed, on every call
    const ms = time(() => {
      fn(raw, text);
      redactor.vault.clear();
    });
    const row = [label.padEnd(24), String(n).padStart(8), String(text.length).padStart(9), ms.toFixed(3).padStart(10), (mb / (ms / 1000)).toFixed(1).padStart(8)];
    console.log(row.join(" "));
  }
}
