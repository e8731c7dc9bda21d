// RedactionError and the withheld result, shared by index.js and engine.js.

/** An error that names the tool and the JSON Pointer of the problem; `code` is stable. */
export class RedactionError extends Error {
  constructor(message, { code = "internal", pointer = "", tool = "", cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "RedactionError";
    this.code = code;
    this.pointer = pointer;
    this.tool = tool;
  }
}

/** Same wording as the Rust core's `Error::message`, for errors raised on the JS side. */
export function redactionError(code, tool, pointer, detail, cause) {
  const at = pointer === "" ? "the root" : pointer;
  return new RedactionError(`tool "${tool}": ${code} at ${at}: ${detail}`, { code, pointer, tool, cause });
}

/** The core's error as JSON data `{code, message, pointer, tool}` -> RedactionError. */
export function fromErrorData(data) {
  return new RedactionError(data.message, data);
}

/** What the agent gets on any error: the same bytes the core produces (see withheld_result). */
export function withheldJson(tool, code) {
  return JSON.stringify({
    content: [{ type: "text", text: `The result of ${tool} was withheld: ${code}.` }],
    isError: true,
  });
}

/**
 * A failed `redeem`: `code` is stable. The message names the label and the reason, never the
 * response body, the value, or the query string of `redeemUrl`.
 */
export class RedeemError extends Error {
  constructor(code, message, { label, status, retryAfter } = {}) {
    super(message);
    this.name = "RedeemError";
    this.code = code;
    if (label !== undefined) this.label = label;
    if (status !== undefined) this.status = status;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}
