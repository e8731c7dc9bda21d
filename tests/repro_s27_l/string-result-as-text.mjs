// Reproducer (not fixed, see README.md here): a runtime's executeTool hands an agent the result
// as text, but not always as JSON text: the MCP-B polyfill (5.1.0, serializeChromeToolResult)
// gives a tool's string result as the string itself. An extension that redacts that text with
// redactJson, as README's MV3 recipe does, gets every such result withheld (invalid_json):
// fail-closed, but the tool is unusable through it. (Wrapping it, redactJson(tool,
// JSON.stringify(text)), would redact it as a string result.)
// Run: node tests/repro_s27_l/string-result-as-text.mjs (after npm run build)
import { createRedactor } from "webmcp-redact";

const redactor = await createRedactor();
const asTheAgentGetsIt = String("Done: 3 files uploaded"); // what the polyfill's executeTool returns
console.log(redactor.redactJson({ name: "upload" }, asTheAgentGetsIt).json);
console.log(redactor.redactJson({ name: "upload" }, JSON.stringify(asTheAgentGetsIt)).json);
