// The shipped types as a TypeScript user meets them: the packed package installed in an empty
// project, compiled with `tsc --strict` under `moduleResolution` "bundler" and "nodenext". The
// sources are every JavaScript and TypeScript example in the README and in
// tests/vectors/README.md, taken from the Markdown as written (so neither can drift from the
// types), and tests/types/*.ts. `npm run typecheck` checks the package's own JavaScript.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { consumerProject, root } from "./pack.mjs";

const TSC = join(root, "node_modules", "typescript", "bin", "tsc");

/** The fenced js/ts code blocks of a Markdown file. */
function examples(doc) {
  const text = readFileSync(join(root, doc), "utf8");
  return [...text.matchAll(/^```(js|ts|javascript|typescript)\n([\s\S]*?)^```$/gm)].map((m) => m[2]);
}

const blocks = [...examples("README.md").map((code) => ["readme", code]), ...examples("tests/vectors/README.md").map((code) => ["vectors", code])];

test("the README's examples are found: the three recipes and the createRedactor example included", () => {
  const readme = blocks.filter(([from]) => from === "readme").map(([, code]) => code);
  assert.ok(readme.length >= 5, `${readme.length} examples in the README`);
  // The README opens with three recipes (installRedaction, wrapTool, redactJson in a worker).
  assert.match(readme[0], /await installRedaction\(\)/);
  assert.match(readme[1], /redactor\.wrapTool\(tool\)/);
  assert.match(readme[2], /session\.redactJson\(/);
  // The example that once failed (`'result' is of type 'unknown'`), wherever it now stands.
  assert.ok(readme.some((code) => /redactor\.vault\.reveal\(result\.content\[1\]\.handle\)/.test(code)));
  assert.ok(blocks.some(([from]) => from === "vectors"), "and tests/vectors/README.md's");
});

const project = consumerProject();
after(() => rmSync(project, { recursive: true, force: true }));
const sources = [];
blocks.forEach(([from, code], i) => {
  // Each example is its own module (an example without import or export would be a script).
  const file = `${from}-${String(i).padStart(2, "0")}.ts`;
  writeFileSync(join(project, file), `${code}\nexport {};\n`);
  sources.push(file);
});
for (const file of readdirSync(join(root, "tests", "types"))) {
  copyFileSync(join(root, "tests", "types", file), join(project, file));
  sources.push(file);
}

for (const [resolution, module] of [["bundler", "esnext"], ["nodenext", "nodenext"]]) {
  test(`tsc --strict, moduleResolution ${resolution}: the examples and tests/types compile against the package`, () => {
    const config = `tsconfig.${resolution}.json`;
    const compilerOptions = {
      strict: true,
      noEmit: true,
      target: "es2022",
      module,
      moduleResolution: resolution,
      lib: ["es2023", "dom"],
      types: [],
      skipLibCheck: false,
    };
    writeFileSync(join(project, config), JSON.stringify({ compilerOptions, files: sources }, null, 2));
    const r = spawnSync(process.execPath, [TSC, "-p", config], { cwd: project, encoding: "utf8" });
    assert.equal(r.status, 0, `tsc -p ${config} in ${project}:\n${r.stdout}${r.stderr}`);
  });
}

test("a type error in an example fails the check (the check is not vacuous)", () => {
  const file = "broken.ts";
  writeFileSync(join(project, file), `import { createRedactor } from "webmcp-redact";\nconst r = await createRedactor();\nr.redact();\nexport {};\n`);
  const config = "tsconfig.broken.json";
  const compilerOptions = { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", types: [] };
  writeFileSync(join(project, config), JSON.stringify({ compilerOptions, files: [file] }));
  const r = spawnSync(process.execPath, [TSC, "-p", config], { cwd: project, encoding: "utf8" });
  assert.notEqual(r.status, 0);
  assert.match(r.stdout, /broken\.ts\(3,3\): error TS2554/);
});

test("npm test runs the type check of js/ and bin/ before the node tests", () => {
  const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  assert.equal(scripts.typecheck, "tsc -p tsconfig.json");
  assert.ok(scripts.test.indexOf("npm run typecheck") < scripts.test.indexOf("node --test tests/js/"));
});
