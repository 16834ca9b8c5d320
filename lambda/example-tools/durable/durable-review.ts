// The durable_review example tool: a Lambda durable function (written with @aws/durable-execution-sdk-js) that reviews
// each document in a step of its own, reporting progress after each, waits out a review window, then asks a person to
// approve the review and returns it. A document without words fails the execution, as a rejected input should.
import { withDurableExecution, type DurableContext, type DurableLambdaHandler } from '@aws/durable-execution-sdk-js';
import type { InputAnswer } from '../../core/input-request.js';
import type { DurableToolEvent } from '../../contract/durable-tool-event.js';
import type { ToolDescription } from '../../contract/tool-definition.js';
import type { DurableAsk } from '../../input/durable-ask.js';
import type { DurableReport } from '../../progress/durable-progress.js';
import { wordsOf } from '../steps/words.js';

export interface DurableReviewArguments {
  readonly documents: readonly string[];
  /** @default 5 */
  readonly reviewSeconds?: number;
  /** @default true */
  readonly askApproval?: boolean;
}

export const DURABLE_REVIEW_TOOL: ToolDescription = {
  name: 'durable_review',
  title: 'Review documents (a durable function)',
  description:
    'Reviews each document in a durable step (words and top words), waits out a review window ' +
    '(reviewSeconds, default 5), then asks a person to approve the review (askApproval, default ' +
    'true; the task waits in input_required until answered) and returns it. A document without ' +
    'words fails the task. Runs on Lambda durable functions: call it as a task.',
  inputSchema: {
    type: 'object',
    properties: {
      documents: {
        type: 'array',
        items: { type: 'string', minLength: 1, maxLength: 100000 },
        minItems: 1,
        maxItems: 20,
        description: 'The texts to review.',
      },
      reviewSeconds: {
        type: 'integer',
        minimum: 0,
        maximum: 3600,
        description: 'How long the review window lasts. Default 5.',
      },
      askApproval: { type: 'boolean', description: 'Whether a person approves the review. Default true.' },
    },
    required: ['documents'],
    additionalProperties: false,
  },
  // Its question is answered through the Tasks extension (tasks/get, tasks/update): a plain call could never be.
  taskSupport: 'required',
};

export interface DocumentReview {
  readonly document: number;
  readonly words: number;
  readonly topWords: readonly string[];
}

/** Thrown for a document the review cannot read: the execution fails with it, and the task says why. */
export class DocumentRejectedError extends Error {
  override readonly name = 'DocumentRejectedError';
}

const DEFAULT_REVIEW_SECONDS = 5;
const TOP_WORDS = 3;

export function reviewDocument(text: string, document: number): DocumentReview {
  const words = wordsOf(text);
  const frequency = new Map<string, number>();
  for (const word of words.filter((candidate) => candidate.length > 3))
    frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const topWords = [...frequency.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP_WORDS)
    .map(([word]) => word);
  return { document, words: words.length, topWords };
}

/** The workflow over the helpers its composition root gives it (the deployed one's, or the local stack's). */
export function createDurableReview(helpers: {
  readonly ask: DurableAsk;
  readonly report: DurableReport;
}): DurableLambdaHandler {
  return withDurableExecution(async (event: DurableToolEvent<DurableReviewArguments>, context: DurableContext) => {
    const { documents, reviewSeconds = DEFAULT_REVIEW_SECONDS, askApproval = true } = event.arguments;
    // Checked before any step, and the same on every replay: a document that cannot be reviewed fails the execution
    // with its own error (a step's error would reach the task as the SDK's StepError).
    const empty = documents.findIndex((text) => wordsOf(text).length === 0);
    if (empty >= 0) throw new DocumentRejectedError(`Document ${empty + 1} has no words to review.`);
    const reviews: DocumentReview[] = [];
    for (const [index, text] of documents.entries()) {
      reviews.push(
        await context.step(`review document ${index + 1}`, () => Promise.resolve(reviewDocument(text, index + 1))),
      );
      await helpers.report(context, event, {
        message: 'Reviewed {progress} of {total} documents',
        progress: index + 1,
        total: documents.length,
      });
    }
    if (reviewSeconds > 0) {
      await helpers.report(context, event, {
        message: 'Review window: {secondsLeft} s left',
        secondsLeft: reviewSeconds,
      });
      await context.wait('review window', { seconds: reviewSeconds });
    }
    const words = reviews.reduce((sum, review) => sum + review.words, 0);
    const answer = askApproval
      ? await helpers.ask<InputAnswer>(context, event, {
          name: 'approval',
          key: 'approval',
          request: {
            method: 'elicitation/create',
            params: {
              message: `Approve the review of ${documents.length} document(s), ${words} words?`,
              requestedSchema: {
                type: 'object',
                properties: {
                  approved: { type: 'boolean', title: 'Approve the review' },
                  comment: { type: 'string', title: 'Comment', maxLength: 500 },
                },
                required: ['approved'],
              },
            },
          },
        })
      : undefined;
    const approved = answer === undefined || (answer.action === 'accept' && answer.content?.['approved'] === true);
    const comment = typeof answer?.content?.['comment'] === 'string' ? answer.content['comment'] : undefined;
    const verdict = answer === undefined ? 'not asked for approval' : approved ? 'approved' : 'not approved';
    return {
      content: [{ type: 'text', text: `Reviewed ${documents.length} document(s), ${words} words: ${verdict}.` }],
      structuredContent: { reviews, words, approved, ...(comment !== undefined ? { comment } : {}) },
    };
  });
}
