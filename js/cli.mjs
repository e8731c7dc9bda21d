#!/usr/bin/env node
// webmcp-redact CLI: shows tool authors exactly what an agent would see of a result.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createRedactor } from "./index.js";

const USAGE = `usage: webmcp-redact redact --tool tool.json [--result result.json] [--format webmcp|mcp] [--json]

Prints the agent view of the result (read from --result, or from stdin) as JSON on stdout,
and the redaction report on stderr. With --json, prints one object
{ tool, format, agent, redactions, withheld, error } on stdout instead.
Exit status: 0 done, 1 the result was withheld because of an error (e.g. a bad schema), 2 usage.`;

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
    usage(`cannot read ${what} ${path === 0 ? "from stdin" : path}: ${err.message}`);
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
        format: { type: "string", default: "webmcp" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (err) {
    usage(err.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== "redact") usage("the only command is `redact`");
  if (!values.tool) usage("--tool is required");
  if (!["webmcp", "mcp"].includes(values.format)) usage(`unknown --format ${values.format}`);
  if (values.result === undefined && process.stdin.isTTY) usage("give --result or pipe the result on stdin");

  let tool;
  try {
    tool = JSON.parse(readText(values.tool, "the tool"));
  } catch (err) {
    usage(`the tool file is not JSON: ${err.message}`);
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

process.exitCode = await main(process.argv.slice(2));
