/** Everything one bench run measured, as the JSON report and the table see it (a section not run is absent). */
import type { EnumerateResult } from './enumerate-result.js';
import type { PluginsResult } from './plugins.js';
import type { ReadResult } from './read.js';

export interface BenchResults {
  read?: ReadResult;
  /** Section 2: the `resources/list` enumeration scenarios. */
  enumerate: EnumerateResult[];
  plugins?: PluginsResult;
}
