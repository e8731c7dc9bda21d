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
