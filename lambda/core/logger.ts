// The logging port: structured records with a message and fields. The handlers give it Powertools' logger; tests a
// silent one or one that collects what it is told.
export interface Logger {
  info(message: string, extra: Record<string, unknown>): void;
  warn(message: string, extra: Record<string, unknown>): void;
  error(message: string, extra: Record<string, unknown>): void;
}
