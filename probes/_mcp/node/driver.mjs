#!/usr/bin/env node
// param-fidelity's TypeScript MCP client: drives the official TypeScript SDK client
// (@modelcontextprotocol/sdk) for probes.mcp(client="typescript").
//
// One driver process holds one MCP session. It reads commands on stdin and answers
// on stdout, one JSON object per line each way:
//
//   {"op": "connect", "sdk_dir": DIR, "target": TARGET, "client_info": {...},
//    "timeout_ms": N, "max_reply": N, "max_depth": N}
//        TARGET is {"command", "args", "env", "cwd", "stderr_fd"} (stdio; the server's
//        stderr goes to the descriptor stderr_fd, which the caller passed, or nowhere
//        without it: never to the driver's own stderr) or {"url"} (Streamable HTTP); DIR holds node_modules/@modelcontextprotocol/sdk. MAX_REPLY bounds one
//        message from the server in bytes: a stdio line (the SDK's own buffer limit),
//        an HTTP JSON body or one server-sent event (as decoded); past it the message
//        is not read further and {"type": "reply_too_large"} is reported. MAX_DEPTH
//        bounds how deeply a record this driver writes may nest (arrays and objects,
//        the record itself one level): the caller's JSON parser reads that deep, and a
//        result nested deeper is an "UnparsableReply" for its request, whichever parser
//        reads it (without it, only what JSON.stringify cannot write is).
//        -> {"type": "connected", "protocol_version", "server_info", "sdk", "node", "driver"}
//           or {"type": "connect_error", "error"} (then the driver exits 2)
//   {"op": "list_tools", "id": K, "timeout_ms": N}        (every page, at most 100)
//   {"op": "call_tool", "id": K, "name", "arguments", "timeout_ms": N}
//        -> {"type": "result", "id": K, "ok": true, "result": {...}}
//           or {"type": "result", "id": K, "ok": false, "error": {...}}
//   {"op": "list_prompts", "id": K, "timeout_ms": N}       (first page: {"prompts"})
//   {"op": "list_resource_templates", "id": K, "timeout_ms": N}
//        (first page: {"resourceTemplates"})
//   {"op": "get_prompt", "id": K, "name", "arguments", "timeout_ms": N}
//   {"op": "read_resource", "id": K, "uri", "timeout_ms": N}
//        -> results as for call_tool (the SDK's GetPromptResult, ReadResourceResult)
//   {"op": "close"}  (or end of stdin) -> the session is closed in good order,
//        {"type": "closed"}, exit 0
//
// Events may come in between: {"type": "transport_closed"} (the connection ended
// without being asked to), {"type": "transport_error", "error"},
// {"type": "server_exit", "code", "signal"} when a stdio server process exits,
// {"type": "reply_too_large"}, and {"type": "noise", "count", "first"}: how many stdout
// lines of a stdio server were not JSON-RPC so far, and the first (see watchNoise).
// Whatever escapes the driver (a bug, a value too deep for the stack) is one record,
// {"type": "fatal", "error"}, never a stack on stderr; then the driver exits 70. A
// result the driver cannot write (nested too deep) is an error of class
// "UnparsableReply" for its request.
// An error is {"class", "name", "message", "code"?, "data"?, "cause"?}.
//
// Byte-exactness is the point:
//  * In: each line is decoded as strict UTF-8 (bad bytes are an error, never U+FFFD)
//    and parsed with JSON.parse, which turns escapes such as "\ud800" into that very
//    UTF-16 code unit. The caller writes ASCII-only JSON (Python: ensure_ascii=True),
//    so lone surrogates, NUL, U+2028, a BOM reach the SDK as they were.
//  * Out: JSON.stringify, then every UTF-16 code unit from U+0080 up as a \uXXXX
//    escape, so stdout is pure ASCII, a lone surrogate stays itself, and no character
//    can pass for a line break (U+2028, U+2029 and U+0085 are line breaks to Python's
//    str.splitlines).
//  * JavaScript strings are UTF-16: the two code points U+D83D U+DE00 and the one
//    code point U+1F600 are the same JavaScript string, so the client sends U+1F600.
//  * stdout carries nothing but these records: console.log/info/debug go to stderr.
//
// Nothing here is copied from the SDK; it is used through its public classes.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';

const DRIVER_VERSION = '2';
const SDK = '@modelcontextprotocol/sdk';
const MAX_TOOL_PAGES = 100;
// How long a session closed in good order may take (the SDK's stdio close alone
// waits up to 2 s for the server, then 2 s after SIGTERM).
const CLOSE_BOUND_MS = 5000;

// No stack is ever shown, and a server's non-JSON line costs no stack capture.
Error.stackTraceLimit = 0;

console.log = console.info = console.debug = (...args) => console.error(...args);

// ---------------------------------------------------------------------------
// Output

/** JSON-encode `value` as one line of pure ASCII. */
function asciiJson(value) {
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g, // without the `u` flag this matches single UTF-16 code units
    (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'),
  );
}

let stdoutGone = false;

/**
 * A record as one line. A record nested deeper than max_depth (which the caller's
 * parser would not read), or a value JSON.stringify cannot write (nested deeper than
 * its stack: a reply 200,000 arrays deep, which the SDK's parser took), is an
 * unparsable reply for the request in flight, never a crash.
 */
function recordLine(record) {
  try {
    if (deeperThan(record, maxDepth)) throw new RangeError('nested deeper than the reader reads');
    return asciiJson(record) + '\n';
  } catch (error) {
    const why = { class: 'UnparsableReply', name: String(error?.name ?? ''), message: tooDeep(error) };
    if (record.type === 'result') return asciiJson({ type: 'result', id: record.id, ok: false, error: why }) + '\n';
    if (record.type === 'connected') return asciiJson({ type: 'connect_error', error: why }) + '\n';
    return asciiJson({ type: 'transport_error', error: why }) + '\n';
  }
}

/** The deepest nesting a record may have (the connect command's max_depth). */
let maxDepth = Infinity;

/** Whether `value` nests arrays and objects more than `limit` levels deep (`value`
 * itself is the first), walked without recursion: the check needs no stack of its own. */
function deeperThan(value, limit) {
  if (!Number.isFinite(limit)) return false;
  const pending = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop();
    if (depth > limit) return true;
    for (const inner of Array.isArray(item) ? item : Object.values(item)) {
      if (inner !== null && typeof inner === 'object') pending.push([inner, depth + 1]);
    }
  }
  return false;
}

function tooDeep(error) {
  return error instanceof RangeError
    ? 'the reply is nested too deeply to be read'
    : `the reply could not be written on (${String(error?.message ?? error).slice(0, 200)})`;
}

/** Write one record; resolves once it is handed to the OS. */
function emit(record) {
  if (stdoutGone) return Promise.resolve();
  const text = recordLine(record);
  return new Promise((done) => process.stdout.write(text, () => done()));
}

/** Any thrown value as plain JSON. */
function describeError(err, depth = 0) {
  if (err === null || typeof err !== 'object') return { class: typeof err, name: '', message: String(err) };
  const out = {
    class: err.constructor?.name ?? 'Object',
    name: String(err.name ?? ''),
    message: String(err.message ?? ''),
  };
  if (err.code !== undefined) out.code = err.code; // McpError: JSON-RPC code; HTTP error: status; Node: errno
  if (err.data !== undefined) out.data = err.data;
  if (err.cause !== undefined && depth < 4) out.cause = describeError(err.cause, depth + 1);
  return out;
}

// ---------------------------------------------------------------------------
// The session

let sdk = null;
let client = null;
let transport = null;
let closing = false;

/** Load the SDK classes from `dir` (a folder holding node_modules). */
function loadSdk(dir) {
  const require = createRequire(join(resolve(dir), 'param-fidelity-driver.js'));
  const { Client } = require(`${SDK}/client/index.js`);
  const { StdioClientTransport } = require(`${SDK}/client/stdio.js`);
  const { StreamableHTTPClientTransport } = require(`${SDK}/client/streamableHttp.js`);
  // The package's exports map does not expose package.json: walk up from a module.
  let version = null;
  for (let at = dirname(require.resolve(`${SDK}/client/index.js`)), i = 0; i < 6; i++, at = dirname(at)) {
    try {
      const meta = JSON.parse(readFileSync(join(at, 'package.json'), 'utf8'));
      if (meta.name === SDK) {
        version = meta.version;
        break;
      }
    } catch {
      // keep walking up
    }
  }
  return { Client, StdioClientTransport, StreamableHTTPClientTransport, version };
}

/**
 * fetch, with each response read at most `limit` bytes per message: the whole body of a
 * JSON answer, or each server-sent event of an event stream (bytes since the last blank
 * line). Past it the body fails, and `onExceeded` runs.
 */
function boundedFetch(limit, onExceeded) {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    const events = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const reader = response.body.getReader();
    let count = 0; // bytes of the current message
    let last = 0; // the last four bytes seen, for the blank line that ends an event
    const body = new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        let over = false;
        if (events) {
          for (const byte of value) {
            last = ((last << 8) | byte) >>> 0;
            count += 1;
            // An event ends at a blank line: LF LF, CR CR or CR LF CR LF.
            if ((last & 0xffff) === 0x0a0a || (last & 0xffff) === 0x0d0d || last === 0x0d0a0d0a) {
              count = 0;
            } else if (count > limit) {
              over = true;
              break;
            }
          }
        } else {
          count += value.length;
          over = count > limit;
        }
        if (over) {
          onExceeded();
          reader.cancel().catch(() => {});
          controller.error(new Error(`reply longer than ${limit} bytes`));
          return;
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

// ---------------------------------------------------------------------------
// Noise: stdout lines of a stdio server that are not JSON-RPC. The SDK reports each
// one as an error; one record per line would let a server that writes millions of
// them grow this process without bound (records queue up faster than a pipe takes
// them). They are counted instead, and the count goes out as one {"type": "noise",
// "count", "first"} record (the total so far and the first line, cut), at most every
// NOISE_EVERY_MS and before each result.

const NOISE_EVERY_MS = 250;
const NOISE_FIRST_CHARS = 600;
/** Other transport errors are dropped while this much output waits for the pipe. */
const BACKLOG_BYTES = 1 << 20;
const noise = { count: 0, sent: 0, first: null, timer: null };

function noteNoise() {
  noise.count += 1;
  if (noise.timer === null) noise.timer = setTimeout(flushNoise, NOISE_EVERY_MS);
}

/** Send the noise count if it grew; resolves once written. */
function flushNoise() {
  if (noise.timer !== null) {
    clearTimeout(noise.timer);
    noise.timer = null;
  }
  if (noise.count === noise.sent) return Promise.resolve();
  noise.sent = noise.count;
  return emit({ type: 'noise', count: noise.count, first: noise.first ?? '' });
}

/**
 * Count the lines the SDK's stdio read buffer cannot parse, keeping the first one. The
 * buffer is the transport's own (no public hook sees the line): when it is not there,
 * the errors are still counted through the client's onerror, without the line.
 */
function watchNoise(transport) {
  const buffer = transport._readBuffer;
  if (typeof buffer?.readMessage !== 'function') return false;
  const read = buffer.readMessage.bind(buffer);
  buffer.readMessage = () => {
    const before = buffer._buffer;
    try {
      return read();
    } catch (error) {
      if (noise.first === null && Buffer.isBuffer(before)) {
        const end = before.indexOf(0x0a);
        noise.first = before.toString('utf8', 0, Math.min(end < 0 ? before.length : end, NOISE_FIRST_CHARS)).replace(/\r$/, '');
      }
      noteNoise();
      if (error !== null && typeof error === 'object') error.paramFidelityNoise = true;
      throw error;
    }
  };
  return true;
}

let tooLarge = false;
function replyTooLarge() {
  if (!tooLarge) {
    tooLarge = true;
    emit({ type: 'reply_too_large' });
  }
}

async function connect(command) {
  sdk = loadSdk(command.sdk_dir);
  const target = command.target ?? {};
  const limit = command.max_reply ?? undefined;
  if (Number.isInteger(command.max_depth) && command.max_depth > 0) maxDepth = command.max_depth;
  if (target.url) {
    transport = new sdk.StreamableHTTPClientTransport(new URL(target.url), {
      fetch: limit ? boundedFetch(limit, replyTooLarge) : undefined,
    });
  } else if (target.command) {
    transport = new sdk.StdioClientTransport({
      command: target.command,
      args: target.args ?? [],
      env: target.env ?? undefined, // merged over the SDK's default environment
      cwd: target.cwd ?? undefined,
      // The server's stderr: a descriptor the caller passed (a bounded tail of its own),
      // or nowhere; never the driver's own stderr.
      stderr: Number.isInteger(target.stderr_fd) ? target.stderr_fd : 'ignore',
      maxBufferSize: limit, // the SDK drops the connection past it
    });
  } else {
    throw new Error('the target needs "command" (stdio) or "url" (Streamable HTTP)');
  }
  const watched = target.command ? watchNoise(transport) : false;
  // The negotiated version is in the initialize response; the SDK does not expose it.
  let negotiated = null;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const child = transport._process; // the server process (stdio), to report its exit
    child?.once('exit', (code, signal) => emit({ type: 'server_exit', code, signal }));
  };
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    negotiated = version;
    setVersion?.(version);
  };
  client = new sdk.Client(command.client_info ?? { name: 'param-fidelity', version: DRIVER_VERSION });
  client.onerror = (error) => {
    if (error?.paramFidelityNoise) return; // counted
    if (!watched && target.command && (error instanceof SyntaxError || error?.name === 'ZodError')) {
      noteNoise();
      return;
    }
    if (String(error?.message ?? '').startsWith('ReadBuffer exceeded maximum size')) replyTooLarge();
    if (!closing && process.stdout.writableLength < BACKLOG_BYTES) {
      emit({ type: 'transport_error', error: describeError(error) });
    }
  };
  client.onclose = () => {
    if (!closing) emit({ type: 'transport_closed' });
  };
  await client.connect(transport, { timeout: command.timeout_ms ?? 10000 });
  return {
    type: 'connected',
    protocol_version: negotiated,
    server_info: client.getServerVersion() ?? null,
    sdk: sdk.version,
    node: process.versions.node,
    driver: DRIVER_VERSION,
  };
}

async function listTools(options) {
  const tools = [];
  let cursor;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const listing = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
    tools.push(...listing.tools);
    cursor = listing.nextCursor;
    if (cursor === undefined || cursor === null) break;
  }
  return { tools };
}

async function run(command) {
  const options = { timeout: command.timeout_ms ?? 10000 };
  const record = { type: 'result', id: command.id };
  try {
    if (client === null) throw new Error('Not connected');
    if (command.op === 'list_tools') {
      record.result = await listTools(options);
    } else if (command.op === 'call_tool') {
      // The high-level call, as applications make it: the arguments go out as they
      // are (JSON.stringify), and the result is checked against the tool's output
      // schema, which the SDK caches when the tools are listed.
      record.result = await client.callTool({ name: command.name, arguments: command.arguments ?? {} }, undefined, options);
    } else if (command.op === 'list_prompts') {
      record.result = await client.listPrompts(undefined, options);
    } else if (command.op === 'list_resource_templates') {
      record.result = await client.listResourceTemplates(undefined, options);
    } else if (command.op === 'get_prompt') {
      record.result = await client.getPrompt({ name: command.name, arguments: command.arguments ?? {} }, options);
    } else if (command.op === 'read_resource') {
      record.result = await client.readResource({ uri: command.uri }, options);
    } else {
      throw new Error(`unknown op ${JSON.stringify(command.op)}`);
    }
    record.ok = true;
  } catch (error) {
    record.ok = false;
    record.error = describeError(error);
  }
  await flushNoise();
  await emit(record);
}

/** Close the session in good order (bounded); HTTP also ends the server's session. */
async function shutdown() {
  closing = true;
  const work = (async () => {
    try {
      if (typeof transport?.terminateSession === 'function' && transport.sessionId) {
        await transport.terminateSession();
      }
    } catch {
      // best effort
    }
    try {
      await client?.close();
    } catch {
      // best effort
    }
  })();
  await Promise.race([work, new Promise((done) => setTimeout(done, CLOSE_BOUND_MS).unref())]);
}

/** Leave at once (signal, stdout gone): the server process we spawned is killed. */
function abandon(code) {
  closing = true;
  const pid = transport?.pid;
  if (pid) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  process.exit(code);
}

process.stdout.on('error', () => {
  stdoutGone = true;
  abandon(4);
});
// Whatever escapes is one record, with no stack (a stack is not for the user's
// terminal), and the driver leaves with its server.
let failing = false;
function crash(error) {
  if (failing) return;
  failing = true;
  const leave = () => abandon(70);
  setTimeout(leave, 1000).unref();
  if (stdoutGone) return leave();
  process.stdout.write(recordLine({ type: 'fatal', error: describeError(error) }), leave);
}
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);
process.on('SIGTERM', () => abandon(143));
process.on('SIGINT', () => abandon(130));

// ---------------------------------------------------------------------------
// Input: one command per line; each runs as it arrives (one at a time is the rule)

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

async function handle(line) {
  let command;
  try {
    command = JSON.parse(decoder.decode(line));
  } catch (error) {
    await emit({ type: 'fatal', error: describeError(error) });
    return;
  }
  if (command.op === 'connect') {
    try {
      await emit(await connect(command));
    } catch (error) {
      await emit({ type: 'connect_error', error: describeError(error) });
      await shutdown();
      process.exit(2);
    }
  } else if (command.op === 'close') {
    await shutdown();
    await flushNoise();
    await emit({ type: 'closed' });
    process.exit(0);
  } else {
    await run(command);
  }
}

let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  let newline;
  while ((newline = pending.indexOf(0x0a)) !== -1) {
    const line = pending.subarray(0, newline);
    pending = pending.subarray(newline + 1);
    if (line.length) handle(line);
  }
});
process.stdin.on('end', async () => {
  await shutdown();
  process.exit(0);
});
