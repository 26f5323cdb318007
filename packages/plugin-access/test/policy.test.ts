import {
  definePlugin,
  type Identity,
  PluginError,
  setupPlugins,
  silentLogger,
  uriReadings,
} from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import access from '../src/index.js';
import { AccessPolicy, type Subject } from '../src/policy.js';

const alice: Identity = { id: 'alice', groups: ['platform', 'docs-team'], anonymous: false };
const bob: Identity = { id: 'bob', groups: ['contractors'], anonymous: false };
const anon: Identity = { id: 'anonymous', groups: [], anonymous: true };

const read = (identity: Identity, uri: string | undefined, server?: string): Subject => ({
  identity,
  method: 'resources/read',
  server,
  uri,
});

describe('AccessPolicy.decide: first match wins, then the default', () => {
  it('defaults to deny when nothing matches and no default is given', () => {
    const policy = AccessPolicy.compile({});
    expect(policy.default).toBe('deny');
    expect(policy.decide(read(alice, 'docs+file:///a', 'docs'))).toEqual({ effect: 'deny', rule: undefined });
    expect(AccessPolicy.compile(undefined).default).toBe('deny');
  });

  it('uses default allow when configured', () => {
    const policy = AccessPolicy.compile({ default: 'allow' });
    expect(policy.decide(read(bob, 'docs+file:///a', 'docs')).effect).toBe('allow');
  });

  it('the first matching rule decides, later rules are not consulted', () => {
    const policy = AccessPolicy.compile({
      default: 'allow',
      rules: [
        { effect: 'deny', uris: ['docs+file:///private/**'] },
        { effect: 'allow', groups: ['platform'] },
        { effect: 'deny', clients: ['alice'] },
      ],
    });
    expect(policy.decide(read(alice, 'docs+file:///private/x'))).toEqual({ effect: 'deny', rule: 0 });
    expect(policy.decide(read(alice, 'docs+file:///public/x'))).toEqual({ effect: 'allow', rule: 1 });
    expect(policy.decide(read(bob, 'docs+file:///public/x'))).toEqual({ effect: 'allow', rule: undefined });
  });

  it('a rule matches only when every field it names matches', () => {
    const policy = AccessPolicy.compile({
      default: 'deny',
      rules: [
        {
          effect: 'allow',
          clients: ['alice', 'bob'],
          groups: ['platform'],
          servers: ['docs'],
          uris: ['docs+**'],
          methods: ['resources/read'],
        },
      ],
    });
    expect(policy.decide(read(alice, 'docs+file:///a', 'docs')).effect).toBe('allow');
    expect(policy.decide(read(bob, 'docs+file:///a', 'docs')).effect).toBe('deny'); // groups
    expect(policy.decide(read(alice, 'docs+file:///a', 'wiki')).effect).toBe('deny'); // servers
    expect(policy.decide(read(alice, 'wiki+file:///a', 'docs')).effect).toBe('deny'); // uris
    expect(
      policy.decide({ ...read(alice, 'docs+file:///a', 'docs'), method: 'resources/subscribe' }).effect,
    ).toBe('deny'); // methods
    expect(policy.decide(read(anon, 'docs+file:///a', 'docs')).effect).toBe('deny'); // clients
  });

  it('groups match when any of the caller’s groups is listed', () => {
    const policy = AccessPolicy.compile({ rules: [{ effect: 'allow', groups: ['ops', 'docs-team'] }] });
    expect(policy.decide(read(alice, 'x:y')).effect).toBe('allow');
    expect(policy.decide(read(bob, 'x:y')).effect).toBe('deny');
  });

  it('rules naming servers do not match a target no upstream routes; rules naming uris do not match a target without URI', () => {
    const policy = AccessPolicy.compile({
      default: 'allow',
      rules: [
        { effect: 'deny', servers: ['docs'] },
        { effect: 'deny', uris: ['**'] },
      ],
    });
    expect(policy.decide(read(alice, undefined, undefined)).effect).toBe('allow');
    expect(policy.decide(read(alice, 'docs+file:///a', undefined))).toEqual({ effect: 'deny', rule: 1 });
    expect(policy.decide(read(alice, undefined, 'docs'))).toEqual({ effect: 'deny', rule: 0 });
  });
});

describe('AccessPolicy.decideReadings', () => {
  const policy = AccessPolicy.compile({
    default: 'deny',
    rules: [{ effect: 'allow', uris: ['docs+file:///public/**'] }],
  });
  const subject = { identity: alice, method: 'resources/read', server: 'docs' };

  it('allows only when every reading is allowed', () => {
    expect(policy.decideReadings(subject, uriReadings('docs+file:///public/a?x=1')).effect).toBe('allow');
    expect(policy.decideReadings(subject, uriReadings('docs+file:///public/a?/../../secret')).effect).toBe(
      'deny',
    );
  });

  it('decides a target without URI (no readings) with rules naming uris not matching', () => {
    const open = AccessPolicy.compile({ default: 'allow', rules: [{ effect: 'deny', uris: ['**'] }] });
    expect(open.decideReadings(subject, [])).toEqual({ effect: 'allow', rule: undefined });
    expect(policy.decideReadings(subject, [])).toEqual({ effect: 'deny', rule: undefined });
  });

  it('denies what could not be canonicalized, even under default allow', () => {
    const open = AccessPolicy.compile({ default: 'allow' });
    expect(open.decideReadings(subject, uriReadings('docs+file:///public/%zz'))).toEqual({
      effect: 'deny',
      rule: undefined,
    });
  });

  it('evaluates allow rules on the canonical form: an escape from an allowed folder is not allowed', () => {
    for (const breakout of [
      'docs+file:///public/../secret',
      'docs+file:///public/%2e%2e/secret',
      'docs+file:///public/%252e%252e/secret',
      'docs+file:///public%2F..%2Fsecret',
      'docs+file:///public\\..\\secret',
    ]) {
      expect(policy.decideReadings(subject, uriReadings(breakout)).effect, breakout).toBe('deny');
    }
  });
});

describe('AccessPolicy.decideListRequest', () => {
  it('only rules naming neither servers nor uris can refuse a list request; the default never does', () => {
    const policy = AccessPolicy.compile({
      default: 'deny',
      rules: [
        { effect: 'deny', servers: ['docs'], methods: ['resources/list'] },
        { effect: 'deny', uris: ['**'] },
        { effect: 'deny', clients: ['mallory'], methods: ['resources/list'] },
      ],
    });
    const mallory: Identity = { id: 'mallory', groups: [], anonymous: false };
    expect(policy.decideListRequest(alice, 'resources/list').effect).toBe('allow');
    expect(policy.decideListRequest(mallory, 'resources/list')).toEqual({ effect: 'deny', rule: 2 });
    expect(policy.decideListRequest(mallory, 'resources/templates/list').effect).toBe('allow');
  });

  it('an earlier allow rule wins over a later deny for the list request too', () => {
    const policy = AccessPolicy.compile({
      rules: [
        { effect: 'allow', groups: ['platform'] },
        { effect: 'deny', methods: ['resources/list'] },
      ],
    });
    expect(policy.decideListRequest(alice, 'resources/list')).toEqual({ effect: 'allow', rule: 0 });
    expect(policy.decideListRequest(bob, 'resources/list')).toEqual({ effect: 'deny', rule: 1 });
  });
});

describe('AccessPolicy.compile: validation names the option', () => {
  const invalid: [string, unknown, RegExp][] = [
    ['options not an object', [], /: options: expected an object: \{ default, rules \}$/],
    [
      'unknown option',
      { defaults: 'deny' },
      /: options\.defaults: unknown option \(known: default, rules, maxSkippedPages\)$/,
    ],
    ['bad default', { default: 'permit' }, /: options\.default: expected "allow" or "deny", got "permit"$/],
    [
      'rules not an array',
      { rules: {} },
      /: options\.rules: expected an array of rules: \[\{ effect, \.\.\. \}\], got \{\}$/,
    ],
    [
      'rule not an object',
      { rules: ['deny'] },
      /: options\.rules\[0\]: expected a rule: \{ effect: "allow" \| "deny", \.\.\. \}, got "deny"$/,
    ],
    [
      'missing effect',
      { rules: [{ uris: ['**'] }] },
      /: options\.rules\[0\]\.effect: expected "allow" or "deny", got nothing$/,
    ],
    [
      'bad effect',
      { rules: [{ effect: 'allow' }, { effect: 'block' }] },
      /: options\.rules\[1\]\.effect: expected "allow" or "deny", got "block"$/,
    ],
    [
      'unknown rule field',
      { rules: [{ effect: 'deny', uri: ['**'] }] },
      /: options\.rules\[0\]\.uri: unknown rule field \(known: effect, clients, .*, description\)$/,
    ],
    [
      'clients not an array',
      { rules: [{ effect: 'deny', clients: 'bob' }] },
      /: options\.rules\[0\]\.clients: expected a non-empty array of strings \(omit it to match anything\), got "bob"$/,
    ],
    [
      'empty groups',
      { rules: [{ effect: 'deny', groups: [] }] },
      /: options\.rules\[0\]\.groups: expected a non-empty array of strings .*, got \[\]$/,
    ],
    [
      'empty string',
      { rules: [{ effect: 'deny', clients: ['a', ''] }] },
      /: options\.rules\[0\]\.clients\[1\]: expected a non-empty string, got ""$/,
    ],
    [
      'non-string',
      { rules: [{ effect: 'deny', servers: [1] }] },
      /: options\.rules\[0\]\.servers\[0\]: expected a non-empty string, got 1$/,
    ],
    [
      'bad server name',
      { rules: [{ effect: 'deny', servers: ['Docs'] }] },
      /: options\.rules\[0\]\.servers\[0\]: expected a server name \(.*\), got "Docs"$/,
    ],
    [
      'unknown method',
      { rules: [{ effect: 'deny', methods: ['resource/read'] }] },
      /: options\.rules\[0\]\.methods\[0\]: expected a method rules can name: one of resources\/list, .*, got "resource\/read"$/,
    ],
    [
      'unsubscribe',
      { rules: [{ effect: 'deny', methods: ['resources/unsubscribe'] }] },
      /: options\.rules\[0\]\.methods\[0\]: rules cannot name "resources\/unsubscribe" \(unsubscribing is always allowed\)/,
    ],
    [
      'bad glob',
      { rules: [{ effect: 'deny', uris: ['docs+**', 'private/**'] }] },
      /: options\.rules\[0\]\.uris\[1\]: expected a URI pattern: cannot read "private\/\*\*" as a URI pattern.*, got "private\/\*\*"$/,
    ],
    [
      'bad encoding in glob',
      { rules: [{ effect: 'deny', uris: ['docs+file:///%zz'] }] },
      /: options\.rules\[0\]\.uris\[0\]: expected a URI pattern: .*, got "docs\+file:\/\/\/%zz"$/,
    ],
    [
      'bad description',
      { rules: [{ effect: 'deny', description: 3 }] },
      /: options\.rules\[0\]\.description: expected a string, got 3$/,
    ],
    [
      'bad maxSkippedPages',
      { maxSkippedPages: -1 },
      /: options\.maxSkippedPages: expected a non-negative integer, got -1$/,
    ],
  ];
  for (const [name, options, message] of invalid) {
    it(name, () => {
      expect(() => AccessPolicy.compile(options)).toThrow(/^Plugin @switchyard\/plugin-access: options/);
      expect(() => AccessPolicy.compile(options)).toThrow(message);
    });
  }

  it('warns about legal rule lists that cannot mean what they say', () => {
    const policy = AccessPolicy.compile({
      rules: [
        { effect: 'deny', methods: ['resources/list'], uris: ['docs+**'] },
        { effect: 'allow' },
        { effect: 'deny', clients: ['bob'] },
      ],
    });
    expect(policy.warnings).toEqual([
      expect.stringMatching(
        /rules\[0\] names only list methods together with servers, uris, tools or prompts, so it never matches/,
      ),
      expect.stringMatching(/rules\[1\] matches every request, so the rules after it never apply/),
    ]);
    expect(
      AccessPolicy.compile({ rules: [{ effect: 'allow', groups: ['x'] }, { effect: 'deny' }] }).warnings,
    ).toEqual([]);
  });

  it('names each rule that points at a server which is not configured', () => {
    const policy = AccessPolicy.compile({
      rules: [
        { effect: 'deny', servers: ['secrets', 'docs'] },
        { effect: 'allow', servers: ['docs'] },
        { effect: 'allow', servers: ['wikki'], groups: ['x'] },
      ],
    });
    expect(policy.unknownServers(['docs', 'wiki'])).toEqual([
      'rules[0].servers names "secrets", which is not a configured upstream (docs, wiki), so it never matches that server',
      'rules[2].servers names "wikki", which is not a configured upstream (docs, wiki), so it never matches that server',
    ]);
    expect(policy.unknownServers(['docs', 'wiki', 'secrets', 'wikki'])).toEqual([]);
  });

  it('knows whether decisions depend on who asks', () => {
    expect(AccessPolicy.compile({ rules: [{ effect: 'deny', uris: ['**'] }] }).identityDependent).toBe(false);
    expect(AccessPolicy.compile({ rules: [{ effect: 'deny', groups: ['x'] }] }).identityDependent).toBe(true);
  });
});

describe('plugin setup', () => {
  const entry = (plugin: unknown, options: unknown = {}) => ({ plugin, options, source: 'test' });

  it('refuses bad options before setup, naming the plugin and the option', async () => {
    const error = await setupPlugins([entry(access, { rules: [{ effect: 'nope' }] })], silentLogger).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({ code: 'PLUGIN_INVALID_OPTIONS', plugin: '@switchyard/plugin-access' });
    expect((error as Error).message).toBe(
      'Plugin @switchyard/plugin-access: options.rules[0].effect: expected "allow" or "deny", got "nope"',
    );
  });

  it('refuses to run inside the cache plugin (cache hits would bypass it)', async () => {
    const cache = definePlugin({ name: '@switchyard/plugin-cache', setup: () => ({}) });
    const error = await setupPlugins([entry(cache), entry(access)], silentLogger).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /list @switchyard\/plugin-access before @switchyard\/plugin-cache/,
    );
    await expect(setupPlugins([entry(access), entry(cache)], silentLogger)).resolves.toHaveLength(2);
  });
});
