/** The soak harness's command line. */
import { parseArgs } from 'node:util';

export const USAGE = `usage: node apps/soak/dist/main.js [--duration S] [--sessions N] [--report-every S] [--json PATH]
                                    [--think-ms MS] [--request-timeout-ms MS] [--gateway-log PATH]

  --duration S            how long the traffic and the faults run (default 600)
  --sessions N            client sessions, half legacy (2025-11-25) and half modern (2026-07-28) (default 40)
  --report-every S        one progress line every S seconds (default 10)
  --json PATH             also write the final figures as JSON to PATH
  --think-ms MS           pause of each session between two requests (default 100)
  --request-timeout-ms MS a request not answered within MS counts as lost (default 15000)
  --gateway-log PATH      copy the gateway's log (stderr) to PATH`;

export interface SoakArgs {
  durationS: number;
  sessions: number;
  reportEveryS: number;
  json?: string;
  thinkMs: number;
  requestTimeoutMs: number;
  gatewayLog?: string;
  help: boolean;
}

function positive(raw: string | undefined, flag: string, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${flag} expects a number >= ${min}, got '${raw}'`);
  return n;
}

/** Parses argv; throws with a message for the usage line on anything unknown or malformed. */
export function parseSoakArgs(argv: string[] = process.argv.slice(2)): SoakArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      sessions: { type: 'string' },
      'report-every': { type: 'string' },
      json: { type: 'string' },
      'think-ms': { type: 'string' },
      'request-timeout-ms': { type: 'string' },
      'gateway-log': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  const sessions = Math.round(positive(values.sessions, '--sessions', 40, 2));
  return {
    durationS: positive(values.duration, '--duration', 600, 20),
    sessions,
    reportEveryS: positive(values['report-every'], '--report-every', 10),
    json: values.json,
    thinkMs: positive(values['think-ms'], '--think-ms', 100, 0),
    requestTimeoutMs: positive(values['request-timeout-ms'], '--request-timeout-ms', 15_000, 1000),
    gatewayLog: values['gateway-log'],
    help: values.help === true,
  };
}
