// A session: the redactor's redact/redactJson, recording what each result says about the data
// now in the agent's context (SEP-1913 labels), and the pre-call check that reads those labels.

const EMPTY = JSON.stringify({ sensitivity: "none", private: false, openWorld: false, malicious: false, attribution: [] });

/** Labels propagate only upward until `reset()`; see index.d.ts for the API. */
export class Session {
  #core;
  #labels = EMPTY; // JSON text, merged by the core so that the rules live in one place

  /** @param core the redactor's capabilities (not part of the public API) */
  constructor(core) {
    this.#core = core;
  }

  redact(tool, raw) {
    return this.#record(this.#core.redact(tool, raw));
  }

  redactJson(tool, jsonText) {
    return this.#record(this.#core.redactJson(tool, jsonText));
  }

  labels() {
    return JSON.parse(this.#labels);
  }

  reset() {
    this.#labels = EMPTY;
  }

  /**
   * "May the agent make this call?" Arguments are read once, like results; arguments that
   * cannot be serialized are denied, since nothing could be checked.
   */
  check(tool, args) {
    let argsJson;
    try {
      argsJson = JSON.stringify(args ?? {}) ?? "{}";
    } catch {
      const message = "the arguments cannot be serialized as JSON, so they cannot be checked";
      return { decision: "deny", reasons: [{ code: "unserializable", decision: "deny", message, source: "arguments" }] };
    }
    return this.#core.check(tool, argsJson, this.#labels);
  }

  #record(out) {
    if (out.labels) this.#labels = this.#core.merge(this.#labels, JSON.stringify(out.labels));
    return out;
  }
}
