// Generated tools and results for tests/js/properties.test.mjs (fast-check), the same idea as
// the Rust properties (tests/props/): an outputSchema with "x-sensitive" marks under every
// keyword the walker knows, a conforming instance with a unique canary (CNRY<n>xq...) wherever
// a mark covers it, and a raw result echoing the canaries elsewhere, each echo written by a
// real encoder (JSON.stringify, encodeURIComponent, encodeURI, URLSearchParams, Python's
// ensure_ascii). Shapes are plain data so fast-check can print and shrink them.

import fc from "fast-check";

// ---- canaries ----------------------------------------------------------------------------

/** Decorations after `CNRY<n>xq`: the decorated canaries differ in every encoding. */
export const DECORATIONS = ["", "", "", ' é/"&', "+?=%#", "\\ <b>'", "\n😀~", "a b"];

export const canary = (n, deco) => `CNRY${n}xq${DECORATIONS[deco % DECORATIONS.length]}`;

/** Every CNRY<digits>xq token in `text`: any of them in an agent view is a leak. */
export const canaryTokens = (text) => [...text.matchAll(/CNRY\d+xq/g)].map((m) => m[0]);

class Canaries {
  next = 0;
  all = [];
  plain = 0;
  fresh(deco) {
    const c = canary(this.next++, deco);
    this.all.push(c);
    return c;
  }
}

export const newCanaries = () => new Canaries();

// ---- shapes ------------------------------------------------------------------------------

const secret = fc.record({
  k: fc.constant("secret"),
  mark: fc.constantFrom("true", "class", "untyped"),
  body: fc.oneof({ weight: 6, arbitrary: fc.constant("str") }, fc.constant("obj"), fc.constant("arr")),
  deco: fc.nat({ max: DECORATIONS.length - 1 }),
  titled: fc.boolean(),
});
const plain = fc.record({ k: fc.constant("plain"), t: fc.constantFrom("str", "num", "bool") });
const leaf = fc.oneof({ weight: 3, arbitrary: secret }, { weight: 2, arbitrary: plain });

const { shape } = fc.letrec((tie) => {
  const props = () => fc.array(tie("shape"), { minLength: 1, maxLength: 3 });
  return {
    shape: fc.oneof(
      { maxDepth: 3, depthIdentifier: "shape" },
      { weight: 5, arbitrary: leaf },
      { weight: 6, arbitrary: fc.record({ k: fc.constant("object"), props: props() }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("pattern"), prefix: fc.nat(2), child: tie("shape"), keys: fc.integer({ min: 1, max: 2 }) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("additional"), declared: fc.array(tie("shape"), { maxLength: 2 }), extra: tie("shape"), keys: fc.integer({ min: 1, max: 2 }) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("items"), child: tie("shape"), len: fc.nat(3) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("prefix"), items: props(), rest: fc.option(fc.record({ shape: tie("shape"), len: fc.integer({ min: 1, max: 2 }) })) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("allOf"), parts: fc.array(props(), { minLength: 1, maxLength: 3 }) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("anyOf"), branches: props(), pick: fc.nat(255) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("oneOf"), branches: fc.array(props(), { minLength: 1, maxLength: 3 }), pick: fc.nat(255) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("ite"), then: props(), otherwise: props(), takeThen: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("dependent"), props: props(), present: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, fc.constant(false)) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant("ref"), shape: tie("shape"), legacy: fc.boolean() }) },
      { weight: 1, arbitrary: fc.record({ k: fc.constant("tree"), depth: fc.nat(3), fanout: fc.integer({ min: 1, max: 2 }) }) },
      { weight: 1, arbitrary: fc.record({ k: fc.constant("many"), n: fc.integer({ min: 30, max: 37 }) }) },
    ),
  };
});

/** A root shape: mostly an object (a structured result), sometimes anything. */
export const rootShape = fc.oneof(
  { weight: 6, arbitrary: fc.record({ k: fc.constant("object"), props: fc.array(shape, { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: shape },
);

const OBJECTS = new Set(["object", "pattern", "additional", "allOf", "oneOf", "ite", "dependent", "tree"]);

const PREFIXES = ["sk_", "tok", "pw-"];
const TITLES = ["API key", "Password", "Recovery code"];

const propsSchema = (props, prefix, defs) => Object.fromEntries(props.map((p, i) => [`${prefix}${i}`, schema(p, defs)]));

/** The tool's outputSchema for `root`. */
export function outputSchema(root) {
  const defs = { $defs: {}, definitions: {}, next: 0 };
  const out = schema(root, defs);
  if (Object.keys(defs.$defs).length) out.$defs = defs.$defs;
  if (Object.keys(defs.definitions).length) out.definitions = defs.definitions;
  return out;
}

function schema(s, defs) {
  switch (s.k) {
    case "secret": {
      const v = s.mark === "class" ? { "x-sensitive": "credentials" } : { "x-sensitive": true };
      if (s.mark !== "untyped") v.type = { str: "string", obj: "object", arr: "array" }[s.body];
      if (s.titled) v.title = TITLES[s.deco % TITLES.length];
      return v;
    }
    case "plain":
      return { type: { str: "string", num: "number", bool: "boolean" }[s.t] };
    case "object":
      return { type: "object", properties: propsSchema(s.props, "p", defs) };
    case "pattern":
      return { type: "object", properties: { name: { type: "string" } }, patternProperties: { [`^${PREFIXES[s.prefix]}`]: schema(s.child, defs) } };
    case "additional":
      return { type: "object", properties: propsSchema(s.declared, "p", defs), additionalProperties: schema(s.extra, defs) };
    case "items":
      return { type: "array", items: schema(s.child, defs) };
    case "prefix": {
      const v = { type: "array", prefixItems: s.items.map((i) => schema(i, defs)) };
      if (s.rest) v.items = schema(s.rest.shape, defs);
      return v;
    }
    case "allOf":
      return { allOf: s.parts.map((props, n) => ({ type: "object", properties: propsSchema(props, `a${n}_`, defs) })) };
    case "anyOf":
      return { anyOf: s.branches.map((b) => schema(b, defs)) };
    case "oneOf":
      return {
        oneOf: s.branches.map((props, n) => ({
          type: "object",
          properties: { ...propsSchema(props, `o${n}_`, defs), kind: { const: `b${n}` } },
          required: ["kind"],
        })),
      };
    case "ite":
      return { type: "object", if: { required: ["kind"] }, then: { properties: propsSchema(s.then, "t", defs) }, else: { properties: propsSchema(s.otherwise, "e", defs) } };
    case "dependent":
      return { type: "object", properties: { trig: { type: "string" } }, dependentSchemas: { trig: { properties: propsSchema(s.props, "d", defs) } } };
    case "ref": {
      const name = `d${defs.next++}`;
      const target = schema(s.shape, defs);
      if (s.legacy) {
        defs.definitions[name] = target;
        return { $ref: `#/definitions/${name}` };
      }
      defs.$defs[name] = target;
      return { $ref: `#/$defs/${name}` };
    }
    case "tree":
      defs.$defs.node = {
        type: "object",
        properties: { name: { type: "string" }, key: { type: "string", "x-sensitive": true }, kids: { type: "array", items: { $ref: "#/$defs/node" } } },
      };
      return { $ref: "#/$defs/node" };
    case "many":
      return { type: "array", items: { type: "string", "x-sensitive": true } };
  }
  throw new Error(`unknown shape ${s.k}`);
}

const propsInstance = (props, prefix, out, c) => props.forEach((p, i) => (out[`${prefix}${i}`] = instance(p, c)));
const range = (n) => Array.from({ length: n }, (_, i) => i);

/** A value conforming to the schema of `s`, a fresh canary wherever a mark covers it. */
export function instance(s, c) {
  switch (s.k) {
    case "secret":
      if (s.body === "str") return c.fresh(s.deco);
      if (s.body === "obj") return { k0: c.fresh(s.deco), k1: [c.fresh(s.deco), 7, true, null], k2: { k3: c.fresh(s.deco) } };
      return [c.fresh(s.deco), c.fresh(s.deco)];
    case "plain":
      c.plain += 1;
      return s.t === "str" ? `plain ${c.plain}` : s.t === "num" ? c.plain + 0.5 : c.plain % 2 === 0;
    case "object": {
      const o = {};
      propsInstance(s.props, "p", o, c);
      return o;
    }
    case "pattern": {
      const o = { name: "listed" };
      for (const k of range(s.keys)) o[`${PREFIXES[s.prefix]}${k}`] = instance(s.child, c);
      return o;
    }
    case "additional": {
      const o = {};
      propsInstance(s.declared, "p", o, c);
      for (const k of range(s.keys)) o[`x${k}`] = instance(s.extra, c);
      return o;
    }
    case "items":
      return range(s.len).map(() => instance(s.child, c));
    case "prefix": {
      const out = s.items.map((i) => instance(i, c));
      if (s.rest) for (const _ of range(s.rest.len)) out.push(instance(s.rest.shape, c));
      return out;
    }
    case "allOf": {
      const o = {};
      s.parts.forEach((props, n) => propsInstance(props, `a${n}_`, o, c));
      return o;
    }
    case "anyOf":
      return instance(s.branches[s.pick % s.branches.length], c);
    case "oneOf": {
      const n = s.pick % s.branches.length;
      const o = { kind: `b${n}` };
      propsInstance(s.branches[n], `o${n}_`, o, c);
      return o;
    }
    case "ite": {
      const o = {};
      if (s.takeThen) {
        o.kind = "then";
        propsInstance(s.then, "t", o, c);
      } else {
        propsInstance(s.otherwise, "e", o, c);
      }
      return o;
    }
    case "dependent": {
      const o = {};
      if (s.present) {
        o.trig = "on";
        propsInstance(s.props, "d", o, c);
      }
      return o;
    }
    case "ref":
      return instance(s.shape, c);
    case "tree":
      return tree(s.depth, s.fanout, c);
    case "many":
      return range(s.n).map(() => c.fresh(0));
  }
  throw new Error(`unknown shape ${s.k}`);
}

function tree(depth, fanout, c) {
  c.plain += 1;
  const name = `node ${c.plain}`;
  const key = c.fresh(0);
  return { name, key, kids: depth === 0 ? [] : range(fanout).map(() => tree(depth - 1, fanout, c)) };
}

// ---- encodings (real encoders where JS has them) ----------------------------------------

const json = (s) => JSON.stringify(s).slice(1, -1);
const pythonAscii = (s) =>
  json(s).replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
export const FORMS = {
  verbatim: (s) => s,
  json,
  jsonInJson: (s) => json(json(s)),
  jsonSolidus: (s) => json(s).replaceAll("/", "\\/"),
  component: encodeURIComponent,
  componentLower: (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  uri: encodeURI,
  urlEncoded: (s) => new URLSearchParams({ v: s }).toString().slice(2),
  pythonAscii,
};

// ---- sites and raw results --------------------------------------------------------------

/**
 * The places the README lists as covered by value matching, the fields it never rewrites (a
 * block holding a known value there goes), and blocks the MCP SDK rejects (no canary in them:
 * the core must drop what makes them invalid).
 */
export const CLAIMED_SITES = [
  "text", "linkUri", "linkName", "linkTitle", "resourceText", "resourceUri", "metaValue", "metaKey", "metaKeyDirect",
  "blockMeta", "blockMetaKey", "topLevel", "topLevelKey", "structuredProp", "structuredKey", "userOnly",
  "mediaData", "resourceBlob", "mimeType", "handleField", "annotationField",
  "badBase64", "badPriority", "badLastModified", "badTitle", "badBlockMeta", "badProgressToken",
];

export const echo = (sites) =>
  fc.record({ canary: fc.nat(65535), site: fc.constantFrom(...sites), form: fc.constantFrom(...Object.keys(FORMS)), front: fc.boolean() });

const envelope = fc.oneof(
  { weight: 1, arbitrary: fc.constant("plain") },
  { weight: 2, arbitrary: fc.constant("compact") },
  { weight: 1, arbitrary: fc.constant("pretty") },
  { weight: 1, arbitrary: fc.constant("noDup") },
  { weight: 1, arbitrary: fc.constant("textOnly") },
);

export const plan = (sites, maxEchoes = 6) =>
  fc.record({
    envelope,
    isError: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, fc.constant(true)),
    pretty: fc.boolean(),
    echoes: fc.array(echo(sites), { maxLength: maxEchoes }),
  });

const STRUCTURED = new Set(["compact", "pretty", "noDup"]);

/** The raw result: `inst` carried as the plan says, with every echo of `canaries`. */
export function raw(inst, canaries, plan) {
  const front = [];
  const back = [];
  const meta = {};
  const top = {};
  plan.echoes.forEach((e, i) => {
    if (!canaries.length) return;
    const s = FORMS[e.form](canaries[e.canary % canaries.length]);
    let block;
    switch (e.site) {
      case "text": block = { type: "text", text: `note ${i}: ${s}.` }; break;
      case "linkUri": block = { type: "resource_link", uri: `https://files.example/d?k=${s}`, name: `file ${i}` }; break;
      case "linkName": block = { type: "resource_link", uri: `https://files.example/${i}`, name: s }; break;
      case "linkTitle": block = { type: "resource_link", uri: `https://files.example/${i}`, name: `file ${i}`, title: s, description: `about ${s}` }; break;
      case "resourceText": block = { type: "resource", resource: { uri: `mem://r${i}`, mimeType: "text/plain", text: `line ${s}` } }; break;
      case "resourceUri": block = { type: "resource", resource: { uri: `mem://r/${s}`, text: "body" } }; break;
      case "metaValue": meta[`trace${i}`] = { at: [s] }; break;
      case "metaKey": meta[`seen${i}`] = { [s]: true }; break;
      case "metaKeyDirect": meta[s] = i; break;
      case "blockMeta": block = { type: "text", text: `see meta ${i}`, _meta: { note: s } }; break;
      case "blockMetaKey": block = { type: "text", text: `see meta ${i}`, _meta: { idx: { [s]: 1 } } }; break;
      case "topLevel": top[`debug${i}`] = s; break;
      case "topLevelKey": top[s] = i; break;
      case "structuredProp": if (isPlainObject(inst)) inst[`echo${i}`] = s; break;
      case "structuredKey": if (isPlainObject(inst)) inst[`index${i}`] = { [s]: i }; break;
      case "userOnly": block = { type: "text", text: s, annotations: { audience: ["user"] } }; break;
      case "mediaData": block = { type: "image", data: s, mimeType: "image/png" }; break;
      case "resourceBlob": block = { type: "resource", resource: { uri: `mem://b${i}`, blob: s } }; break;
      case "mimeType": block = { type: "image", data: "AAAA", mimeType: s }; break;
      case "handleField": block = { type: "text", text: `block ${i}`, handle: s }; break;
      case "annotationField": block = { type: "text", text: `block ${i}`, annotations: { lastModified: s } }; break;
      case "badBase64": block = { type: "image", data: "not base64!", mimeType: "image/png" }; break;
      case "badPriority": block = { type: "text", text: "p", annotations: { priority: 5 } }; break;
      case "badLastModified": block = { type: "text", text: "d", annotations: { lastModified: "yesterday" } }; break;
      case "badTitle": block = { type: "resource_link", uri: "https://files.example/t", name: "t", title: 5 }; break;
      case "badBlockMeta": block = { type: "text", text: "m", _meta: [1] }; break;
      case "badProgressToken": meta.progressToken = { t: 1 }; break;
      default: throw new Error(`unknown site ${e.site}`);
    }
    if (block) (e.front ? front : back).push(block);
  });
  if (plan.envelope === "plain") return inst;
  const own =
    plan.envelope === "compact" || plan.envelope === "textOnly" ? JSON.stringify(inst)
    : plan.envelope === "pretty" ? JSON.stringify(inst, null, 2)
    : null;
  const content = [...front, ...(own === null ? [] : [{ type: "text", text: own }]), ...back];
  const out = { content };
  if (STRUCTURED.has(plan.envelope)) out.structuredContent = inst;
  if (plan.isError) out.isError = true;
  if (Object.keys(meta).length) out._meta = meta;
  return Object.assign(out, top);
}

const isPlainObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

export const TOOL_NAME = "gen_tool";

export function tool(root, sensitive) {
  const t = { name: TOOL_NAME, description: "generated", outputSchema: outputSchema(root) };
  if (sensitive) t.annotations = { sensitiveHint: true };
  return t;
}

/** One generated case: a tool, a format, a plan. */
export const caseArb = (sites = CLAIMED_SITES, maxEchoes = 6) =>
  fc
    .record({
      root: rootShape,
      sensitive: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, fc.constant(true)),
      format: fc.constantFrom("webmcp", "mcp"),
      plan: plan(sites, maxEchoes),
    });

/** The tool and raw value of a case, and its canaries. */
export function build(c) {
  const counter = newCanaries();
  const inst = instance(c.root, counter);
  return { tool: tool(c.root, c.sensitive), raw: raw(inst, counter.all, c.plan), canaries: counter.all };
}

/** The second tool of a carry-over: marks nothing. */
export const OTHER_TOOLS = {
  noSchema: { name: "other_tool" },
  unmarked: { name: "other_tool", outputSchema: { type: "object", properties: { status: { type: "string" } } } },
  sensitiveNoMarks: { name: "other_tool", annotations: { sensitiveHint: true } },
};

/** A later result's plan: sometimes only the echoes. */
export const laterPlan = (sites = CLAIMED_SITES) =>
  fc.tuple(plan(sites), fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, fc.constant(true))).map(([p, bare]) =>
    bare ? { ...p, envelope: "bare" } : p,
  );
