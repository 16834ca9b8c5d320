// The example tools: each is an ASL definition in asl/ whose Lambda steps (the functions its Task states invoke) are
// modules in steps/. The local stack and the CDK app both deploy exactly these (the conformance fixtures are apart, in
// ../conformance-tools/).
import { pathsFrom, type StateMachineTool } from '../tools/state-machine-tool.js';
import { PROGRESS_LAMBDA_STEP, PROGRESS_STEP_PLACEHOLDER } from '../progress/progress-lambda-step.js';

const here = pathsFrom(import.meta.url);

/**
 * The ask step as a Lambda step of the example ASL: locally, the emulator runs its Lambda entry point
 * (handlers/ask-step), as the CDK construct deploys it. Its function name is the one the local stack binds to the local
 * table.
 */
export const ASK_STEP = { functionName: 'ask-for-input', entry: here('../handlers/ask-step.ts') } as const;

export const EXAMPLE_TOOLS: readonly StateMachineTool[] = [
  {
    name: 'analyze_documents',
    title: 'Analyze documents',
    description:
      'Analyses each document in parallel, waits for a review window (reviewSeconds, default ' +
      '20), then returns a summary: word counts, the longest document and keywords. Runs for ' +
      'tens of seconds: call it as a task.',
    inputSchema: {
      type: 'object',
      properties: {
        documents: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          minItems: 1,
          maxItems: 50,
          description: 'The texts to analyse.',
        },
        reviewSeconds: {
          type: 'integer',
          minimum: 0,
          maximum: 3600,
          description: 'How long the review window lasts. Default 20.',
        },
      },
      required: ['documents'],
      additionalProperties: false,
    },
    definitionPath: here('./asl/analyze-documents.asl.json'),
    lambdaSteps: {
      AnalyzeDocumentFunctionArn: { functionName: 'analyze-document', entry: here('./steps/analyze-document.ts') },
      SummarizeAnalysesFunctionArn: {
        functionName: 'summarize-analyses',
        entry: here('./steps/summarize-analyses.ts'),
      },
      [PROGRESS_STEP_PLACEHOLDER]: PROGRESS_LAMBDA_STEP,
    },
  },
  {
    name: 'text_stats',
    title: 'Text statistics',
    description:
      'Counts the words, unique words, sentences and characters of a text. Fast. A text without ' +
      'words is reported as a tool error.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', maxLength: 100000, description: 'The text to count.' } },
      required: ['text'],
      additionalProperties: false,
    },
    definitionPath: here('./asl/text-stats.asl.json'),
    lambdaSteps: { TextStatsFunctionArn: { functionName: 'text-stats', entry: here('./steps/text-stats.ts') } },
  },
  {
    name: 'export_report',
    title: 'Export report (always fails)',
    description:
      'Sends a report to an upstream reporting service that is always unavailable; retried once, ' +
      'then the task fails. Shows how failures reach the client.',
    inputSchema: {
      type: 'object',
      properties: { reportName: { type: 'string', minLength: 1, maxLength: 200 } },
      required: ['reportName'],
      additionalProperties: false,
    },
    definitionPath: here('./asl/export-report.asl.json'),
    lambdaSteps: {
      ExportReportFunctionArn: { functionName: 'export-report', entry: here('./steps/export-report.ts') },
    },
  },
  {
    name: 'refund_order',
    title: 'Refund an order (asks for approval)',
    description:
      'Looks the order up, asks a person to approve the refund amount with a form (the task ' +
      'waits in input_required until answered: the client asks the person, or the task view or ' +
      'mcp-tasks shows the form), then applies or declines the refund. The approver has ' +
      'approvalTimeoutSeconds (default 3600) to answer.',
    inputSchema: {
      type: 'object',
      properties: {
        orderId: { type: 'string', pattern: '^[A-Za-z0-9-]{1,40}$', description: 'The order to refund.' },
        reason: { type: 'string', maxLength: 500, description: 'Why the customer wants a refund.' },
        approvalTimeoutSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 604800,
          description: 'How long the approver has to answer. Default 3600.',
        },
      },
      required: ['orderId'],
      additionalProperties: false,
    },
    // Optional: its question reaches a person on every path (a task's input_required, a plain call's rounds or
    // elicitation, a handed-off call's task_result, the task view, mcp-tasks), never the model alone.
    taskSupport: 'optional',
    definitionPath: here('./asl/refund-order.asl.json'),
    lambdaSteps: {
      LookUpOrderFunctionArn: { functionName: 'look-up-order', entry: here('./steps/look-up-order.ts') },
      AskFunctionArn: ASK_STEP,
      ApplyRefundFunctionArn: { functionName: 'apply-refund', entry: here('./steps/apply-refund.ts') },
    },
  },
];

/**
 * The EXPRESS example: a plain call runs its EXPRESS machine with StartSyncExecution, a task runs it inside the
 * STANDARD wrapper the construct (or the local stack) adds. The example app and `npm start` serve it beside
 * {@link EXAMPLE_TOOLS}; it is a list of its own for the tests that need an EXPRESS tool or only the STANDARD ones.
 */
export const EXAMPLE_EXPRESS_TOOLS: readonly StateMachineTool[] = [
  {
    name: 'extract_keywords',
    title: 'Extract keywords',
    description:
      'Picks the most frequent words of four letters or more of a text, with their counts. An EXPRESS ' +
      'state machine: a plain call answers in moments; waitSeconds (default 0) makes it wait first. ' +
      'A text without such words fails.',
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 100000, description: 'The text to pick keywords from.' },
        maxKeywords: {
          type: 'integer',
          minimum: 1,
          maximum: 20,
          description: 'How many keywords at most. Default 5.',
        },
        waitSeconds: {
          type: 'integer',
          minimum: 0,
          maximum: 120,
          description: 'How long to wait before picking, to watch (or cancel) a task of it. Default 0.',
        },
      },
      required: ['text'],
      additionalProperties: false,
    },
    // A plain call runs the EXPRESS machine itself (StartSyncExecution); a task runs it inside a STANDARD wrapper.
    type: 'EXPRESS',
    definitionPath: here('./asl/extract-keywords.asl.json'),
    lambdaSteps: {
      ExtractKeywordsFunctionArn: { functionName: 'extract-keywords', entry: here('./steps/extract-keywords.ts') },
    },
  },
];
