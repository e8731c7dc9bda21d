// @mcp-b/global in a Chromium page, and an MCP SDK client in Node talking to it, for the e2e
// files that test the MCP bridge (bridge.test.mjs, review-s32.test.mjs).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "./helpers.mjs";

const NODE_MODULES = join(ROOT, "node_modules");
// URL path under the page's origin -> [file, { bare specifier: URL path }].
const SERVED = [
  ["/__bridge/transports/", join(NODE_MODULES, "@mcp-b/transports/dist/"), { "@modelcontextprotocol/core": "/__bridge/mcp-core/index.mjs" }],
  ["/__bridge/mcp-core/", join(NODE_MODULES, "@modelcontextprotocol/core/dist/"), { "zod/v4": "/__bridge/zod/v4/index.js" }],
  ["/__bridge/zod/", join(NODE_MODULES, "zod/"), {}],
];

/** Answers the page's requests for @mcp-b/global (in place of the polyfill) and the client transport. */
export async function routeRuntime(page) {
  await page.route("**/vendor/webmcp-polyfill/index.iife.js", async (route) => {
    const body = await readFile(join(NODE_MODULES, "@mcp-b/global/dist/index.iife.js"));
    await route.fulfill({ status: 200, contentType: "text/javascript; charset=utf-8", body });
  });
  await page.route((url) => url.pathname.startsWith("/__bridge/"), async (route) => {
    const path = new URL(route.request().url()).pathname;
    const [prefix, dir, bare] = SERVED.find(([p]) => path.startsWith(p));
    let body = await readFile(join(dir, path.slice(prefix.length)), "utf8");
    for (const [specifier, target] of Object.entries(bare)) body = body.replaceAll(`"${specifier}"`, `"${target}"`);
    await route.fulfill({ status: 200, contentType: "text/javascript; charset=utf-8", body });
  });
}

/**
 * An MCP SDK transport whose other end is a TabClientTransport in `page`: `send` hands each
 * message to it, and what it receives comes back through an exposed binding.
 */
export class PageRelay {
  constructor(page) {
    this.page = page;
  }

  async start() {
    await this.page.exposeBinding("__toMcpClient", (_source, message) => this.onmessage?.(message));
    await this.page.evaluate(async () => {
      const { TabClientTransport } = await import("/__bridge/transports/index.js");
      const transport = new TabClientTransport({ targetOrigin: location.origin });
      transport.onmessage = (message) => window.__toMcpClient(message);
      transport.onerror = (error) => console.error(`[TabClientTransport] ${error.message}`);
      await transport.start();
      window.__mcpClientTransport = transport;
    });
  }

  async send(message) {
    await this.page.evaluate((m) => window.__mcpClientTransport.send(m), message);
  }

  async close() {
    await this.page.evaluate(() => window.__mcpClientTransport?.close()).catch(() => {});
    this.onclose?.();
  }
}
