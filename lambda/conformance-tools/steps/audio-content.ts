// Lambda step of test_audio_content: one audio/wav block (a tenth of a second of silence).
import { result, silentWav, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> =>
  result({ type: 'audio', data: silentWav(800).toString('base64'), mimeType: 'audio/wav' });
