import { type LogLevel, PluginError } from '@switchyard/core';
import { exiting, killChildren, terminateChildren } from '@switchyard/core/listener';
import { bannerColor, bannerSkipped, formatBanner } from './banner.js';
import { collectBannerFacts } from './banner-facts.js';
import type { GatewayConfig } from './config/load.js';
import { type RunningGateway, runGateway, StartAborted } from './run.js';

export interface ServeOptions {
  logLevel?: LogLevel;
  /** Reload on a change of the config file (it was named with --config). */
  watch: boolean;
  virtualServer?: string;
  quiet?: boolean;
  banner?: boolean;
}

/**
 * The gateway as a process (`switchyard` without a command): starts it on `config`, shows the banner once
 * ready, and owns the process's signals from before the upstreams start — SIGINT/SIGTERM drain, a second
 * one exits at once with the upstream processes stopped first, stdin closing ends a stdio session.
 * Resolves with the exit code.
 */
export async function serve(config: GatewayConfig, options: ServeOptions): Promise<number> {
  // The signals are ours from before the upstreams start: a stop while they connect (which may last up to
  // their timeoutMs) closes what was started instead of dying with the upstream processes left running.
  const startup = new AbortController();
  let running: RunningGateway | undefined;
  let stopping = false;
  let signals = 0;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  /** Set by a second signal: the forced exit is under way and exits itself (a drain ending meanwhile waits). */
  let forced = false;
  const drain = (gateway: RunningGateway) =>
    void gateway.drain().then(() => {
      if (!forced) finish(0);
    });
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    // The whole process is going: its upstream processes get short stop steps (its client may kill it soon).
    exiting();
    process.stderr.write(`switchyard: ${reason}, shutting down (draining; a second signal forces exit)\n`);
    if (running) drain(running);
    else startup.abort(); // runGateway closes what it started and rejects with StartAborted
  };
  // Only signals count towards forcing: stdin closing is how a stdio client ends the session, and the
  // SIGTERM it sends next (the MCP Inspector sends both at once) must not cut the orderly close short.
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    signals += 1;
    if (signals === 1) {
      if (stopping) process.stderr.write(`switchyard: ${signal}: already shutting down\n`);
      return stop(signal);
    }
    const code = signal === 'SIGINT' ? 130 : 143;
    forced = true;
    if (signals > 2) {
      killChildren(); // the stop sequence still running would outlive us
      process.exit(code);
    }
    process.stderr.write(
      `switchyard: ${signal} again, exiting without waiting (upstream processes stopped first)\n`,
    );
    // No upstream process outlives the gateway, even a forced exit (DESIGN §11).
    void terminateChildren().finally(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    running = await runGateway(config, {
      logLevel: options.logLevel,
      watch: options.watch,
      stop: startup.signal,
      virtualServer: options.virtualServer,
    });
  } catch (error) {
    if (error instanceof StartAborted) return 0;
    if (error instanceof PluginError) {
      process.stderr.write(
        `switchyard: plugin error (${error.code}): ${error.message}\nNothing was started.\n`,
      );
      return 2;
    }
    const e = error as NodeJS.ErrnoException & { port?: number };
    const hint =
      e.code === 'EADDRINUSE'
        ? ` (the port is in use: pick another "port" in ${listenersOn(config, e.port)})`
        : '';
    process.stderr.write(`switchyard: cannot start: ${e.message}${hint}\n`);
    return 1;
  }
  if (stopping) drain(running);
  else if (
    !bannerSkipped({
      quiet: options.quiet,
      banner: options.banner,
      logLevel: options.logLevel ?? config.logLevel,
      tty: process.stderr.isTTY,
    })
  ) {
    const ready = running;
    void collectBannerFacts(ready, performance.now())
      .then((facts) => process.stderr.write(formatBanner(facts, { color: bannerColor(process.stderr) })))
      .catch(() => {}); // the banner is a courtesy: never a reason to fail
  }
  running.stdioClosed?.then(() => stop('stdin closed'));
  return finished;
}

/** The listeners configured on `port` (`listen.http`, …), to name in an "address in use" message. */
function listenersOn(config: GatewayConfig, port: number | undefined): string {
  const { http, ws, admin } = config.listen;
  const named = Object.entries({ http, ws, admin })
    .filter(([, listener]) => listener !== undefined && listener.port === port)
    .map(([name]) => `listen.${name}`);
  return named.length > 0 ? named.join(' or ') : 'listen';
}
