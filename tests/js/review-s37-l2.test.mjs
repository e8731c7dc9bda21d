// Review s37 (helper L2): a tool listing cleaned by a redactor, for an extension's bridge. It
// reads a page's listing (getTools(), tools/list) past any patch the page has; the only route it
// had, `redactJson({ name: "listing" }, JSON.stringify(tools))`, masked a tool named by a known
// value into an entry no call can reach, where installRedaction's listings drop it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRedactor } from "webmcp-redact";
import { apiKeyTool, random } from "./helpers.mjs";

const texts = (/** @type {unknown} */ v) => JSON.stringify(v);

/** `n` values as a tool might return them: letters and digits, 16 to 31 long, each its own. */
function values(seed, n) {
  const rnd = random(seed);
  const ABC = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  return Array.from({ length: n }, (_, i) => {
    let v = `w${i}y`;
    const len = 12 + Math.floor(rnd() * 16);
    for (let j = 0; j < len; j += 1) v += ABC[Math.floor(rnd() * ABC.length)];
    return v;
  });
}

/** A redactor that knows each of `known` (each returned once as apiKeyTool's marked `secret`). */
async function knowing(known, options = {}) {
  const r = await createRedactor(options);
  for (const v of known) r.redact(apiKeyTool, { id: "k", name: "n", secret: v });
  return r;
}

/** Where a known value sits in a seeded tool: [place, is it the tool's identifier, the tool]. */
/** @type {[string, boolean, (i: number, v: string) => Record<string, any>][]} */
const PLACES = [
  ["name", true, (i, v) => ({ name: `t${i}_${v}`, description: "d" })],
  ["name, whole", true, (i, v) => ({ name: v, description: "d" })],
  ["title", false, (i, v) => ({ name: `t${i}`, title: `T ${v}`, description: "d" })],
  ["description", false, (i, v) => ({ name: `t${i}`, description: `about ${v} here` })],
  ["input field description", false, (i, v) => ({ name: `t${i}`, description: "d", inputSchema: { type: "object", properties: { q: { type: "string", description: `the ${v}` } } } })],
  ["input field name", false, (i, v) => ({ name: `t${i}`, description: "d", inputSchema: { type: "object", properties: { [v]: { type: "string" }, q: { type: "string" } } } })],
  ["input enum", false, (i, v) => ({ name: `t${i}`, description: "d", inputSchema: { type: "object", properties: { q: { enum: ["a", `b${v}`] } } } })],
  ["output default", false, (i, v) => ({ name: `t${i}`, description: "d", outputSchema: { type: "object", properties: { q: { type: "string", default: v } } } })],
  ["schema as JSON text", false, (i, v) => ({ name: `t${i}`, description: "d", inputSchema: JSON.stringify({ type: "object", properties: { q: { type: "string", description: `the ${v}` } } }) })],
  ["annotations", false, (i, v) => ({ name: `t${i}`, description: "d", annotations: { title: `x ${v}` } })],
];

// Seeded listings, each tool holding a known value in one place: a tool named by one is dropped
// (its neighbours kept), one holding it elsewhere is kept, masked, with its name as written.
test("cleanToolListing drops a tool named by a known value and masks the others", async () => {
  const known = values(3801, 24);
  const r = await knowing(known);
  const rnd = random(3802);
  let leaked = 0;
  let kept = 0;
  let dropped = 0;
  const N = 200;
  for (let i = 0; i < N; i += 1) {
    const [what, identifier, make] = PLACES[i % PLACES.length];
    const v = known[Math.floor(rnd() * known.length)];
    const tool = make(i, v);
    const plain = { name: `plain${i}`, description: "nothing here", inputSchema: { type: "object", properties: { q: { type: "string" } } } };
    const listing = rnd() < 0.5 ? [plain, tool] : [tool, plain];
    const shown = r.cleanToolListing(listing);
    if (texts(shown).includes(v)) leaked += 1;
    assert.deepEqual(shown.find((t) => t.name === plain.name), plain, `${what}: a tool holding no known value is listed as written`);
    const mine = shown.filter((t) => t.name !== plain.name);
    if (identifier) {
      if (mine.length === 0) dropped += 1;
    } else {
      assert.equal(mine.length, 1, `${what}: kept`);
      assert.equal(mine[0].name, tool.name, `${what}: its name as written`);
      if (what === "input field name") assert.deepEqual(Object.keys(mine[0].inputSchema.properties), ["q"], "a member named by it dropped");
      else assert.match(texts(mine[0]), /\[redacted: secret\]/, `${what}: masked in place`);
      if (typeof tool.inputSchema === "string") assert.equal(JSON.parse(mine[0].inputSchema).type, "object", "schema text stays JSON text");
      kept += 1;
    }
  }
  assert.equal(leaked, 0, `${leaked} of ${N} listings showed a known value`);
  assert.equal(dropped, N / PLACES.length * 2, `${dropped} tools named by a known value dropped`);
  assert.equal(kept + dropped, N);
  // The listing given is not changed.
  const given = [{ name: `a_${known[0]}`, description: known[1] }];
  const copy = structuredClone(given);
  r.cleanToolListing(given);
  assert.deepEqual(given, copy);
});

// A redactor that knows nothing gives the listing back as written (a copy).
test("cleanToolListing of a redactor that knows nothing gives the listing as written", async () => {
  const r = await createRedactor();
  const rnd = random(3811);
  for (let i = 0; i < 20; i += 1) {
    const listing = Array.from({ length: 1 + Math.floor(rnd() * 4) }, (_, j) => PLACES[(i + j) % PLACES.length][2](j, `value${i}x${j}`));
    const shown = r.cleanToolListing(listing);
    assert.deepEqual(shown, listing);
    assert.notEqual(shown, listing);
  }
});

// A listing that cannot be read or scrubbed fails closed: it throws, with a stable code, and no
// part of the listing is given; a mistake in the call is a TypeError, as elsewhere in the API.
test("cleanToolListing fails closed: what it cannot read or scrub throws with a stable code", async () => {
  const known = values(3821, 2);
  const r = await knowing(known);
  const coded = (/** @type {string} */ code, /** @type {Function} */ kind) => (/** @type {any} */ e) => e instanceof kind && e.code === code && !String(e.message).includes(known[0]);
  const { RedactionError } = await import("webmcp-redact");
  for (const bad of [undefined, null, "[]", { tools: [] }, [null], [1], [[]], [{ name: "a" }, "b"], [, { name: "a" }]]) {
    assert.throws(() => r.cleanToolListing(/** @type {any} */ (bad)), coded("invalid_listing", TypeError), texts(bad));
  }
  const cycle = /** @type {any} */ ({ name: "c", description: known[0] });
  cycle.self = cycle;
  const getter = { name: "g", get description() { throw new Error(`no ${known[0]}`); } };
  const throwing = new Proxy([{ name: "p" }], { get(t, k) { if (k === "0") throw new Error(known[0]); return Reflect.get(t, k); } });
  for (const bad of [[cycle], [{ name: "b", n: 10n }], [getter], throwing]) {
    assert.throws(() => r.cleanToolListing(/** @type {any} */ (bad)), coded("unserializable", RedactionError));
  }
  // Over the redactor's limits: the core refuses to read it.
  const small = await knowing(known, { limits: { maxInputBytes: 2000 } });
  assert.throws(() => small.cleanToolListing([{ name: "big", description: "x".repeat(4000) }]), coded("size_limit", RedactionError));
  // Nested past what JavaScript's stack reads (its strings are scrubbed as a flat list, so no
  // depth reaches the core): unreadable.
  let deep = /** @type {any} */ ({ type: "string", description: known[0] });
  for (let i = 0; i < 200_000; i += 1) deep = { q: deep };
  assert.throws(() => r.cleanToolListing([{ name: "deep", inputSchema: deep }]), coded("unserializable", RedactionError));
});
