// A webhook receiver for tests, as the conformance suite's harness runs one: an http server on 127.0.0.1 that records
// every request (path, headers, raw body, parsed JSON, when) and answers each path as the test scripts it. By default
// it echoes a verification challenge and accepts everything else.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  readonly json: Record<string, unknown> | undefined;
  readonly atMs: number;
}

/** How to answer one request; `undefined` falls through to the default (echo a challenge, else 200). */
export type ReceiverBehaviour = (request: ReceivedRequest, res: ServerResponse) => boolean | void;

export const isVerification = (request: ReceivedRequest): boolean => request.json?.['type'] === 'verification';

/** Echoes a verification challenge with 200 `{challenge}`; accepts anything else with 200. */
export const acceptAll: ReceiverBehaviour = (request, res) => {
  if (isVerification(request)) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ challenge: request.json?.['challenge'] }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
};

/** Answers `status` to the first `times` requests that are not a verification, then accepts. */
export function failing(times: number, status = 503): ReceiverBehaviour {
  let failed = 0;
  return (request, res) => {
    if (!isVerification(request) && failed < times) {
      failed++;
      res.writeHead(status).end('{"down":true}');
      return;
    }
    acceptAll(request, res);
  };
}

/** Answers every request that is not a verification with `status` (and `headers`). */
export function answering(status: number, headers: Record<string, string> = {}): ReceiverBehaviour {
  return (request, res) => {
    if (isVerification(request)) return acceptAll(request, res);
    res.writeHead(status, headers).end('{}');
  };
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly origin: string;
  /** Every request so far, oldest first. */
  readonly requests: readonly ReceivedRequest[];
  on(path: string): ReceivedRequest[];
  script(path: string, behaviour: ReceiverBehaviour): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const scripts = new Map<string, ReceiverBehaviour>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, unknown> | undefined;
      try {
        const parsed: unknown = JSON.parse(rawBody);
        json = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      const request = { path, method: req.method ?? '', headers: req.headers, rawBody, json, atMs: Date.now() };
      requests.push(request);
      (scripts.get(path) ?? acceptAll)(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    origin,
    requests,
    on: (path) => requests.filter((request) => request.path === path),
    script: (path, behaviour) => void scripts.set(path, behaviour),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
