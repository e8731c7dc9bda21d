// What MCP-B's inner server lists (`tools/list`, `resources/list`, `resources/templates/list`,
// `prompts/list`): names, titles, descriptions, URIs and schemas the page registered, possibly
// after a tool's result was known (a resource named after a fetched mail's subject, a key in a
// URI). Listed raw, a known value reached every client (left open by review s34). Each listing is
// read once (as JSON), every string in it (values and member names) scrubbed by the page
// session in one call, and rebuilt:
// - free text (a title, a description, annotations, `_meta`, a schema's strings) is masked in
//   place, string by string; a member whose name holds a value is dropped;
// - an entry whose identifier holds a value (a tool's or prompt's `name`, a resource's `uri`,
//   a template's `uriTemplate`) cannot be masked without breaking calls to it: it is dropped
//   from the listing, and calls to it are refused (js/install.js, `refusedName`).

/** The listing methods -> [the result's member listing entries, each entry's identifier]. */
export const LISTINGS = {
  "tools/list": ["tools", "name"],
  "prompts/list": ["prompts", "name"],
  "resources/list": ["resources", "uri"],
  "resources/templates/list": ["resourceTemplates", "uriTemplate"],
};

/**
 * `value` rebuilt with each string, and each member name, replaced by `f(s)` in one fixed order
 * (the same on every walk of the same value); a member whose name `f` changes is dropped.
 * @param {unknown} value a JSON value
 * @param {(s: string) => string} f
 * @returns {unknown}
 */
function mapStrings(value, f) {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value === null || typeof value !== "object") return value;
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    const name = f(key);
    const clean = mapStrings(v, f);
    if (name === key) out[key] = clean;
  }
  return out;
}

/**
 * The listing `result` of `method` as clients may see it (see the file's comment).
 * `scrub(strings)` gives the strings with what it finds masked (same length, same order), or
 * throws (the listing is then refused: fail closed). A result that JSON cannot hold throws.
 * @param {string} method a key of LISTINGS
 * @param {unknown} result what the SDK's handler answered
 * @param {(strings: string[]) => string[] | Promise<string[]>} scrub
 */
export async function cleanListing(method, result, scrub) {
  const [member, id] = LISTINGS[/** @type {keyof typeof LISTINGS} */ (method)];
  // Read once: the text scrubbed is the text sent (a getter in `_meta` answers once).
  const once = JSON.parse(JSON.stringify(result ?? {}));
  /** @type {string[]} */
  const all = [];
  mapStrings(once, (s) => (all.push(s), s));
  const clean = await scrub(all);
  if (!Array.isArray(clean) || clean.length !== all.length) throw new TypeError("webmcp-redact: a listing could not be scrubbed");
  let at = 0;
  const out = /** @type {any} */ (mapStrings(once, () => clean[at++]));
  // An entry is dropped when its identifier changed (it is walked in the same order, so the
  // masked entry's identifier is what `clean` made of it).
  const entries = Array.isArray(once?.[member]) ? once[member] : [];
  if (Array.isArray(out?.[member])) {
    out[member] = out[member].filter((/** @type {any} */ entry, /** @type {number} */ i) => {
      const raw = entries[i]?.[id];
      return typeof raw !== "string" || entry?.[id] === raw;
    });
  }
  return out;
}
