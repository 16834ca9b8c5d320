// Step Functions' own limits that the stand-ins (the in-memory executor, the local emulator) hold their callers to, as
// the service does.

/** The most an execution's input, or a task's output sent back (SendTaskSuccess), may be: 256 KiB of UTF-8. */
export const MAX_EXECUTION_PAYLOAD_BYTES = 256 * 1024;
