// The local stand-in for a scheduled function's schedule (EventBridge in AWS): the expiry sweep's and the
// reconciler's. Runs `run` every `intervalMs`, one run at a time, on the same code the Lambda handler runs.

export interface ScheduleTimer {
  /** Stops scheduling runs and waits for one in progress to end. */
  stop(): Promise<void>;
}

export function startScheduleTimer(
  run: () => Promise<unknown>,
  options: { intervalMs: number; onError: (error: unknown) => void },
): ScheduleTimer {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    if (stopped) return;
    // The next run waits for this one to end, so runs never pile up behind a slow store; unref'd, so it holds no
    // process open.
    timer = setTimeout(() => {
      running = run()
        .then(() => undefined, options.onError)
        .finally(schedule);
    }, options.intervalMs).unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
