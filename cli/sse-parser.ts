// Server-sent events (text/event-stream), parsed as the HTML standard says: lines end in CRLF, LF or CR (a CRLF may be
// split across chunks), `data:` lines join with newlines, `id:` sets the last event ID (which carries over to later
// events), `:` starts a comment, a blank line dispatches. An event the stream ends in the middle of is not dispatched:
// that is how a cut connection shows, and the reader resumes from the last whole event.

export interface SseFrame {
  /** The `event:` field; absent means the default type, `message`. */
  readonly event?: string;
  readonly data: string;
  /** The last event ID as of this event (set by this event's `id:` or an earlier one), if any. */
  readonly id?: string;
  /** The reconnection time the server asked for, in ms, if this event carried a valid `retry:`. */
  readonly retry?: number;
}

export class SseParser {
  private buffer = '';
  private started = false;
  /** The last chunk ended in CR: an LF starting the next one belongs to the same line end. */
  private skipLeadingLf = false;
  private data: string[] = [];
  private eventType: string | undefined;
  private lastEventId: string | undefined;
  private retry: number | undefined;

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseFrame[] {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    if (this.skipLeadingLf && text.length > 0) {
      if (text.startsWith('\n')) text = text.slice(1);
      this.skipLeadingLf = false;
    }
    const buffer = this.buffer + text;
    const frames: SseFrame[] = [];
    let lineStart = 0;
    for (let index = 0; index < buffer.length; index++) {
      const char = buffer[index];
      if (char !== '\n' && char !== '\r') continue;
      const line = buffer.slice(lineStart, index);
      if (char === '\r') {
        if (index + 1 < buffer.length) {
          if (buffer[index + 1] === '\n') index++;
        } else this.skipLeadingLf = true;
      }
      lineStart = index + 1;
      const frame = this.line(line);
      if (frame) frames.push(frame);
    }
    this.buffer = buffer.slice(lineStart);
    return frames;
  }

  private line(line: string): SseFrame | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventType = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastEventId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    return undefined;
  }

  private dispatch(): SseFrame | undefined {
    const { data, eventType, retry } = this;
    this.data = [];
    this.eventType = undefined;
    this.retry = undefined;
    // An event with no data is not dispatched (its id still counts, as set above).
    if (data.length === 0) return undefined;
    return {
      data: data.join('\n'),
      ...(eventType !== undefined && eventType !== '' ? { event: eventType } : {}),
      ...(this.lastEventId !== undefined ? { id: this.lastEventId } : {}),
      ...(retry !== undefined ? { retry } : {}),
    };
  }
}

/** The events of a response body, in order, as they arrive; ends when the body ends (a partial last event dropped). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
