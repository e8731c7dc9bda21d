// Enforcement: a session's `check` runs before the tool does. "allow" runs it, "deny" answers
// with an isError result and never calls it, "confirm" asks the user first (the page's
// `confirm` callback, or the built-in dialog). Secret references (`{{secret:<handle>}}`) the
// core listed are put in place only after that, just before the call. Every answer, refusals
// included, goes through redaction like any result. Fail closed: a check that fails, a callback
// that throws or answers anything but `true`, a handle the vault no longer holds: not called.

import { askInDialog } from "./confirm-dialog.js";

const OPEN = "{{secret:";
const CLOSE = "}}";

/**
 * The one read of a call's arguments: their JSON text (`undefined` and `null` count as `{}`),
 * or `undefined` when they cannot be serialized. Session#check and guardedCall both read
 * arguments through it, and guardedCall reads them only once.
 */
export function argsText(args) {
  try {
    return JSON.stringify(args ?? {}) ?? "{}";
  } catch {
    return undefined;
  }
}

/** The verdict on arguments that cannot be serialized: nothing could be checked, so deny. */
export function unserializable() {
  const message = "the arguments cannot be serialized as JSON, so they cannot be checked";
  return { decision: "deny", reasons: [{ code: "unserializable", decision: "deny", message, source: "arguments" }] };
}

/**
 * Runs one call under the session's check.
 * `ops`: `{ check(tool, argsJson), approve(tool, handles), reveal(handle), shown(argsJson),
 * labelOf(handle), destination(tool), redact(tool, raw) }` (see Session#guard);
 * `call(input)` runs the tool; `ask(request)` is an `asker`. Resolves to `ops.redact`'s report.
 */
export async function guardedCall(ops, tool, name, args, call, ask) {
  // The caller's `args` are read here once and never again: the check, the question to the
  // user and the tool all get this text or its parse. Read more than once, arguments could
  // differ between the reads (a getter that changes, a toJSON, an inherited or non-enumerable
  // property JSON skips but the tool reads), and the tool would get what was never checked.
  const json = argsText(args);
  const verdict = json === undefined ? unserializable() : checked(ops, tool, json);
  const refs = Array.isArray(verdict.references) ? verdict.references : [];
  if (verdict.decision === "confirm") {
    const yes = await ask(() => request(ops, tool, name, json, verdict, refs));
    if (!yes) return refused(ops, name, verdict, "declined");
    ops.approve(name, refs);
    // The answer can come long after the check (questions wait their turn): a value the
    // arguments hold may have become a known secret meanwhile, and went out with the call
    // (found by review). Checked again now; only a deny counts, the user having answered.
    const now = checked(ops, tool, json);
    if (now.decision === "deny") return refused(ops, name, now, "denied");
  } else if (verdict.decision !== "allow") {
    return refused(ops, name, verdict, "denied");
  }
  // Allowed, so `json` is the text the check read. The tool gets a fresh parse of it: plain
  // data, own properties only (JSON.parse defines a "__proto__" key as an own key), nothing
  // the caller or the confirm callback holds a reference to.
  let input = JSON.parse(/** @type {string} */ (json));
  if (refs.length) {
    const values = new Map(refs.map((h) => [h, ops.reveal(h)]));
    // Expired or deleted between the check and now: nothing to put there, so no call.
    if ([...values.values()].some((v) => typeof v !== "string")) {
      const gone = { decision: "deny", reasons: [{ code: "secret_reference_refused", decision: "deny", message: "a secret the call refers to left the vault", source: "arguments" }] };
      return refused(ops, name, gone, "denied");
    }
    input = substitute(input, values);
  }
  let raw;
  try {
    raw = await call(input);
  } catch (err) {
    raw = { content: [{ type: "text", text: errorText(err) }], isError: true };
  }
  return ops.redact(tool, raw);
}

/** The session's check of the arguments' text; a check that fails denies. */
function checked(ops, tool, json) {
  try {
    return ops.check(tool, json);
  } catch (/** @type {any} */ err) {
    const message = `the call could not be checked (${err?.code ?? err?.name ?? "error"})`;
    return { decision: "deny", reasons: [{ code: "internal", decision: "deny", message, source: "" }] };
  }
}

/** What the user is asked about: never a value the vault knows. */
function request(ops, tool, name, argsJson, verdict, refs) {
  const req = { tool: name, args: ops.shown(argsJson), reasons: verdict.reasons.map((r) => ({ ...r })) };
  const destination = ops.destination(tool);
  if (destination) req.destination = destination;
  if (refs.length) req.secrets = refs.map((h) => ops.labelOf(h) ?? "secret");
  return req;
}

/**
 * The agent's answer for a call that was not made, redacted like any result but as a result of
 * no tool: the tool's own claims (a sensitive output, its labels) describe what it returns, and
 * it returned nothing, so they neither withhold the refusal nor raise the session's labels.
 */
function refused(ops, name, verdict, how) {
  return ops.redact({ name }, refusal(name, verdict, how));
}

/** The refusal: the reasons' codes, and who said no. */
function refusal(name, verdict, how) {
  // The reasons that stopped it: not those that would have allowed it.
  const codes = [...new Set((verdict.reasons ?? []).filter((r) => r.decision !== "allow").map((r) => r.code))];
  const why = how === "declined" ? "the user declined it" : "the page's policy denied it";
  const text = `The call to ${name} was not made: ${why} (${codes.join(", ") || "no reason given"}).`;
  return { content: [{ type: "text", text }], isError: true };
}

// The thrown error's text goes through redaction like any result, so it cannot leak a value.
export function errorText(err) {
  try {
    return String(err?.message ?? err);
  } catch {
    return "The tool failed.";
  }
}

/**
 * A copy of `value` with each `{{secret:<handle>}}` whose handle `values` has replaced by its
 * value, in string values at any depth (never in keys: the core refuses those). The scan is
 * the core's (src/policy/reference.rs `in_text`): each opening is closed by the first `}}`
 * after it, and the text put in is not scanned again.
 */
export function substitute(value, values) {
  if (typeof value === "string") return substituteText(value, values);
  if (Array.isArray(value)) return value.map((v) => substitute(v, values));
  if (value !== null && typeof value === "object") {
    const out = {};
    // Defined, not assigned: an own "__proto__" key (JSON.parse makes one) assigned would set the
    // copy's prototype, and the tool would read inherited arguments the check never saw there.
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: substitute(v, values), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

function substituteText(s, values) {
  let out = "";
  let rest = s;
  for (;;) {
    const at = rest.indexOf(OPEN);
    if (at < 0) break;
    const body = rest.slice(at + OPEN.length);
    const end = body.indexOf(CLOSE);
    if (end < 0) break;
    const handle = body.slice(0, end);
    out += rest.slice(0, at) + (values.has(handle) ? values.get(handle) : `${OPEN}${handle}${CLOSE}`);
    rest = body.slice(end + CLOSE.length);
  }
  return out + rest;
}

/**
 * One question at a time: `confirm` (the page's callback; by default the built-in dialog in a
 * page, and "no" where there is no document) is asked after the previous answer, so concurrent
 * calls queue instead of stacking dialogs. Only `true` is a yes; a throw is a no.
 * The returned function takes a thunk that builds the request when its turn comes.
 */
export function asker(confirm) {
  return confirm === undefined ? builtIn : queued(confirm);
}

function queued(ask) {
  let queue = Promise.resolve(false);
  return (makeRequest) => {
    const answer = queue.then(async () => (await ask(makeRequest())) === true).catch(() => false);
    queue = answer;
    return answer;
  };
}

// One queue for every user of the built-in dialog in this realm: two redactors never stack
// two dialogs either.
const builtIn = queued(defaultConfirm);

function defaultConfirm(req) {
  return typeof document === "object" && document !== null ? askInDialog(req) : false;
}

/** Checks the `confirm` option. */
export function checkConfirmOption(confirm, where) {
  if (confirm !== undefined && typeof confirm !== "function") {
    throw Object.assign(new TypeError(`${where}: confirm must be a function`), { code: "invalid_options" });
  }
}
