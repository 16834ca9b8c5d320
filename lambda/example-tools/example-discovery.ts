// Which of an account's state machines the example deployment and `npm start` make tools by their tags: those tagged
// mcp:tool=true. One selection, so a machine tagged for the local stack is a tool once deployed too.
import type { DiscoverySelection } from '../contract/discovery-selection.js';

export const EXAMPLE_DISCOVERY = { tag: { key: 'mcp:tool', value: 'true' } } as const satisfies DiscoverySelection;
