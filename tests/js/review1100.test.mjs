// Review 1100 findings on redactor.agentSchema (the outputSchema installRedaction and wrapTool
// register tools with): each test failed at 8f7e91d (the raw results of the `not` cases are
// strings here, as their own schemas ask). A tool whose own schema is valid, and a raw
// result valid against it, must give a view that the published schema accepts; here the
// published schema rejects the redacted view (ajv, as the MCP SDK and @mcp-b/global use), or
// cannot even be compiled, so every call over an MCP bridge comes back an error.
import { test } from "node:test";
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import { BrowserMcpServer } from "@mcp-b/webmcp-ts-sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createRedactor, installRedaction } from "webmcp-redact";

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const redactor = await createRedactor({ format: "mcp" });
const S = { type: "string", "x-sensitive": true };

/** Raw valid against the tool's schema; view's structuredContent valid against the published one. */
function assertViewValid(outputSchema, raw) {
  const tool = { name: "t", outputSchema };
  try {
    assert.equal(ajv.validate(outputSchema, raw), true, `raw must be valid: ${JSON.stringify(ajv.errors)}`);
  } finally {
    ajv.removeSchema();
  }
  const published = redactor.agentSchema(tool);
  const { result } = redactor.redact(tool, raw);
  let ok;
  try {
    ok = ajv.validate(published, result.structuredContent) ? true : ajv.errors;
  } catch (err) {
    ok = `published schema does not compile: ${err.message}`;
  } finally {
    ajv.removeSchema();
  }
  assert.equal(ok, true, `view ${JSON.stringify(result.structuredContent)}\npublished ${JSON.stringify(published)}\n${JSON.stringify(ok)}`);
}

// agent.rs drops `if` wherever something below may be removed, "so then/else stop applying".
// But `if` and `then` are also what *evaluates* properties for `unevaluatedProperties: false`
// (2020-12 annotation collection): with them gone, `kind` (declared only in `if`) and `extra`
// (declared only in `then`) become unevaluated, and the published schema rejects every view.
test("review1100: dropping if/then makes unevaluatedProperties: false reject the view", () => {
  assertViewValid(
    {
      type: "object",
      properties: { s: S },
      if: { properties: { kind: { const: "a" } }, required: ["kind"] },
      then: { properties: { extra: { type: "string" } } },
      unevaluatedProperties: false,
    },
    { kind: "a", extra: "x", s: "secret-value" },
  );
});

// The same for arrays: items evaluated only by `then`'s prefixItems are unevaluated once `if`
// goes, and `unevaluatedItems: false` rejects the view.
test("review1100: dropping if makes unevaluatedItems: false reject the view", () => {
  assertViewValid(
    {
      type: "object",
      properties: {
        a: { type: "array", prefixItems: [{ type: "string" }], if: { prefixItems: [true, { type: "string" }] }, then: { prefixItems: [true, S] }, unevaluatedItems: false },
      },
    },
    { a: ["x", "y"] },
  );
});

// agent.rs removes `if`, `not`, and (when a $ref points into one) `oneOf`, but leaves every
// `$ref` that pointed into them (by JSON Pointer, `$anchor` or `$id`): the published schema
// has dangling references, and ajv (the MCP SDK's validator) refuses to compile it.
for (const [name, outputSchema, raw] of [
  ["$ref #/if", { type: "object", properties: { s: S, a: { $ref: "#/if" } }, if: { type: "object" }, then: {} }, { s: "x", a: {} }],
  ["$ref #/not", { type: "object", properties: { s: S, a: { $ref: "#/not" } }, not: { type: "string" } }, { s: "x", a: "t" }],
  ["$ref #/oneOf/0", { type: "object", properties: { s: S, a: { $ref: "#/oneOf/0" } }, oneOf: [{ type: "object" }, { type: "array" }] }, { s: "x", a: {} }],
  ["$ref to an $anchor in if", { type: "object", properties: { s: S, a: { $ref: "#cond" } }, if: { $anchor: "cond", type: "integer" }, then: {} }, { s: "x", a: 5 }],
  ["$ref to an $id in not", { $id: "https://ex.example/root", type: "object", properties: { s: S, a: { $ref: "https://ex.example/n" } }, not: { $id: "https://ex.example/n", type: "string" } }, { s: "x", a: "t" }],
]) {
  test(`review1100: the published schema keeps a dangling reference: ${name}`, () => assertViewValid(outputSchema, raw));
}

// End to end on MCP-B: the tool registered through installRedaction cannot be called.
test("review1100: over MCP-B a tool with a $ref into `not` fails every call", async () => {
  const server = new BrowserMcpServer({ name: "page", version: "1.0.0" });
  await installRedaction({ modelContext: server });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    await server.registerTool({
      name: "t",
      description: "t",
      outputSchema: { type: "object", properties: { s: S, a: { $ref: "#/not" } }, not: { type: "string" } },
      execute: async () => ({ s: "secret-value", a: "t" }),
    });
    await client.listTools();
    const res = await client.callTool({ name: "t", arguments: {} });
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.deepEqual(res.structuredContent, { a: "t" });
  } finally {
    await client.close();
    await server.close();
  }
});

// js/wasm.js checkShape is the only check that `wasm` is "this version's webmcp_redact_bg.wasm"
// (README: "a module that does not fit the glue ... is refused before the glue touches it"):
// it asks only that every import come from ./webmcp_redact_bg.js and that `memory` and
// `__wbindgen_start` be exported. A module that passes it but is not this version's (here a
// minimal one importing one real glue name; in the field, say, a stale cached .wasm of another
// version at the URL given as `wasm`) loads and instantiates, so the load "succeeds"; then
// createRedactorWith throws, and installRedaction takes that for bad options: it uninstalls
// (restores the original registerTool) and rejects. README promises that when the module
// cannot be used installRedaction resolves with uninstall.error and withholds every result;
// instead a page that catches the rejection (or does not await it) registers its tools
// unpatched, and the agent gets the raw secret. Run in a child process: the first load that
// succeeds wins for the whole process.
test("review1100: a wasm that passes the shape check but is not this module makes installRedaction fail open", async () => {
  const { execFileSync } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const script = `
    import binaryen from "binaryen";
    import { readFileSync } from "node:fs";
    import { installRedaction } from "webmcp-redact";
    const real = new WebAssembly.Module(readFileSync("pkg/webmcp_redact_bg.wasm"));
    const name = WebAssembly.Module.imports(real).find((i) => i.kind === "function").name;
    const bytes = binaryen.parseText(\`(module
      (import "./webmcp_redact_bg.js" "\${name}" (func))
      (memory (export "memory") 1)
      (func (export "__wbindgen_start")))\`).emitBinary();
    const registered = [];
    const modelContext = { registerTool(tool) { registered.push(tool); } };
    let installed = "resolved";
    try { await installRedaction({ modelContext, wasm: bytes, onError() {} }); } catch (err) { installed = "rejected: " + err.message; }
    await modelContext.registerTool({ name: "k", outputSchema: { properties: { s: { "x-sensitive": true } } }, execute: async () => ({ s: "sk_live_CANARY_1100" }) });
    console.log(JSON.stringify({ installed, agent: await registered[0].execute({}) }));
  `;
  const cwd = fileURLToPath(new URL("../..", import.meta.url));
  const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd, encoding: "utf8" }).trim().split("\n").at(-1));
  assert.ok(!JSON.stringify(out.agent).includes("sk_live_CANARY_1100"), `installRedaction ${out.installed}; agent got ${JSON.stringify(out.agent)}`);
  assert.equal(out.installed, "resolved");
});
