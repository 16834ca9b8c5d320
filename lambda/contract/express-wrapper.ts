// The STANDARD wrapper an EXPRESS tool's tasks run. EXPRESS machines have no DescribeExecution, no StopExecution, no
// status events and last 5 minutes at most, and a task needs the first three; a STANDARD machine whose one working
// state runs the EXPRESS machine with `states:startExecution.sync:2` has them all. Its ASL is made here, so that the
// CDK construct (lib/tools/express-wrapper.ts) and the local stack (local/infrastructure.ts) deploy the same wrapper.
//
// What the definition guarantees, and why:
// - The task's result is exactly the EXPRESS machine's: the input goes through unchanged (`Input.$: $`), and the output
//   is the child's `Output`. With `.sync:2` Step Functions hands the child's output over already parsed as JSON (with
//   `.sync` it would be a JSON string, for `States.StringToJson`), so `OutputPath: $.Output` is all it takes.
// - A failed child fails the wrapper with the child's own error and cause, so a task's failure reads as a plain call's
//   does. Step Functions reports a failed child as `States.TaskFailed` whose cause is the child's execution described
//   as JSON; the wrapper catches that, parses it and fails with its `Error` and `Cause` (or says it timed out).
// - The child is named as the wrapper's execution (`$$.Execution.Name`, our 80-character `task-…` name): execution
//   names are per state machine (and EXPRESS ones need not be unique at all), so the same name is free, and it finds
//   a task's child in the EXPRESS machine's logs. The wrapper does not add
//   `AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID` (the console's parent link): Step Functions takes it from the
//   child's input, where the EXPRESS machine would see it, and then a task's input would differ from a plain call's.

/** The wrapper's state that runs the EXPRESS machine: a task's current step while its child runs. */
export const expressWrapperStateName = 'RunExpressMachine';

/** The integration that starts the child and waits for it, its output parsed as JSON. */
export const START_EXECUTION_SYNC_2 = 'arn:aws:states:::states:startExecution.sync:2';

const READ_FAILURE = 'ReadChildFailure';
const CHOOSE_FAILURE = 'ChooseChildFailure';
const TIMED_OUT = 'ChildTimedOut';
const FAIL_AS_CHILD = 'FailAsChild';
const FAIL_WITH_CHILD_ERROR = 'FailWithChildError';
const FAIL_WITH_CHILD_CAUSE = 'FailWithChildCause';
const FAIL_AS_REPORTED = 'FailAsReported';

const isPresent = (variable: string): Record<string, unknown> => ({ Variable: variable, IsPresent: true });

/** The wrapper's ASL (JSON text) for the EXPRESS machine `expressStateMachineArn`. */
export function expressWrapperDefinition(expressStateMachineArn: string): string {
  const definition = {
    Comment: `Runs the EXPRESS state machine ${expressStateMachineArn} for a task and ends as it does.`,
    StartAt: expressWrapperStateName,
    States: {
      [expressWrapperStateName]: {
        Type: 'Task',
        Resource: START_EXECUTION_SYNC_2,
        Parameters: { StateMachineArn: expressStateMachineArn, 'Input.$': '$', 'Name.$': '$$.Execution.Name' },
        OutputPath: '$.Output',
        Catch: [{ ErrorEquals: ['States.TaskFailed'], Next: READ_FAILURE }],
        End: true,
      },
      // The caught error is {Error, Cause}; Cause is the child's DescribeExecution answer as JSON text.
      [READ_FAILURE]: {
        Type: 'Pass',
        Parameters: { 'Error.$': '$.Error', 'Cause.$': '$.Cause', 'Child.$': 'States.StringToJson($.Cause)' },
        Next: CHOOSE_FAILURE,
      },
      // A Fail state's ErrorPath and CausePath must name a present string: one branch per shape the child's end takes.
      [CHOOSE_FAILURE]: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.Child.Status', StringEquals: 'TIMED_OUT', Next: TIMED_OUT },
          { And: [isPresent('$.Child.Error'), isPresent('$.Child.Cause')], Next: FAIL_AS_CHILD },
          { ...isPresent('$.Child.Error'), Next: FAIL_WITH_CHILD_ERROR },
          { ...isPresent('$.Child.Cause'), Next: FAIL_WITH_CHILD_CAUSE },
        ],
        Default: FAIL_AS_REPORTED,
      },
      [TIMED_OUT]: { Type: 'Fail', Error: 'States.Timeout', Cause: 'The EXPRESS execution timed out.' },
      [FAIL_AS_CHILD]: { Type: 'Fail', ErrorPath: '$.Child.Error', CausePath: '$.Child.Cause' },
      [FAIL_WITH_CHILD_ERROR]: { Type: 'Fail', ErrorPath: '$.Child.Error' },
      [FAIL_WITH_CHILD_CAUSE]: { Type: 'Fail', CausePath: '$.Child.Cause' },
      [FAIL_AS_REPORTED]: { Type: 'Fail', ErrorPath: '$.Error', CausePath: '$.Cause' },
    },
  };
  return JSON.stringify(definition, null, 2);
}
