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
.webmcp-confirm { max-width: 34rem; padding: 1.25rem; border: 2px solid #444; border-radius: 8px; font: 15px/1.45 system-ui, sans-serif; color: #111; background: #fff; }
.webmcp-confirm::backdrop { background: rgb(0 0 0 / 45%); }
.webmcp-confirm h2 { font-size: 1.15rem; margin: 0 0 .5rem; }
.webmcp-confirm ul { padding-left: 1.2rem; }
.webmcp-confirm pre { max-height: 10rem; overflow: auto; color: #111; background: #f4f4f4; border: 1px solid #ccc; padding: .5rem; white-space: pre-wrap; word-break: break-all; font: 13px/1.4 ui-monospace, monospace; }
.webmcp-confirm .buttons { display: flex; gap: .75rem; justify-content: flex-end; margin-top: 1rem; }
.webmcp-confirm button { font: inherit; padding: .4rem 1rem; border-radius: 6px; border: 2px solid #1f2937; cursor: pointer; }
.webmcp-confirm button.deny { color: #111; background: #fff; }
.webmcp-confirm button.allow { color: #fff; background: #1f2937; }
.webmcp-confirm button:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
`;

let ids = 0;

/** @type {WeakMap<Document, CSSStyleSheet>} each document's constructed copy of STYLE */
const sheets = new WeakMap();

/**
 * The dialog's styles, adopted by the document where it can (a page whose CSP `style-src` has
 * no 'unsafe-inline' refuses an inline <style>, not a constructed sheet: the dialog was shown
 * unstyled there, found by review). Adopted again on each question, as the page may have
 * replaced its adopted sheets. Returns the <style> element to put in the dialog, or null.
 */
function adoptStyle(doc) {
  try {
    const Sheet = doc.defaultView?.CSSStyleSheet;
    let sheet = sheets.get(doc);
    if (!sheet) {
      sheet = new Sheet();
      sheet.replaceSync(STYLE);
      sheets.set(doc, sheet);
    }
    const adopted = [...doc.adoptedStyleSheets];
    if (!adopted.includes(sheet)) doc.adoptedStyleSheets = [...adopted, sheet];
    return null;
  } catch {
    const style = doc.createElement("style");
    style.textContent = STYLE;
    return style;
  }
}

/** Asks in a modal dialog; resolves true only when the user presses Allow. */
export function askInDialog(req) {
  const doc = globalThis.document;
  if (!doc?.body || typeof doc.createElement("dialog").showModal !== "function") return Promise.resolve(false);
  const returnTo = /** @type {HTMLElement | null} */ (doc.activeElement);
  const { dialog, allow, deny } = build(doc, req);
  doc.body.append(dialog);
  return new Promise((resolve) => {
    let answered = false;
    // Taken out of the document (a page that renders its body again, an agent's remove()) or
    // its `open` attribute removed, the dialog is gone but fires no close event, and the question
    // would hold every later one in the queue for good, as a close() did (found by review): a
    // decline too. So is any change inside it once shown: an agent driving the page rewrote
    // the arguments (or the tool's name, a reason, a label, a class or style attribute) the
    // user read, and the user's Allow approved what they did not see (found by review).
    const Observer = globalThis.MutationObserver;
    const watch = typeof Observer === "function" ? new Observer((records) => {
      if (!dialog.isConnected || !dialog.open || records.some((r) => dialog.contains(r.target))) done(false);
    }) : null;
    watch?.observe(doc, { childList: true, subtree: true });
    const done = (answer) => {
      if (answered) return;
      answered = true;
      watch?.disconnect();
      dialog.remove();
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
    watch?.observe(dialog, { attributes: true, childList: true, characterData: true, subtree: true });
    deny.focus(); // the safe answer
  });
}

/** Tab from the last control goes to the first, Shift+Tab from the first to the last. */
function trapTab(dialog, e) {
  if (e.key !== "Tab") return;
  const items = [...dialog.querySelectorAll("button, [tabindex]")].filter((el) => !el.disabled);
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  const at = dialog.ownerDocument.activeElement;
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
  const dialog = el("dialog", undefined, {
    class: "webmcp-confirm",
    "aria-labelledby": `webmcp-confirm-title-${n}`,
    "aria-describedby": `webmcp-confirm-why-${n}`,
    "data-tool": String(req.tool),
  });
  const style = adoptStyle(doc);
  const title = el("h2", `Let the agent call ${req.tool}?`, { id: `webmcp-confirm-title-${n}` });
  const why = el("p", "The page's safety rules ask you first, because:", { id: `webmcp-confirm-why-${n}` });
  const reasons = el("ul", undefined, { class: "reasons" });
  // Labels come from the results' own field names, and the reasons quote them: as visible as the arguments.
  for (const r of req.reasons ?? []) reasons.append(el("li", visible(sentence(r.message)), { "data-code": String(r.code) }));
  const parts = style ? [style, title] : [title];
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
