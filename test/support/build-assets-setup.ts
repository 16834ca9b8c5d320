// Bundles the Lambda handlers once before any test file runs: every synthesized stack deploys these prebuilt
// assets, so a test run always synthesizes the handlers as they are in the working tree, never a stale build.
import { buildAssets } from '../../scripts/build-assets.js';

export async function setup(): Promise<void> {
  await buildAssets();
}
