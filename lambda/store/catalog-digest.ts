// The digest of a catalog's tools: the same tools give the same digest on every instance and every refresh.
import { createHash } from 'node:crypto';
import type { ToolDefinition } from '../contract/tool-definition.js';

export function catalogDigest(tools: readonly ToolDefinition[]): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex');
}
