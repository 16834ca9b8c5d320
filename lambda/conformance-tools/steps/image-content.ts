// Lambda step of test_image_content: one PNG image block.
import { RED_PIXEL_PNG, result, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> => result(RED_PIXEL_PNG);
