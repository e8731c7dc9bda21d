// What the README's examples take from their surroundings, for tests/js/types.test.mjs, which
// compiles each example as written. A global script (no import or export), so that an example
// declaring one of these names shadows it; each declaration is the type the example expects.

/** A tool as a page registers it. */
declare const tool: import("webmcp-redact").ExecutableTool;
declare const nextTool: import("webmcp-redact").ToolDefinition;
/** A tool's raw result, and the same as JSON text. */
declare const raw: unknown;
declare const jsonText: string;
/** A stub's handle, and the redaction that issued it. */
declare const handle: string;
declare const out: import("webmcp-redact").RedactResult;
declare const signal: AbortSignal;
declare const args: Record<string, unknown>;
/** A page's tool listing, as an extension reads it. */
declare const tools: { name: string; description?: string; inputSchema?: unknown }[];
/** Another implementation's redact, in tests/vectors/README.md. */
declare function myRedact(tool: unknown, raw: unknown): unknown;

/** A WebMCP page: the runtime (the browser, or a polyfill's types) provides `modelContext`. */
interface Document {
  readonly modelContext: import("webmcp-redact").ModelContextLike;
}

/** An MV3 extension's service worker: the part of the `chrome` API the README's recipe uses. */
declare const chrome: {
  runtime: {
    id: string;
    onMessage: {
      addListener(listener: (message: any, sender: { id?: string }, sendResponse: (response?: unknown) => void) => boolean | undefined): void;
    };
  };
};
