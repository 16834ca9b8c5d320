// The example tools: each is an ASL definition in asl/ whose Lambda steps are handler modules in handlers/.
// The local stack and the CDK app both deploy exactly these.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { JsonSchema } from '../tools/tool-definition.js';

export interface ExampleLambdaStep {
  /** Function name (local Lambda ARNs and CDK construct IDs derive from it). */
  readonly functionName: string;
  /** Absolute path of the handler module; it exports `handler`. */
  readonly entry: string;
}

export interface ExampleTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** Absolute path of the ASL definition. */
  readonly definitionPath: string;
  /** ASL `${Placeholder}` -> the Lambda step whose ARN replaces it. */
  readonly lambdaSteps: Readonly<Record<string, ExampleLambdaStep>>;
}

const here = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

export const EXAMPLE_TOOLS: readonly ExampleTool[] = [
  {
    name: 'analyze_documents',
    title: 'Analyze documents',
    description:
      'Analyses each document in parallel, waits for a review window (reviewSeconds, default 20), then returns a summary: word counts, the longest document and keywords. Runs for tens of seconds: call it as a task.',
    inputSchema: {
      type: 'object',
      properties: {
        documents: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 50, description: 'The texts to analyse.' },
        reviewSeconds: { type: 'integer', minimum: 0, maximum: 3600, description: 'How long the review window lasts. Default 20.' },
      },
      required: ['documents'],
      additionalProperties: false,
    },
    definitionPath: here('./asl/analyze-documents.asl.json'),
    lambdaSteps: {
      AnalyzeDocumentFunctionArn: { functionName: 'analyze-document', entry: here('./handlers/analyze-document.ts') },
      SummarizeAnalysesFunctionArn: { functionName: 'summarize-analyses', entry: here('./handlers/summarize-analyses.ts') },
    },
  },
  {
    name: 'text_stats',
    title: 'Text statistics',
    description: 'Counts the words, unique words, sentences and characters of a text. Fast. A text without words is reported as a tool error.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', maxLength: 100000, description: 'The text to count.' } },
      required: ['text'],
      additionalProperties: false,
    },
    definitionPath: here('./asl/text-stats.asl.json'),
    lambdaSteps: { TextStatsFunctionArn: { functionName: 'text-stats', entry: here('./handlers/text-stats.ts') } },
  },
  {
    name: 'export_report',
    title: 'Export report (always fails)',
    description: 'Sends a report to an upstream reporting service that is always unavailable; retried once, then the task fails. Shows how failures reach the client.',
    inputSchema: {
      type: 'object',
      properties: { reportName: { type: 'string', minLength: 1, maxLength: 200 } },
      required: ['reportName'],
      additionalProperties: false,
    },
    definitionPath: here('./asl/export-report.asl.json'),
    lambdaSteps: { ExportReportFunctionArn: { functionName: 'export-report', entry: here('./handlers/export-report.ts') } },
  },
];

/** The tool's ASL with each `${Placeholder}` replaced by the ARN `arnOf` gives for its Lambda step. */
export function definitionWithArns(tool: ExampleTool, arnOf: (step: ExampleLambdaStep) => string): string {
  return readFileSync(tool.definitionPath, 'utf8').replace(/\$\{(\w+)\}/g, (placeholder, name: string) => {
    const step = tool.lambdaSteps[name];
    if (step === undefined) throw new Error(`${tool.definitionPath}: no Lambda step for ${placeholder}`);
    return arnOf(step);
  });
}
