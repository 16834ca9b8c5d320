// Step Functions' API action throttling, for the emulator's quota mode: one token bucket per action, with the bucket
// sizes and refill rates AWS publishes for US East (N. Virginia), US West (Oregon) and Europe (Ireland), scaled down
// so that a small machine reaches them. A call takes one token from its action's bucket or is refused, as AWS refuses
// it: `ThrottlingException`, which the SDK retries and then surfaces.

/** One action's published quota: at most `bucket` calls at once, `refillPerSecond` calls a second sustained. */
export interface ApiQuota {
  readonly bucket: number;
  readonly refillPerSecond: number;
}

/**
 * The published quotas ("Quotas related to API action throttling", Step Functions service quotas, the three large
 * Regions) of the actions the emulator serves. StartSyncExecution has none in that table (synchronous Express
 * starts are bounded by concurrency instead), so it is never throttled here.
 */
export const STEP_FUNCTIONS_API_QUOTAS = {
  CreateStateMachine: { bucket: 100, refillPerSecond: 1 },
  DeleteStateMachine: { bucket: 100, refillPerSecond: 1 },
  DescribeExecution: { bucket: 300, refillPerSecond: 15 },
  DescribeStateMachine: { bucket: 200, refillPerSecond: 20 },
  GetExecutionHistory: { bucket: 400, refillPerSecond: 20 },
  ListExecutions: { bucket: 200, refillPerSecond: 5 },
  ListStateMachines: { bucket: 100, refillPerSecond: 5 },
  ListTagsForResource: { bucket: 100, refillPerSecond: 1 },
  SendTaskFailure: { bucket: 3_000, refillPerSecond: 500 },
  SendTaskHeartbeat: { bucket: 3_000, refillPerSecond: 500 },
  SendTaskSuccess: { bucket: 3_000, refillPerSecond: 500 },
  StartExecution: { bucket: 1_300, refillPerSecond: 300 },
  StopExecution: { bucket: 1_000, refillPerSecond: 200 },
  TagResource: { bucket: 200, refillPerSecond: 1 },
  UntagResource: { bucket: 200, refillPerSecond: 1 },
} as const satisfies Record<string, ApiQuota>;

export type ThrottledAction = keyof typeof STEP_FUNCTIONS_API_QUOTAS;

export interface StepFunctionsQuotaOptions {
  /**
   * Every bucket size and refill rate is divided by this (at least 1): 100 makes StartExecution's bucket 13 calls and
   * its refill 3 a second. A bucket holds at least one token, so every action can still be called.
   */
  readonly scaleDownBy: number;
  /**
   * The actions to throttle; the others answer as without quotas. A stand-in that calls the emulator for what AWS
   * does without an API call (the local status events describe executions) needs its actions left out.
   * @default every action in STEP_FUNCTIONS_API_QUOTAS
   */
  readonly actions?: readonly ThrottledAction[];
  /** Milliseconds, monotonic; tests move it by hand. @default performance.now */
  readonly now?: () => number;
}

/** A token bucket that starts full and refills continuously (fractions of a token count). */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    readonly size: number,
    readonly refillPerSecond: number,
    private readonly now: () => number,
  ) {
    this.tokens = size;
    this.refilledAt = now();
  }

  /** Takes one token when there is one; `false`, taking nothing, when the bucket holds less than one. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.size, this.tokens + ((now - this.refilledAt) / 1000) * this.refillPerSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** The buckets of a quota mode, and how many calls each action had refused. */
export class ApiQuotas {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly refusals = new Map<string, number>();

  constructor(options: StepFunctionsQuotaOptions) {
    if (!(options.scaleDownBy >= 1)) throw new Error(`scaleDownBy must be at least 1, not ${options.scaleDownBy}`);
    const now = options.now ?? (() => performance.now());
    const actions = options.actions ?? (Object.keys(STEP_FUNCTIONS_API_QUOTAS) as ThrottledAction[]);
    for (const action of actions) {
      const quota: ApiQuota = STEP_FUNCTIONS_API_QUOTAS[action];
      const size = Math.max(1, quota.bucket / options.scaleDownBy);
      this.buckets.set(action, new TokenBucket(size, quota.refillPerSecond / options.scaleDownBy, now));
    }
  }

  /** Whether a call of `action` may run now (an action without a bucket always may). */
  admit(action: string): boolean {
    const bucket = this.buckets.get(action);
    if (bucket === undefined || bucket.take()) return true;
    this.refusals.set(action, (this.refusals.get(action) ?? 0) + 1);
    return false;
  }

  /** Calls refused so far, by action (actions never refused are absent). */
  refused(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.refusals);
  }

  /** The bucket an action was given (its size and refill after scaling), or undefined when it is not throttled. */
  bucketOf(action: string): Pick<TokenBucket, 'size' | 'refillPerSecond'> | undefined {
    return this.buckets.get(action);
  }
}
