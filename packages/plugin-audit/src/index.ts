import {
  definePlugin,
  GATEWAY_REQUEST_KEY,
  GatewayError,
  type Logger,
  type Outcome,
  type PluginEvent,
  type RequestContext,
  type RequestMiddleware,
} from '@switchyard/core';
import { buildEventRecord } from './event.js';
import { auditFile, auditOptions, type ResolvedAuditOptions } from './options.js';
import { PACKAGE } from './package-info.js';
import { buildRecord } from './record.js';
import { redact } from './redact.js';
import { AuditWriter } from './writer.js';

/** The shape of an event's line (a governance event another plugin emitted, e.g. `pin.approved`). */
export type { AuditEventRecord } from './event.js';
export type { AuditOptions, FsyncPolicy } from './options.js';
/** The shape of one line of the audit log (the log's format, for programs that read it). */
export type { AuditRecord } from './record.js';

/**
 * The audit log: one JSON line per downstream request, and one per governance event another plugin
 * emits (`event` hook: an approval, a quarantine), appended to `file` with a durability policy.
 * List it first in `plugins` (outermost), so it sees every outcome, including the errors of the
 * plugins inside it (forbidden, rate limited).
 *
 * @example
 * // switchyard.json
 * "plugins": [["@switchyard/plugin-audit", { "file": "./audit.jsonl", "fsync": "always", "redact": ["session"] }]]
 * // tool and prompt arguments too, without the password argument:
 * "plugins": [["@switchyard/plugin-audit", { "file": "./audit.jsonl", "arguments": true, "redact": ["params.arguments.password"] }]]
 */
export default definePlugin({
  name: PACKAGE.name,
  version: PACKAGE.version,
  // Released in lockstep with @switchyard/core; the contract suite checks them together.
  core: '>=0.1.0 <1.0.0',
  options: auditOptions,
  setup(options, ctx) {
    const resolved = { ...options, file: auditFile(options.file, ctx.baseDir) };
    const records = ctx.meter.createCounter('switchyard.audit.records', {
      description: 'Audit records written to the audit file',
    });
    const writeErrors = ctx.meter.createCounter('switchyard.audit.write_errors', {
      description: 'Audit writes, fdatasyncs or rotations that failed (the record goes to the gateway log)',
    });
    const writer = new AuditWriter({
      ...resolved,
      logger: ctx.logger,
      onWritten: () => records.add(1),
      onError: () => writeErrors.add(1),
    });
    ctx.logger.debug('audit log open', { file: resolved.file, fsync: resolved.fsync });
    return {
      request: auditMiddleware(resolved, writer, {
        log: ctx.logger,
        failed: () => writeErrors.add(1),
      }),
      event: eventRecorder(resolved, writer, {
        log: ctx.logger,
        failed: () => writeErrors.add(1),
      }),
      close: () => writer.close(),
    };
  },
});

/** The event hook: one line per event, through the same writer (fsync policy) and redactions. */
function eventRecorder(
  options: ResolvedAuditOptions,
  writer: AuditWriter,
  report: { log: Logger; failed: () => void },
): (event: PluginEvent) => Promise<void> | undefined {
  return (event) => {
    try {
      const entry = redact(buildEventRecord(event), options.redact);
      return writer.append(`${JSON.stringify(entry)}\n`);
    } catch (error) {
      report.failed();
      report.log.error('could not build an audit record', { event: event.type, error: String(error) });
      return undefined;
    }
  };
}

/** The request hook: runs the inner chain, then writes the request's record before answering. */
function auditMiddleware(
  options: ResolvedAuditOptions,
  writer: AuditWriter,
  report: { log: Logger; failed: () => void },
): RequestMiddleware {
  const record = (ctx: RequestContext, outcome: Outcome, startedAt: number, durationMs: number) => {
    try {
      // Where the gateway routed it, resolved once as the request entered (a name found late included).
      const observation = {
        ctx,
        outcome,
        startedAt,
        durationMs,
        target: ctx.target,
        withArguments: options.arguments,
      };
      const entry = redact(buildRecord(observation), options.redact);
      return writer.append(`${JSON.stringify(entry)}\n`);
    } catch (error) {
      // Building the record failed (it should not): say so, and answer anyway.
      report.failed();
      report.log.error('could not build an audit record', { method: ctx.method, error: String(error) });
      return undefined;
    }
  };
  return async function audit(ctx, next) {
    // The gateway's own request on the caller's behalf (tool search's listing): not the client's.
    if (ctx.state.get(GATEWAY_REQUEST_KEY) === true) return next();
    const startedAt = Date.now();
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await next();
    } catch (error) {
      outcome = { ok: false, error: GatewayError.fromUnknown(error) };
    }
    const durable = record(ctx, outcome, startedAt, performance.now() - started);
    if (durable) await durable;
    return outcome;
  };
}
