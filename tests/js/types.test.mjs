// The type checks themselves run in `npm run typecheck` (tsc); this keeps their input honest.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

test("tests/types/readme.ts holds the README's first example verbatim", () => {
  const example = /```js\n([\s\S]*?)```/.exec(read("README.md"))[1];
  assert.match(example, /createRedactor/);
  assert.ok(read("tests/types/readme.ts").endsWith(`\n${example}`), "readme.ts ends with the example, unchanged");
});

test("npm test runs the type check before the node tests", () => {
  const { scripts } = JSON.parse(read("package.json"));
  assert.match(scripts.typecheck, /tsc -p tsconfig\.json/);
  assert.match(scripts.typecheck, /tsc -p tests\/types\/tsconfig\.json/);
  assert.ok(scripts.test.indexOf("npm run typecheck") < scripts.test.indexOf("node --test tests/js/"));
});
