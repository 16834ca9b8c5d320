// The MCP app reads a request's body up to a cap of 4 MiB, whichever way the body comes: with a Content-Length (read
// whole, as the local server and Lambda's event give it) or without one (streamed, stopped once past the cap). In
// Lambda the Content-Length is the client's, passed on by API Gateway with the body in the event: a header that
// understates the body does not let a larger one through.
import { describe, expect, it } from 'vitest';
import { inMemoryBackend } from '../../support/in-memory-backend.js';

const CAP = 4 * 1024 * 1024;
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

/** A ping whose JSON is padded with spaces to `bytes` bytes in all. */
function pingOf(bytes: number): string {
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' });
  return ping.slice(0, -1) + ' '.repeat(bytes - ping.length) + '}';
}

/** `text` as a stream of 64 KiB chunks, with no length declared. */
function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 65_536));
      offset += 65_536;
    },
  });
}

async function answer(body: BodyInit, headers: Record<string, string> = {}) {
  const request = new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
  const response = await inMemoryBackend().httpApp().handle(request, 'alice');
  return { status: response.status, text: await response.text() };
}

describe('the request body cap', () => {
  it('answers a body of a declared length at the cap', async () => {
    const body = pingOf(CAP);
    const { status, text } = await answer(body, { 'content-length': String(body.length) });
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ id: 7, result: {} });
  });

  it('refuses with 413 a body over the cap whose Content-Length understates it', async () => {
    const { status, text } = await answer(pingOf(CAP + 1), { 'content-length': '64' });
    expect(status).toBe(413);
    expect(text).toMatch(/Payload too large/);
  });

  it('answers a streamed body at the cap, with no length declared', async () => {
    const { status, text } = await answer(streamed(pingOf(CAP)));
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ id: 7, result: {} });
  });

  it('refuses with 413 a streamed body past the cap, with no length declared', async () => {
    const { status, text } = await answer(streamed(pingOf(CAP + 1)));
    expect(status).toBe(413);
    expect(text).toMatch(/Payload too large/);
  });

  it('counts the cap in bytes, not characters: a body of multi-byte characters past it is refused', async () => {
    const ping = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'ping',
      params: { _meta: { note: 'é'.repeat(CAP / 2) } },
    });
    const { status } = await answer(ping, { 'content-length': String(ping.length) });
    expect(status).toBe(413);
  });
});
