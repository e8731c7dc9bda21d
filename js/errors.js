// RedactionError and RedeemError. The core builds its RedactionErrors itself (src/wasm/errors.rs
// imports this class); JS builds one only where the core cannot be asked: the module could not
// load, or it trapped. `withheldJson` is for those cases too, and a test checks that it writes
// exactly what the core writes.

/** An error that names the tool and the JSON Pointer of the problem; `code` is stable. */
export class RedactionError extends Error {
  /**
   * @param {string} message
   * @param {{ code?: string, pointer?: string, tool?: string, cause?: unknown }} [details]
   */
  constructor(message, { code = "internal", pointer = "", tool = "", cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "RedactionError";
    this.code = code;
    this.pointer = pointer;
    this.tool = tool;
  }
}

/** Same wording as the core's `Error::message`, for when the core cannot be asked. */
export function redactionError(code, tool, pointer, detail, cause) {
  const at = pointer === "" ? "the root" : pointer;
  return new RedactionError(`tool "${tool}": ${code} at ${at}: ${detail}`, { code, pointer, tool, cause });
}

/** What the agent gets when the core cannot be asked: the same bytes it would write. */
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
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ label?: string, status?: number, retryAfter?: number }} [details]
   */
  constructor(code, message, { label, status, retryAfter } = {}) {
    super(message);
    this.name = "RedeemError";
    this.code = code;
    if (label !== undefined) this.label = label;
    if (status !== undefined) this.status = status;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}
