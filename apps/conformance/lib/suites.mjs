// Which suite runs at which revision setting, which scenarios each lists, and which it requires.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runProcess } from '@switchyard/testkit/process';

/**
 * The three revision settings every server scenario is run at. `requirements` names the file in the
 * 0.2 line's `requirements/` that says which scenarios are required there (0.1.16 has none of its own:
 * it runs the 2025 wire, so it is held to the 2025-11-25 set).
 */
export const REVISIONS = [
  {
    id: '0.1.16',
    title: '@modelcontextprotocol/conformance 0.1.16, default (2025) wire',
    pkg: '@modelcontextprotocol/conformance',
    specVersion: undefined,
    requirements: '2025-11-25',
  },
  {
    id: '2025-11-25',
    title: '@modelcontextprotocol/conformance 0.2.0-alpha.12 --spec-version 2025-11-25',
    pkg: '@modelcontextprotocol/conformance-next',
    specVersion: '2025-11-25',
    requirements: '2025-11-25',
  },
  {
    id: '2026-07-28',
    title: '@modelcontextprotocol/conformance 0.2.0-alpha.12 --spec-version 2026-07-28 (stateless wire)',
    pkg: '@modelcontextprotocol/conformance-next',
    specVersion: '2026-07-28',
    requirements: '2026-07-28',
  },
];

/**
 * Extension scenarios by name prefix. Extensions are off the spec timeline (the suite runs them on the
 * 2026-07-28 wire); the fixture implements tasks and skills, so those run there, forced, one at a time.
 */
const EXTENSIONS = [
  {
    prefix: 'tasks-',
    why: 'tasks extension (SEP-2663), run on the 2026-07-28 wire only',
    runAt: '2026-07-28',
  },
  {
    prefix: 'sep-2640-skills-',
    why: 'skills extension (SEP-2640), run on the 2026-07-28 wire only',
    runAt: '2026-07-28',
  },
];

/**
 * The suite's `list` output, parsed: server scenarios with the revisions (or `extension`) each applies to,
 * and how many client and authorization-server scenarios it has (those test other kinds of software).
 */
export async function listScenarios(node, suiteCli) {
  const { status, timedOut, proc } = await runProcess({
    name: 'suite list',
    command: node,
    args: [suiteCli, 'list'],
  });
  if (status !== 0)
    throw new Error(
      `${suiteCli} list ${timedOut ? 'timed out' : `exited ${status}`}:\n${proc.tail().join('\n')}`,
    );
  const output = proc.stdout();
  const sections = {};
  let current;
  for (const line of output.split('\n')) {
    const heading = /^(Server|Client|Authorization server) scenarios/.exec(line);
    if (heading) {
      current = heading[1];
      sections[current] ??= [];
      continue;
    }
    const match = /^\s*-\s+(\S+)\s+\[([^\]]*)\]/.exec(line);
    if (match && current)
      sections[current].push({ name: match[1], tags: match[2].split(',').map((t) => t.trim()) });
  }
  const server = sections.Server ?? [];
  if (server.length === 0) throw new Error(`no server scenarios in the output of ${suiteCli} list`);
  return {
    server,
    clientCount: sections.Client?.length ?? 0,
    authorizationCount: sections['Authorization server']?.length ?? 0,
  };
}

/**
 * The `server:` list of a requirements file plus its not-scored server entries. The files have a fixed,
 * simple shape (top-level keys, `- name` items, `- scenario:` records), read here without a YAML library.
 */
export function readRequirements(suiteDir, revision) {
  const text = readFileSync(join(suiteDir, 'requirements', `${revision}.yaml`), 'utf8');
  const required = new Set();
  const notScored = new Map();
  let section;
  let record;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '');
    if (/^\S/.test(line)) {
      section = line.replace(/:.*$/, '');
      continue;
    }
    if (section === 'server') {
      const item = /^\s+-\s+(\S+)/.exec(line);
      if (item) required.add(item[1]);
    } else if (section === 'not_scored') {
      const start = /^\s+-\s+scenario:\s*(\S+)/.exec(line);
      if (start) {
        record = { scenario: start[1] };
        continue;
      }
      const field = /^\s+(leg|reason):\s*(\S+)/.exec(line);
      if (record && field) {
        record[field[1]] = field[2];
        if (record.leg === 'server' && record.reason) notScored.set(record.scenario, record.reason);
      }
    }
  }
  return { required, notScored };
}

/**
 * Splits a suite's scenarios into those run at `revision` and those not run, with the reason. `forced`
 * names the extension scenarios among `run`: the suite's `--suite all` skips them, so they run alone with
 * `--force`. `noExtensions` (a reason) leaves every extension scenario out, for a server that implements none.
 */
export function planRevision(revision, scenarios, { noExtensions } = {}) {
  const run = [];
  const forced = new Set();
  const notRun = [];
  for (const scenario of scenarios) {
    const extension = EXTENSIONS.find((e) => scenario.name.startsWith(e.prefix));
    if (scenario.tags.includes('extension') || extension) {
      if (noExtensions !== undefined) {
        notRun.push({ name: scenario.name, why: noExtensions });
      } else if (extension?.runAt !== undefined && extension.runAt === revision.specVersion) {
        run.push(scenario.name);
        forced.add(scenario.name);
      } else {
        notRun.push({
          name: scenario.name,
          why: extension?.why ?? 'extension scenario, not implemented by the fixture',
        });
      }
    } else if (revision.specVersion !== undefined && !scenario.tags.includes(revision.specVersion)) {
      notRun.push({
        name: scenario.name,
        why: `not applicable at ${revision.specVersion} (applies to ${scenario.tags.join(', ')})`,
      });
    } else {
      run.push(scenario.name);
    }
  }
  return { run, forced, notRun };
}
