// A webhook receiver on loopback, for trying the Events extension's webhooks from a terminal: every POST to its path
// is checked with the project's Standard Webhooks verifier (signature with the subscription's secret, timestamp
// within tolerance, webhook-id not seen before) and printed, one line per delivery, or refused with 401 and a line on
// stderr saying why (a webhook-id seen before is acknowledged, not printed again). A verification envelope is answered
// with its challenge, only once its signature holds. It listens on 127.0.0.1 only: the local stack may deliver there
// over http; a deployed server delivers only to a public https URL, such as a tunnel to this port.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookVerifier, WebhookVerificationError } from '../lambda/events/webhook-verifier.js';
import { CliError, EXIT, UsageError } from './cli-errors.js';
import { renderDelivery } from './render.js';

export const LOOPBACK = '127.0.0.1';
/** Deliveries are at most 256 KiB; anything much larger is not one. */
const MAX_BODY_BYTES = 1024 * 1024;
const SECRET_PREFIX = 'whsec_';

/** A fresh Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Refuses a secret the server would refuse: `whsec_` and the base64 of 24 to 64 bytes. */
export function checkWebhookSecret(secret: string): void {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : undefined;
  const bytes =
    encoded !== undefined && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0
      ? Buffer.from(encoded, 'base64').length
      : 0;
  if (bytes < 24 || bytes > 64)
    throw new UsageError(
      `--secret must be 'whsec_' followed by the base64 of 24 to 64 bytes; leave it out to have one made.`,
    );
}

export interface WebhookListenerOptions {
  /** 0 for any free port. */
  readonly port: number;
  /** The path deliveries are POSTed to, such as `/hooks`. */
  readonly path: string;
  readonly secret: string;
  /** Print each delivery's raw body instead of a line for a person. */
  readonly json: boolean;
  out(text: string): void;
  err(text: string): void;
  /** How far a delivery's timestamp may be from this clock, in seconds; the verifier's default (300) otherwise. */
  readonly toleranceSeconds?: number;
  /** Epoch ms. @default Date.now */
  readonly now?: () => number;
}

export interface WebhookListener {
  /** Where to subscribe: `http://127.0.0.1:<port><path>`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

function answer(response: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

class BodyTooLarge extends Error {}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function headersOf(request: IncomingMessage): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(' ') : value]),
  );
}

function challengeOf(body: unknown): string | undefined {
  const record = body as { type?: unknown; challenge?: unknown } | null;
  return typeof record === 'object' && record?.type === 'verification' && typeof record.challenge === 'string'
    ? record.challenge
    : undefined;
}

export async function startWebhookListener(options: WebhookListenerOptions): Promise<WebhookListener> {
  const now = options.now ?? Date.now;
  const verifier = createWebhookVerifier({
    secret: options.secret,
    now,
    ...(options.toleranceSeconds !== undefined ? { toleranceSeconds: options.toleranceSeconds } : {}),
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { pathname } = new URL(request.url ?? '/', `http://${LOOPBACK}`);
    if (pathname !== options.path) return answer(response, 404, { error: 'not_found' });
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      return answer(response, 405, { error: 'method_not_allowed' });
    }
    const headers = headersOf(request);
    const subscriptionId = headers['x-mcp-subscription-id'] ?? '-';
    const what = `delivery ${headers['webhook-id'] ?? '(no webhook-id)'} for ${subscriptionId}`;
    let raw: string;
    try {
      raw = await readBody(request);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      options.err(`Refused ${what}: the body is over ${MAX_BODY_BYTES} bytes.`);
      return answer(response, 413, { error: 'too_large' });
    }
    let body: unknown;
    try {
      body = verifier.verify(raw, headers);
    } catch (error) {
      // A delivery already received, sent again because our answer was lost: acknowledged and not printed twice. An
      // error would have it retried to its last attempt and counted against the subscription.
      if (error instanceof WebhookVerificationError && error.reason === 'replayed') {
        options.err(`Ignored ${what}: already received.`);
        return answer(response, 200, {});
      }
      if (error instanceof WebhookVerificationError) {
        options.err(`Refused ${what} (${error.reason}): ${error.message}.`);
        return answer(response, 401, { error: error.reason });
      }
      if (error instanceof SyntaxError) {
        options.err(`Refused ${what}: its signature holds but its body is not JSON.`);
        return answer(response, 400, { error: 'not_json' });
      }
      throw error;
    }
    options.out(
      options.json
        ? raw.includes('\n')
          ? JSON.stringify(body)
          : raw
        : renderDelivery(body, subscriptionId, new Date(now())),
    );
    const challenge = challengeOf(body);
    if (challenge !== undefined) return answer(response, 200, { challenge });
    return answer(response, 200);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.err(`Could not handle a request: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) answer(response, 500, { error: 'internal' });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(
          new CliError(
            `Port ${options.port} on ${LOOPBACK} is in use: pick another with --port (0 for any free port).`,
            EXIT.usage,
          ),
        );
      else reject(error);
    });
    server.listen(options.port, LOOPBACK, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${LOOPBACK}:${port}${options.path}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
