// The JSON text the core reads of a JavaScript value. JSON cannot hold every JavaScript value,
// and what JSON.stringify writes instead changed what the core decided: `Infinity` is written
// `null`, which claims nothing, though JavaScript reads it as true (`sensitiveHint: Infinity`
// let a sensitive tool's result through raw, as did `"x-sensitive": () => true`, which
// JSON.stringify drops). No claim word is needed here: the two readers below keep JavaScript's
// truthiness in the text, one by refusing, the other by writing what JSON can hold.

/**
 * A tool definition's JSON text: a value JSON cannot hold (a non-finite number, a function, a
 * symbol, or `undefined` in an array, which JSON writes as `null`) anywhere in it throws
 * `{ pointer, what }`, the JSON Pointer of the first one, for the caller's `schema_invalid`.
 * `undefined` as a member's value is left out, as JSON leaves it: it is falsy, as absent is.
 * Also throws what JSON.stringify throws (a BigInt, a cycle, a throwing getter).
 * @param {unknown} value
 * @returns {string}
 */
export function definitionText(value) {
  // The usual case (nothing JSON cannot hold) with a replacer that only looks: a tool object
  // given to redact is written out on every call, and one that also tracks pointers cost Node
  // 39 us a call for a 444-byte definition (bench/cases.mjs's account tool), against 8 us this
  // way and 4.5 us with no replacer.
  try {
    return JSON.stringify(value, looks) ?? "null";
  } catch (err) {
    if (err !== UNHELD) throw err;
  }
  // Each object's place as a link to its holder's, the pointer spelt out only for the value
  // found (spelt out for every value, a deep definition cost its depth per value).
  const places = new WeakMap();
  /** @this {any} @param {string} key @param {unknown} v */
  function strict(key, v) {
    const place = places.has(this) ? { up: places.get(this), key } : null;
    const kind = unheld(v, Array.isArray(this));
    if (kind) throw { pointer: pointerOf(place), what: kind };
    if (v !== null && typeof v === "object") places.set(v, place);
    return v;
  }
  return JSON.stringify(value, strict) ?? "null";
}

/** The JSON Pointer of a place `strict` linked. */
function pointerOf(place) {
  const keys = [];
  for (let p = place; p; p = p.up) keys.push(p.key.replaceAll("~", "~0").replaceAll("/", "~1"));
  return keys.reverse().map((k) => `/${k}`).join("");
}

const UNHELD = new Error("a value JSON cannot hold");

/** @this {any} @param {string} _key @param {unknown} v */
function looks(_key, v) {
  const t = typeof v;
  if (t === "object" || t === "string" || t === "boolean") return v;
  if (t === "number" ? !Number.isFinite(v) : t !== "undefined" || Array.isArray(this)) throw UNHELD;
  return v;
}

/** What JSON would write of `v` in another sense than JavaScript reads it, or "". */
function unheld(v, inArray) {
  if (typeof v === "number") return Number.isFinite(v) ? "" : `the number ${v}`;
  if (typeof v === "function" || typeof v === "symbol") return `a ${typeof v}`;
  return v === undefined && inArray ? "undefined in an array" : "";
}

const INFINITE = "webmcp-redact/infinite";

/**
 * A result's JSON text, from one JSON.stringify of it in the usual case. Only two kinds of text
 * are read again: one holding `null`, where a non-finite number may have been written so
 * (±Infinity is then written `1e400`/`-1e400`, what JSON.parse reads back as ±Infinity and what
 * the core counts as a claim, as JavaScript does; NaN stays `null`, falsy either way), and one
 * with a `_meta` or `annotations` member, the only places the core reads a result's claims
 * from (src/policy/claims.rs): a function or a symbol anywhere below one of them is written
 * `true`, as JavaScript reads it, where JSON left it out (`_meta: { sensitiveHint: () => true }`
 * claimed nothing, found by review s31). Elsewhere a function or a symbol is left out, as JSON
 * leaves it (README, "Limits": a result is data). A replacer on every result cost about 2.5x
 * the plain JSON.stringify; keys are never escaped by it, so `"_meta":` in the text finds every
 * such member. The second text is the one checked and given, and its rules are decided by its
 * own read (a getter may answer otherwise the second time). Throws what JSON.stringify throws.
 * @param {unknown} raw
 * @returns {string}
 */
export function resultText(raw) {
  const text = JSON.stringify(raw) ?? "null";
  const places = text.includes('"_meta":') || text.includes('"annotations":');
  if (!places && !text.includes("null")) return text;
  // A stand-in no string of the first text holds (a getter could still give it on the second
  // read: that string then becomes a number, which holds nothing).
  const tag = standIn(text);
  let infinite = false;
  /** Objects at or below a claim place: their functions and symbols claim. */
  const below = new WeakSet();
  /** @this {any} @param {string} key @param {unknown} v */
  function again(key, v) {
    // Most values are strings and finite numbers: answered first (the set is asked only of an
    // object, a function or a symbol).
    const t = typeof v;
    if (t === "string" || t === "boolean") return v;
    if (t === "number") {
      if (v !== Infinity && v !== -Infinity) return v;
      infinite = true;
      return v > 0 ? tag : `-${tag}`;
    }
    // Where a function claims is decided by this read, not the first: a getter answering
    // without `_meta` there and with one here had its function dropped (review s34).
    if (t === "object") {
      if (v !== null && (key === "_meta" || key === "annotations" || below.has(this))) below.add(/** @type {object} */ (v));
      return v;
    }
    return (t === "function" || t === "symbol") && below.has(this) ? true : v;
  }
  const second = JSON.stringify(raw, again) ?? "null";
  return infinite ? second.replaceAll(`"-${tag}"`, "-1e400").replaceAll(`"${tag}"`, "1e400") : second;
}

/**
 * INFINITE and one more "~" than follows it anywhere in `text`, so found nowhere in it, in one
 * pass: lengthening it until it was not found scanned the text once per "~" a result wrote
 * after it, quadratic (40,000 of them took 3.6 s in Node; a 1 MB result about half an hour).
 * @param {string} text
 */
function standIn(text) {
  let most = -1;
  for (let at = text.indexOf(INFINITE); at >= 0; at = text.indexOf(INFINITE, at + 1)) {
    let end = at + INFINITE.length;
    while (text.charCodeAt(end) === 126) end += 1; // "~"
    most = Math.max(most, end - at - INFINITE.length);
  }
  return INFINITE + "~".repeat(most + 1);
}
