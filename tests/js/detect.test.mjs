// Issue 11, item 3: the detectors' safety net through the public API. Every kind's fake example
// (tests/fixtures/detectors.json, the examples docs/detectors.md lists) is caught with its
// reason and vaulted; its near misses are not; `policy.detect` turns kinds off; and a fixed
// slice of ordinary code and docs (pinned packages in node_modules) gives no hit at all.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createRedactor } from "webmcp-redact";
import { HANDLE, plainTool } from "./helpers.mjs";

const fixture = JSON.parse(readFileSync(new URL("../fixtures/detectors.json", import.meta.url), "utf8"));
const textResult = (text) => ({ content: [{ type: "text", text }] });
const detected = (out) => out.redactions.filter((x) => x.reason.startsWith("detected:"));

test("the fixture covers every kind the core knows", async () => {
  const dts = readFileSync(new URL("../../js/index.d.ts", import.meta.url), "utf8");
  const union = dts.match(/export type DetectKind =([^;]*);/)[1];
  const kinds = [...union.matchAll(/"([^"]+)"/g)].map((m) => m[1]).sort();
  assert.deepEqual(fixture.kinds.map((k) => k.kind).sort(), kinds);
  const docs = readFileSync(new URL("../../docs/detectors.md", import.meta.url), "utf8");
  for (const { kind, example } of fixture.kinds) {
    assert.ok(docs.includes(`\`${kind}\``), `docs/detectors.md names ${kind}`);
    assert.ok(docs.includes(example.split("\n")[0]), `docs/detectors.md shows the ${kind} example`);
  }
});

for (const { kind, example, value, nearMisses } of fixture.kinds) {
  test(`${kind}: the example is caught, vaulted and stubbed; near misses pass`, async () => {
    const r = await createRedactor();
    const out = r.redact(plainTool, textResult(`see ${example} above`));
    const json = JSON.stringify(out.result);
    assert.ok(!json.includes(value), `${kind} reached the agent: ${json}`);
    const hits = detected(out);
    assert.deepEqual(hits.map((x) => x.reason), [`detected:${kind}`]);
    assert.equal(hits[0].pointer, "/content/0/text");
    assert.match(hits[0].handle, HANDLE);
    assert.equal(r.vault.get(hits[0].handle).value, value);
    assert.ok(out.result.content.some((b) => b.type === "secret_reference" && b.handle === hits[0].handle));
    for (const miss of nearMisses) {
      const fresh = await createRedactor();
      const raw = JSON.stringify(textResult(`see ${miss} above`));
      const out = fresh.redactJson(plainTool, raw);
      assert.equal(out.json, raw, `${kind} near miss caught: ${miss}`);
      assert.deepEqual(out.redactions, []);
    }
  });
}

test("a detected value is known: a later echo is scrubbed and check denies it in arguments", async () => {
  const r = await createRedactor();
  const { value } = fixture.kinds.find((k) => k.kind === "github_token");
  r.redact(plainTool, textResult(value));
  const later = r.redactJson(plainTool, JSON.stringify({ echo: `token=${encodeURIComponent(value)}` }));
  assert.ok(!later.json.includes(value));
  assert.deepEqual(later.redactions.map((x) => x.reason), ["value_match"]);
  const post = { name: "post", annotations: { inputMetadata: { Destination: "Public" } } };
  assert.equal(r.session().check(post, { text: value }).decision, "deny");
});

test("policy.detect: false turns detection off, an object turns single kinds off", async () => {
  const jwt = fixture.kinds.find((k) => k.kind === "jwt").value;
  const key = fixture.kinds.find((k) => k.kind === "google_api_key").value;
  const raw = JSON.stringify(textResult(`${jwt} ${key}`));
  const off = await createRedactor({ policy: { detect: false } });
  assert.equal(off.redactJson(plainTool, raw).json, raw, "passes through unchanged");
  const noJwt = await createRedactor({ policy: { detect: { jwt: false } } });
  const out = noJwt.redactJson(plainTool, raw);
  assert.ok(out.json.includes(jwt) && !out.json.includes(key));
  const on = await createRedactor({ policy: { detect: true } });
  assert.equal(detected(on.redactJson(plainTool, raw)).length, 2);
});

test("policy.detect: a bad value is an invalid_options error naming the key", async () => {
  for (const [detect, named] of [
    [{ aws: false }, "policy.detect has an unknown kind aws"],
    [{ jwt: "off" }, "policy.detect.jwt must be true or false"],
    ["yes", "policy.detect must be true, false or an object"],
  ]) {
    await assert.rejects(createRedactor({ policy: { detect } }), (e) => {
      assert.equal(e.code, "invalid_options");
      assert.ok(e.message.includes(named), e.message);
      return true;
    });
  }
});

/** Every file under `dir` with one of `exts`, in a stable order. */
function walk(dir, exts, out = []) {
  for (const d of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, d.name);
    if (d.isDirectory()) walk(path, exts, out);
    else if (exts.some((e) => d.name.endsWith(e))) out.push(path);
  }
  return out;
}

test("ordinary code and docs give no hit: a fixed slice of pinned packages", async () => {
  // Pinned devDependencies (package.json), so the slice is the same on every machine: Node's
  // type declarations with their documentation, and ajv's TypeScript sources and docs.
  const root = new URL("../../node_modules/", import.meta.url).pathname;
  const paths = [
    ...walk(join(root, "@types/node"), [".d.ts", ".md"]),
    ...walk(join(root, "ajv/lib"), [".ts"]),
    ...walk(join(root, "ajv"), [".md", "package.json"]).filter((p) => !p.includes("node_modules/ajv/node_modules")),
  ];
  const r = await createRedactor();
  let bytes = 0;
  const hits = [];
  for (const path of paths) {
    const text = readFileSync(path, "utf8");
    bytes += text.length;
    const out = r.redact(plainTool, textResult(text));
    hits.push(...detected(out).map((x) => `${path}: ${x.reason}`));
  }
  assert.ok(paths.length > 100 && bytes > 2_000_000, `${paths.length} files, ${bytes} bytes`);
  assert.deepEqual(hits, []);
});
