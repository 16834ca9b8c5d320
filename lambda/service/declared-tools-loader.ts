// Serves an instance's declared tools from the catalog item the deployment wrote (its key in the function's
// environment): read at the instance's first request, then never again, since a new catalog is a new key and so a new
// function configuration. A missing item is logged once per attempt, as the deployment fault it is, and refused as
// ToolCatalogMissingError; a failed read is tried again by the next request.
import { ToolCatalogMissingError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { onceLoaded } from '../core/once-loaded.js';
import type { DeclaredCatalogStore } from '../store/declared-catalog-store.js';
import type { ToolRegistry } from '../tools/tool-registry.js';

export interface DeclaredToolsLoaderOptions {
  readonly catalog: Pick<DeclaredCatalogStore, 'read'>;
  /** The catalog's key, as the deployment named it. */
  readonly key: string;
  readonly tools: ToolRegistry;
  readonly logger: Logger;
}

export class DeclaredToolsLoader {
  private readonly loaded: () => Promise<void>;

  constructor(private readonly options: DeclaredToolsLoaderOptions) {
    this.loaded = onceLoaded(() => this.read());
  }

  /** Resolves once the declared tools are served; concurrent first callers share the one read. */
  load(): Promise<void> {
    return this.loaded();
  }

  private async read(): Promise<void> {
    const { catalog, key, tools, logger } = this.options;
    const declared = await catalog.read(key);
    if (declared === null) {
      logger.error('The declared tool catalog is missing from the task table: no tool can be served', {
        key,
        fix: 'deploy the stack again: its custom resource writes the catalog before the function is updated',
      });
      throw new ToolCatalogMissingError(key);
    }
    tools.serveDeclared(declared);
  }
}
