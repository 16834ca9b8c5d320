// A test file's own Step Functions emulator and the real SFNClient on it, over loopback HTTP.
import { SFNClient, type SFNClientConfig } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import {
  startStepFunctionsEmulator,
  type StepFunctionsEmulator,
  type StepFunctionsEmulatorOptions,
} from '../../local/step-functions/emulator.js';

export type LocalSfnClientConfig = Omit<SFNClientConfig, 'endpoint' | 'region' | 'credentials'>;

/**
 * The real SFNClient on the emulator at `url`, with the dummy local identity. It makes a single attempt, so an error
 * the emulator answers reaches the test as it is, not after the SDK's backoff; `config` adds to that or overrides it
 * (`maxAttempts: undefined` leaves the SDK its own default).
 */
export function localSfnClient(url: string, config: LocalSfnClientConfig = {}): SFNClient {
  return new SFNClient({
    endpoint: url,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
    ...config,
  });
}

export interface StepFunctionsEmulatorFixture {
  readonly emulator: StepFunctionsEmulator;
  readonly sfn: SFNClient;
}

/**
 * Registers beforeAll/afterAll hooks that start an emulator with a `localSfnClient` on it and stop both; read the
 * fixture's properties inside tests and hooks only, since they exist only between those two hooks.
 */
export function useStepFunctionsEmulator(
  options: StepFunctionsEmulatorOptions = {},
  clientConfig: LocalSfnClientConfig = {},
): StepFunctionsEmulatorFixture {
  let emulator: StepFunctionsEmulator | undefined;
  let sfn: SFNClient | undefined;

  beforeAll(async () => {
    emulator = await startStepFunctionsEmulator(options);
    sfn = localSfnClient(emulator.url, clientConfig);
  });

  afterAll(async () => {
    sfn?.destroy();
    await emulator?.close();
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the Step Functions emulator is used outside a test');
    return value;
  };
  return {
    get emulator() {
      return started(emulator);
    },
    get sfn() {
      return started(sfn);
    },
  };
}
