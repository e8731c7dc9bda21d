#!/usr/bin/env node
// webmcp-redact CLI: shows tool authors exactly what an agent would see of a result.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createRedactor, lintTools } from "webmcp-redact";

const USAGE = `usage: webmcp-redact redact --tool tool.json [--result result.json] [--format webmcp|mcp] [--json]
       webmcp-redact lint tools.json [more.json ...] [--format text|json]

redact: prints the agent view of the result (read from --result, or from stdin) as JSON on
stdout, and the redaction report on stderr. With --json, prints one object
{ tool, format, agent, redactions, withheld, error } on stdout instead.
Exit status: 0 done, 1 the result was withheld because of an error (e.g. a bad schema), 2 usage.

lint: checks tool definitions (a file with one tool, an array, or a tools/list result) and
prints each finding: severity, code, tool, JSON Pointer, message (docs/lint.md explains every
code). --format json prints [{ file, severity, code, tool, pointer, message }].
Exit status: 0 no errors (warnings allowed), 1 at least one error, 2 usage.`;

/** Prints the usage (after `message`, if any) and exits with status 2. @returns {never} */
function usage(message) {
  if (message) console.error(`webmcp-redact: ${message}`);
  console.error(USAGE);
  process.exit(2);
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
      out += text.slice(i, j + 1);
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

function readText(path, what) {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    usage(`cannot read ${what} ${path === 0 ? "from stdin" : path}: ${/** @type {Error} */ (err).message}`);
  }
}

function report(tool, out) {
  const lines = [];
  if (out.error) lines.push(`error ${out.error.code}: ${out.error.message}`);
  const n = out.redactions.length;
  lines.push(`report: ${n} redaction${n === 1 ? "" : "s"} from "${tool}"${out.withheld ? " (result withheld)" : ""}`);
  for (const r of out.redactions) {
    lines.push(`  ${r.pointer || "(root)"}  ${r.reason}  label "${r.label}"${r.handle ? `  handle ${r.handle}` : ""}`);
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
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (err) {
    usage(/** @type {Error} */ (err).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals[0] === "lint") return lint(positionals.slice(1), values.format ?? "text");
  if (positionals.length !== 1 || positionals[0] !== "redact") usage("the commands are `redact` and `lint`");
  values.format ??= "webmcp";
  if (!values.tool) usage("--tool is required");
  if (!["webmcp", "mcp"].includes(values.format)) usage(`unknown --format ${values.format}`);
  if (values.result === undefined && process.stdin.isTTY) usage("give --result or pipe the result on stdin");

  let tool;
  try {
    tool = JSON.parse(readText(values.tool, "the tool"));
  } catch (err) {
    usage(`the tool file is not JSON: ${/** @type {Error} */ (err).message}`);
  }
  const resultText = readText(values.result ?? 0, "the result");

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
    console.log(JSON.stringify(all, null, 2));
  } else {
    for (const f of all) {
      console.log(`${f.file}: ${f.severity} ${f.code} ${f.tool ? `[${f.tool}] ` : ""}${f.pointer || "(root)"}: ${f.message}`);
    }
    const errors = all.filter((f) => f.severity === "error").length;
    console.log(`${errors} error${errors === 1 ? "" : "s"}, ${all.length - errors} warning${all.length - errors === 1 ? "" : "s"}`);
  }
  return all.some((f) => f.severity === "error") ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
