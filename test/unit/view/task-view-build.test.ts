// The task view ships as a committed module (lambda/protocol/task-view-html.ts) built from view/: it must be what
// view/ builds now, or a change to the view would never reach a host. `npm run build:view` rebuilds it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildTaskViewHtml, TASK_VIEW_MODULE, taskViewModule } from '../../../scripts/build-task-view.js';

describe('the task view bundle', () => {
  it('is what view/ builds (run npm run build:view after changing it)', async () => {
    expect(readFileSync(TASK_VIEW_MODULE, 'utf8') === taskViewModule(await buildTaskViewHtml())).toBe(true);
  });

  it('allows its one inline script and stylesheet by hash, and no origin at all', async () => {
    const html = await buildTaskViewHtml();
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      expect.stringMatching(/^script-src 'sha256-[A-Za-z0-9+/]+={0,2}'$/),
      expect.stringMatching(/^style-src 'sha256-[A-Za-z0-9+/]+={0,2}'$/),
      'img-src data:',
      "connect-src 'none'",
      "frame-src 'none'",
      "form-action 'none'",
      "base-uri 'none'",
      "object-src 'none'",
    ]);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
  });
});
