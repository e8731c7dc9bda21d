#!/usr/bin/env node
// Before the browser tests: Debian's chromium must be there (playwright-core never downloads a
// browser). Installs it with apt-get when missing and running as root; otherwise leaves the
// tests to fail with their own clear message.

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const path = process.env.CHROME_PATH || "/usr/bin/chromium";
if (!existsSync(path) && !process.env.CHROME_PATH) {
  const root = process.getuid?.() === 0;
  const apt = spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0;
  if (root && apt) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    for (const args of [["update", "-qq"], ["install", "-y", "-qq", "chromium"]]) {
      console.error(`[chromium] $ apt-get ${args.join(" ")}`);
      const r = spawnSync("apt-get", args, { stdio: "inherit", env });
      if (r.status !== 0) process.exit(r.status ?? 1);
    }
  } else {
    console.error(`[chromium] no browser at ${path}: install Debian's chromium (apt-get install chromium) or set CHROME_PATH`);
  }
}
