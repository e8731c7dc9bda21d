// Review s31 of the JS layer (helper L): each test states a promise a careless page, a hostile
// script or a supported set-up broke before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRedactor, installRedaction, lintTools } from "webmcp-redact";
import { CANARY, RESULT_PLACES, apiKeyRaw, apiKeyTool, fakeContext, random } from "./helpers.mjs";
import { reportAfterUnregister } from "./install-helpers.mjs";

// --- values JSON cannot hold ------------------------------------------------------------------

// What JSON.stringify writes of each, and how JavaScript reads it: every one but NaN is true to
// JavaScript, and JSON wrote `null` or nothing, which claims nothing.
const UNHELD = [
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
  ["NaN", NaN],
  ["a function", () => true],
  ["a symbol", Symbol("yes")],
];

const TRUST = "io.modelcontextprotocol/trust-annotations";
const ACTION = "io.modelcontextprotocol/action-metadata";

/**
 * Every place of a tool definition the core reads a claim or a mark from, as [pointer, a tool
 * holding `v` there]: the claim words of README's claims section, the action-metadata
 * extension, a consent hint, and schema keywords.
 * @type {[string, (v: unknown) => any][]}
 */
const DEFINITION_PLACES = [
  ["/annotations/sensitiveHint", (v) => ({ annotations: { sensitiveHint: v } })],
  ["/_meta/sensitiveHint", (v) => ({ _meta: { sensitiveHint: v } })],
  ["/annotations/sensitiveDataHint", (v) => ({ annotations: { sensitiveDataHint: v } })],
  ["/annotations/privateHint", (v) => ({ annotations: { privateHint: v } })],
  ["/annotations/readOnlyHint", (v) => ({ annotations: { readOnlyHint: v } })],
  ["/annotations/destructiveHint", (v) => ({ annotations: { destructiveHint: v } })],
  ["/_meta/mcp.dev~1resultSensitivity", (v) => ({ _meta: { "mcp.dev/resultSensitivity": v } })],
  [`/annotations/${ACTION.replace("/", "~1")}/returnMetadata/Sensitivity/0`, (v) => ({ annotations: { [ACTION]: { returnMetadata: { Sensitivity: [v] } } } })],
  ["/outputSchema/properties/secret/x-sensitive", (v) => ({ outputSchema: { type: "object", properties: { secret: { type: "string", "x-sensitive": v } } } })],
  ["/outputSchema/properties/secret/maxLength", (v) => ({ outputSchema: { type: "object", properties: { secret: { type: "string", maxLength: v, "x-sensitive": true } } } })],
  ["/outputSchema/anyOf/1/x-sensitive", (v) => ({ outputSchema: { anyOf: [{ type: "number" }, { type: "object", "x-sensitive": v }] } })],
  ["/title", (v) => ({ title: v })],
];

const coded = (code, pointer) => (/** @type {any} */ e) => e?.code === code && (pointer === undefined || e.pointer === pointer);

// `sensitiveHint: Infinity` (a careless tool's "very") was written `null` into the definition
// the core compiled, so the tool claimed nothing and its results reached the agent raw; the
// same for `"x-sensitive": () => true`, left out. Every value JSON cannot hold is now refused
// where it stands, as `schema_invalid` with its pointer, in each way a definition is given.
test("a tool definition holding a value JSON cannot hold is refused at its place (wrapTool)", async () => {
  const r = await createRedactor();
  let refused = 0;
  for (const [pointer, place] of DEFINITION_PLACES) {
    for (const [what, v] of UNHELD) {
      const tool = { name: "t", ...place(v), execute: async () => ({ secret: CANARY }) };
      assert.throws(() => r.wrapTool(tool), coded("schema_invalid", pointer), `${what} at ${pointer}`);
      refused += 1;
    }
  }
  assert.equal(refused, DEFINITION_PLACES.length * UNHELD.length);
});

test("such a definition given to redact, describe, check or lint is refused too, never read as null", async () => {
  for (const [what, v] of UNHELD) {
    const r = await createRedactor();
    const tool = { name: "t", annotations: { sensitiveHint: v } };
    const out = r.redact(tool, { content: [{ type: "text", text: CANARY }] });
    assert.equal(out.withheld, true, what);
    assert.equal(out.error?.code, "schema_invalid", what);
    assert.ok(!JSON.stringify(out.result).includes(CANARY), what);
    assert.throws(() => r.describe(tool), coded("schema_invalid"), what);
    assert.throws(() => r.session().check(tool, {}), coded("schema_invalid"), what);
    await assert.rejects(lintTools([tool]), coded("unserializable", "/0/annotations/sensitiveHint"), what);
  }
});

test("installRedaction refuses such a tool, in registerTool and provideContext", async () => {
  for (const [what, v] of UNHELD) {
    const ctx = fakeContext();
    ctx.provideContext = () => {};
    const uninstall = await installRedaction({ modelContext: ctx });
    try {
      const tool = { name: "t", description: "x", annotations: { sensitiveHint: v }, execute: async () => ({ content: [{ type: "text", text: CANARY }] }) };
      await assert.rejects(async () => ctx.registerTool(tool), coded("schema_invalid", "/annotations/sensitiveHint"), what);
      assert.throws(() => ctx.provideContext({ tools: [tool] }), coded("schema_invalid", "/annotations/sensitiveHint"), what);
      assert.equal(ctx.tools.size, 0, what);
    } finally {
      uninstall();
    }
  }
});

// The pointer of a refused value was spelt out for every value of the definition as it was
// written (a deep definition cost its depth per value); now only the refused value's is.
// Counted: the key escapes made, for a definition of 2,000 levels with the value at the bottom
// (each level's siblings seen first).
test("refusing a value deep in a large definition spells out one pointer", async () => {
  const r = await createRedactor();
  let tree = /** @type {any} */ ({ bad: Infinity });
  // Siblings first: JSON.stringify writes (and the replacer sees) them before going down.
  for (let i = 0; i < 2000; i++) tree = { other: [1, 2, 3], [`k${i % 7}`]: tree };
  const replaceAll = String.prototype.replaceAll;
  let escapes = 0;
  String.prototype.replaceAll = function (...args) {
    escapes += 1;
    return Reflect.apply(replaceAll, this, args);
  };
  try {
    assert.throws(() => r.wrapTool({ name: "t", _meta: tree, execute: async () => ({}) }), coded("schema_invalid"));
  } finally {
    String.prototype.replaceAll = replaceAll;
  }
  assert.ok(escapes <= 2 * 2003, `${escapes} key escapes`);
});

// `undefined` as a member is left out by JSON and falsy to JavaScript, as absent is: it stays
// allowed (definitionOf itself writes `title: undefined` for a tool without one). In an array
// JSON writes it `null`: refused.
test("undefined is absent as a member, and refused in an array", async () => {
  const r = await createRedactor();
  const ok = { name: "t", title: undefined, annotations: { sensitiveHint: undefined }, execute: async () => ({}) };
  r.wrapTool(ok);
  const bad = { name: "t", outputSchema: { type: "object", required: [undefined] }, execute: async () => ({}) };
  assert.throws(() => r.wrapTool(bad), coded("schema_invalid", "/outputSchema/required/0"));
});


// The same `null` in a result: `_meta: { sensitiveHint: Infinity }` claimed nothing, and the
// text reached the agent raw. ±Infinity is now written as 1e400 / -1e400, the number JSON can
// hold that the core counts as the claim (vector 205) and JSON.parse reads back as ±Infinity.
test("±Infinity where a result makes a claim claims, in every place, and reads back as itself", async () => {
  let withheld = 0;
  for (const [where, place] of RESULT_PLACES) {
    for (const v of [Infinity, -Infinity]) {
      const r = await createRedactor({ policy: { withholdAt: "medium" } });
      const out = r.redact({ name: "t" }, place(v));
      assert.ok(!JSON.stringify(out.result).includes(CANARY), `${v} in ${where}`);
      withheld += 1;
    }
  }
  assert.equal(withheld, RESULT_PLACES.length * 2);
  const r = await createRedactor();
  const out = r.redact({ name: "t" }, { structuredContent: { a: Infinity, b: [-Infinity, NaN, null], c: "webmcp-redact/infinite", d: "null" } });
  assert.deepEqual(out.result.structuredContent, { a: Infinity, b: [-Infinity, null, null], c: "webmcp-redact/infinite", d: "null" });
  const text = r.redactJson({ name: "t" }, '{"a":1e400}').json;
  assert.equal(text, '{"a":1e400}');
});

// The stand-in for Infinity was found by lengthening it with "~" until the text did not hold
// it: one scan of the whole text per "~" a result wrote after the prefix, quadratic (40,000 of
// them took 3.6 s; a 1 MB result about half an hour). Counted, not timed: the scans of texts
// that long (a constant number: `null`, and since review s32 `"_meta":` and `"annotations":`).
test("a result holding the stand-in's prefix and many ~ is read in a bounded number of scans", async () => {
  const r = await createRedactor();
  const n = 20_000;
  const raw = { structuredContent: { s: `webmcp-redact/infinite${"~".repeat(n)}`, i: Infinity, z: null } };
  const includes = String.prototype.includes;
  let scans = 0;
  String.prototype.includes = function (...args) {
    if (this.length > n) scans += 1;
    return Reflect.apply(includes, this, args);
  };
  let out;
  try {
    out = r.redact({ name: "t" }, raw);
  } finally {
    String.prototype.includes = includes;
  }
  assert.ok(scans <= 4, `${scans} scans of the whole text`);
  assert.equal(out.result.structuredContent.i, Infinity);
  assert.equal(out.result.structuredContent.s, raw.structuredContent.s);
});

// NaN is false to JavaScript, as JSON's null is: it claims nothing either way, as before.
test("NaN in a result claims nothing, as JavaScript reads it", async () => {
  const r = await createRedactor();
  const out = r.redact({ name: "t" }, { content: [{ type: "text", text: "plain" }], _meta: { sensitiveHint: NaN } });
  assert.equal(out.withheld, false);
  assert.equal(out.result.content[0].text, "plain");
});

// Session labels restored from a value JSON would misread: `private: () => true` was left out
// and the session read as not private (so exfiltration was not confirmed).
test("labels JSON cannot hold are refused by restore", async () => {
  const r = await createRedactor();
  const s = r.session();
  for (const [what, v] of UNHELD) {
    assert.throws(() => s.restore({ sensitivity: "none", private: v, openWorld: false, malicious: false, attribution: [] }), (e) => e instanceof TypeError, what);
  }
});

// --- registerTool's options ------------------------------------------------------------------

// The options are copied once onto an object of their prototype, and `signal` read once of the
// copy; but a `signal` the copy inherits stayed the prototype's getter, so the runtime read it
// again: undefined for the patch, another signal for the runtime, which then dropped the tool on
// a signal the patch never followed, while the name stayed counted as protected (stop 30's fix,
// bypassed through the prototype).
test("a signal the options inherit is read once, for the patch and the runtime alike", async () => {
  const other = new AbortController();
  let reads = 0;
  const proto = {
    get signal() {
      return reads++ === 0 ? undefined : other.signal;
    },
  };
  const seen = await reportAfterUnregister(Object.create(proto), () => other.abort());
  if (seen !== "kept") assert.deepEqual(seen, ["lookup"], "unregistered by a signal never followed, the name stayed protected");
  // An inherited signal that does not change is followed as an own one is.
  const followed = new AbortController();
  const steady = Object.create({ signal: followed.signal });
  assert.deepEqual(await reportAfterUnregister(steady, () => followed.abort()), ["lookup"]);
});

// --- The CLI's JSON output ---------------------------------------------------------------------

// Stop 30 escaped control and format characters in the CLI's text lines and in redact's JSON;
// `lint --format json` and `conformance --json` still printed JSON.stringify's text, which
// leaves C1 controls (a CSI), U+2028/9 and format characters (a bidi override, a TAG character)
// raw: a tool's name or hint from a tools/list, or a key of the view an implementation made,
// rewrote what the terminal or the CI log showed.
test("lint --format json and conformance --json show control and format characters as escapes", async () => {
  const root = new URL("../..", import.meta.url).pathname;
  const dir = mkdtempSync(join(tmpdir(), "s31-cli-"));
  const RAW = /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\u{E0000}-\u{E007F}]/u;
  const cli = (/** @type {string[]} */ args) => spawnSync(process.execPath, ["bin/webmcp-redact.mjs", ...args], { cwd: root, encoding: "utf8" });
  let cases = 0;
  for (const evil of ["\u009b2K", "\u202e", "\u2028", "\u{E0041}\u{E007F}", "\u007f"]) {
    const tool = { name: `t${evil}`, annotations: { sensitiveHint: `level${evil}` } };
    writeFileSync(join(dir, "tool.json"), JSON.stringify(tool));
    const lint = cli(["lint", "--format", "json", join(dir, "tool.json")]);
    assert.ok(!RAW.test(lint.stdout), `lint --format json: ${JSON.stringify(lint.stdout)}`);
    assert.equal(JSON.parse(lint.stdout)[0].tool, `t${evil}`, "the same JSON value, escaped");
    writeFileSync(join(dir, "impl.mjs"), `export function redact(tool, raw) { return { ${JSON.stringify(`k${evil}`)}: raw }; }\n`);
    const conformance = cli(["conformance", "--json", "--module", join(dir, "impl.mjs")]);
    assert.equal(conformance.status, 1);
    assert.ok(!RAW.test(conformance.stdout), `conformance --json: ${JSON.stringify(conformance.stdout.slice(0, 400))}`);
    assert.ok(JSON.parse(conformance.stdout).failed.length > 0);
    cases += 1;
  }
  assert.equal(cases, 5);
});

// --- MCP-B's resources and prompts ---------------------------------------------------------------

// MCP-B's server serves resources and prompts beside tools; installRedaction patched only
// registerTool, so what a resource's read or a prompt's get returned reached MCP clients as the
// page wrote it: the API key a tool's result had withheld, shown again by an "account"
// resource, reached the agent raw. Both now go through the page session as a result of no tool.
test("over MCP-B, a resource or a prompt echoing a withheld value is scrubbed, and one claiming sensitivity is refused", async () => {
  const { BrowserMcpServer } = await import("@mcp-b/webmcp-ts-sdk");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  const registerResource = server.registerResource;
  const uninstall = await installRedaction({ modelContext: server });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    await server.registerTool({ ...apiKeyTool, execute: async () => apiKeyRaw() });
    const call = await client.callTool({ name: apiKeyTool.name, arguments: {} });
    assert.ok(!JSON.stringify(call).includes(CANARY));
    server.registerResource({ name: "account", uri: "app://account", mimeType: "text/plain", read: async () => ({ contents: [{ uri: "app://account", text: `your key: ${CANARY}` }] }) });
    server.registerResource({ name: "plain", uri: "app://plain", read: async () => ({ contents: [{ uri: "app://plain", text: "nothing here" }] }) });
    server.registerResource({ name: "marked", uri: "app://marked", read: async () => ({ contents: [{ uri: "app://marked", text: "private" }], _meta: { sensitiveHint: true } }) });
    server.registerPrompt({ name: "use_key", get: async () => ({ messages: [{ role: "user", content: { type: "text", text: `call with ${CANARY}` } }] }) });
    // A class-based descriptor keeps what it inherits (the runtime spreads what it is given).
    let uriReads = 0;
    class Account {
      get name() { return "inherited"; }
      get uri() { uriReads += 1; return "app://inherited"; }
      async read() { return { contents: [{ uri: "app://inherited", text: `again ${CANARY}` }] }; }
    }
    server.registerResource(new Account());
    assert.match((await client.readResource({ uri: "app://inherited" })).contents[0].text, /^again \[redacted/);
    assert.equal(uriReads, 1, "the descriptor is read once");
    const account = await client.readResource({ uri: "app://account" });
    assert.ok(!JSON.stringify(account).includes(CANARY), JSON.stringify(account));
    assert.match(account.contents[0].text, /^your key: \[redacted/);
    assert.deepEqual((await client.readResource({ uri: "app://plain" })).contents, [{ uri: "app://plain", text: "nothing here" }]);
    await assert.rejects(client.readResource({ uri: "app://marked" }), /withheld/);
    const prompt = await client.getPrompt({ name: "use_key" });
    assert.ok(!JSON.stringify(prompt).includes(CANARY), JSON.stringify(prompt));
  } finally {
    uninstall();
    await client.close();
    await server.close();
  }
  assert.equal(server.registerResource, registerResource, "uninstall puts registerResource back");
});

// A context whose registerResource cannot be replaced is refused as one whose registerTool
// cannot: installed, its resources would go on reaching clients raw while the page believed
// them scrubbed. Nothing stays patched.
test("a context whose registerResource cannot be replaced is refused, and nothing stays patched", async () => {
  const ctx = /** @type {any} */ (fakeContext());
  const registerTool = ctx.registerTool;
  Object.defineProperty(ctx, "registerResource", { value: () => {}, writable: false, configurable: false });
  await assert.rejects(installRedaction({ modelContext: ctx }), coded("invalid_options"));
  assert.equal(ctx.registerTool, registerTool);
  // Installed again once it can be: patched, and put back by uninstall.
  const free = /** @type {any} */ (fakeContext());
  const registerResource = () => {};
  free.registerResource = registerResource;
  const uninstall = await installRedaction({ modelContext: free });
  assert.notEqual(free.registerResource, registerResource);
  uninstall();
  assert.equal(free.registerResource, registerResource);
});

// --- Seeded: values JSON cannot hold, anywhere ------------------------------------------------

const pick = (/** @type {() => number} */ rnd, /** @type {any[]} */ xs) => xs[Math.floor(rnd() * xs.length)];
const KEYS = ["a", "x-sensitive", "sensitiveHint", "properties", "items", "a/b", "m~n", "_meta", "0"];

/**
 * A JSON tree `depth` levels above one planted value, and the pointer of that value within it:
 * objects of random keys (some needing `~0`/`~1`), arrays with the value at a random index,
 * siblings of plain JSON data.
 */
function planted(/** @type {() => number} */ rnd, depth, value) {
  if (depth === 0) return { tree: value, pointer: "" };
  const inner = planted(rnd, depth - 1, value);
  if (rnd() < 0.3) {
    const at = Math.floor(rnd() * 3);
    const tree = [null, 1, "s"].slice(0, at).concat([inner.tree], [true]);
    return { tree, pointer: `/${at}${inner.pointer}` };
  }
  const key = pick(rnd, KEYS);
  const tree = { other: { type: "string" }, [key]: inner.tree };
  return { tree, pointer: `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}${inner.pointer}` };
}

// 300 definitions (seed 20261124), each with one value JSON cannot hold planted 0 to 5 levels
// deep in title, outputSchema, annotations or _meta: each is refused, at exactly its pointer,
// by wrapTool and (without a pointer to check) by redact.
test("seeded: a value JSON cannot hold anywhere in a definition is refused at its pointer", async () => {
  const rnd = random(20261124);
  const r = await createRedactor();
  let refused = 0;
  for (let i = 0; i < 300; i++) {
    const [, value] = pick(rnd, UNHELD);
    const field = pick(rnd, ["title", "outputSchema", "annotations", "_meta"]);
    const { tree, pointer } = planted(rnd, field === "title" ? 0 : 1 + Math.floor(rnd() * 5), value);
    const tool = { name: `t${i}`, [field]: tree, execute: async () => ({}) };
    assert.throws(() => r.wrapTool(tool), coded("schema_invalid", `/${field}${pointer}`), `case ${i}: ${field}${pointer}`);
    assert.equal(r.redact(tool, {}).error?.code, "schema_invalid", `case ${i}`);
    refused += 1;
  }
  assert.equal(refused, 300);
});

// 300 results (seed 20261125): a ±Infinity claim in one of the places a result makes claims,
// among data holding nulls, NaN, Infinity and the stand-in's own text: the canary never
// reaches the agent, and the same data without the claim reads back as JavaScript wrote it.
test("seeded: ±Infinity claims wherever a result makes claims, and data keeps its values", async () => {
  const rnd = random(20261125);
  let cases = 0;
  for (let i = 0; i < 300; i++) {
    const [where, place] = pick(rnd, RESULT_PLACES);
    const data = { n: pick(rnd, [Infinity, -Infinity, NaN, null, 0]), s: pick(rnd, ["webmcp-redact/infinite", "null", "x"]), list: [pick(rnd, [Infinity, null, 1])] };
    const r = await createRedactor({ policy: { withholdAt: "medium" } });
    const raw = place(pick(rnd, [Infinity, -Infinity]));
    raw.structuredContent ??= data;
    const out = r.redact({ name: "t" }, raw);
    assert.ok(!JSON.stringify(out.result).includes(CANARY), `case ${i}: ${where}`);
    const plain = (await createRedactor()).redact({ name: "p" }, { structuredContent: data });
    assert.deepEqual(plain.result.structuredContent, JSON.parse(JSON.stringify(data, (_k, v) => (Number.isNaN(v) ? null : v === Infinity ? "I" : v === -Infinity ? "-I" : v)), (_k, v) => (v === "I" ? Infinity : v === "-I" ? -Infinity : v)), `case ${i}`);
    cases += 1;
  }
  assert.equal(cases, 300);
});
