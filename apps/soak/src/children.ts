/**
 * The soak run's child processes (the gateway and the HTTP upstreams) and its scratch dir: main stops them
 * all on exit, error or SIGINT/SIGTERM (stopping resumes a SIGSTOPped child first, so that SIGTERM reaches
 * it), and the testkit kills any survivor when this process exits.
 */
import { ProcessGroup } from '@switchyard/testkit/process';

export const children = new ProcessGroup();
