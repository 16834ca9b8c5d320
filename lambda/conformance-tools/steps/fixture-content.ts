// The MCP content blocks the conformance fixtures return, typed, with the small binary samples they carry.
import type { TextContent } from '../../core/tool-result.js';

export interface ImageContent {
  readonly type: 'image';
  /** Base64 of the image bytes. */
  readonly data: string;
  readonly mimeType: string;
}

export interface AudioContent {
  readonly type: 'audio';
  /** Base64 of the audio bytes. */
  readonly data: string;
  readonly mimeType: string;
}

export interface EmbeddedResource {
  readonly type: 'resource';
  readonly resource: { readonly uri: string; readonly mimeType: string; readonly text: string };
}

export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource;

/** A tool result as a state machine outputs it: taken as a CallToolResult as it is (see toolResultFromOutput). */
export interface FixtureResult {
  readonly content: readonly ContentBlock[];
  /** A tool-level error: the tool ran and reports that it failed. */
  readonly isError?: true;
}

export function result(...content: ContentBlock[]): FixtureResult {
  return { content };
}

export function toolError(text: string): FixtureResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export const text = (value: string): TextContent => ({ type: 'text', text: value });

/** A 1x1 red pixel, as PNG. */
export const RED_PIXEL_PNG: ImageContent = {
  type: 'image',
  data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  mimeType: 'image/png',
};

/** A complete WAV file (RIFF, 16-bit mono PCM) of `samples` samples of silence. */
export function silentWav(samples: number, sampleRate = 8000): Buffer {
  const bytesPerSample = 2;
  const dataBytes = samples * bytesPerSample;
  const wav = Buffer.alloc(44 + dataBytes);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * bytesPerSample, 28); // byte rate
  wav.writeUInt16LE(bytesPerSample, 32); // block align
  wav.writeUInt16LE(8 * bytesPerSample, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataBytes, 40);
  return wav;
}
