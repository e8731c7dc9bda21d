// A few more uses of the shipped types, type-checked with --strict (npm run typecheck). Never run.

import { createRedactor, installRedaction, type CheckResult, type ContentBlock, type ToolDefinition } from "webmcp-redact";

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
