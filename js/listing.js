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

/** The tool name a listing's strings are scrubbed under (its errors and withheld views name it). */
export const LISTING = "listing";

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
  return rebuilt(once, await scrub(stringsOf(once)), member, id).out;
}

/**
 * A tool entry's members that are no JSON (what the runtime lists a tool's page by, a
 * `Window`): kept by reference, never read as text.
 */
const OPAQUE = ["window"];

/**
 * What the WebMCP runtime lists of its tools, `getTools()` (MCP-B's `BrowserMcpServer`, the
 * polyfill, Chromium's own `document.modelContext`) and `listTools()` (MCP-B's server and
 * testing shim), as the page's scripts and an extension's bridge may see it: cleaned as
 * `tools/list` is (a tool named by a known value dropped, free text masked; listed raw, each
 * showed the value: left open by review s36). Each entry is read once; its OPAQUE members are
 * kept as they are, and a JSON text in place of a schema (`inputSchema`, as Chromium gives it)
 * is scrubbed as the JSON it holds and given back as text. Anything but an array of objects
 * throws (the caller's listing throws or rejects). `scrub` as cleanListing's; a synchronous
 * one makes a synchronous answer (`listTools` is).
 * @template {string[] | Promise<string[]>} S
 * @param {unknown} tools
 * @param {(strings: string[]) => S} scrub
 * @returns {S extends Promise<string[]> ? Promise<object[]> : object[]}
 */
export function cleanTools(tools, scrub) {
  const refused = () => new TypeError("webmcp-redact: a tool listing could not be scrubbed");
  if (!Array.isArray(tools)) throw refused();
  /** @type {Record<string, unknown>[]} */
  const opaque = [];
  const texts = new Set();
  const entries = tools.map((tool, i) => {
    if (tool === null || typeof tool !== "object") throw refused();
    /** @type {Record<string, unknown>} */
    const entry = { ...tool };
    opaque[i] = {};
    for (const key of OPAQUE) {
      if (!Object.hasOwn(entry, key)) continue;
      opaque[i][key] = entry[key];
      delete entry[key];
    }
    if (typeof entry.inputSchema === "string") {
      try {
        entry.inputSchema = JSON.parse(entry.inputSchema);
        texts.add(i);
      } catch {
        // not JSON: a string like any other
      }
    }
    return entry;
  });
  const once = JSON.parse(JSON.stringify({ tools: entries }));
  const finish = (/** @type {string[]} */ clean) => {
    const { out, kept } = rebuilt(once, clean, "tools", "name");
    return kept.map((i, at) => {
      const entry = { ...out.tools[at], ...opaque[i] };
      if (texts.has(i)) entry.inputSchema = JSON.stringify(entry.inputSchema);
      return entry;
    });
  };
  const clean = scrub(stringsOf(once));
  return /** @type {any} */ (clean instanceof Promise ? clean.then(finish) : finish(/** @type {string[]} */ (clean)));
}

/**
 * Every string of `once` (a listing read as JSON), member names included, in mapStrings' order.
 * @param {unknown} once
 */
function stringsOf(once) {
  /** @type {string[]} */
  const all = [];
  mapStrings(once, (s) => (all.push(s), s));
  return all;
}

/**
 * `once` with its strings replaced by `clean` (stringsOf's, scrubbed) and the entries of
 * `member` whose identifier `id` changed dropped; `kept` is the indexes of the entries left.
 * @param {any} once
 * @param {unknown} clean
 * @param {string} member
 * @param {string} id
 * @returns {{ out: any, kept: number[] }}
 */
function rebuilt(once, clean, member, id) {
  const all = stringsOf(once);
  if (!Array.isArray(clean) || clean.length !== all.length) throw new TypeError("webmcp-redact: a listing could not be scrubbed");
  let at = 0;
  const out = /** @type {any} */ (mapStrings(once, () => clean[at++]));
  // An entry is dropped when its identifier changed (it is walked in the same order, so the
  // masked entry's identifier is what `clean` made of it).
  const entries = Array.isArray(once?.[member]) ? once[member] : [];
  /** @type {number[]} */
  const kept = [];
  if (Array.isArray(out?.[member])) {
    out[member] = out[member].filter((/** @type {any} */ entry, /** @type {number} */ i) => {
      const raw = entries[i]?.[id];
      const keep = typeof raw !== "string" || entry?.[id] === raw;
      if (keep) kept.push(i);
      return keep;
    });
  }
  return { out, kept };
}
