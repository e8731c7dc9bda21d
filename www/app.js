// The demo "API console": six tools registered through the MCP-B polyfill, redacted by
// installRedaction, which also checks every call before it runs (allow / ask the user in its
// built-in dialog / deny); an agent view that calls them the way an agent does, showing the
// page session's check and the raw result the tool returned beside what the agent received; a
// user view with <webmcp-secret> elements. deploy_with_key takes an API key by reference:
// the agent writes {{secret:<handle>}} and the page puts the key in, after the user's yes.

import { installRedaction } from "/js/index.js";
import "/js/secret-element.js";

const $ = (id) => document.getElementById(id);
const status = $("status");

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} failed: HTTP ${res.status}`);
  return res.json();
}

const forumPosts = []; // what post_to_forum "published"
const deploys = []; // what deploy_with_key was given (the key included: the "server" side)

const TOOLS = [
  {
    name: "generate_api_key",
    description: "Generate a new API key for the current user.",
    inputSchema: { type: "object", properties: { name: { type: "string", description: "Label for the key" } } },
    outputSchema: {
      type: "object",
      properties: {
        id: { type: "string" },
        name: { type: "string" },
        secret: { type: "string", title: "API key", "x-sensitive": true },
      },
    },
    example: { name: "production" },
    execute: async ({ name } = {}) => api("POST", "/api/keys", { name }),
  },
  {
    name: "create_deploy_token",
    description: "Create a deploy token. The server keeps it; the user redeems it once.",
    inputSchema: { type: "object", properties: { environment: { type: "string" } } },
    example: { environment: "staging" },
    execute: async ({ environment } = {}) => {
      const t = await api("POST", "/api/deploy-tokens", { environment });
      return {
        content: [
          { type: "text", text: `Created "${t.name}" (${t.id}).` },
          { type: "secret_reference", id: t.id, label: "Deploy token", redeemUrl: t.redeemUrl, ttl: t.ttl },
        ],
      };
    },
  },
  {
    name: "get_billing_details",
    description: "Read the account's plan and payment method.",
    annotations: { readOnlyHint: true, sensitiveHint: true },
    outputSchema: {
      type: "object",
      properties: {
        plan: { type: "string" },
        monthly: { type: "string" },
        cardBrand: { type: "string" },
        cardNumber: { type: "string", title: "Card number", "x-sensitive": "financial" },
        cardExpiry: { type: "string" },
      },
    },
    example: {},
    execute: async () => api("GET", "/api/billing"),
  },
  {
    name: "search_messages",
    description: "Search the user's messages.",
    // No schema, no marks: a CI message's GitHub token is caught by the detectors
    // (policy.detect, on by default), vaulted, and shown in the user view.
    annotations: { readOnlyHint: true },
    inputSchema: { type: "object", properties: { query: { type: "string" } } },
    example: { query: "build" },
    execute: async ({ query = "" } = {}) => {
      const { messages } = await api("GET", `/api/messages?q=${encodeURIComponent(query)}`);
      return {
        content: messages.map((m) => ({
          type: "text",
          text: `From ${m.from}: ${m.subject}\n${m.body}`,
          // Private messages are for the user's eyes: MCP's audience annotation.
          ...(m.private ? { annotations: { audience: ["user"] } } : {}),
        })),
      };
    },
  },
  {
    name: "post_to_forum",
    description: "Post a message to the public community forum.",
    // Its input goes somewhere anyone can read: after the agent has seen sensitive data, the
    // pre-call check asks the user first (rule "exfiltration").
    annotations: { inputMetadata: { Destination: "Public", Outcomes: "Consequential" } },
    inputSchema: { type: "object", properties: { text: { type: "string", description: "The post" } }, required: ["text"] },
    example: { text: "Our team plan works well for us." },
    // A stand-in forum, kept in the page (window.webmcpRedact.forumPosts): nothing leaves it.
    execute: async ({ text = "" } = {}) => {
      const post = { id: `post_${forumPosts.length + 1}`, text: String(text).slice(0, 500), at: new Date().toISOString() };
      forumPosts.push(post);
      return { content: [{ type: "text", text: `Posted ${post.id} to the public forum (${post.text.length} characters).` }] };
    },
  },
  {
    name: "deploy_with_key",
    description: "Deploy the current build with an API key. Pass the key by reference: {{secret:<handle>}}.",
    // It declares that its input holds credentials and stays internal: the one kind of tool a
    // secret reference may be used with (the first use of each key asks the user).
    // Its MCP hints are said outright: MCP's defaults for a tool that is not read-only
    // (destructive, open world) would make it a place a key must not go.
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: false,
      inputMetadata: { Sensitivity: ["Credentials"], Destination: "Internal" },
    },
    inputSchema: {
      type: "object",
      properties: { key: { type: "string", description: "The API key, as {{secret:<handle>}}" }, environment: { type: "string" } },
      required: ["key"],
    },
    example: { key: "{{secret:<handle of an API key>}}", environment: "staging" },
    // A stand-in deploy service, kept in the page (window.webmcpRedact.deploys). Its answer
    // echoes the key, as careless services do: the agent's view has it scrubbed.
    execute: async ({ key = "", environment = "staging" } = {}) => {
      const deploy = { id: `deploy_${deploys.length + 1}`, environment: String(environment), key: String(key) };
      deploys.push(deploy);
      return { content: [{ type: "text", text: `Deployed ${deploy.id} to ${deploy.environment} with key ${deploy.key}.` }] };
    },
  },
];

// What each tool returned before redaction, by tool name: the page's own wrapper around each
// execute records it (installRedaction's wrapper sits outside this one and sees the same value).
// Shown beside the agent view so a visitor sees what was removed; it never goes to the agent.
const rawResults = new Map();

function recordingRaw(tool) {
  const { execute } = tool;
  return {
    ...tool,
    async execute(...args) {
      try {
        const raw = await execute.apply(tool, args);
        rawResults.set(tool.name, { raw });
        return raw;
      } catch (err) {
        rawResults.set(tool.name, { thrown: err });
        throw err;
      }
    },
  };
}

function showRaw(text, outcome) {
  const out = $("raw-json");
  out.textContent = text;
  out.dataset.outcome = outcome;
}

function rawText(entry) {
  if (!entry) return "(the tool was not called)";
  if ("thrown" in entry) return `The tool threw: ${entry.thrown?.message ?? String(entry.thrown)}`;
  try {
    return JSON.stringify(entry.raw, null, 2) ?? String(entry.raw);
  } catch (err) {
    return `(not JSON: ${err.message})`;
  }
}

let vault = null; // the redactor's vault, to tell a private message from a secret

function addSecrets({ tool: toolName, resultId, handles: stubs }) {
  const list = $("secrets");
  for (const stub of stubs) {
    const li = document.createElement("li");
    const from = document.createElement("span");
    from.className = "from";
    from.textContent = toolName;
    const el = document.createElement("webmcp-secret");
    el.setAttribute("handle", stub.handle);
    el.setAttribute("result", resultId);
    el.setAttribute("hide-after", "60");
    // A block the tool meant for the user only (a private message): the agent got a stub, the
    // user reveals the text here.
    if (vault?.get(stub.handle)?.kind === "user_only") {
      el.setAttribute("label", "Private message");
      li.dataset.kind = "user_only";
    }
    li.append(from, el);
    list.prepend(li);
  }
  $("no-secrets").hidden = list.children.length > 0;
  // What an agent would write to use the new key without seeing it.
  const key = toolName === "generate_api_key" ? stubs.find((s) => s.label === "API key") : undefined;
  const input = document.querySelector('textarea[aria-label="Input for deploy_with_key"]');
  if (key && input) input.value = JSON.stringify({ key: `{{secret:${key.handle}}}`, environment: "staging" });
}

// The pre-call check: the page session decides and the page shows why; installRedaction
// enforces the same decision when the agent's call arrives (its dialog asks on "confirm").

let session = null; // installRedaction's page session: check(tool, args), labels(), reset()

function showDecision(toolName, verdict) {
  const box = $("decision");
  box.dataset.tool = toolName;
  box.dataset.decision = verdict.decision;
  const head = document.createElement("p");
  const word = document.createElement("strong");
  word.className = `verdict ${verdict.decision}`;
  word.textContent = verdict.decision;
  const name = document.createElement("code");
  name.textContent = toolName;
  head.append(word, " for ", name);
  const list = document.createElement("ul");
  list.className = "reasons";
  for (const r of verdict.reasons) {
    const li = document.createElement("li");
    li.dataset.code = r.code;
    const code = document.createElement("code");
    code.textContent = r.code;
    li.append(code, ` (${r.decision}): ${r.message}`);
    if (r.source) {
      const src = document.createElement("span");
      src.className = "source";
      src.textContent = r.source;
      li.append(" ", src);
    }
    list.append(li);
  }
  if (!verdict.reasons.length) {
    const li = document.createElement("li");
    li.textContent = "No rule applies.";
    list.append(li);
  }
  box.replaceChildren(head, list);
}

function showLabels() {
  const labels = session.labels();
  const dl = $("labels");
  dl.dataset.sensitivity = labels.sensitivity;
  const rows = [];
  for (const [key, value] of Object.entries(labels)) {
    const dt = document.createElement("dt");
    dt.textContent = key;
    const dd = document.createElement("dd");
    dd.dataset.label = key;
    dd.textContent = Array.isArray(value) ? (value.length ? value.join(", ") : "none") : String(value);
    rows.push(dt, dd);
  }
  dl.replaceChildren(...rows);
}

function setOutput(toolName, outcome, text, raw, toolRaw) {
  // The raw view first: a test or a reader waiting for the agent view finds both in place.
  if (toolRaw !== undefined) showRaw(toolRaw, "result");
  else if (outcome !== "running") showRaw(outcome === "pending" ? "(waiting for your answer)" : "(the tool was not called)", outcome);
  else showRaw("…", outcome);
  const out = $("agent-json");
  out.textContent = text;
  out.dataset.outcome = outcome;
  if (raw === undefined) delete out.dataset.raw;
  else out.dataset.raw = raw;
  if (toolName === undefined) delete out.dataset.tool;
  else out.dataset.tool = toolName;
  if (toolName !== undefined) document.dispatchEvent(new CustomEvent("agent-result", { detail: { tool: toolName, outcome } }));
}

async function callAsAgent(modelContext, info, def, input) {
  let args;
  try {
    args = JSON.parse(input.value);
  } catch (err) {
    setOutput(info.name, "error", `Error: the input is not JSON (${err.message})`);
    return;
  }
  // What the check says, shown before the call (installRedaction makes the same check again
  // when the call arrives, and acts on it).
  const verdict = session.check(def, args);
  showDecision(info.name, verdict);
  showLabels();
  if (verdict.decision === "confirm") setOutput(undefined, "pending", `Waiting for your answer: ${info.name} has not been called.`);
  else setOutput(undefined, "running", "…");
  rawResults.delete(info.name);
  try {
    // The polyfill takes the input as JSON text; Chromium's own implementation as an object.
    const text = await modelContext.executeTool(info, modelContext.__isWebMCPPolyfill ? JSON.stringify(args) : args);
    const agentResult = JSON.parse(text);
    showLabels();
    const called = rawResults.has(info.name);
    // Not called: the user declined in the dialog, or the check denied the call.
    const outcome = called ? "result" : verdict.decision === "confirm" ? "declined" : "denied";
    const rawView = called ? rawText(rawResults.get(info.name)) : undefined;
    setOutput(info.name, outcome, JSON.stringify(agentResult, null, 2), text, rawView);
  } catch (err) {
    showLabels();
    setOutput(info.name, "error", `Error: ${err.message}`, undefined, rawResults.has(info.name) ? rawText(rawResults.get(info.name)) : undefined);
  }
}

async function main() {
  const modelContext = document.modelContext;
  if (!modelContext) throw new Error("document.modelContext is missing: the polyfill did not load");
  // The user view is fed by the redactor itself (onResult), never by what the agent received:
  // each <webmcp-secret> is bound to the result that issued its handle.
  const installed = await installRedaction({ redeem: { allowedPaths: ["/api/redeem/"] }, onResult: addSecrets });
  window.webmcpRedact = { installed, forumPosts, deploys }; // for the browser tests and the curious
  if (installed.error) throw installed.error;
  vault = installed.redactor.vault;
  session = installed.session;

  for (const { example, ...tool } of TOOLS) await modelContext.registerTool(recordingRaw(tool));

  showLabels();

  // The agent side: discover the tools and call them through the runtime, as an agent does.
  const registered = await modelContext.getTools();
  const box = $("tools");
  for (const info of registered) {
    const spec = TOOLS.find((t) => t.name === info.name);
    // The definition as registered, which the check reads (annotations, _meta, outputSchema).
    const { example, execute, ...def } = spec ?? { name: info.name };
    const div = document.createElement("div");
    div.className = "tool";
    const h = document.createElement("h3");
    h.textContent = info.name;
    const p = document.createElement("p");
    p.textContent = info.description;
    const input = document.createElement("textarea");
    input.value = JSON.stringify(example ?? {});
    input.setAttribute("aria-label", `Input for ${info.name}`);
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Call as agent";
    button.dataset.tool = info.name;
    button.setAttribute("aria-label", `Call ${info.name} as agent`);
    button.addEventListener("click", () => {
      callAsAgent(modelContext, info, def, input).catch((err) => setOutput(info.name, "error", `Error: ${err.message}`));
    });
    div.append(h, p, input, button);
    box.append(div);
  }
  const runtime = modelContext.__isWebMCPPolyfill ? "the MCP-B polyfill" : "the browser's own WebMCP";
  status.textContent = `Redaction installed; ${registered.length} tools registered on ${runtime}.`;
  document.documentElement.dataset.ready = "true";
}

main().catch((err) => {
  status.textContent = `Error: ${err.message}`;
  status.className = "error";
  document.documentElement.dataset.ready = "error";
});
