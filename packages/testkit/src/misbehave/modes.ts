/**
 * The ways a misbehaving testkit upstream breaks the protocol, one name each (`--misbehave <mode>`,
 * `TestServerOptions.misbehave`). The names are an interface: gateway tests select them.
 */
export const MISBEHAVE_MODES = [
  'no-result-type',
  'invalid-result',
  'unknown-ids',
  'duplicate-ids',
  'stdout-noise',
  'malformed-notifications',
  'huge-result',
  'repeating-cursor',
  'endless-cursor',
  'bad-tool-names',
  'list-changed-burst',
  'server-requests',
  'hang-handshake',
  'http-500',
] as const;

export type MisbehaveMode = (typeof MISBEHAVE_MODES)[number];

/** The echo tools `bad-tool-names` adds: invalid for strict clients, colliding once mapped to `[A-Za-z0-9_-]`. */
export const BAD_TOOL_NAMES: readonly string[] = [
  'my.tool',
  'my tool',
  'my/tool',
  'my_tool',
  'ünïcødé',
  'x'.repeat(100),
];

/** The transports a testkit process serves MCP on. */
export type MisbehaveTransport = 'stdio' | 'http';

/** Modes that mean something on one transport only (everything else works on both). */
const ONLY_ON: Partial<Record<MisbehaveMode, MisbehaveTransport>> = {
  'stdout-noise': 'stdio',
  'http-500': 'http',
};

export function isMisbehaveMode(value: unknown): value is MisbehaveMode {
  return typeof value === 'string' && (MISBEHAVE_MODES as readonly string[]).includes(value);
}

/** Validates a list of mode names (duplicates collapse); throws a RangeError naming the valid ones. */
export function parseMisbehaveModes(values: readonly unknown[]): MisbehaveMode[] {
  const modes: MisbehaveMode[] = [];
  for (const value of values) {
    if (!isMisbehaveMode(value)) {
      throw new RangeError(
        `unknown misbehave mode '${String(value)}' (one of: ${MISBEHAVE_MODES.join(', ')})`,
      );
    }
    if (!modes.includes(value)) modes.push(value);
  }
  if (modes.includes('repeating-cursor') && modes.includes('endless-cursor')) {
    throw new RangeError("misbehave modes 'repeating-cursor' and 'endless-cursor' exclude each other");
  }
  return modes;
}

/** Splits `modes` into those that mean something on `transport` and those that do not (to warn about). */
export function modesOn(
  modes: readonly MisbehaveMode[],
  transport: MisbehaveTransport,
): { served: MisbehaveMode[]; ignored: MisbehaveMode[] } {
  const served: MisbehaveMode[] = [];
  const ignored: MisbehaveMode[] = [];
  for (const mode of modes) {
    const only = ONLY_ON[mode];
    (only === undefined || only === transport ? served : ignored).push(mode);
  }
  return { served, ignored };
}

/** The one transport `mode` is limited to, if any. */
export function onlyTransportOf(mode: MisbehaveMode): MisbehaveTransport | undefined {
  return ONLY_ON[mode];
}
