// Lambda response streaming: the runtime's `awslambda` global in AWS, and a byte-for-byte stand-in anywhere else,
// so the streaming MCP handler runs unchanged under vitest and on the local stack.
import { Readable, type Writable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import type { StreamingPrelude } from './api-gateway.js';

/** The content type that tells Lambda the stream starts with an HTTP integration prelude. */
export const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
/** API Gateway splits the prelude (JSON) from the body at the first 8 NUL bytes. */
export const PRELUDE_DELIMITER_LENGTH = 8;

/** A response stream as the runtime hands it to a streaming handler (a Writable with a content type). */
export type ResponseStream = Writable & { setContentType?: (contentType: string) => void };

export type StreamingHandler<TEvent> = (
  event: TEvent,
  responseStream: ResponseStream,
  context?: unknown,
) => Promise<void>;

interface StreamingRuntime {
  streamifyResponse<TEvent>(handler: StreamingHandler<TEvent>): StreamingHandler<TEvent>;
  HttpResponseStream: { from(stream: ResponseStream, prelude: Record<string, unknown>): ResponseStream };
}

/**
 * Mirrors aws-lambda-nodejs-runtime-interface-client: `streamifyResponse` only marks the handler, and
 * `HttpResponseStream.from` sets the content type and emits the JSON prelude plus 8 NUL bytes just before the
 * first write. Only used where the Lambda runtime has not installed the real one.
 */
const localRuntime: StreamingRuntime = {
  streamifyResponse: (handler) => handler,
  HttpResponseStream: {
    from(stream, prelude) {
      stream.setContentType?.(HTTP_INTEGRATION_CONTENT_TYPE);
      const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
      let first = true;
      stream.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (first) {
          first = false;
          write(JSON.stringify(prelude));
          write(new Uint8Array(PRELUDE_DELIMITER_LENGTH));
        }
        return write(chunk, ...rest);
      }) as Writable['write'];
      return stream;
    },
  },
};

/**
 * The Lambda runtime's streaming helpers when running in Lambda, the local stand-in otherwise. Checked by function,
 * not by the global's presence: Powertools creates an empty `globalThis.awslambda` outside Lambda.
 */
const runtimeGlobal = (globalThis as { awslambda?: Partial<StreamingRuntime> }).awslambda;
export const streamingRuntime: StreamingRuntime =
  typeof runtimeGlobal?.streamifyResponse === 'function' && runtimeGlobal.HttpResponseStream !== undefined
    ? (runtimeGlobal as StreamingRuntime)
    : localRuntime;

/** Streams a Web Response to API Gateway: the prelude (status, headers), then the body as it is produced. */
export async function sendResponse(
  response: Response,
  responseStream: ResponseStream,
  prelude: StreamingPrelude,
): Promise<void> {
  const stream = streamingRuntime.HttpResponseStream.from(responseStream, { ...prelude });
  // The runtime sends the prelude with the first write; an empty body (202, DELETE) must still trigger it.
  stream.write('');
  if (response.body === null) {
    await new Promise<void>((resolve) => stream.end(resolve));
    return;
  }
  await pipeline(Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>), stream);
}
