// Review s29 (helper L), page side, in Chromium: the consent dialog's visibility gate on Allow.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browserForFile } from "./helpers.mjs";

const env = browserForFile({});

// Allow was enabled when one look of IntersectionObserver v2 saw it whole, and the browser took
// the next look at least 100 ms later, and then only reported a change: a script that took its
// pass-through lookalike off the dialog for one frame now and then, while Allow was off, had
// Allow enabled under the lookalike in 54 to 91 of 300 frames (a click through it approves).
// Each look is now a fresh observation and Allow needs every look of the last 300 ms to have
// seen it whole. Counted in frames: only the first frame after the lookalike first appears may
// still have Allow on (the browser has not looked yet); without a lookalike, Allow comes on and
// the user's click approves (so the test can fail).
test("a lookalike taken off the dialog one frame at a time never has Allow enabled under it", async () => {
  const page = await env.page();
  await page.goto(`${env.a.url}__test/blank.html`);
  const attacks = { none: [0, 0], everyOther: [2, 1], oneInFour: [4, 1], threeInEight: [8, 3] };
  const seen = {};
  for (const [name, [period, hide]] of Object.entries(attacks)) {
    await page.evaluate(async () => {
      const { askInDialog } = await import("/js/confirm-dialog.js");
      window.__answer = askInDialog({ tool: "post", reasons: [{ code: "irreversible", message: "it cannot be undone" }], args: { body: "b" } });
    });
    const allow = page.locator("dialog.webmcp-confirm[open] button.allow");
    await allow.waitFor({ state: "visible" });
    await page.waitForFunction(() => !document.querySelector(".webmcp-confirm-host").shadowRoot.querySelector("button.allow").disabled);
    seen[name] = await page.evaluate(async ([period, hide]) => {
      const button = document.querySelector(".webmcp-confirm-host").shadowRoot.querySelector("button.allow");
      const lookalike = document.createElement("div");
      lookalike.setAttribute("popover", "manual");
      lookalike.style.cssText = "pointer-events: none; inset: 0; width: 100vw; height: 100vh; margin: 0; background: #fff";
      lookalike.textContent = "Let the agent read the weather? [Allow]";
      document.body.append(lookalike);
      if (period) lookalike.showPopover();
      let frames = 0;
      let left = 0;
      let underLookalike = 0;
      let enabled = 0;
      await new Promise((done) => {
        const frame = () => {
          frames += 1;
          const shown = lookalike.matches(":popover-open");
          if (!button.disabled) enabled += 1;
          if (shown && !button.disabled && frames > 1) underLookalike += 1;
          if (period && shown && button.disabled && frames % period === 0) {
            lookalike.hidePopover();
            left = hide;
          } else if (period && !shown && --left <= 0) lookalike.showPopover();
          if (frames < 180) requestAnimationFrame(frame);
          else done();
        };
        requestAnimationFrame(frame);
      });
      lookalike.remove();
      return { underLookalike, enabled: enabled > 0 };
    }, [period, hide]);
    await allow.click(); // waits until Allow is enabled: uncovered, the user's click answers
    seen[name].answer = await page.evaluate(() => window.__answer);
  }
  const answered = { answer: true };
  assert.deepEqual(seen, {
    none: { underLookalike: 0, enabled: true, ...answered },
    everyOther: { underLookalike: 0, enabled: seen.everyOther.enabled, ...answered },
    oneInFour: { underLookalike: 0, enabled: seen.oneInFour.enabled, ...answered },
    threeInEight: { underLookalike: 0, enabled: seen.threeInEight.enabled, ...answered },
  });
  await page.close();
});
