// The content script: a bridge, never a redactor. Its WebAssembly would follow the host page's
// CSP (often without 'wasm-unsafe-eval'), so tool results go to the service worker as JSON text
// and only the agent view comes back.
//
// Here the page itself hands in results through window.postMessage, which stands in for wherever
// your extension's agent gets them (e.g. calling the page's WebMCP tools); the reply is what the
// agent may see. A real extension never posts it back to the page: one worker redacts for every
// site, and a view shows where a value it knows stood (a page sending "000 001 ... 999" would
// find the CVV another site's tool returned; README "In an MV3 extension"). Only "redact", "check"
// and "list" (a tool listing) are forwarded: revealing a value is for the extension's own pages,
// which read chrome.storage.session (see worker.js).
window.addEventListener("message", (event) => {
  if (event.source !== window || event.data?.to !== "webmcp-redact-extension") return;
  const { id, request } = event.data;
  if (!["redact", "check", "list"].includes(request?.type)) return;
  chrome.runtime.sendMessage(request).then(
    (reply) => window.postMessage({ from: "webmcp-redact-extension", id, reply }, location.origin),
    (err) => window.postMessage({ from: "webmcp-redact-extension", id, reply: { error: String(err?.message ?? err) } }, location.origin),
  );
});
