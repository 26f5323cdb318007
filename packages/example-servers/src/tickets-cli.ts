#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { SessionRoster } from './roster.js';
import { serveOnStdio } from './serve.js';
import { TicketDesk } from './ticket-desk.js';
import { createTicketsServer } from './tickets-server.js';

const USAGE = `usage: switchyard-example-tickets [--tick-ms N] [--triage-step-ms N]
  --tick-ms N          refresh tickets://queue/status every N ms (default 5000; 0 = never)
  --triage-step-ms N   time triage_queue spends per ticket (default 400)`;

function integer(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) {
    process.stderr.write(`${flag} expects a non-negative integer, got '${raw}'\n${USAGE}\n`);
    process.exit(2);
  }
  return Number(raw);
}

const { values } = parseArgs({
  options: {
    'tick-ms': { type: 'string' },
    'triage-step-ms': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
});
if (values.help) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(0);
}
const desk = new TicketDesk({ tickMs: integer(values['tick-ms'], '--tick-ms') });
const roster = new SessionRoster();
const triageStepMs = integer(values['triage-step-ms'], '--triage-step-ms');
desk.onChange((change) => {
  if (change.kind === 'list_changed') roster.listChanged();
  else void roster.updated(change.uri);
});
desk.start();
serveOnStdio('tickets', (era) => createTicketsServer(desk, roster, era, { triageStepMs }));
