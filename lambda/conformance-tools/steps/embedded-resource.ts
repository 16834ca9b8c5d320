// Lambda step of test_embedded_resource: one embedded text resource.
import { result, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> =>
  result({
    type: 'resource',
    resource: {
      uri: 'test://embedded-resource',
      mimeType: 'text/plain',
      text: 'This is an embedded resource content.',
    },
  });
