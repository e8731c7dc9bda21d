/**
 * webmcp-redact: removes the values a tool declares sensitive from its result before an AI
 * agent sees it, keeps them in a vault for the page's own UI, and never lets the raw result
 * through on an error.
 *
 * @example
 * ```js
 * import { createRedactor } from "webmcp-redact";
 * const redactor = await createRedactor();
 * const { result, redactions } = redactor.redact(tool, await tool.execute(input));
 * ```
 * @packageDocumentation
 */

/** The stable error codes of {@link RedactionError.code}. */
export type ErrorCode =
  | "schema_invalid"
  | "remote_ref"
  | "ref_limit"
  | "depth_limit"
  | "size_limit"
  | "unserializable"
  | "invalid_json"
  | "internal";

/**
 * Why a value or block left the agent view.
 * `x_sensitive`: marked in `outputSchema`; `schema_mismatch`: wrong type where marks are below;
 * `undeclared`: not described by a sensitive tool's schema; `sensitive_tool`: the whole result
 * of a sensitive tool without marks; `value_match`: a string held a redacted value;
 * `audience`: a block for the user only; `unknown_block`: a block type not known;
 * `secret_reference`: the tool's own reference, moved to the vault; `malformed_reference`.
 */
export type Reason =
  | "x_sensitive"
  | "schema_mismatch"
  | "undeclared"
  | "sensitive_tool"
  | "value_match"
  | "audience"
  | "unknown_block"
  | "secret_reference"
  | "malformed_reference";

/**
 * Resource limits; exceeding one withholds the result. Each is a positive integer.
 * @example
 * ```js
 * await createRedactor({ limits: { maxDepth: 64, maxInputBytes: 1 << 20 } });
 * ```
 */
export interface Limits {
  /** Deepest JSON nesting accepted in a result or a schema. Default 128, at most 512. */
  maxDepth?: number;
  /** Largest result, in bytes of UTF-8 JSON text. Default 64 MiB. */
  maxInputBytes?: number;
  /** Longest chain of `$ref`s followed without moving into the instance. Default 64. */
  maxRefHops?: number;
}

/**
 * Options of {@link createRedactor}.
 * @example
 * ```js
 * await createRedactor({ format: "mcp" });
 * ```
 */
export interface RedactorOptions {
  /**
   * `"webmcp"` (default) writes `secret_reference` stubs; `"mcp"` writes only the five standard
   * MCP block types, so that the result validates against the MCP SDK's `CallToolResultSchema`.
   */
  format?: "webmcp" | "mcp";
  /** Resource limits; see {@link Limits}. */
  limits?: Limits;
}

/**
 * A tool definition as given to `registerTool` or listed by MCP `tools/list`. Only `name`,
 * `title`, `outputSchema`, `annotations` and `_meta` are read.
 * @example
 * ```js
 * const tool = {
 *   name: "generate_api_key",
 *   outputSchema: { type: "object", properties: { secret: { type: "string", "x-sensitive": true } } },
 * };
 * ```
 */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  /** JSON Schema; `"x-sensitive": true` (or a class such as `"credentials"`) marks a value. */
  outputSchema?: object;
  /** `sensitiveHint` truthy makes the whole tool sensitive (allowlist mode). */
  annotations?: { sensitiveHint?: unknown; [key: string]: unknown };
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * A tool with an `execute` function, as passed to `registerTool`.
 * @example
 * ```js
 * const tool = { name: "whoami", description: "...", execute: async () => ({ user: "ada" }) };
 * ```
 */
export interface ExecutableTool extends ToolDefinition {
  execute(input: unknown, options?: unknown): unknown;
}

/**
 * One entry of the report: where (a JSON Pointer into the raw result) and why; never a value.
 * @example
 * ```js
 * { pointer: "/secret", reason: "x_sensitive", label: "secret", handle: "3f2a…" }
 * ```
 */
export interface Redaction {
  pointer: string;
  reason: Reason;
  label: string;
  /** The vault handle of the stub standing for the value, when one was made. */
  handle?: string;
}

/**
 * What {@link Redactor.redact} returns.
 * @example
 * ```js
 * const { result, redactions, withheld, error } = redactor.redact(tool, raw);
 * ```
 */
export interface RedactResult {
  /** The agent view: the only thing to hand to the agent. */
  result: unknown;
  redactions: Redaction[];
  /** True when the agent got none of the result (a sensitive tool without marks, or an error). */
  withheld: boolean;
  /** Present when the result was withheld because of an error. */
  error?: RedactionError;
}

/**
 * What {@link Redactor.redactJson} returns: the agent view as JSON text.
 * @example
 * ```js
 * const { json } = redactor.redactJson(tool, '{"id":"key_1","secret":"sk_live_x"}');
 * ```
 */
export interface RedactJsonResult {
  /** The agent view as JSON text; byte-identical to the input when nothing was redacted. */
  json: string;
  redactions: Redaction[];
  withheld: boolean;
  error?: RedactionError;
}

/**
 * A vault entry, as the core reported it. `value` holds one redacted value; `many` holds the
 * values behind an overflow stub; `reference` holds a tool's own `secret_reference`.
 * @example
 * ```js
 * redactor.vault.get(handle); // { handle, label: "secret", kind: "value", value: "sk_live_…" }
 * ```
 */
export type VaultEntry =
  | { handle: string; label: string; kind: "value"; value: unknown }
  | { handle: string; label: string; kind: "many"; values: { pointer: string; label: string; value: unknown }[] }
  | { handle: string; label: string; kind: "reference"; id: string; redeemUrl: string; ttl?: number };

/**
 * The caller-side store of redacted values, keyed by the handle in each stub. Its string values
 * are also scrubbed from every later result of the same redactor.
 * @example
 * ```js
 * button.onclick = () => show(redactor.vault.reveal(stub.handle));
 * ```
 */
export interface Vault {
  /**
   * The raw value for a `value` entry, the array of values for a `many` entry, the
   * `{ id, redeemUrl, ttl? }` object for a `reference` entry; `undefined` for an unknown handle.
   */
  reveal(handle: string): unknown;
  /** The whole entry (label and kind included), or `undefined`. */
  get(handle: string): VaultEntry | undefined;
  /** Every entry, oldest first (e.g. for a page's "withheld values" panel). */
  entries(): VaultEntry[];
  /** Forgets one entry; returns whether it existed. */
  delete(handle: string): boolean;
  /** Forgets every entry. */
  clear(): void;
  /** The number of entries. */
  readonly size: number;
}

/**
 * Redacts tool results for one output format and one set of limits.
 * @example
 * ```js
 * const redactor = await createRedactor();
 * redactor.compile(tool); // throws RedactionError for a bad outputSchema
 * ```
 */
export interface Redactor {
  /** The output format this redactor writes. */
  readonly format: "webmcp" | "mcp";
  /** The values redacted so far. */
  readonly vault: Vault;
  /**
   * Validates and compiles the tool's schema (cached by its JSON text).
   * @throws {@link RedactionError} for a schema the core cannot enforce.
   * @example
   * ```js
   * try { redactor.compile(tool); } catch (e) { console.error(e.code, e.pointer); }
   * ```
   */
  compile(tool: ToolDefinition): void;
  /**
   * Snapshots `raw` with one `JSON.stringify` (a top-level `undefined` counts as `null`) and
   * returns what the agent may see. Never throws: on any error the result is withheld and
   * `error` says why.
   * @example
   * ```js
   * const { result } = redactor.redact(tool, { id: "key_1", secret: "sk_live_x" });
   * ```
   */
  redact(tool: ToolDefinition, raw: unknown): RedactResult;
  /**
   * Like {@link Redactor.redact} for a result that is already JSON text (agent extensions).
   * @example
   * ```js
   * const { json } = redactor.redactJson(tool, resultText);
   * ```
   */
  redactJson(tool: ToolDefinition, jsonText: string): RedactJsonResult;
  /**
   * A copy of `tool` whose `execute` returns the redacted result. A thrown error becomes an
   * `isError` result whose text is redacted too.
   * @throws {@link RedactionError} for a bad schema, at wrap time.
   * @example
   * ```js
   * await document.modelContext.registerTool(redactor.wrapTool(tool));
   * ```
   */
  wrapTool<T extends ExecutableTool>(tool: T): Omit<T, "execute"> & { execute(input: unknown, options?: unknown): Promise<unknown> };
}

/**
 * Loads the WebAssembly module (once per page or process) and creates a redactor.
 * @throws TypeError or RangeError for bad options.
 * @example
 * ```js
 * const redactor = await createRedactor({ format: "mcp", limits: { maxDepth: 64 } });
 * ```
 */
export function createRedactor(options?: RedactorOptions): Promise<Redactor>;

/**
 * An error naming the tool and the JSON Pointer of the problem, with a stable `code`.
 * @example
 * ```js
 * try { redactor.compile(tool); } catch (e) { if (e instanceof RedactionError) console.log(e.code); }
 * ```
 */
export class RedactionError extends Error {
  constructor(message: string, details?: { code?: ErrorCode; pointer?: string; tool?: string; cause?: unknown });
  /** Always `"RedactionError"`. */
  name: "RedactionError";
  /** What went wrong. */
  readonly code: ErrorCode;
  /** JSON Pointer into the tool definition (schema errors) or the raw result; `""` is the root. */
  readonly pointer: string;
  /** The tool's name. */
  readonly tool: string;
}
