// The README's first example, verbatim (tests/js/types.test.mjs checks that it still is),
// type-checked with --strict against js/index.d.ts as a consumer of the package sees it:
// `npm run typecheck` (tests/types/tsconfig.json). Never run.

import { createRedactor } from "webmcp-redact";

const redactor = await createRedactor();
const tool = {
  name: "generate_api_key",
  outputSchema: { type: "object", properties: { id: { type: "string" }, secret: { type: "string", "x-sensitive": true } } },
};
const { result, redactions } = redactor.redact(tool, { id: "key_1", secret: "sk_live_abc123" });
// result: { content: [text {"id":"key_1"}, { type: "secret_reference", label: "secret", handle }, notice],
//           structuredContent: { id: "key_1" }, _meta: { "webmcp-redact/redactions": [...] } }
redactor.vault.reveal(result.content[1].handle); // "sk_live_abc123", for the user, never the agent
