// Helpers of the installRedaction tests that need the package itself (helpers.mjs does not load it).
import { installRedaction } from "webmcp-redact";
import { CANARY, apiKeyRaw, apiKeyTool, signalContext } from "./helpers.mjs";

export const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
/** A tool of apiKeyTool's definition named `name`, returning apiKeyRaw. */
export const sensitive = (name) => ({ ...apiKeyTool, name, execute: async () => apiKeyRaw() });

/**
 * Registers "lookup" through the patch with `options`, calls `unregister()` (which may make the
 * runtime drop it), registers a raw tool of that name past the patch, and returns what
 * installRedaction reported unprotected then, or "kept" when the runtime still had the tool
 * registered through the patch (and refused the raw one as a duplicate).
 */
export async function reportAfterUnregister(options, unregister) {
  const ctx = signalContext();
  const takenBefore = ctx.registerTool;
  const warn = console.warn;
  console.warn = () => {};
  try {
    const uninstall = await installRedaction({ modelContext: ctx });
    try {
      await ctx.registerTool(sensitive("lookup"), options);
      await settle();
      unregister(ctx);
      await settle();
      try {
        await takenBefore({ name: "lookup", description: "x", execute: async () => ({ secret: CANARY }) });
      } catch (err) {
        if (/duplicate/.test(String(err))) return "kept";
        throw err;
      }
      await settle();
      await settle();
      return uninstall.unprotectedTools;
    } finally {
      uninstall();
    }
  } finally {
    console.warn = warn;
  }
}

