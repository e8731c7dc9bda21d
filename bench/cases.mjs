// The ratio bench's cases, contenders and runner (issue 9). Environment-neutral: Node
// (bench/ratios.bench.mjs) and Chromium (bench/page.mjs) run exactly this code, handing in the
// package's redactor and the two peers, and get plain data back; bench/report.mjs prints it.

const KEY_FIELDS = {
  id: { type: "string" },
  name: { type: "string" },
  created: { type: "integer" },
  secret: { type: "string", "x-sensitive": true },
};

// API-key records: every record loses its `secret`.
const keysTool = {
  name: "list_keys",
  outputSchema: {
    type: "object",
    properties: { keys: { type: "array", items: { type: "object", properties: KEY_FIELDS } } },
  },
};
// The same records through a tool that marks nothing: the result passes through untouched.
const plainTool = { name: "list_keys_plain", outputSchema: { type: "object" } };

// A typical single-record answer: an account with four marked fields among ordinary ones.
const secret = { type: "string", "x-sensitive": true };
const accountTool = {
  name: "get_account",
  outputSchema: {
    type: "object",
    properties: {
      account: {
        type: "object",
        properties: {
          api_key: secret,
          webhook: { type: "object", properties: { signing_secret: secret } },
          billing: { type: "object", properties: { card_token: secret } },
          oauth: { type: "object", properties: { refresh_token: secret } },
        },
      },
    },
  },
};
const ACCOUNT_PATHS = ["account.api_key", "account.webhook.signing_secret", "account.billing.card_token", "account.oauth.refresh_token"];

// A tree whose marks recur through `$ref`: path-based redactors cannot say "token at any depth
// of this shape", so the peers sit this case out.
const treeTool = {
  name: "get_tree",
  outputSchema: {
    $defs: {
      node: {
        type: "object",
        properties: {
          name: { type: "string" },
          token: { type: "string", "x-sensitive": true },
          children: { type: "array", items: { $ref: "#/$defs/node" } },
        },
      },
    },
    $ref: "#/$defs/node",
  },
};

/** `{ keys: [...] }` with as many records as make about `bytes` of JSON text. */
function keyRecords(bytes) {
  const keys = [];
  let size = 10; // {"keys":[]}
  for (let i = 0; size < bytes; i++) {
    const rec = { id: `key_${i}`, name: `key number ${i}`, created: 1700000000 + i, secret: `sk_live_${i.toString(36).padStart(24, "x")}` };
    keys.push(rec);
    size += JSON.stringify(rec).length + 1;
  }
  return { keys };
}

/** About 2 KB: a profile, its settings and a page of recent events, four secrets among them. */
function account() {
  const events = [];
  const value = {
    account: {
      id: "acct_1Hh1YZ2eZvKYlo2C",
      email: "ada@example.com",
      name: "Ada Lovelace",
      plan: { id: "pro", seats: 12, renews: "2026-01-31T00:00:00Z", price: { amount: 4900, currency: "usd" } },
      created: 1700000000,
      api_key: "sk_live_51Hh1YZ2eZvKYlo2CsecretKey0001",
      webhook: { url: "https://hooks.example.com/ada", events: ["invoice.paid", "key.rotated"], signing_secret: "whsec_5f2b8c1e9d7a4b3c2f1e0d9c8b7a6f5e" },
      billing: { card_brand: "visa", card_last4: "4242", card_token: "tok_1Hh1YZ2eZvKYlo2Cvisa4242", address: { line1: "12 Analytical Row", city: "London", postal_code: "W1 1AA", country: "GB" } },
      oauth: { provider: "github", scopes: ["read:user", "repo"], refresh_token: "ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B" },
    },
    events,
  };
  for (let i = 0; JSON.stringify(value).length < 2000; i++) {
    events.push({ id: `evt_${1000 + i}`, type: i % 2 ? "invoice.paid" : "key.used", at: `2025-06-0${1 + (i % 9)}T10:${String(10 + i).slice(-2)}:00Z`, ip: `203.0.113.${i}` });
  }
  return value;
}

/** A tree of nodes, four children each (breadth first), of about `bytes` of JSON text. */
function tree(bytes) {
  const node = (i) => ({ name: `node ${i}`, token: `tok_${i.toString(36).padStart(12, "x")}`, children: [] });
  const nodes = [node(0)];
  let size = JSON.stringify(nodes[0]).length;
  for (let i = 1; size < bytes; i++) {
    const n = node(i);
    nodes.push(n);
    nodes[(i - 1) >> 2].children.push(n);
    size += JSON.stringify(n).length + 1;
  }
  return nodes[0];
}

/**
 * A CallToolResult as WebMCP tools return it, of about `bytes` in all: key records as its
 * `structuredContent`, and their JSON again as its text block (the duplicate).
 */
function callResult(bytes) {
  const value = keyRecords(bytes / 2);
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * A content-only CallToolResult of about `bytes`, as a tool that answers in text writes it: one
 * text block of prose lines about key records (no brackets, nothing marked in it).
 */
function contentOnly(bytes) {
  let text = "";
  for (let i = 0; text.length < bytes; i++) text += `Key key_${i} (key number ${i}) was created at ${1700000000 + i} and is active.\n`;
  return { content: [{ type: "text", text }] };
}

/**
 * A content-only CallToolResult of about `bytes` from a tool without outputSchema: the key
 * records' JSON as its one text block (ids for secrets: the detectors' finds are not the case).
 */
function contentJson(bytes) {
  const value = keyRecords(bytes);
  for (const k of value.keys) k.secret = k.secret.replace("sk_live_", "id_");
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}

export const SIZES = [
  ["1 KB", 1e3],
  ["100 KB", 1e5],
  ["1 MB", 1e6],
  ["10 MB", 1e7],
];

// `paths`: the peers' equivalent of the marks (null: they cannot express them). fast-redact
// with no paths is plain JSON.stringify, which is what "nothing marked" means for it too.
export const CASES = [
  { id: "all", label: "all redacted", tool: keysTool, paths: ["keys[*].secret"], sizes: SIZES, make: keyRecords },
  { id: "pass", label: "pass-through", tool: plainTool, paths: [], sizes: SIZES, make: keyRecords },
  { id: "2kb", label: "realistic, 4 marked", tool: accountTool, paths: ACCOUNT_PATHS, sizes: [["2 KB", 2e3]], make: account },
  { id: "tree", label: "recursive $ref tree", tool: treeTool, paths: null, sizes: SIZES, make: tree },
  // The peers censor the structured value only: the duplicate text keeps every secret.
  { id: "call", label: "CallToolResult, duplicate text", tool: keysTool, paths: ["structuredContent.keys[*].secret"], sizes: [["2 KB", 2e3], ["1 MB", 1e6]], make: callResult },
  // Nothing to redact (`passes`): the result is its own agent view.
  { id: "content", label: "CallToolResult, content only", tool: keysTool, paths: [], sizes: [["2 KB", 2e3], ["1 MB", 1e6]], make: contentOnly, passes: true },
  { id: "contentjson", label: "CallToolResult, JSON text only", tool: { name: "list_keys_text" }, paths: [], sizes: [["2 KB", 2e3], ["1 MB", 1e6]], make: contentJson, passes: true },
];

export const CONTENDERS = ["webmcp text", "webmcp object", "fast-redact", "@pinojs/redact", "parse+stringify", "parse(stringify(x))", "copy"];

/**
 * The contenders of one case at one size: `{ run, reset? }` each, `reset` untimed. `peers`:
 * the fast-redact and @pinojs/redact factories, or a string saying why one is not available.
 */
function contenders(redactor, peers, kase, value, text) {
  // Clearing the vault after each call (it clears the core's known-secret set too) keeps every
  // iteration doing the same work; otherwise each call scrubs all earlier calls' secrets. It is
  // not timed: at 1 MB it alone takes about 2% of a call.
  const reset = () => redactor.vault.clear();
  const all = {
    "webmcp text": { run: () => redactor.redactJson(kase.tool, text), reset },
    "webmcp object": { run: () => redactor.redact(kase.tool, value), reset },
    "parse+stringify": { run: () => JSON.stringify(JSON.parse(text)) },
    "parse(stringify(x))": { run: () => JSON.parse(JSON.stringify(value)) },
  };
  // The copy floor: UTF-8 out of and back into a JS string, into a buffer reused across calls.
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const buf = new Uint8Array(text.length * 3);
  all.copy = { run: () => decoder.decode(buf.subarray(0, encoder.encodeInto(text, buf).written)) };
  const skipped = {};
  for (const [name, factory] of Object.entries(peers)) {
    if (kase.paths === null) skipped[name] = "cannot express a recursive schema";
    else if (typeof factory === "string") skipped[name] = factory;
    else {
      // Both serialize with JSON.stringify by default: parse + redact + stringify, text to text.
      const redact = factory({ paths: kase.paths });
      all[name] = { run: () => redact(JSON.parse(text)) };
    }
  }
  return { fns: all, skipped };
}

/**
 * Checks the first call's output of each contender (`outputs`), so that no row times a
 * shortcut. A result webmcp withholds (a limit) is timed all the same, and noted:
 * `{ contender: "withheld: code" }`.
 */
function check(kase, text, outputs) {
  const notes = {};
  let marks;
  for (const name of ["webmcp text", "webmcp object"]) {
    const out = outputs[name];
    if (out.withheld) {
      notes[name] = `withheld: ${out.error?.code}`;
      continue;
    }
    marks = out.redactions.length;
    const passes = kase.id === "pass" || kase.passes === true;
    if (passes !== (marks === 0)) throw new Error(`${kase.label}: ${name} made ${marks} redactions`);
    if (passes && name === "webmcp text" && out.json !== text) throw new Error("pass-through changed the text");
  }
  for (const name of ["fast-redact", "@pinojs/redact"]) {
    if (!(name in outputs) || marks === undefined) continue;
    const censored = outputs[name].split('"[REDACTED]"').length - 1;
    if (censored !== marks) throw new Error(`${kase.label}: ${name} censored ${censored} values, webmcp ${marks}`);
  }
  return notes;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Repetitions per size, as few as a median allows where calls are slow: at 10 MB one webmcp
// call takes seconds in Chromium and up to a minute and more in Node 20 (README, "Speed and
// size"), so a full Node run takes about ten minutes on two cores.
const REPS = { 1e3: 51, 2e3: 51, 1e5: 15, 1e6: 5, 1e7: 3 };
// A sample repeats a fast contender until the clock resolves it well, and no longer: on a
// shared machine a longer sample is more often cut by another process, which the median then
// cannot leave out.
const MIN_SAMPLE_MS = 2;
const SLOW_MS = 250; // a call this slow is warm enough at once: its first run counts as a sample

/** Milliseconds per call of `n` calls of contender `c`. */
function sample(c, n, now) {
  if (!c.reset) {
    const t0 = now();
    for (let i = 0; i < n; i++) c.run();
    return (now() - t0) / n;
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    const t0 = now();
    c.run();
    total += now() - t0;
    c.reset();
  }
  return total / n;
}

/**
 * Milliseconds per call once warm, from enough calls to take at least 1 ms: the page's clock
 * ticks in microseconds at best, so one call of a fast contender would read as nothing.
 */
function steady(c, now) {
  for (let n = 1; ; n *= 2) {
    const ms = sample(c, n, now);
    if (ms * n >= 1) return ms;
  }
}

/**
 * Times `fns` interleaved: each repetition takes one sample of every contender, starting at a
 * different one each time so that none always follows the same neighbour (GC debt, caches).
 * `first`: each contender's warm cost per call, which sets how many calls make a sample; when it
 * is SLOW_MS or more it was a first call, and counts as one sample. Returns the median
 * milliseconds per call of each.
 */
function interleaved(fns, first, reps, now) {
  const names = Object.keys(fns);
  const samples = Object.fromEntries(names.map((n) => [n, first[n] >= SLOW_MS ? [first[n]] : []]));
  const inner = Object.fromEntries(names.map((n) => [n, Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(first[n], 1e-3)))]));
  for (let r = 0; r < reps; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length];
      if (samples[name].length < reps) samples[name].push(sample(fns[name], inner[name], now));
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n])]));
}

/** JSON text of the all-redacted case at about `bytes`, for the memory probe. */
const allRedactedText = (bytes) => JSON.stringify(keyRecords(bytes));

const memoryOf = (instance) => instance.exports.memory.buffer.byteLength;

/**
 * Wasm memory around one all-redacted call of `text`. Wasm memory only grows, so an instance's
 * size after the call is its peak during it, if no bigger call ran on it before: run this
 * first. The engine replaces an instance whose memory is mostly free once a call has returned
 * (engine.RELEASE_FREE, engine.KEEP_FACTOR), so the peak is the largest memory of the instances
 * that were live during the call (`capture` records them), and `kept` is what the live instance
 * holds afterwards: what a page keeps.
 */
function memoryProbe(redactor, capture, text) {
  const served = capture.latest.instance; // the live one: the glue made it last
  const before = memoryOf(served);
  const during = [served];
  capture.recording = during;
  let out;
  try {
    out = redactor.redactJson(keysTool, text);
  } finally {
    capture.recording = null;
  }
  const peak = Math.max(...during.map(memoryOf));
  const kept = memoryOf(capture.latest.instance);
  redactor.vault.clear();
  return { input: text.length, before, after: peak, kept, instances: during.length, withheld: out.withheld ? out.error?.code : null };
}

/**
 * Runs every case at every size. `only`: case ids to run (all by default); `log`: progress
 * lines; `capture`: from captureInstances(), to count the instances the engine replaced.
 * Returns `[{ case, label, size, bytes, medians: { contender: ms }, skipped, notes, replaced }]`.
 */
function runAll({ redactor, peers, now = () => performance.now(), log = () => {}, only, capture }) {
  const rows = [];
  for (const kase of CASES) {
    if (only && !only.includes(kase.id)) continue;
    for (const [size, bytes] of kase.sizes) {
      const value = kase.make(bytes);
      const text = JSON.stringify(value);
      const { fns, skipped } = contenders(redactor, peers, kase, value, text);
      const t0 = now();
      const made = capture.made;
      const outputs = {};
      const first = {};
      for (const [name, c] of Object.entries(fns)) {
        // The first call compiles the tool and warms the code (its output is checked); unless
        // it was slow, more calls give the steady cost that sets how many make a sample.
        const t = now();
        outputs[name] = c.run();
        first[name] = now() - t;
        c.reset?.();
        if (first[name] < SLOW_MS) first[name] = steady(c, now);
      }
      const notes = check(kase, text, outputs);
      const medians = interleaved(fns, first, REPS[bytes], now);
      const replaced = capture.made - made; // instances the engine replaced in this row's calls
      log(`${kase.label}, ${size} (${text.length} B): ${((now() - t0) / 1000).toFixed(1)} s${replaced ? `, ${replaced} instance(s) replaced` : ""}`);
      rows.push({ case: kase.id, label: kase.label, size, bytes: text.length, medians, skipped, notes, replaced });
    }
  }
  return rows;
}

/**
 * Watches every WebAssembly instance made from now on: call it before the package is imported.
 * The package's memory is `exports.memory` of its glue's live instance, which is the one made
 * last (`latest`); the glue's import object (`imports`, of the first) lets the bench instantiate
 * the module again (compileTime). Only the latest is held, except while `recording` is an
 * array (the memory probe): the engine replaces its instance after every call that leaves its
 * memory mostly free, and holding them all would hold all their memory. `made` counts
 * them.
 */
export function captureInstances() {
  const capture = { latest: null, imports: null, recording: null, made: 0, Real: WebAssembly.Instance };
  WebAssembly.Instance = new Proxy(capture.Real, {
    construct(target, args, newTarget) {
      const instance = Reflect.construct(target, args, newTarget);
      capture.latest = { instance, imports: args[1] };
      capture.imports ??= args[1];
      capture.recording?.push(instance);
      capture.made += 1;
      return instance;
    },
  });
  return capture;
}

/**
 * Median milliseconds of compiling `bytes` and instantiating the result with the glue's own
 * import object. No `__wbindgen_start`: that would run the glue's set-up on its one shared
 * state, which belongs to the package's instance.
 */
async function compileTime(bytes, imports, Instance, now, reps = 15) {
  const times = [];
  for (let i = 0; i < reps; i++) {
    const t0 = now();
    new Instance(await WebAssembly.compile(bytes), imports);
    times.push(now() - t0);
  }
  return median(times);
}

/**
 * One environment's whole run: memory first (on a fresh instance), then every case, then the
 * module's compile time. `capture`: from captureInstances(); `wasm`: the module's bytes.
 */
export async function bench({ name, details, createRedactor, peers, capture, wasm, now = () => performance.now(), log = () => {}, only }) {
  const redactor = await createRedactor(); // default options: what a page gets
  const probes = [];
  for (const bytes of [1e6, 1e7]) {
    const t0 = now();
    const probe = memoryProbe(redactor, capture, allRedactedText(bytes));
    probes.push(probe);
    log(`memory, all redacted ${bytes / 1e6} MB: ${((now() - t0) / 1000).toFixed(1)} s, ${probe.instances} instance(s) during the call`);
  }
  const rows = runAll({ redactor, peers, now, log, only, capture });
  const compileMs = await compileTime(wasm, capture.imports, capture.Real, now);
  return { name, details, rows, memory: probes, compileMs };
}
