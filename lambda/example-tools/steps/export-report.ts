// Lambda step of export_report: its upstream is always unavailable, to show how a failed execution reaches the client.

class UpstreamUnavailable extends Error {
  constructor(message: string) {
    super(message);
    // Step Functions matches Retry/Catch on the error's name.
    this.name = 'UpstreamUnavailable';
  }
}

export const handler = async (input: { reportName: string }): Promise<never> => {
  throw new UpstreamUnavailable(
    `The reporting service did not accept report '${input.reportName}': it is unavailable.`,
  );
};
