import type { ResourceCatalog } from './catalog.js';
import type { FailureQueue } from './failures.js';
import type { ResolvedTestServerOptions } from './options.js';
import type { PromptCatalog } from './prompt-catalog.js';
import type { TestkitServer } from './server.js';
import type { TestServerStats } from './stats.js';
import type { ToolCatalog } from './tool-catalog.js';

/** The shared state a session server reads and reports into (implemented by TestServer). */
export interface SessionHost {
  readonly options: ResolvedTestServerOptions;
  readonly catalog: ResourceCatalog;
  readonly tools: ToolCatalog;
  readonly prompts: PromptCatalog;
  readonly failures: FailureQueue;
  readonly stats: TestServerStats;
  attach(session: TestkitServer): void;
  detach(session: TestkitServer): void;
  crash(): void;
}
