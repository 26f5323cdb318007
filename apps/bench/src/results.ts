/** Everything one bench run measured, as the JSON report and the table see it (a section not run is absent). */
import type { CatalogResult } from './catalog/index.js';
import type { CredentialsResult } from './credentials/index.js';
import type { ReadResult, ToolCallResult } from './direct-vs-gateway.js';
import type { EnumerateResult } from './enumerate.js';
import type { PathsResult } from './paths/index.js';
import type { PluginsResult } from './plugins/index.js';
import type { ReplicasResult } from './replicas/index.js';
import type { SessionMemoryResult } from './session-memory/index.js';

/** Section 4: `tools/call` through the gateway vs direct, and the `tools/list` enumeration scenarios. */
export interface ToolsResult {
  call?: ToolCallResult;
  list: EnumerateResult[];
}

export interface BenchResults {
  read?: ReadResult;
  /** Section 2: the `resources/list` enumeration scenarios. */
  enumerate: EnumerateResult[];
  plugins?: PluginsResult;
  tools?: ToolsResult;
  /** Section 5: replicas behind HAProxy sharing one Redis (or why it was skipped). */
  replicas?: ReplicasResult;
  /** Section 6: every upstream transport × client era × method × concurrency, memory per session, profiles. */
  paths?: PathsResult;
  /** The gateway's heap and RSS per idle legacy session, and what holds it (session-memory/). */
  sessionMemory?: SessionMemoryResult;
  /** Section 8: tool search over large catalogs (catalog/). */
  catalog?: CatalogResult;
  /** Section 10: the personal-credentials vault per call (credentials/). */
  credentials?: CredentialsResult;
}
