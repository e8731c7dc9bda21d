/**
 * `webmcp-redact/conformance`: the conformance vectors shipped with the package (format in
 * `tests/vectors/README.md`) and a runner for any implementation of WebMCP #110. Node only.
 * @example
 * ```js
 * import { runConformance } from "webmcp-redact/conformance";
 * const { failed } = await runConformance((tool, raw) => myRedact(tool, raw));
 * ```
 */

/** What any implementation of the proposal must do with a vector's input. */
export interface ProposalExpectations {
  /** Strings the agent must never see: not in the view's JSON text, nor in any string or key of it. */
  hidden: string[];
  /** Strings that must reach the agent: in some string or key of the view. */
  kept: string[];
}

/** One conformance vector (see tests/vectors/README.md for every field). */
export interface Vector {
  name: string;
  rule: string;
  description: string;
  tool: { name: string; [key: string]: unknown };
  /** The raw result as a value, unless `rawText` gives its exact JSON text. */
  raw?: unknown;
  rawText?: string;
  /** `rawText` has no exact JavaScript value (`1e400`): hand it on as text, never `JSON.parse` it. */
  textOnly?: true;
  format?: "webmcp" | "mcp";
  known?: { label: string; value: string }[];
  limits?: Record<string, number>;
  policy?: Record<string, unknown>;
  /** This library's exact output (its wording, report, error codes, vault entries). */
  expect: Record<string, unknown>;
  /** Strings this library never lets the agent see, in any encoding it scrubs. */
  canaries?: string[];
  /** What any implementation must do; absent where only this library's choices decide. */
  proposal?: ProposalExpectations;
}

/** An implementation under test: a function returning the agent view, or a module exporting one. */
export type Implementation =
  | ((tool: Vector["tool"], raw: unknown) => unknown)
  | { redactJson(tool: Vector["tool"], rawText: string): string | Promise<string> }
  | { redact(tool: Vector["tool"], raw: unknown): unknown }
  | { default(tool: Vector["tool"], raw: unknown): unknown };

export interface ConformanceReport {
  /** Names of the vectors whose expectations were met. */
  passed: string[];
  /** The others, each with what went wrong. */
  failed: { name: string; problems: string[] }[];
}

/** Every vector, by file name. */
export function loadVectors(): Vector[];

/**
 * What is wrong with an agent view (JSON text; `undefined` when the agent got nothing) against
 * the vector's `proposal`: an empty list when it meets it.
 */
export function checkProposal(vector: Pick<Vector, "proposal">, agentJson: string | undefined): string[];

/**
 * Runs every vector with a `proposal` through the implementation (fresh copies of the tool and
 * the result each time; a throw counts as giving the agent nothing).
 * @throws TypeError when `implementation` is neither a function nor a module exporting one.
 */
export function runConformance(implementation: Implementation, options?: { filter?: string }): Promise<ConformanceReport>;
