// The local stand-in for the expiry sweep's schedule (EventBridge in AWS): runs the sweep every `intervalMs`, one
// run at a time, on the same code the Lambda handler runs.
import type { ExpirySweep } from '../lambda/service/expiry-sweep-service.js';

export interface ExpirySweepTimer {
  /** Stops scheduling runs and waits for one in progress to end. */
  stop(): Promise<void>;
}

export function startExpirySweepTimer(
  sweep: Pick<ExpirySweep, 'run'>,
  options: { intervalMs: number; onError: (error: unknown) => void },
): ExpirySweepTimer {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    if (stopped) return;
    // The next run waits for this one to end, so runs never pile up behind a slow store; unref'd, so it holds no
    // process open.
    timer = setTimeout(() => {
      running = sweep
        .run()
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
