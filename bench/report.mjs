// Prints one environment's results of the ratio bench (bench/cases.mjs) as markdown tables: the
// medians, the ratios issue 9's targets are stated in, and each target beside its ratio. The
// targets are information only: the bench measures, it never fails on them.

import { CONTENDERS } from "./cases.mjs";

const KIB = 1024;

function time(ms) {
  if (ms === undefined) return "";
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.1 ? 1 : 0)} us`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : ms < 100 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

const mib = (bytes) => `${(bytes / KIB / KIB).toFixed(1)} MiB`;

const ratio = (x) => (x === undefined || !Number.isFinite(x) ? "n/a" : `${x.toFixed(x < 10 ? 2 : x < 100 ? 1 : 0)}x`);

/** A markdown table, aligned; the first `left` columns are text, the others numbers. */
function table(header, rows, left = 2) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i < left ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const rule = widths.map((w, i) => (i < left ? ` ${"-".repeat(w)} ` : ` ${"-".repeat(w - 1)}: `));
  return [line(header), `|${rule.join("|")}|`, ...rows.map(line)].join("\n");
}

// The ratios of a row: webmcp over a peer or a floor. `withheld` marks one whose webmcp call
// gave up on a limit: it timed the way to "withheld", not the redaction.
function ratios(row) {
  const m = row.medians;
  const of = (path, base) => (m[base] === undefined ? undefined : { x: m[path] / m[base], withheld: !!row.notes[path] });
  return {
    fast: of("webmcp text", "fast-redact"),
    pino: of("webmcp text", "@pinojs/redact"),
    floor: of("webmcp text", "parse+stringify"),
    copy: of("webmcp text", "copy"),
    object: of("webmcp object", "parse(stringify(x))"),
  };
}

const shown = (r) => (r ? `${ratio(r.x)}${r.withheld ? " †" : ""}` : "n/a");

/**
 * Each issue-9 target with what this run measured: `[target, measured, verdict]`. `env` is the
 * environment's result; `size` the `.wasm` sizes (Node only).
 */
function targets(env, size) {
  const find = (id, s) => env.rows.find((r) => r.case === id && r.size === s);
  const verdict = (r, limit) => (!r ? "not measured" : r.withheld ? "not met (withheld)" : r.x <= limit ? "met" : "not met");
  const out = [];
  for (const s of ["1 MB", "10 MB"]) {
    const r = find("all", s) && ratios(find("all", s)).fast;
    out.push([`all redacted, ${s}: webmcp text / fast-redact <= 1 (aim 0.5)`, shown(r), verdict(r, 1)]);
  }
  const pass = find("pass", "1 MB") && ratios(find("pass", "1 MB"));
  out.push(["pass-through, 1 MB: webmcp text / parse+stringify <= 0.2", shown(pass?.floor), verdict(pass?.floor, 0.2)]);
  out.push(["pass-through, 1 MB: webmcp text / copy floor <= 2", shown(pass?.copy), verdict(pass?.copy, 2)]);
  const small = find("2kb", "2 KB") && ratios(find("2kb", "2 KB")).fast;
  out.push(["realistic 2 KB: webmcp text / fast-redact <= 1.5", shown(small), verdict(small, 1.5)]);
  // "On every case": the worst row decides.
  const objects = env.rows.map((row) => ({ row, r: ratios(row).object })).filter((o) => o.r);
  const worst = objects.reduce((a, b) => (b.r.x > a.r.x ? b : a), objects[0]);
  const best = objects.reduce((a, b) => (b.r.x < a.r.x ? b : a), objects[0]);
  if (worst) {
    out.push([
      "object path / JSON.parse(JSON.stringify(x)) <= 2, every case",
      `${shown(best.r)} to ${shown(worst.r)} (worst: ${worst.row.label}, ${worst.row.size})`,
      objects.every((o) => !o.r.withheld && o.r.x <= 2) ? "met" : "not met",
    ]);
  }
  for (const m of env.memory) {
    const x = m.after / m.input;
    const note = m.withheld ? `, withheld: ${m.withheld}` : "";
    const mb = `${(m.input / 1e6).toFixed(0)} MB`;
    out.push([`peak wasm memory / input, all redacted ${mb} (target at 50 MB: <= 3)`, `${ratio(x)} (${mib(m.after)}${note})`, x <= 3 && !m.withheld ? "met" : "not met"]);
    // No target: what the page keeps once the call has returned (the engine gives back memory
    // that is mostly free after a call by replacing the instance, js/engine.js).
    out.push([`wasm memory kept after the call, all redacted ${mb}`, `${mib(m.kept)} (${ratio(m.kept / m.input)})`, m.instances > 1 ? "instance replaced" : "same instance"]);
  }
  out.push([".wasm compile + instantiate < 3 ms (Node)", time(env.compileMs), env.compileMs < 3 ? "met" : "not met"]);
  if (size) {
    out.push([".wasm <= 120 KiB raw", `${(size.raw / KIB).toFixed(1)} KiB`, size.raw <= 120 * KIB ? "met" : "not met"]);
    out.push([".wasm <= 50 KiB gzip", `${(size.gzip / KIB).toFixed(1)} KiB`, size.gzip <= 50 * KIB ? "met" : "not met"]);
  }
  return out;
}

/** The report of one environment, as text. */
export function report(env, size) {
  const names = CONTENDERS.filter((n) => env.rows.some((r) => n in r.medians || n in r.skipped));
  const cell = (row, n) => (n in row.medians ? `${time(row.medians[n])}${row.notes[n] ? " †" : ""}` : "n/a");
  const medians = table(["case", "size", ...names], env.rows.map((row) => [row.label, row.size, ...names.map((n) => cell(row, n))]));
  const ratioRows = env.rows.map((row) => {
    const r = ratios(row);
    return [row.label, row.size, shown(r.fast), shown(r.pino), shown(r.floor), shown(r.copy), shown(r.object)];
  });
  const ratioTable = table(["case", "size", "text / fast-redact", "text / @pinojs", "text / parse+stringify", "text / copy", "object / parse(stringify)"], ratioRows);
  const notes = new Set();
  for (const row of env.rows) {
    for (const [n, why] of Object.entries(row.notes)) notes.add(`† ${row.label}, ${row.size}, ${n}: ${why} (timed all the same: the way to "withheld", not a redaction)`);
    for (const [n, why] of Object.entries(row.skipped)) notes.add(`n/a: ${n} on ${row.label}: ${why}`);
  }
  for (const row of env.rows) {
    if (row.replaced) notes.add(`${row.label}, ${row.size}: the engine replaced its instance ${row.replaced} times (its memory was mostly free after a call); the replacement, and the next call's regrowth and rebuild, are timed`);
  }
  if (env.rows.some((r) => r.case === "pass")) notes.add("pass-through: the peers get no paths (fast-redact is then JSON.stringify itself)");
  return [
    `## ${env.name}`,
    `Medians per call (${env.details}).`,
    medians,
    "Ratios (webmcp-redact's time over the other's; below 1 is faster):",
    ratioTable,
    [...notes].join("\n"),
    table(["issue 9 target", "measured", "today"], targets(env, size), 3),
  ]
    .filter(Boolean)
    .join("\n\n") + "\n";
}
