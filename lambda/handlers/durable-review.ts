// Lambda entry point of the durable_review example tool: a durable function (deployed with durableConfig) whose
// workflow records its question and its progress on the endpoint's task table, named in the environment.
import { createDurableReview } from '../example-tools/durable/durable-review.js';
import { durableWorkflowHelpersFromEnvironment } from './durable-workflow-helpers.js';

export const handler = createDurableReview(durableWorkflowHelpersFromEnvironment());
