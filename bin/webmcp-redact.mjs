#!/usr/bin/env node
// webmcp-redact CLI: shows tool authors exactly what an agent would see of a result.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createRedactor, lintTools } from "webmcp-redact";
import { runConformance } from "webmcp-redact/conformance";

const USAGE = `usage: webmcp-redact redact --tool tool.json [--result result.json] [--format webmcp|mcp] [--json]
       webmcp-redact lint tools.json [more.json ...] [--format text|json]
       webmcp-redact conformance [--module impl.mjs] [--vector text] [--json]
       webmcp-redact --version

redact: prints the agent view of the result (read from --result, or from stdin) as JSON on
stdout, and the redaction report on stderr. With --json, prints one object
{ tool, format, agent, redactions, withheld, error } on stdout instead.
Exit status: 0 done, 1 the result was withheld because of an error (e.g. a bad schema), 2 usage.

lint: checks tool definitions (a file with one tool, an array, or a tools/list result) and
prints each finding: severity, code, tool, JSON Pointer, message (docs/lint.md explains every
code). --format json prints [{ file, severity, code, tool, pointer, message }].
Exit status: 0 no errors (warnings allowed), 1 at least one error, 2 usage.

conformance: runs the conformance vectors that state what any implementation of WebMCP #110 must
do (what the agent must never see, what must reach it) through the module's redactJson(tool,
rawText) (JSON text in and out), else its redact(tool, raw) or default export (the agent view as
a value); without --module, through this package's own redactor. --vector runs the vectors whose
name contains the text. Prints each problem and a summary (--json: { passed, failed }).
Exit status: 0 all passed, 1 some failed, 2 usage (tests/vectors/README.md has the format).`;

/**
 * A usage error: one line on stderr that names the mistake and points to --help (the full usage
 * would bury the line that matters), then exit status 2. @returns {never}
 */
function usage(message) {
  // shown: a file name, a command or the error of importing a module can hold control characters.
  console.error(`webmcp-redact: ${shown(message.replace(/\s*\n\s*/g, " "))} (see webmcp-redact --help)`);
  process.exit(2);
}

/** The package's own version, read from its package.json so that it is written in one place. */
function version() {
  return JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
}

// Re-indents JSON text without parsing it, so that numbers stay exactly as written.
function pretty(text) {
  let out = "";
  let depth = 0;
  const newline = () => "\n" + "  ".repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      // The same value, with control and format characters (which JSON leaves raw from U+007F
      // on) written as escapes, so that the terminal shows them (see shown).
      out += shown(text.slice(i, j + 1));
      i = j;
    } else if (c === "{" || c === "[") {
      let j = i + 1;
      while (" \t\r\n".includes(text[j])) j++;
      if (text[j] === (c === "{" ? "}" : "]")) {
        out += c + text[j];
        i = j;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === "}" || c === "]") {
      depth--;
      out += newline() + c;
    } else if (c === ",") {
      out += "," + newline();
    } else if (c === ":") {
      out += ": ";
    } else if (!" \t\r\n".includes(c)) {
      out += c;
    }
  }
  return out;
}

// A UTF-8 byte order mark (Windows editors and PowerShell write one) is not part of the JSON:
// RFC 8259 lets a parser ignore it, and JSON.parse and the core do not.
function readText(path, what) {
  try {
    return readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  } catch (err) {
    usage(`cannot read ${what} ${path === 0 ? "from stdin" : path}: ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * Text from a result or a tool (labels, JSON Pointers, names, messages) as the terminal is to
 * show it: each control or format character as its \uXXXX escape. Printed raw, an ESC sequence
 * in a key erased or rewrote the report lines above it (the line naming the field that held a
 * secret), a CR or a bidi override made a line read otherwise (found by review).
 * @param {unknown} text
 */
function shown(text) {
  return String(text).replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => c.split("").map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""));
}

function report(tool, out) {
  const lines = [];
  if (out.error) lines.push(`error ${out.error.code}: ${shown(out.error.message)}`);
  const n = out.redactions.length;
  lines.push(`report: ${n} redaction${n === 1 ? "" : "s"} from "${shown(tool)}"${out.withheld ? " (result withheld)" : ""}`);
  for (const r of out.redactions) {
    lines.push(`  ${shown(r.pointer || "(root)")}  ${r.reason}  label "${shown(r.label)}"${r.handle ? `  handle ${r.handle}` : ""}`);
  }
  return lines.join("\n");
}

async function main(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        tool: { type: "string" },
        result: { type: "string" },
        format: { type: "string" },
        json: { type: "boolean", default: false },
        module: { type: "string" },
        vector: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", default: false },
      },
    });
  } catch (err) {
    // Node's messages go on with advice about `--`; the first sentence names the mistake.
    usage(/** @type {Error} */ (err).message.split(/\.\s/)[0]);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.version) {
    console.log(version());
    return 0;
  }
  const [command, ...rest] = positionals;
  if (command === undefined) usage("no command given");
  /** Each option given must be one of `allowed`. */
  const only = (/** @type {string[]} */ allowed) => {
    for (const [option, value] of Object.entries(values)) {
      if (value !== undefined && value !== false && !allowed.includes(option)) usage(`--${option} is not an option of ${command}`);
    }
  };
  if (command === "lint") {
    only(["format"]);
    return lint(rest, values.format ?? "text");
  }
  if (command === "conformance") {
    only(["module", "vector", "json"]);
    if (rest.length > 0) usage(`conformance takes no file "${rest[0]}": give the implementation with --module`);
    return conformance(values.module, values.vector, values.json);
  }
  if (command !== "redact") usage(`unknown command "${command}": the commands are redact, lint and conformance`);
  only(["tool", "result", "format", "json"]);
  if (rest.length > 0) usage(`redact reads no file "${rest[0]}": give the files with --tool and --result`);
  values.format ??= "webmcp";
  if (!values.tool) usage("--tool is required");
  if (!["webmcp", "mcp"].includes(values.format)) usage(`unknown --format ${values.format}`);
  if (values.result === undefined && process.stdin.isTTY) usage("give --result or pipe the result on stdin");

  let tool;
  try {
    tool = JSON.parse(readText(values.tool, "the tool file"));
  } catch {
    // Not JSON.parse's message: it quotes a piece of the text, and a result file given as the
    // tool by mistake would be printed to the terminal or the CI log.
    usage("the tool file is not JSON (is it a tool definition?)");
  }
  const resultText = readText(values.result ?? 0, "the result file");

  const redactor = await createRedactor({ format: values.format });
  const out = redactor.redactJson(tool, resultText);
  const name = typeof tool?.name === "string" ? tool.name : "";

  if (values.json) {
    const error = out.error
      ? { code: out.error.code, message: out.error.message, pointer: out.error.pointer, tool: out.error.tool }
      : null;
    // `agent` is spliced in as text so that its numbers are not rounded by JSON.parse.
    const head = JSON.stringify({ tool: name, format: values.format }).slice(0, -1);
    const tail = JSON.stringify({ redactions: out.redactions, withheld: out.withheld, error }).slice(1);
    console.log(pretty(`${head},"agent":${out.json},${tail}`));
  } else {
    console.log(pretty(out.json));
    console.error(report(name, out));
  }
  return out.error ? 1 : 0;
}

async function lint(files, format) {
  if (files.length === 0) usage("lint needs at least one file");
  if (!["text", "json"].includes(format)) usage(`unknown --format ${format} for lint (text or json)`);
  const all = [];
  for (const file of files) {
    for (const f of await lintTools(readText(file, "the tool file"))) all.push({ file, ...f });
  }
  if (format === "json") {
    // Through pretty, as redact --json: JSON.stringify leaves C1 controls and format characters
    // of a tool's name or hint (a CSI, a bidi override) raw (found by review).
    console.log(pretty(JSON.stringify(all)));
  } else {
    for (const f of all) {
      console.log(`${shown(f.file)}: ${f.severity} ${f.code} ${f.tool ? `[${shown(f.tool)}] ` : ""}${shown(f.pointer || "(root)")}: ${shown(f.message)}`);
    }
    const errors = all.filter((f) => f.severity === "error").length;
    console.log(`${errors} error${errors === 1 ? "" : "s"}, ${all.length - errors} warning${all.length - errors === 1 ? "" : "s"}`);
  }
  return all.some((f) => f.severity === "error") ? 1 : 0;
}

async function conformance(modulePath, filter, json) {
  /** @type {any} */
  let implementation;
  if (modulePath === undefined) {
    // This package's own redactor, a fresh one per vector so that no vector sees another's secrets.
    implementation = async (/** @type {any} */ tool, /** @type {unknown} */ raw) => (await createRedactor()).redact(tool, raw).result;
  } else {
    try {
      implementation = await import(pathToFileURL(resolve(modulePath)).href);
    } catch (err) {
      usage(`cannot import --module ${modulePath}: ${/** @type {Error} */ (err).message}`);
    }
    const fns = ["redactJson", "redact", "default"].filter((name) => typeof implementation[name] === "function");
    if (fns.length === 0) usage(`--module ${modulePath} exports no redactJson, redact or default function`);
  }
  const report = await runConformance(implementation, { filter });
  const total = report.passed.length + report.failed.length;
  if (total === 0) usage(`no vector with proposal expectations has a name containing "${filter}"`);
  if (json) {
    console.log(pretty(JSON.stringify(report)));
  } else {
    for (const f of report.failed) for (const p of f.problems) console.log(`not ok ${shown(f.name)}: ${shown(p)}`);
    const failed = report.failed.length ? `; failed: ${report.failed.map((f) => shown(f.name)).join(", ")}` : "";
    console.log(`${report.passed.length} of ${total} vectors met the proposal's expectations${failed}`);
  }
  return report.failed.length ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
