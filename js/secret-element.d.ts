/**
 * `<webmcp-secret handle="..." result="...">`: shows a withheld secret's label and a Reveal
 * button, for a handle issued for the result `result` names (the `resultId` of a redaction, or
 * of `installRedaction`'s `onResult`); a handle from any other result shows no label and is
 * refused (`foreign_reference`). On the user's click (a trusted event: a click a script makes,
 * such as an agent driving the page, does nothing)
 * it reveals the value (vault or {@link redeem}), shows it with a Copy button, hides it again
 * after `hide-after` seconds (default 30; 0 keeps it), and shows each RedeemError as a short
 * message. The button is a real `<button>`; the value and the errors are `aria-live` regions.
 * Importing `webmcp-redact/element` defines the element.
 * @example
 * ```js
 * import "webmcp-redact/element";
 * const el = document.createElement("webmcp-secret");
 * el.setAttribute("handle", stub.handle);
 * el.setAttribute("result", out.resultId);
 * document.body.append(el);
 * ```
 * @packageDocumentation
 */

/** The element class (registered as `webmcp-secret`). Events: `reveal`, `reveal-error` (`detail.code`). */
export class WebmcpSecretElement extends HTMLElement {
  /** The `handle` attribute. */
  readonly handle: string;
  /** The `result` attribute ("" when absent: then nothing is revealed). */
  readonly result: string;
  /** Reveals the value, as the user's click on Reveal does (the page's own call: not gated). */
  reveal(): Promise<void>;
  /** Hides the value and removes it from the DOM. */
  hide(): void;
}

/**
 * The short human message the element shows for a RedeemError (or any error).
 * @example
 * ```js
 * try { await redeem(h); } catch (e) { status.textContent = redeemErrorMessage(e); }
 * ```
 */
export function redeemErrorMessage(error: unknown): string;

declare global {
  interface HTMLElementTagNameMap {
    "webmcp-secret": WebmcpSecretElement;
  }
}
