// Lambda step of test_multiple_content_types: text, image and embedded resource in one result.
import { RED_PIXEL_PNG, result, text, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> =>
  result(text('Multiple content types test:'), RED_PIXEL_PNG, {
    type: 'resource',
    resource: {
      uri: 'test://mixed-content-resource',
      mimeType: 'application/json',
      text: JSON.stringify({ test: 'data', value: 123 }),
    },
  });
