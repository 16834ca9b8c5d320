// Lambda step of protocol_error_job: crashes, uncaught, so the execution FAILS (a protocol-level error, not a tool
// error).

class FixtureCrash extends Error {
  constructor(message: string) {
    super(message);
    // Step Functions reports the error under its name.
    this.name = 'FixtureCrash';
  }
}

export const handler = async (): Promise<never> => {
  throw new FixtureCrash('protocol_error_job crashed, as this fixture always does.');
};
