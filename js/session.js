// A session: the redactor's redact/redactJson, recording what each result says about the data
// now in the agent's context (SEP-1913 labels), and the pre-call check that reads them. The
// labels live in the core, next to the redactor's other state; the session keeps the last
// labels the core reported, which is all `labels()` needs and what a fresh core is given back
// after a trap. It also remembers which secret references the user approved with which tool.

import { argsText, guardedCall, unserializable } from "./enforce.js";

/** Labels propagate only upward until `reset()`; see index.d.ts for the API. */
export class Session {
  #core;
  #state; // { id, generation, labels }: see Redactor#sessionId

  /**
   * @param core the redactor's capabilities, and `state` this session's place in its core
   * (not part of the public API)
   */
  constructor(core, state) {
    this.#core = core;
    this.#state = state;
  }

  redact(tool, raw) {
    return this.#core.redact(tool, raw, this.#state);
  }

  redactJson(tool, jsonText) {
    return this.#core.redactJson(tool, jsonText, this.#state);
  }

  labels() {
    return structuredClone(this.#state.labels);
  }

  /** Back to no labels: the only way down. */
  reset() {
    this.#core.setLabels(this.#state, null);
  }

  /**
   * Sets the labels from a saved `labels()` (e.g. an extension's service worker restarted).
   * Throws a TypeError for labels that are not labels.
   */
  restore(labels) {
    this.#core.setLabels(this.#state, labels);
  }

  /**
   * "May the agent make this call?" Arguments are read once, like results; arguments that
   * cannot be serialized are denied, since nothing could be checked.
   */
  check(tool, args) {
    const argsJson = argsText(args);
    return argsJson === undefined ? unserializable() : this.#core.check(tool, argsJson, this.#state);
  }

  /**
   * Runs `call(input)` under `check(tool, args)` (see js/enforce.js): `ask` is an `asker`.
   * `args` are read once there; `input` is the parse of what was checked.
   * Resolves to the redaction report of the tool's result, or of the refusal when not called.
   * Not part of the public API: installRedaction and wrapTool use it.
   */
  guard(tool, args, call, ask) {
    const core = this.#core;
    const state = this.#state;
    const ops = {
      check: (t, argsJson) => core.check(t, argsJson, state),
      approve: (name, handles) => core.approve(state, name, handles),
      reveal: (handle) => core.reveal(handle),
      labelOf: (handle) => core.labelOf(handle),
      shown: (argsJson) => core.shown(nameOf(tool), argsJson),
      destination: (t) => core.destination(t),
      redact: (t, raw) => this.redact(t, raw),
    };
    return guardedCall(ops, tool, nameOf(tool), args, call, ask);
  }
}

/** The tool's name, for messages (never throws). */
function nameOf(tool) {
  try {
    return typeof tool?.name === "string" ? tool.name : "";
  } catch {
    return "";
  }
}
