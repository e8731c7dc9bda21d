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
  /** Applying `outputSchema` to the result took more than `limits.maxWork` units of work, or its values would add more than `limits.maxWork` bytes to the known-secret set. */
  | "work_limit"
  | "unserializable"
  | "invalid_json"
  /** An object in the result (or in JSON text inside it) repeats a key. */
  | "duplicate_key"
  | "internal"
  /**
   * The WebAssembly module could not load: an HTTP error, a missing file, bytes that are not
   * this package's module, a CSP without `'wasm-unsafe-eval'`. {@link createRedactor} and
   * {@link lintTools} reject with it; {@link installRedaction} reports it and withholds every result.
   */
  | "wasm_unavailable"
  /**
   * {@link installRedaction} over MCP-B: a resource's `read`, a prompt's `get` or a message of
   * the page's own (a log line, a sampling request, an elicitation) was withheld (it claims
   * sensitivity, or a value was found inside base64 that masking would leave invalid); the read
   * or the page's call rejects with it, `pointer` at the field.
   */
  | "withheld";

/**
 * Why a value or block left the agent view.
 * `x_sensitive`: marked in `outputSchema`; `schema_mismatch`: wrong type where marks are below;
 * `undeclared`: not described by a sensitive tool's schema; `sensitive_tool`: the whole result
 * of a sensitive tool without marks; `value_match`: a string held a redacted value;
 * `audience`: a block for the user only, moved whole to the vault (`user_only`); `unknown_block`: a block type not known;
 * `malformed_block`: a known block type without the fields it requires;
 * `secret_reference`: the tool's own reference, moved to the vault; `malformed_reference`;
 * `not_mcp`: not allowed in the `"mcp"` format (a non-object `structuredContent`, a non-boolean
 * `isError`, an unknown `audience` role).
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
  | "malformed_reference"
  | "malformed_block"
  /** A field MCP does not define for a block (or its `resource`/`annotations`), one of the wrong kind, or a non-boolean `isError`. */
  | "unknown_field"
  /** A `webmcp-redact/` key in a result this redactor did not return (a forgery of its own parts). */
  | "forged"
  | "not_mcp"
  /** A credential the tool did not declare, found by its format (`policy.detect`, docs/detectors.md). */
  | "detected:aws_access_key_id"
  | "detected:aws_secret_access_key"
  | "detected:github_token"
  | "detected:gitlab_token"
  | "detected:slack_token"
  | "detected:slack_webhook"
  | "detected:stripe_key"
  | "detected:google_api_key"
  | "detected:jwt"
  | "detected:private_key"
  | "detected:npm_token"
  | "detected:openai_api_key"
  | "detected:anthropic_api_key";

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
  /**
   * Most units of work applying `outputSchema` to one result may take (about 0.1 µs each
   * natively; what was worked out before costs nothing), and bytes its values may add to the
   * known-secret set; past either, the result is withheld with `work_limit`. Default 16777216
   * (2^24).
   */
  maxWork?: number;
}

/**
 * Options of {@link createRedactor}.
 * @example
 * ```js
 * await createRedactor({ format: "mcp" });
 * ```
 */
/** How stubs are written: `secret_reference` blocks, or only MCP's five block types. */
export type Format = "webmcp" | "mcp";

/**
 * Where the WebAssembly module comes from (the `wasm` option): a URL (a string, resolved
 * against the page's address, never a `<base>` element; absolute in Node, where `file:` URLs
 * are read from disk), the bytes of `webmcp_redact_bg.wasm`, a `Response` (`fetch(...)`), a
 * promise of any of these, or a compiled `WebAssembly.Module`. It must be this version's
 * `pkg/webmcp_redact_bg.wasm`; another module is refused (`wasm_unavailable`).
 *
 * The module is loaded once per page, worker or process, by the first call that loads it
 * successfully; a `wasm` given after that (or while that load is under way) is ignored: it is
 * neither fetched nor compared. A failed load leaves nothing behind, so a later call may try
 * another source.
 * @example
 * ```js
 * await createRedactor({ wasm: new URL("./webmcp_redact_bg.wasm", import.meta.url) });
 * await createRedactor({ wasm: fetch("/assets/webmcp_redact_bg.wasm") });
 * ```
 */
export type WasmSource = WasmValue | PromiseLike<WasmValue>;
/** The forms of {@link WasmSource} that are not promises. */
export type WasmValue = string | URL | ArrayBuffer | ArrayBufferView | Response | WebAssembly.Module;

export interface RedactorOptions {
  /**
   * Where the WebAssembly module comes from, if not from the package's own files (or, with
   * `webmcp-redact/inline`, from inside its JavaScript); see {@link WasmSource}. Taken out
   * before the core checks the other options (it is not plain data).
   */
  wasm?: WasmSource;
  /**
   * `"webmcp"` (default) writes `secret_reference` stubs; `"mcp"` writes only the five standard
   * MCP block types, so that the result validates against the MCP SDK's `CallToolResultSchema`.
   */
  format?: Format;
  /** Resource limits; see {@link Limits}. */
  limits?: Limits;
  /** Vault entry lifetime; see {@link VaultOptions}. */
  vault?: VaultOptions;
  /** Rules for redeeming this redactor's references; see {@link RedeemOptions}. */
  redeem?: RedeemOptions;
  /** Which tools are sensitive and what the pre-call checks decide; see {@link Policy}. */
  policy?: Policy;
  /**
   * Asks the user about a call {@link Redactor.wrapTool}'s check answered `"confirm"`; see
   * {@link ConfirmCallback}. Taken out before the core checks the other options (it is not
   * plain data). Default: the built-in dialog where there is a `document`, else decline.
   */
  confirm?: ConfirmCallback;
}

/**
 * What a consent prompt is told about one call. `args` are the agent's arguments with every
 * value the vault knows replaced by `[redacted: <label>]` (`null` if they cannot be read);
 * secret references stay `{{secret:<handle>}}`, and `secrets` lists their labels.
 * `destination` is the tool's declared `inputMetadata.Destination`, when it declares one.
 */
export interface ConfirmRequest {
  tool: string;
  args: unknown;
  reasons: CheckResult["reasons"];
  destination?: string;
  secrets?: string[];
}

/**
 * The page's consent prompt: resolves to `true` to let the call run. Anything else, a
 * rejection or a throw, declines it (the tool is not called; the agent gets an `isError`
 * result naming the reasons' codes). Questions come one at a time: the next is asked after the
 * previous answer.
 */
export type ConfirmCallback = (request: ConfirmRequest) => boolean | Promise<boolean>;

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
  /**
   * `sensitiveHint` is the output's level (WebMCP #110's boolean or SEP-1913's level): `true` is
   * `"high"`, `false` is `"none"`. A tool whose level reaches the policy's `withholdAt` (default
   * `"high"`) is sensitive (allowlist mode; without marks its whole result is withheld), so under
   * the default policy `true` and `"high"` withhold and `"low"` and `"medium"` do not; see
   * {@link Policy}. Any other value is a lint problem (`unknown_value`) and counts as `"high"`
   * when truthy (an unknown level string included), `"none"` when not.
   */
  annotations?: { sensitiveHint?: boolean | Level | (string & {}); [key: string]: unknown };
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
 * What {@link Redactor.wrapTool} returns: `tool` with its own `execute` and `outputSchema`
 * replaced, and `title`, `annotations` and `_meta` the frozen copies its calls are judged by
 * (read-only: changed, the runtime would show what the redactor does not apply). (Not `Omit`:
 * over a tool's index signature, `Omit` would drop `name` and the other named members, and the
 * copy could not be passed to `registerTool`.)
 */
export type WrappedTool<T extends ExecutableTool> = {
  [K in keyof T as K extends "execute" | "outputSchema" | Judged ? never : K]: T[K];
} & {
  readonly [K in keyof T as K extends Judged ? K : never]: Readonly<T[K]>;
} & { execute(input: unknown, options?: unknown): Promise<unknown>; readonly outputSchema?: object };

/** The fields of a tool, besides its name, that the redactor judges its calls by. */
type Judged = "title" | "annotations" | "_meta";

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
 * Fields any MCP content block of the agent view may carry besides its own.
 */
export interface ContentBlockFields {
  annotations?: { audience?: string[]; [key: string]: unknown };
  _meta?: Record<string, unknown>;
  /** Only a {@link SecretReferenceBlock} has a handle: on any other block it is absent. */
  handle?: undefined;
  [key: string]: unknown;
}

/** A text block. */
export interface TextContent extends ContentBlockFields {
  type: "text";
  text: string;
}

/** An image or audio block: base64 `data`. */
export interface MediaContent extends ContentBlockFields {
  type: "image" | "audio";
  data: string;
  mimeType: string;
}

/** A link to a resource. */
export interface ResourceLink extends ContentBlockFields {
  type: "resource_link";
  uri: string;
  name: string;
}

/** An embedded resource: its `text` or base64 `blob`. */
export interface EmbeddedResource extends ContentBlockFields {
  type: "resource";
  resource: { uri: string; mimeType?: string; text?: string; blob?: string; [key: string]: unknown };
}

/**
 * A stub standing for a withheld value (format `"webmcp"`): the value is in the vault under
 * `handle` (see {@link Vault.reveal}, {@link redeem}). A tool's own `secret_reference` reaches
 * the agent in this form too. In the `"mcp"` format a stub is a {@link TextContent}
 * `"[secret withheld: <label>]"` with `_meta["webmcp-redact/secret"]: { label, handle }`.
 */
export interface SecretReferenceBlock {
  type: "secret_reference";
  label: string;
  handle: string;
}

/**
 * A block of the agent view: one of MCP's five block types with the fields that type requires
 * (blocks of other types or without those fields are removed; a block for the user only is moved
 * to the vault as a `user_only` entry), or a stub.
 * @example
 * ```js
 * for (const block of result.content) if (block.type === "secret_reference") show(block.label, block.handle);
 * ```
 */
export type ContentBlock = TextContent | MediaContent | ResourceLink | EmbeddedResource | SecretReferenceBlock;

/**
 * The agent view as MCP's `CallToolResult`, with this library's stubs among the blocks. This is
 * what it is in the `"mcp"` format (which also makes `structuredContent` an object and `isError`
 * a boolean, and writes no `secret_reference` blocks), and in the `"webmcp"` format whenever the
 * tool returned a `CallToolResult` or anything was redacted or withheld. The one exception: in
 * the `"webmcp"` format a plain value from which nothing was redacted passes through as it is;
 * say so with the type parameter of {@link Redactor.redact} when your tools return such values.
 * @example
 * ```js
 * const { result } = redactor.redact(tool, raw);
 * result.content; // the blocks, stubs included; result._meta["webmcp-redact/redactions"]: the report
 * ```
 */
export interface CallToolResult {
  content: ContentBlock[];
  /** The redacted structured value. */
  structuredContent?: unknown;
  /** `true` for a withheld error result; in the `"webmcp"` format a tool's own value passes as it is. */
  isError?: unknown;
  /** `"webmcp-redact/redactions"` lists what was removed (as {@link RedactResult.redactions}, without handles). */
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * What {@link Redactor.redact} returns; `R` is the type of the agent view (see {@link CallToolResult}).
 * @example
 * ```js
 * const { result, redactions, withheld, error } = redactor.redact(tool, raw);
 * ```
 */
export interface RedactResult<R = CallToolResult> {
  /** The agent view: the only thing to hand to the agent. */
  result: R;
  redactions: Redaction[];
  /** True when the agent got none of the result (a sensitive tool without marks, or an error). */
  withheld: boolean;
  /** Present when the result was withheld because of an error. */
  error?: RedactionError;
  /** What this result adds to a session's labels (absent when the module could not say). */
  labels?: Labels;  /**
   * The id of this result, present when it issued handles: bind the Reveal element to it
   * (`<webmcp-secret result="…">`) or pass it to {@link redeem} as `result`, so that a handle
   * copied in from another result is refused.
   */
  resultId?: string;
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
  /** What this result adds to a session's labels. */
  labels?: Labels;  /**
   * The id of this result, present when it issued handles: bind the Reveal element to it
   * (`<webmcp-secret result="…">`) or pass it to {@link redeem} as `result`, so that a handle
   * copied in from another result is refused.
   */
  resultId?: string;
}

/**
 * A vault entry, as the core reported it. `value` holds one redacted value; `many` holds the
 * values behind an overflow stub; `reference` holds a tool's own `secret_reference`;
 * `user_only` holds a whole content block the tool meant for the user only
 * (`annotations.audience` without `"assistant"`), for the page to show.
 * @example
 * ```js
 * redactor.vault.get(handle); // { handle, label: "secret", kind: "value", value: "sk_live_…" }
 * ```
 */
export type VaultEntry =
  | { handle: string; label: string; kind: "value"; value: unknown }
  | { handle: string; label: string; kind: "user_only"; value: { type: string; [key: string]: unknown } }
  | { handle: string; label: string; kind: "many"; values: { pointer: string; label: string; value: unknown }[] }
  | { handle: string; label: string; kind: "reference"; id: string; redeemUrl: string; ttl?: number };

/**
 * The caller-side store of redacted values, keyed by the handle in each stub, for the page's
 * own UI. What must never reach the agent again is held by the core, not here: every string
 * and number inside each value this redactor took (nested ones too), each reference's `id` and
 * `redeemUrl`, and each value `redeem` fetched are scrubbed from every later result of the same
 * redactor, and `check` denies calls that carry them (`secret_egress`). That set outlives an
 * entry's expiry; `delete` and `clear` take values out of it.
 * @example
 * ```js
 * button.onclick = () => show(redactor.vault.reveal(stub.handle));
 * ```
 */
export interface Vault {
  /**
   * The raw value for a `value` entry, the whole content block for a `user_only` entry, the
   * array of values for a `many` entry, the
   * `{ id, redeemUrl, ttl? }` object for a `reference` entry; `undefined` for an unknown handle
   * (or none: `block.handle` can be passed for any block).
   */
  reveal(handle: string | undefined): unknown;
  /** The whole entry (label and kind included), or `undefined`. */
  get(handle: string | undefined): VaultEntry | undefined;
  /** Every entry, oldest first (e.g. for a page's "withheld values" panel). */
  entries(): VaultEntry[];
  /**
   * Forgets one entry; returns whether it existed. Its values are no longer scrubbed from later
   * results unless another entry also holds them.
   */
  delete(handle: string): boolean;
  /** Forgets every entry, and every value the redactor would scrub from later results. */
  clear(): void;
  /** The number of entries. */
  readonly size: number;
  /**
   * {@link redeem} for a handle of this vault (the same errors).
   * @example
   * ```js
   * const value = await redactor.vault.redeem(stub.handle);
   * ```
   */
  redeem(handle: string, options?: RedeemCallOptions): Promise<unknown>;
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
   * Snapshots `raw` with one `JSON.stringify` (a top-level `undefined` counts as `null`; when
   * that text holds `null`, once more, with ±Infinity written as ±1e400, which claims as
   * JavaScript reads it) and returns what the agent may see. Never throws: on any error the result is withheld and
   * `error` says why. `R` types the agent view: a {@link CallToolResult} unless you say
   * otherwise (e.g. `redact<CallToolResult | MyValue>` for a `"webmcp"` tool returning plain
   * values, which pass through when nothing is redacted; or the MCP SDK's `CallToolResult` in
   * the `"mcp"` format).
   * @example
   * ```js
   * const { result } = redactor.redact(tool, { id: "key_1", secret: "sk_live_x" });
   * ```
   */
  redact<R = CallToolResult>(tool: ToolDefinition, raw: unknown): RedactResult<R>;
  /**
   * Like {@link Redactor.redact} for a result that is already JSON text (agent extensions).
   * @example
   * ```js
   * const { json } = redactor.redactJson(tool, resultText);
   * ```
   */
  redactJson(tool: ToolDefinition, jsonText: string): RedactJsonResult;
  /**
   * A copy of `tool` whose `execute` returns the redacted result. The tool object is read once,
   * now (its own enumerable properties, and `name`, `title`, `description`, `inputSchema`,
   * `outputSchema`, `annotations`, `_meta` and `execute` when inherited): the copy and the
   * redaction both come from that read, and changing the tool object afterwards changes
   * nothing. A thrown error becomes an
   * `isError` result whose text is redacted too. Its `outputSchema` is
   * {@link Redactor.agentSchema} (absent when that is `null`). Each call is checked first, in
   * one session shared by every tool this redactor wrapped: `"allow"` runs, `"deny"` returns an
   * `isError` result without calling the tool, `"confirm"` asks {@link RedactorOptions.confirm};
   * `{{secret:<handle>}}` references the check accepted are replaced by the vault's values
   * just before the call (README "Secret use by reference"). The arguments are read once (one
   * `JSON.stringify`, `undefined` as `{}`), and the tool gets the `JSON.parse` of what was checked.
   * @throws {@link RedactionError} for a bad schema, at wrap time; also (code `schema_invalid`,
   * pointer `/execute`) for a tool whose `execute` is not a function, or `schema_invalid` for
   * a tool object that throws while it is read (a getter or a Proxy); a TypeError with code
   * `foreign_wrapper` for a copy another redactor's `wrapTool` made (or a tool carrying its
   * `execute`): this redactor could not reveal that copy's secrets. A call whose `execute` returns
   * the result of another redactor's copy, or of a copy for another tool, is that error.
   * This redactor's own copy under another name is refused too (code `foreign_wrapper`).
   * @example
   * ```js
   * await document.modelContext.registerTool(redactor.wrapTool(tool));
   * ```
   */
  wrapTool<T extends ExecutableTool>(tool: T): WrappedTool<T>;
  /**
   * The `outputSchema` to give a runtime (and so every MCP client behind it) instead of the
   * tool's own: it describes the redacted view, which is what those validate `structuredContent`
   * against. A property the redactor may remove is not `required`; an array element it may
   * replace with `null` accepts `null`; `x-sensitive` marks stay. `null` when no view carries
   * `structuredContent` (no `outputSchema`, a sensitive tool without marks, a root that is not
   * only an object or is marked whole): register the tool without a schema then.
   * `installRedaction` and {@link Redactor.wrapTool} register tools with it. See README
   * "MCP bridges".
   * @throws {@link RedactionError} for a bad schema (as {@link Redactor.compile}).
   * @example
   * ```js
   * redactor.agentSchema(tool); // { type: "object", required: ["id"], properties: { id: …, secret: { …, "x-sensitive": true } } }
   * ```
   */
  agentSchema(tool: ToolDefinition): { [keyword: string]: unknown } | null;
  /**
   * A tool listing (`tools/list`'s `tools`, what a page's `getTools()` answers) as an agent may
   * see it, cleaned as `installRedaction` cleans the runtime's own listings: a tool whose `name`
   * holds a value this redactor knows (or a credential its detectors find) is dropped, since a
   * masked name is a tool no call can reach; in the rest, every string (titles, descriptions,
   * schema text, member names) is masked as `redact` masks results, and a member whose name
   * holds one is dropped. An `inputSchema` given as JSON text (Chromium's `getTools()`) is
   * scrubbed as the JSON it holds and stays text; a `window` member is kept as it is. Each
   * entry is a copy; the listing is read once.
   * @throws TypeError with code `invalid_listing` when `tools` is not an array of objects;
   * {@link RedactionError} when the listing cannot be read (`unserializable`: a BigInt, a cycle,
   * a throwing getter, nesting past the stack) or scrubbed (`size_limit`, `work_limit`,
   * `internal`, `withheld`): fail closed, nothing of it is given.
   * @example
   * ```js
   * const shown = redactor.cleanToolListing(await document.modelContext.getTools());
   * ```
   */
  cleanToolListing<T extends object>(tools: readonly T[]): T[];
  /**
   * The tool as one model of the five proposals' vocabulary: every fact with the claims behind
   * it (a JSON Pointer into the definition); a fact nobody claimed is `null`, never `false`.
   * @throws {@link RedactionError} for a bad schema.
   * @example
   * ```js
   * redactor.describe(tool).output.level; // { value: "medium", claims: [{ value: "medium", source: "/annotations/returnMetadata/Sensitivity" }] }
   * ```
   */
  describe(tool: ToolDefinition): ToolDescription;
  /**
   * A session: this redactor's `redact`/`redactJson`, recording the labels of every result
   * (SEP-1913), and `check` before a call.
   * @example
   * ```js
   * const session = redactor.session();
   * session.redact(readInbox, raw);
   * session.check(sendEmail, { to, body }).decision; // "confirm" (exfiltration)
   * ```
   */
  session(): Session;
}

/**
 * Options of `createRedactor({ policy })`. Every field has a default.
 * @example
 * ```js
 * await createRedactor({ policy: { withholdAt: "medium", rules: { privileged: "deny", irreversible: "off" } } });
 * ```
 */
export interface Policy {
  /** An output level at or above this makes a tool sensitive (rule 4). Default `"high"`. */
  withholdAt?: Level;
  /** Output data classes that make a tool sensitive too. Default `["credentials"]`. */
  redactClasses?: DataClass[];
  /** The decision for a tool that makes no claims at all. Default `"allow"`. */
  unknownTools?: "allow" | "confirm";
  /** Each check rule's decision, or `"off"`. */
  rules?: Partial<Record<CheckCode, Decision | "off">>;
  /** Wrap untrusted tools' result text in `<untrusted-content>` delimiters. Default `false`. */
  spotlight?: boolean;
  /**
   * Credentials detected by their format in every tool's results, declared or not (reason
   * `detected:<kind>`; see docs/detectors.md). `true` (the default): every kind; `false`: none;
   * an object turns single kinds off (or back on): `{ jwt: false }`.
   */
  detect?: boolean | Partial<Record<DetectKind, boolean>>;
}

/** The credential formats `policy.detect` knows. */
export type DetectKind =
  | "aws_access_key_id"
  | "aws_secret_access_key"
  | "github_token"
  | "gitlab_token"
  | "slack_token"
  | "slack_webhook"
  | "stripe_key"
  | "google_api_key"
  | "jwt"
  | "private_key"
  | "npm_token"
  | "openai_api_key"
  | "anthropic_api_key";

export type Level = "none" | "low" | "medium" | "high";
export type DataClass = "none" | "user" | "pii" | "financial" | "regulated" | "credentials";
export type Decision = "allow" | "confirm" | "deny";
export type CheckCode =
  | "irreversible"
  | "requires_confirmation"
  | "privileged"
  | "exfiltration"
  | "secret_egress"
  | "malicious_content"
  | "no_claims"
  | "secret_reference"
  | "secret_reference_refused";

/**
 * One fact and the claims behind it; the riskier claim wins when they disagree. A behaviour hint
 * nobody claimed, of a tool that makes other claims, has MCP's default (`readOnly` false,
 * `destructive` true and `idempotent` false when not read-only, `openWorld` true), shown as
 * `{ value, claims: [], default: true }`; a tool that makes no claims at all gets no defaults.
 */
export interface Fact<T> {
  value: T;
  claims: { value: T; source: string }[];
  /** Present (and `true`) only for MCP's default: no claim is behind the value. */
  default?: true;
}

/** The data classes said, each claim with its source; `{ regulated: { scopes } }` keeps its scopes. */
export interface ClassesFact {
  value: DataClass[];
  claims: { value: DataClass; source: string; scopes?: string[] }[];
}

/** An attribution entry (SEP-1913): a string or an object, kept as the tool or result gave it. */
export type AttributionEntry = string | { [key: string]: unknown };

/** What {@link Redactor.describe} returns. */
export interface ToolDescription {
  name: string;
  /** Whether this redactor treats the tool as sensitive (rule 4, under its policy). */
  sensitive: boolean;
  /** Whether results are marked as coming from untrusted public sources. */
  untrusted: boolean;
  /** Whether the outputSchema marks anything `x-sensitive`. */
  marks: boolean;
  output: { level: Fact<Level> | null; classes: ClassesFact | null; source: Fact<string> | null };
  input: { destination: Fact<string> | null; classes: ClassesFact | null; outcomes: Fact<string> | null };
  /** Boolean hints by name (`readOnly`, `destructive`, `privilegedAccess`, ...) and `effect`. */
  effects: Record<string, Fact<boolean> | Fact<string> | null>;
  /** The tool's own SEP-1913 `attribution` (each entry with where it was said), or null. */
  attribution: { value: AttributionEntry; source: string }[] | null;
  /** Vocabulary the model could not read (what `lint` reports as `unknown_value`). */
  problems: { pointer: string; detail: string }[];
}

/** A session's labels (SEP-1913): sensitivity only rises, flags only turn on, attribution accumulates. */
export interface Labels {
  sensitivity: Level;
  private: boolean;
  openWorld: boolean;
  malicious: boolean;
  /**
   * The tools' and results' attribution in order seen (strings or objects). Bounded: at most 32
   * entries of at most 1024 bytes of JSON each; the rest is not kept.
   */
  attribution: AttributionEntry[];
  /**
   * The trust-annotations extension's `evidenceRef`s, as results gave them (same bounds);
   * present only when some result gave one.
   */
  evidence?: AttributionEntry[];
}

/**
 * The answer of {@link Session.check}: the strictest decision among the reasons. Besides the
 * rules' codes, `unserializable` denies arguments that cannot be serialized, and
 * `wasm_unavailable` denies every call when the WebAssembly module could not load
 * ({@link Uninstall.session} of {@link installRedaction}).
 */
export interface CheckResult {
  decision: Decision;
  reasons: { code: CheckCode | "unserializable" | "wasm_unavailable"; decision: Decision; message: string; source: string }[];
  /**
   * The vault handles whose `{{secret:<handle>}}` placeholders are put in place if the call goes
   * ahead (present only when there are some).
   */
  references?: string[];
}

/**
 * Made by {@link Redactor.session}.
 * @example
 * ```js
 * const s = redactor.session();
 * s.redact(tool, raw); s.labels(); s.check(next, args); s.reset();
 * ```
 */
export class Session {
  private constructor();
  /** As {@link Redactor.redact}; the result's labels join the session's. */
  redact<R = CallToolResult>(tool: ToolDefinition, raw: unknown): RedactResult<R>;
  /** As {@link Redactor.redactJson}; the result's labels join the session's. */
  redactJson(tool: ToolDefinition, jsonText: string): RedactJsonResult;
  /** The current labels. */
  labels(): Labels;
  /** Back to no labels: the only way down. */
  reset(): void;
  /**
   * Sets the labels to a saved `labels()` (e.g. after an extension's service worker restarted).
   * @throws TypeError (code `invalid_options`) for anything that is not {@link Labels}.
   */
  restore(labels: Labels): void;
  /**
   * May the agent call `tool` with `args` now? Arguments are serialized once; arguments that
   * cannot be are denied (`unserializable`).
   */
  check(tool: ToolDefinition, args: unknown): CheckResult;
}

/** One lint finding; see docs/lint.md for the codes. */
export interface LintFinding {
  severity: "error" | "warning";
  code: string;
  tool: string;
  pointer: string;
  message: string;
}

/**
 * Lints tool definitions: one tool, an array, or a `tools/list` result, as an object or JSON text.
 * Lint has a module of its own (`pkg/webmcp_redact_lint_bg.wasm`, also with the inline entry),
 * loaded on the first call; when it cannot load, this rejects with `wasm_unavailable`.
 * Definitions `JSON.stringify` cannot write (a BigInt, a cycle), or that hold a value JSON
 * cannot hold (`Infinity`, `NaN`, a function, a symbol: JSON would write `null` or leave it
 * out), reject with a {@link RedactionError} `unserializable`; text that is not JSON is a finding (`invalid_json`).
 * @example
 * ```js
 * const errors = (await lintTools(tools)).filter((f) => f.severity === "error");
 * ```
 */
export function lintTools(definitions: unknown): Promise<LintFinding[]>;

/**
 * Loads the WebAssembly module (once per page, worker or process; see {@link WasmSource}) and
 * creates a redactor. The options other than `wasm` are checked once, by the core; they must be
 * plain data.
 * @throws TypeError (an unknown key, a value of the wrong kind, a function, a `wasm` of another
 * kind) or RangeError (a value out of range), each with `code: "invalid_options"` and a message
 * naming the option; {@link RedactionError} `wasm_unavailable` when the module cannot load, its
 * message naming what was loaded (the URL) and why (the HTTP status, the CSP directive, ...).
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

/**
 * Options of the vault (`createRedactor({ vault })`, `installRedaction({ vault })`).
 * @example
 * ```js
 * await createRedactor({ vault: { ttl: 300 } }); // entries can be revealed for 5 minutes
 * ```
 */
export interface VaultOptions {
  /**
   * Seconds an entry stays in the vault (revealable), from the result that made it. Default 600.
   * Its values stay in the redactor's scrub set past that, until `vault.delete()` or `vault.clear()`.
   */
  ttl?: number;
}

/**
 * Options of {@link redeem} for one redactor's vault (`createRedactor({ redeem })`,
 * `installRedaction({ redeem })`).
 * @example
 * ```js
 * await installRedaction({ redeem: { maxTtl: 120, allowedPaths: ["/api/redeem/"] } });
 * ```
 */
export interface RedeemOptions {
  /** Cap, in seconds, on a `secret_reference`'s own `ttl` (and the lifetime of one without). Default 600. */
  maxTtl?: number;
  /** Path prefixes (each starting with `/`) a `redeemUrl` must start with, after URL parsing. */
  allowedPaths?: string[];
}

/**
 * Options of one {@link redeem} call; no others (the request's own options are fixed: any other
 * key, a `signal` that is not an `AbortSignal`, rejects with a TypeError, code `invalid_options`).
 * @example
 * ```js
 * await redeem(handle, { result: out.resultId, signal: AbortSignal.timeout(5000) });
 * ```
 */
export interface RedeemCallOptions {
  signal?: AbortSignal;
  /**
   * The id of the result the handle must belong to (`resultId` of {@link RedactOutcome}):
   * a handle issued for any other result is refused with `foreign_reference`, before any
   * request. Pass it whenever the handle came through something an agent or a tool could
   * write (the Reveal element always does).
   */
  result?: string;
}

/** The stable codes of {@link RedeemError.code}. */
export type RedeemErrorCode =
  | "unknown_reference"
  | "foreign_reference"
  | "expired"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "rate_limited"
  | "redirected"
  | "bad_response"
  | "network"
  | "cross_origin"
  | "insecure_url"
  | "path_not_allowed"
  | "aborted";

/**
 * A failed {@link redeem}. Its message names the label and the reason, never the response
 * body, the value, or the query string of `redeemUrl`.
 * @example
 * ```js
 * try { await redeem(handle); } catch (e) { if (e instanceof RedeemError && e.code === "rate_limited") wait(e.retryAfter); }
 * ```
 */
export class RedeemError extends Error {
  constructor(code: RedeemErrorCode, message: string, details?: { label?: string; status?: number; retryAfter?: number });
  /** Always `"RedeemError"`. */
  name: "RedeemError";
  /** What went wrong. */
  readonly code: RedeemErrorCode;
  /** The secret's label, when known. */
  readonly label?: string;
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  /** Seconds from the `Retry-After` header of a 429, when it gave one. Never retried automatically. */
  readonly retryAfter?: number;
}

/**
 * Returns the value behind a handle this page's vaults issued: from the vault for a value the
 * core removed or a block for the user only (the whole block; no request), or, for a tool's
 * own `secret_reference`, by fetching its `redeemUrl` under the same-origin contract: resolved with `new URL(redeemUrl, location.href)`;
 * `https:` (or `http:` on a loopback page); the page's origin, never `"null"`; the optional
 * `allowedPaths`; then `fetch(url.href, { method: "GET", mode: "same-origin", credentials:
 * "same-origin", redirect: "manual", cache: "no-store" })`, which no caller can change (a
 * redirect, followed by nothing and read by nobody, is `redirected` in every runtime); a 200
 * `application/json` body of exactly `{ "value": string }`, at most 64 KiB. The value then joins
 * the vault's known secrets, so that no later result hands it to the agent.
 * @throws {@link RedeemError}; a `TypeError` with code `invalid_options` (rejected, like the
 * rest) for options that are not an object.
 * @example
 * ```js
 * button.onclick = async () => { output.textContent = await redeem(stub.handle); };
 * ```
 */
export function redeem(handle: string, options?: RedeemCallOptions): Promise<unknown>;

/**
 * Does the runtime bridge the page's tools to MCP clients (`@mcp-b/global`)? Then every result
 * must be an MCP `CallToolResult` (the `"mcp"` format). See README "MCP bridges".
 */
export type Bridge = "mcp" | "none";

/** The `modelContext` shape installRedaction needs (the polyfill's and Chromium's both fit). */
export interface ModelContextLike {
  registerTool(tool: ExecutableTool, options?: { signal?: AbortSignal; [key: string]: unknown }): Promise<unknown> | unknown;
  getTools?(): Promise<{ name: string }[]>;
  [key: string]: unknown;
}

/**
 * Options of {@link installRedaction}.
 * @example
 * ```js
 * await installRedaction({ format: "mcp", redeem: { allowedPaths: ["/api/redeem/"] } });
 * ```
 */
export interface InstallOptions {
  /** The context to patch. Default `document.modelContext`, else the deprecated `navigator.modelContext`. */
  modelContext?: ModelContextLike;
  /** Where the WebAssembly module comes from; see {@link WasmSource}. */
  wasm?: WasmSource;
  /**
   * Output format of the redactor; see {@link RedactorOptions.format}. Default `"mcp"` over an
   * MCP bridge, else `"webmcp"`; `"webmcp"` over a bridge is a `TypeError` (code
   * `invalid_options`): MCP clients reject its `secret_reference` blocks.
   */
  format?: Format;
  /**
   * Whether the runtime exposes the tools to MCP clients, which reject anything but MCP
   * results: `"mcp"` or `"none"`. Default: `"mcp"` when `modelContext` is `@mcp-b/global`'s
   * (a BrowserMcpServer, recognised as `isBrowserMcpServer()` of `@mcp-b/webmcp-ts-sdk` does),
   * else `"none"`. Any other value is a `TypeError` (code `invalid_options`).
   */
  bridge?: Bridge;
  /** Resource limits; see {@link Limits}. */
  limits?: Limits;
  /** See {@link VaultOptions}. */
  vault?: VaultOptions;
  /** See {@link RedeemOptions}. */
  redeem?: RedeemOptions;
  /** When tools are sensitive and what the pre-call checks decide; see {@link Policy}. */
  policy?: Policy;
  /**
   * Called with the `wasm_unavailable` error instead of `console.error` (which prints its message
   * and that every tool result is withheld). Not a function: a TypeError (code `invalid_options`).
   */
  onError?(error: RedactionError): void;
  /**
   * Called after each result that issued handles, with the tool's name, the result's id, the
   * agent view and the handles it issued (with their labels, in either format: in the mcp
   * format the stubs are text blocks): the trusted place for a page to show
   * `<webmcp-secret handle={handle} result={resultId}>` elements (never from text an agent
   * wrote). Its errors are ignored.
   */
  onResult?(info: { tool: string; resultId: string; result: CallToolResult; handles: Array<{ handle: string; label: string }> }): void;
  /**
   * Asks the user about a call the page session's check answered `"confirm"` (every registered
   * tool's calls are checked before `execute`); see {@link ConfirmCallback}. Default: the
   * built-in accessible dialog where there is a `document`, else decline.
   */
  confirm?: ConfirmCallback;
}

/**
 * What {@link installRedaction} resolves to: call it to restore the original `registerTool`
 * (tools already registered stay as they were registered).
 * @example
 * ```js
 * const uninstall = await installRedaction();
 * if (uninstall.error) console.warn(uninstall.error.code); // "wasm_unavailable": every result is withheld
 * uninstall();
 * ```
 */
export interface Uninstall {
  (): void;
  /** Set when the WebAssembly module could not load: every result is then withheld (`wasm_unavailable`). */
  readonly error?: RedactionError;
  /** The bridge installRedaction was told or detected; `"mcp"` means results are in the `"mcp"` format. */
  readonly bridge: Bridge;
  /**
   * Names of tools that are NOT wrapped: those the runtime listed that were registered before
   * installation, those it listed after a `toolchange` event that did not pass the patch (a
   * `registerTool` taken before installation, another path of the runtime) or that a
   * registration through the patch did not account for (the runtime refused it, e.g. as a
   * duplicate of a tool it got before), those registered on MCP-B's inner `mcpServer` before
   * installation, and every declarative tool (`<form toolname>`) in the document now (read
   * live: forms added, renamed or removed after installation are followed until uninstall).
   * Only a form tool's response given through `SubmitEvent#respondWith` is redacted, where the
   * runtime has it. `null` when the runtime cannot list its tools and there are no form tools.
   */
  readonly unprotectedTools: string[] | null;
  /** The redactor behind the installation (its vault holds this page's secrets); `null` if the module did not load. */
  readonly redactor: Redactor | null;
  /**
   * The page session every wrapped tool records into (those wrapped with `redactor.wrapTool`
   * too, whose questions go to this installation's `confirm`): `check` before a call,
   * `labels()`, `reset()`. Without the module, `check` denies (`wasm_unavailable`).
   */
  readonly session: {
    check(tool: ToolDefinition, args: unknown): CheckResult;
    labels(): Labels;
    reset(): void;
  };
}

/**
 * Patches `modelContext.registerTool` so that every tool registered afterwards is compiled at
 * registration (a bad `outputSchema` rejects that `registerTool` call with the
 * {@link RedactionError}) and registered with an `execute` that returns only the redacted
 * result. `outputSchema`, `annotations` and `_meta` are read before the runtime sees the tool,
 * which is registered with {@link Redactor.agentSchema} as its `outputSchema` (none when that is
 * `null`); everything else (the options argument and its `AbortSignal`, `title`, `inputSchema`,
 * the promise `registerTool` returns) passes through. Over an MCP bridge
 * ({@link InstallOptions.bridge}) results are in the `"mcp"` format. Tools registered before installation are not
 * covered; see {@link Uninstall.unprotectedTools}. When the context was found (not passed) and
 * `document.modelContext` is later replaced by a layer on top of it (`@mcp-b/global` set up
 * afterwards), each `registerTool` reaching the patched context rejects with a TypeError, code
 * `context_replaced`: install after that layer. A tool made by another redactor's `wrapTool`
 * (or carrying its `execute`) is refused with code `foreign_wrapper` (its secrets could not be
 * revealed): register the tool itself, or wrap it with {@link Uninstall.redactor}'s `wrapTool`.
 * The `registerTool` options are read once; options that throw when read, or whose `signal` is
 * not an `AbortSignal`, are refused with `invalid_options`. Where the context also has
 * `registerResource` / `registerPrompt` (MCP-B's server), what each resource's `read` and
 * prompt's `get` returns goes through the same session as a result of no tool: known values
 * and detected credentials are masked in place, and one that claims sensitivity (or cannot be
 * redacted), or in which a value was found inside base64 (`blob`, `data`), rejects with a
 * {@link RedactionError} (code `withheld`), which the server answers as an error. Over an MCP
 * bridge the page's own messages through its inner server (`sendLoggingMessage`,
 * `createMessage`, `elicitInput`) are scrubbed the same way. Where the context has an inner
 * MCP server (`modelContext.mcpServer`, MCP-B's), its `registerTool`, `registerResource`,
 * `registerPrompt` (and the SDK v1's `tool`, `resource`, `prompt`) and each returned handle's
 * `update` are patched too: its tools are checked and redacted, its resources, prompts,
 * template lists and completions scrubbed, in the same session (each result once); its v1 task
 * tools, a callback assigned to a handle directly (not through `update`) and its
 * `server.setRequestHandler` outside the routes are refused (code `unprotected_route`), and an
 * inner server that cannot be patched is `invalid_options`.
 * @throws TypeError with a stable `code`: `no_model_context` when none is found (a browser
 * without WebMCP), `already_installed` when this one is installed already, `invalid_options`
 * when an option is bad (or a `RangeError` with that code, for a value out of range).
 * @example
 * ```js
 * import { installRedaction } from "webmcp-redact";
 * await installRedaction();
 * await document.modelContext.registerTool(tool); // redacted from now on
 * ```
 */
export function installRedaction(options?: InstallOptions): Promise<Uninstall>;
