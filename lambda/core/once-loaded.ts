// Parts of a cold start that load on first use, to keep it fast: the AWS SDK behind the handlers' stand-ins, and the
// 2026-07-28 era's MCP server behind the endpoint's first modern request. Here, not in handlers, so that protocol
// code can use it too.

/**
 * `load`, run once and shared by every caller; a failed load is forgotten, so that the next call tries again rather
 * than failing for the life of the Lambda instance.
 */
export function onceLoaded<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
