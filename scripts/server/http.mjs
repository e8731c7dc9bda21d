// Small HTTP helpers shared by the demo server's parts (and its test-only routes).

/** Writes a whole answer: a string or Buffer as is, anything else as JSON. */
export function send(res, status, body, type = "application/json", headers = {}) {
  const data = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(data), ...headers });
  res.end(data);
}

/** The request body as JSON (`{}` when empty); throws past 16 KiB or on bad JSON. */
export async function readJson(req) {
  let size = 0;
  const chunks = [];
  for await (const c of req) {
    size += c.length;
    if (size > 16 * 1024) throw new Error("body too large");
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : {};
}
