// A few more uses of the shipped types, type-checked with --strict against the packed package
// (tests/js/types.test.mjs). Never run.

import { createRedactor, installRedaction, type CheckResult, type ContentBlock, type ToolDefinition } from "webmcp-redact";
import { runConformance, type ConformanceReport } from "webmcp-redact/conformance";

const redactor = await createRedactor({ policy: { withholdAt: "high" } });

// Tool literals as authors write them, without `as const`: levels, booleans, other annotations.
const low = { name: "read_profile", annotations: { sensitiveHint: "low", readOnlyHint: true } };
const high = { name: "get_card", annotations: { sensitiveHint: true } };
redactor.redact(low, { user: "ada" });
const { result, withheld, error } = redactor.redact(high, { card: "4242" });

// The agent view's blocks narrow on `type`; only a stub has a handle.
for (const block of result.content) {
  if (block.type === "secret_reference") {
    const handle: string = block.handle;
    redactor.vault.reveal(handle);
  } else if (block.type === "text") {
    const text: string = block.text;
    void text;
  }
}
const first: ContentBlock | undefined = result.content[0];
redactor.vault.reveal(first?.handle);
void [withheld, error?.code];

// A plain value passes through the "webmcp" format when nothing is redacted: say so if you care.
const plain = redactor.redact<{ user: string } | typeof result>(low, { user: "ada" }).result;
void ("content" in plain ? plain.content : plain.user);

// Pre-call checks, including the code of a page whose module could not load.
const uninstall = await installRedaction();
const check: CheckResult = uninstall.session.check(high satisfies ToolDefinition, {});
if (check.reasons.some((r) => r.code === "wasm_unavailable" || r.code === "exfiltration")) uninstall();

// @ts-expect-error: a number is not a sensitivity level (lint reports it; it counts as high).
redactor.redact({ name: "t", annotations: { sensitiveHint: 1 } }, null);

// Another implementation under the conformance runner: here this library, through JSON text.
const report: ConformanceReport = await runConformance({ redactJson: (t, text) => redactor.redactJson(t, text).json });
void report.failed.map((f) => `${f.name}: ${f.problems.join("; ")}`);

// Every form of the `wasm` option, on both entry points; the inline entry has the same API.
import * as inline from "webmcp-redact/inline";
import type { WasmSource } from "webmcp-redact";
const sources: WasmSource[] = [
  "/assets/webmcp_redact_bg.wasm",
  new URL("./webmcp_redact_bg.wasm", import.meta.url),
  new ArrayBuffer(8),
  new Uint8Array(8),
  new Response(new Uint8Array(8)),
  fetch("/assets/webmcp_redact_bg.wasm"),
  await WebAssembly.compile(new Uint8Array(8)),
];
await createRedactor({ wasm: sources[0], format: "mcp" });
await installRedaction({ wasm: sources[1] });
const fromInline: typeof redactor = await inline.createRedactor({ wasm: sources[2] });
void fromInline;
await inline.installRedaction();
// @ts-expect-error: null is not a source of the module. (A number would pass the type check:
// lib.dom's WebAssembly.Module is an empty interface, which any non-null value fits; the
// runtime refuses it with a TypeError.)
await createRedactor({ wasm: null });

// MCP bridges: the agent's schema (null: register without one), the bridge told or detected.
const published: { [keyword: string]: unknown } | null = redactor.agentSchema(high);
void published;
const bridged = await installRedaction({ bridge: "mcp" });
const bridge: "mcp" | "none" = bridged.bridge;
void bridge;
// @ts-expect-error: a bridge is "mcp" or "none".
await installRedaction({ bridge: "yes" });

// A wrapped tool shows the frozen definition its calls are judged by: its judged fields are
// read-only, and it is still a tool the runtime takes.
const wrapped = redactor.wrapTool({ name: "lookup", annotations: { readOnlyHint: true }, execute: () => "x" });
// @ts-expect-error: a wrapped tool's annotations cannot be replaced (nor changed: frozen).
wrapped.annotations = { readOnlyHint: false };
const shownHint: boolean | undefined = wrapped.annotations.readOnlyHint;
void shownHint;
declare const context: { registerTool(tool: { name: string; execute(input: unknown): unknown }): Promise<void> };
await context.registerTool(wrapped);
