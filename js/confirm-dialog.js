// The built-in consent prompt: a modal <dialog> that asks the user whether the agent may make
// one call. It names the tool, where its input goes (when the tool declares it), each reason
// in the core's words, the secrets used by reference (by label) and the arguments with every
// value the vault knows already replaced. Keyboard: the safe answer has the focus, Tab and
// Shift+Tab stay inside, Escape declines. Nothing is built until a question is asked, so the
// module loads where there is no DOM.

const PLACES = {
  ephemeral: "nowhere lasting (ephemeral)",
  system: "the system itself",
  user: "you, the user",
  internal: "this service only (internal)",
  public: "a public place that anyone can read",
};

const STYLE = `
:host { all: initial !important; direction: ltr !important; unicode-bidi: isolate !important; }
.webmcp-confirm { max-width: 544px; padding: 20px; border: 2px solid #444; border-radius: 8px; font: 15px/1.45 system-ui, sans-serif; color: #111; background: #fff; }
.webmcp-confirm::backdrop { background: rgb(0 0 0 / 45%); }
.webmcp-confirm h2 { font-size: 18.4px; margin: 0 0 8px; }
.webmcp-confirm ul { padding-left: 19.2px; }
.webmcp-confirm pre { max-height: 160px; overflow: auto; color: #111; background: #f4f4f4; border: 1px solid #ccc; padding: 8px; white-space: pre-wrap; word-break: break-all; font: 13px/1.4 ui-monospace, monospace; }
.webmcp-confirm .buttons { display: flex; gap: 12px; justify-content: flex-end; margin-top: 16px; }
.webmcp-confirm button { font: inherit; padding: 6.4px 16px; border-radius: 6px; border: 2px solid #1f2937; cursor: pointer; }
.webmcp-confirm button.deny { color: #111; background: #fff; }
.webmcp-confirm button.allow { color: #fff; background: #1f2937; }
.webmcp-confirm button:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
`;

let ids = 0;

/** @type {CSSStyleSheet | null} */
let sheet = null;

/**
 * Puts the dialog in the page: inside the (open) shadow root of a host element appended to the
 * body. The page's stylesheets reach neither into a shadow tree nor, past `:host`'s important
 * reset, its host: from the page's CSS, an agent driving the page hid or restyled the question
 * or its arguments while the user's click on Allow still counted (found by review). Its styles
 * are a constructed sheet (a page whose CSP `style-src` has no 'unsafe-inline' refuses an inline
 * <style>, not a constructed sheet: the dialog was shown unstyled there, found by review), else
 * a <style>. Where there is no shadow DOM (a stand-in document), the dialog goes in the body.
 * Returns what to watch (the shadow root, or the dialog) and what to remove when done.
 */
function mount(doc, dialog) {
  const host = doc.createElement("div");
  /** @type {any} */
  let root = null;
  try {
    root = typeof host.attachShadow === "function" ? host.attachShadow({ mode: "open" }) : null;
  } catch {
    root = null;
  }
  if (!root) {
    dialog.append(styleElement(doc));
    doc.body.append(dialog);
    return { watched: dialog, top: dialog };
  }
  host.className = "webmcp-confirm-host";
  try {
    if (!sheet) {
      const fresh = new (doc.defaultView ?? globalThis).CSSStyleSheet();
      fresh.replaceSync(STYLE);
      sheet = fresh;
    }
    root.adoptedStyleSheets = [sheet];
  } catch {
    root.append(styleElement(doc));
  }
  root.append(dialog);
  doc.body.append(host);
  return { watched: root, top: host };
}

function styleElement(doc) {
  const style = doc.createElement("style");
  style.textContent = STYLE;
  return style;
}

/** Asks in a modal dialog; resolves true only when the user presses Allow. */
export function askInDialog(req) {
  const doc = globalThis.document;
  if (!doc?.body || typeof doc.createElement("dialog").showModal !== "function") return Promise.resolve(false);
  const returnTo = /** @type {HTMLElement | null} */ (doc.activeElement);
  const { dialog, allow, deny } = build(doc, req);
  const { watched, top } = mount(doc, dialog);
  return new Promise((resolve) => {
    let answered = false;
    // Taken out of the document (a page that renders its body again, an agent's remove()) or
    // its `open` attribute removed, the dialog is gone but fires no close event, and the question
    // would hold every later one in the queue for good, as a close() did (found by review): a
    // decline too. So is any change inside it once shown (or to its host): an agent driving the
    // page rewrote the arguments (or the tool's name, a reason, a label, a class or style
    // attribute) the user read, and the user's Allow approved what they did not see (found by
    // review).
    const Observer = globalThis.MutationObserver;
    const ours = (/** @type {Node} */ node) => node === top || node === watched || watched.contains(node);
    const judge = (/** @type {MutationRecord[]} */ records) => {
      if (!dialog.isConnected || !dialog.open || records.some((r) => ours(r.target))) done(false);
    };
    const watch = typeof Observer === "function" ? new Observer(judge) : null;
    watch?.observe(doc, { childList: true, subtree: true });
    // Allow is enabled only while the browser sees it whole (see followVisibility); its own
    // `disabled` is no change of the page's: what is pending is judged first, then dropped.
    const visibility = followVisibility(allow, (visible) => {
      if (answered) return;
      judge(watch?.takeRecords() ?? []);
      if (answered || allow.disabled === !visible) return;
      allow.disabled = !visible;
      watch?.takeRecords();
    });
    if (visibility) allow.disabled = true; // until the browser has seen it
    const done = (answer) => {
      if (answered) return;
      answered = true;
      watch?.disconnect();
      visibility?.stop();
      top.remove();
      if (returnTo && typeof returnTo.focus === "function" && returnTo.isConnected) returnTo.focus();
      resolve(answer);
    };
    // Allow is the user's answer only: a click a script made (an agent driving the page through
    // the DOM, approving its own call) is untrusted and is no answer (found by review). Any
    // click on "Don't allow" declines.
    allow.addEventListener("click", (/** @type {Event} */ e) => {
      if (e.isTrusted) done(true);
    });
    deny.addEventListener("click", () => done(false));
    // Escape fires "cancel": a decline, and the dialog goes away with the answer.
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      done(false);
    });
    // Closed any other way (a script's dialog.close()): a decline. Left unanswered, this
    // question would hold every later one in the queue for good (found by review).
    dialog.addEventListener("close", () => done(false));
    dialog.addEventListener("keydown", (e) => trapTab(dialog, e));
    dialog.showModal();
    // After showModal, whose own `open` is no change of the page's.
    watch?.observe(watched, { attributes: true, childList: true, characterData: true, subtree: true });
    if (top !== dialog) watch?.observe(top, { attributes: true });
    deny.focus(); // the safe answer
  });
}

/**
 * Calls `onChange(visible)` at each look the browser takes at `el`, where it can tell
 * (IntersectionObserver v2, `trackVisibility`: Chromium): visible means every look for the last
 * HOLD ms saw it on screen, not covered by anything (an element laid over it, even one that lets
 * clicks through), with an opacity of 1 and no filter or transform that could hide it. A click
 * on Allow made through a covering lookalike, on a dialog made transparent, or the instant it
 * appeared under the user's pointer, approved a call the user never saw (found by review).
 * Observed once, the browser looks at most every 100 ms and reports changes only: a script
 * taking its lookalike away for one frame at a time until a look saw Allow whole had Allow
 * enabled under the lookalike for about a third of the time (found by review). So each look is
 * a fresh observation, and every look counts. Returns null where the browser cannot tell
 * (Allow is then enabled as before).
 * @param {Element} el
 * @param {(visible: boolean) => void} onChange
 */
function followVisibility(el, onChange) {
  const IO = /** @type {any} */ (globalThis).IntersectionObserver;
  if (typeof IO !== "function") return null;
  let since = -1; // when the unbroken run of looks that saw it whole began
  let stopped = false;
  /** @type {any} */
  let io;
  const look = (/** @type {any[]} */ entries) => {
    if (stopped) return;
    const entry = entries[entries.length - 1];
    if (entry.isVisible !== true) since = -1;
    else if (since < 0) since = entry.time;
    onChange(since >= 0 && entry.time - since >= HOLD);
    // The next look: a target observed again is reported at the browser's next look, whatever
    // it shows (one observed on is reported only when what it shows changes).
    io.unobserve(el);
    io.observe(el);
  };
  try {
    io = new IO(look, { trackVisibility: true, delay: 100 });
    if (io.trackVisibility !== true) {
      io.disconnect();
      return null;
    }
    io.observe(el);
    return {
      stop: () => {
        stopped = true;
        io.disconnect();
      },
    };
  } catch {
    return null;
  }
}

/** How long (ms) every look must have seen Allow whole before it is enabled. */
const HOLD = 300;

/** Tab from the last control goes to the first, Shift+Tab from the first to the last. */
function trapTab(dialog, e) {
  if (e.key !== "Tab") return;
  const items = [...dialog.querySelectorAll("button, [tabindex]")].filter((el) => !el.disabled);
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  // Inside a shadow root the document's active element is the host: ask the root.
  const root = typeof dialog.getRootNode === "function" ? dialog.getRootNode() : null;
  const at = root?.activeElement ?? dialog.ownerDocument.activeElement;
  if (e.shiftKey && (at === first || !dialog.contains(at))) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (at === last || !dialog.contains(at))) {
    e.preventDefault();
    first.focus();
  }
}

function build(doc, req) {
  const n = ++ids;
  const el = (tag, text, attrs = {}) => {
    const e = doc.createElement(tag);
    if (text !== undefined) e.textContent = text;
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    return e;
  };
  // Not for the browser's page translation: translating its text rewrites it while it is shown,
  // which declines the question, so a user with automatic translation could never answer.
  const dialog = el("dialog", undefined, {
    class: "webmcp-confirm notranslate",
    translate: "no",
    "aria-labelledby": `webmcp-confirm-title-${n}`,
    "aria-describedby": `webmcp-confirm-why-${n}`,
    "data-tool": String(req.tool),
  });
  const title = el("h2", `Let the agent call ${req.tool}?`, { id: `webmcp-confirm-title-${n}` });
  const why = el("p", "The page's safety rules ask you first, because:", { id: `webmcp-confirm-why-${n}` });
  const reasons = el("ul", undefined, { class: "reasons" });
  // Labels come from the results' own field names, and the reasons quote them: as visible as the arguments.
  for (const r of req.reasons ?? []) reasons.append(el("li", visible(sentence(r.message)), { "data-code": String(r.code) }));
  const parts = [title];
  if (req.destination) {
    const place = PLACES[String(req.destination).toLowerCase()] ?? String(req.destination);
    parts.push(el("p", `Its input goes to ${place}.`, { class: "destination" }));
  }
  parts.push(why, reasons);
  if (req.secrets?.length) {
    parts.push(el("p", visible(`It will use your ${req.secrets.join(", ")} without the agent seeing it.`), { class: "secrets" }));
  }
  if (req.args !== undefined && req.args !== null) {
    const label = el("p", "What the agent sends (secrets the page knows are hidden):", { id: `webmcp-confirm-args-${n}` });
    const text = visible(JSON.stringify(req.args, null, 2) ?? "");
    // Capped, but never silently: what the agent put past the cap is what the user cannot read.
    const shown = text.length > 2000 ? `${text.slice(0, 2000)}… (${text.length - 2000} more characters not shown)` : text;
    const pre = el("pre", shown, { "aria-labelledby": `webmcp-confirm-args-${n}`, tabindex: "0" });
    parts.push(label, pre);
  }
  const deny = el("button", "Don't allow", { type: "button", class: "deny", "aria-label": `Don't allow ${req.tool}` });
  const allow = el("button", "Allow", { type: "button", class: "allow", "aria-label": `Allow ${req.tool}` });
  const buttons = el("div", undefined, { class: "buttons" });
  buttons.append(deny, allow);
  parts.push(buttons);
  dialog.append(...parts);
  return { dialog, allow, deny };
}

function sentence(message) {
  const s = String(message ?? "");
  return s ? `${s[0].toUpperCase()}${s.slice(1)}.` : "";
}

/**
 * The agent writes the arguments: format characters (bidirectional overrides and isolates,
 * zero-width ones) would make the text read differently from what is sent, e.g. an address
 * shown backwards. They are shown as the JSON escape that stands for them.
 */
function visible(text) {
  const escape = (unit) => `\\u${unit.toString(16).padStart(4, "0")}`;
  // Tag characters (U+E0000...) are format characters too: both halves of their pair escaped.
  return text.replace(/\p{Cf}/gu, (c) => [...Array(c.length).keys()].map((i) => escape(c.charCodeAt(i))).join(""));
}
