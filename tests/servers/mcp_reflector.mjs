#!/usr/bin/env node
// The param-fidelity MCP reflector written with the official TypeScript SDK, over stdio.
// Same tools as probes/_mcp_reflector_server.py:
//   echo(text)    -> text as text content (the round trip)
//   reflect(text) -> armored form of what the handler received, as structured content
//                    (base64 of the generalized UTF-8 bytes + code points; a lone
//                    surrogate is encoded as its own 3 bytes, like Python's surrogatepass)
//   emit(value)   -> the armored value decoded, as text and structured content
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

// Code points of a JS string, lone surrogates kept as themselves.
function codepoints(text) {
  const out = [];
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i);
    out.push(cp);
    if (cp > 0xffff) i++;
  }
  return out;
}

// Generalized UTF-8 (surrogates encoded as 3 bytes).
function encode(cps) {
  const bytes = [];
  for (const cp of cps) {
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return Buffer.from(bytes);
}

// Decode generalized UTF-8; null when the bytes are not UTF-8.
function decode(buf) {
  let out = "";
  for (let i = 0; i < buf.length; ) {
    const b = buf[i];
    let cp, n;
    if (b < 0x80) { cp = b; n = 1; }
    else if (b >= 0xc2 && b < 0xe0) { cp = b & 0x1f; n = 2; }
    else if (b >= 0xe0 && b < 0xf0) { cp = b & 0x0f; n = 3; }
    else if (b >= 0xf0 && b < 0xf5) { cp = b & 0x07; n = 4; }
    else return null;
    if (i + n > buf.length) return null;
    for (let k = 1; k < n; k++) {
      if ((buf[i + k] & 0xc0) !== 0x80) return null;
      cp = (cp << 6) | (buf[i + k] & 0x3f);
    }
    if ((n === 3 && cp < 0x800) || (n === 4 && (cp < 0x10000 || cp > 0x10ffff))) return null;
    out += String.fromCodePoint(cp);
    i += n;
  }
  return out;
}

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
const server = new McpServer({ name: "param-fidelity-reflector-ts", version: "0.1.0" });

server.registerTool(
  "echo",
  { description: "Return text unchanged (the round trip).", inputSchema: { text: z.string() }, annotations: readOnly },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);

server.registerTool(
  "reflect",
  { description: "Return the armored form of the received text (the request path).", inputSchema: { text: z.string() }, annotations: readOnly },
  async ({ text }) => {
    const cps = codepoints(text);
    const b64 = encode(cps).toString("base64");
    return { content: [{ type: "text", text: b64 }], structuredContent: { base64: b64, codepoints: cps } };
  },
);

server.registerTool(
  "emit",
  {
    description: "Return an armored value as text (the response path).",
    inputSchema: { value: z.object({ base64: z.string() }).passthrough() },
    annotations: readOnly,
  },
  async ({ value }) => {
    const text = decode(Buffer.from(value.base64, "base64"));
    if (text === null) {
      return { isError: true, content: [{ type: "text", text: "emit needs UTF-8 bytes." }] };
    }
    return { content: [{ type: "text", text }], structuredContent: { text } };
  },
);

await server.connect(new StdioServerTransport());
