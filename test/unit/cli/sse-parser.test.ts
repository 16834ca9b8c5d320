// The CLI's server-sent events parser: the HTML standard's rules, fed in chunks split anywhere.
import { describe, expect, it } from 'vitest';
import { readSse, SseParser, type SseFrame } from '../../../cli/sse-parser.js';

/** Feeds `text` in chunks of `size` characters and collects every frame. */
function parse(text: string, size = text.length): SseFrame[] {
  const parser = new SseParser();
  const frames: SseFrame[] = [];
  for (let start = 0; start < text.length; start += size) frames.push(...parser.push(text.slice(start, start + size)));
  return frames;
}

const STREAM =
  'id: 1\ndata: {"a":1}\n\n' +
  ': a comment\n' +
  'event: custom\r\ndata: first line\r\ndata:second line\r\n\r\n' +
  'id: 2\rdata: {"b":2}\r\r';

describe('SseParser', () => {
  it('dispatches on a blank line; joins data lines; keeps the last id; reads CRLF, LF and CR line ends', () => {
    expect(parse(STREAM)).toEqual([
      { id: '1', data: '{"a":1}' },
      { id: '1', event: 'custom', data: 'first line\nsecond line' },
      { id: '2', data: '{"b":2}' },
    ]);
  });

  it('gives the same frames however the text is split, a CRLF across two chunks included', () => {
    const whole = parse(STREAM);
    for (const size of [1, 2, 3, 5, 7, 11]) expect(parse(STREAM, size)).toEqual(whole);
  });

  it('does not dispatch an event the stream ends in the middle of', () => {
    expect(parse('id: 1\ndata: {"a":1}\n\nid: 2\ndata: {"b"')).toEqual([{ id: '1', data: '{"a":1}' }]);
    expect(parse('data: whole line but no blank line\n')).toEqual([]);
  });

  it('skips comments and events without data; takes a retry; strips one leading space and a BOM', () => {
    expect(parse('\uFEFF:keep-alive\n\nid: 7\n\nretry: 3000\ndata:  two spaces\n\n')).toEqual([
      { id: '7', retry: 3000, data: ' two spaces' },
    ]);
  });

  it('ignores an id with a NUL, and a field without a colon counts as an empty value', () => {
    expect(parse('id: 1\n\nid: a\0b\ndata\n\n')).toEqual([{ id: '1', data: '' }]);
  });
});

describe('readSse', () => {
  it('reads frames from a byte stream, a multi-byte character split across chunks included', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\ndata: {"x":1}\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < bytes.length; index += 3) controller.enqueue(bytes.slice(index, index + 3));
        controller.close();
      },
    });
    const frames: SseFrame[] = [];
    for await (const frame of readSse(stream)) frames.push(frame);
    expect(frames.map((frame) => frame.data)).toEqual(['héllo ✓', '{"x":1}']);
  });
});
