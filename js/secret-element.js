// <webmcp-secret handle="..." result="..."> : the label of a withheld secret and a Reveal
// button for the user. Importing this module defines the element (browsers only). Attributes:
//   handle       the stub's handle (required)
//   result       the id of the result the element shows (the `resultId` redact returned, or
//                installRedaction's onResult gave); required: a handle issued for any other
//                result is neither labelled nor revealed
//   label        overrides the label the vault knows
//   hide-after   seconds the value stays visible (default 30; 0 keeps it shown)

import { labelOf, redeem } from "./vault/store.js";

const MESSAGES = {
  unknown_reference: "This secret is not known to this page (it may have expired from memory).",
  foreign_reference: "This secret does not belong to this result; it was not revealed.",
  expired: "This secret has expired or was already revealed.",
  unauthorized: "Please sign in again to reveal this secret.",
  forbidden: "You are not allowed to reveal this secret.",
  not_found: "This secret no longer exists.",
  rate_limited: "Too many attempts. Please wait a moment and try again.",
  redirected: "The server answered in an unexpected way (a redirect); the secret was not revealed.",
  bad_response: "The server's answer could not be read; the secret was not revealed.",
  network: "The secret could not be fetched (network error).",
  cross_origin: "This secret points to another site; it was not fetched.",
  insecure_url: "This secret points to an insecure address; it was not fetched.",
  path_not_allowed: "This secret points to an address this page does not allow.",
  aborted: "Revealing was cancelled.",
};

/**
 * Seconds a revealed value stays shown: the attribute as a number of seconds, 0 to keep it
 * shown; anything else ("30s", "", "-1") is the default 30, so that a typo never leaves a
 * secret on screen for good (found by review).
 * @param {string | null} attr
 */
export function hideAfter(attr) {
  const n = attr === null || attr.trim() === "" ? NaN : Number(attr);
  return Number.isFinite(n) && n >= 0 ? n : 30;
}

/** A short human message for a RedeemError (or any error). */
export function redeemErrorMessage(err) {
  // Each field read once, and an error that throws when read (a getter, a revoked Proxy) is
  // one with no code: this runs in the page's catch blocks, and must not throw from there.
  const read = (/** @type {string} */ key) => {
    try {
      return err?.[key];
    } catch {
      return undefined;
    }
  };
  const code = read("code");
  const retryAfter = code === "rate_limited" ? read("retryAfter") : undefined;
  if (typeof retryAfter === "number") return `Too many attempts. Try again in ${retryAfter} s.`;
  // Own keys only: a code such as "__proto__" or "toString" must not read Object.prototype.
  return typeof code === "string" && Object.hasOwn(MESSAGES, code) ? MESSAGES[code] : "The secret could not be revealed.";
}

/**
 * What the element shows of a revealed value: a string as it is; a text block (a block the
 * tool meant for the user only is revealed whole) as its text; anything else as JSON.
 * @param {unknown} value
 */
function shownText(value) {
  if (typeof value === "string") return value;
  const block = /** @type {any} */ (value);
  if (block?.type === "text" && typeof block.text === "string") return block.text;
  return JSON.stringify(value);
}

const STYLE = `
:host { display: inline-flex; flex-wrap: wrap; align-items: center; gap: .4em; font: inherit; }
.label { font-weight: 600; }
.value:not(:empty) { flex-basis: 100%; }
code { display: inline-block; line-height: 1.6; font-family: ui-monospace, monospace; background: #f3f4f6; color: #111; padding: .1em .4em; border-radius: 4px; overflow-wrap: anywhere; }
button { font: inherit; padding: .15em .7em; border-radius: 6px; border: 1px solid #6b7280; background: #fff; color: #111; cursor: pointer; }
button:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
button[disabled] { opacity: .6; cursor: default; }
.error { color: #b91c1c; }
[hidden] { display: none !important; }
`;

/** Appends `<tag class=name part=name ...attrs>` to `root`. */
function part(root, tag, name, attrs = {}) {
  const el = document.createElement(tag);
  el.className = name;
  el.setAttribute("part", name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  root.append(el);
  return el;
}

/** @type {CSSStyleSheet | null} */
let sheet = null;

/**
 * The element's styles: a constructed stylesheet where there are such (a page whose CSP
 * `style-src` has no 'unsafe-inline' refuses an inline <style>, not a constructed sheet), else a
 * <style> element.
 */
function adoptStyle(root) {
  try {
    if (!sheet) {
      const fresh = new CSSStyleSheet();
      fresh.replaceSync(STYLE);
      sheet = fresh;
    }
    root.adoptedStyleSheets = [sheet];
  } catch {
    const style = document.createElement("style");
    style.textContent = STYLE;
    root.append(style);
  }
}

const Base = globalThis.HTMLElement ?? class {};

export class WebmcpSecretElement extends Base {
  static get observedAttributes() {
    return ["handle", "result", "label"];
  }

  #root;
  #labelEl;
  #reveal;
  #value;
  #copy;
  #error;
  // The text revealed, kept here: Copy copies it, never the DOM's text, which an agent driving
  // the page can rewrite through the open shadow root (found by review).
  #text = "";
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;
  /** @type {AbortController | null} */
  #abort = null;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
    // Built node by node, never from an HTML string: a page that enforces Trusted Types refuses
    // a string assigned to innerHTML, and the element then never upgraded (found by review).
    adoptStyle(this.#root);
    this.#labelEl = part(this.#root, "span", "label");
    this.#reveal = part(this.#root, "button", "reveal", { type: "button" });
    this.#reveal.textContent = "Reveal";
    this.#value = part(this.#root, "span", "value", { "aria-live": "polite" });
    this.#copy = part(this.#root, "button", "copy", { type: "button" });
    this.#copy.textContent = "Copy";
    this.#copy.hidden = true;
    this.#error = part(this.#root, "span", "error", { role: "status", "aria-live": "polite" });
    // Only the user's own clicks reveal or copy: a browser agent driving the page through the
    // DOM (a content script's click() or dispatchEvent, untrusted events) could otherwise reveal
    // a secret itself and read it from this open shadow root (found by review). Hiding needs no
    // such care.
    this.#reveal.addEventListener("click", (/** @type {Event} */ e) => {
      if (this.#shown()) this.hide();
      else if (e.isTrusted) this.reveal();
    });
    this.#copy.addEventListener("click", (/** @type {Event} */ e) => {
      if (e.isTrusted) this.#copyValue();
    });
  }

  connectedCallback() {
    this.#render();
  }

  disconnectedCallback() {
    this.hide();
  }

  attributeChangedCallback() {
    this.hide();
    this.#render();
  }

  get handle() {
    return this.getAttribute("handle") ?? "";
  }

  /** The `result` attribute; "" (bound to nothing) when absent. */
  get result() {
    return this.getAttribute("result") ?? "";
  }

  #label() {
    return this.getAttribute("label") ?? labelOf(this.handle, this.result) ?? "secret";
  }

  #render() {
    const label = this.#label();
    this.#labelEl.textContent = label;
    this.#reveal.setAttribute("aria-label", `${this.#shown() ? "Hide" : "Reveal"} ${label}`);
  }

  #shown() {
    return this.#value.textContent !== "";
  }

  /** Reveals the value (from the vault, or by redeeming the reference). */
  async reveal() {
    this.#abort?.abort();
    const abort = new AbortController();
    this.#abort = abort;
    this.#error.textContent = "";
    delete this.dataset.error;
    this.#reveal.disabled = true;
    this.#reveal.setAttribute("aria-busy", "true");
    try {
      const value = await redeem(this.handle, { signal: abort.signal, result: this.result });
      if (abort.signal.aborted) return;
      const code = document.createElement("code");
      this.#text = shownText(value);
      code.textContent = this.#text;
      this.#value.replaceChildren(code);
      this.#copy.hidden = false;
      this.#reveal.textContent = "Hide";
      this.dispatchEvent(new CustomEvent("reveal", { bubbles: true, composed: true }));
      const after = hideAfter(this.getAttribute("hide-after"));
      clearTimeout(this.#timer);
      if (after > 0) this.#timer = setTimeout(() => this.hide(), after * 1000);
    } catch (err) {
      const code = /** @type {{ code?: string } | null | undefined} */ (err)?.code;
      if (abort.signal.aborted && code !== "aborted") return;
      this.#error.textContent = redeemErrorMessage(err);
      this.dataset.error = code ?? "error";
      this.dispatchEvent(new CustomEvent("reveal-error", { bubbles: true, composed: true, detail: { code } }));
    } finally {
      if (this.#abort === abort) this.#abort = null;
      this.#reveal.disabled = false;
      this.#reveal.removeAttribute("aria-busy");
      this.#render();
    }
  }

  /** Hides the value again (and forgets it from the DOM). */
  hide() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort?.abort();
    this.#text = "";
    if (!this.#value) return;
    this.#value.replaceChildren();
    this.#copy.hidden = true;
    this.#reveal.textContent = "Reveal";
    this.#render();
  }

  async #copyValue() {
    const text = this.#text;
    if (text === "") return; // nothing revealed
    try {
      await navigator.clipboard.writeText(text);
      this.#error.textContent = "Copied.";
    } catch {
      this.#error.textContent = "Copying is not allowed here; select the value instead.";
    }
  }
}

if (globalThis.customElements && !globalThis.customElements.get("webmcp-secret")) {
  globalThis.customElements.define("webmcp-secret", WebmcpSecretElement);
}
