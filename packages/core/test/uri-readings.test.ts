import { describe, expect, it } from 'vitest';
import { normalizePattern, normalizeUri, percentDecode, uriReadings } from '../src/naming/uri-readings.js';

const SECRET = 'docs+file:///private/secret.txt';

describe('normalizeUri: every spelling of one URI has one canonical form', () => {
  const spellings: Record<string, string> = {
    'canonical already': SECRET,
    'upper-case scheme and server prefix': 'DOCS+FILE:///private/secret.txt',
    'mixed-case scheme': 'Docs+File:///private/secret.txt',
    'percent-encoded letter': 'docs+file:///%70rivate/secret.txt',
    'percent-encoded letters, lower-case hex': 'docs+file:///private/%73%65cret.txt',
    'every octet percent-encoded': `docs+file:///${[...'private/secret.txt']
      .map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .join('')}`,
    'encoded slash (upper hex)': 'docs+file:///private%2Fsecret.txt',
    'encoded slash (lower hex)': 'docs+file:///private%2fsecret.txt',
    'single-dot segment': 'docs+file:///private/./secret.txt',
    'double-dot segment': 'docs+file:///public/../private/secret.txt',
    'double-dot above the root': 'docs+file:///../../private/secret.txt',
    'encoded dots': 'docs+file:///public/%2e%2e/private/secret.txt',
    'encoded dots, upper hex': 'docs+file:///public/%2E%2E/private/secret.txt',
    'half-encoded dots': 'docs+file:///public/.%2e/private/secret.txt',
    'encoded dots and slashes': 'docs+file:///public%2F%2E%2E%2Fprivate%2Fsecret.txt',
    'encoded single dot': 'docs+file:///private/%2E/secret.txt',
    'double-encoded slash': 'docs+file:///private%252Fsecret.txt',
    'double-encoded letter': 'docs+file:///%2570rivate/secret.txt',
    'double-encoded dots': 'docs+file:///public/%252e%252e/private/secret.txt',
    'triple-encoded dots': 'docs+file:///public/%25252e%25252e/private/secret.txt',
    'repeated slashes': 'docs+file:///private//secret.txt',
    'repeated leading slashes': 'docs+file://///private/secret.txt',
    'no authority': 'docs+file:/private/secret.txt',
    'trailing slash': 'docs+file:///private/secret.txt/',
    'trailing dot segment': 'docs+file:///private/secret.txt/.',
    backslash: 'docs+file:///private\\secret.txt',
    'encoded backslash': 'docs+file:///private%5Csecret.txt',
    'backslash dot-dot': 'docs+file:///public\\..\\private\\secret.txt',
    'surrounding spaces': `  ${SECRET}\n`,
    'fragment (dropped)': `${SECRET}#top`,
  };
  for (const [name, spelling] of Object.entries(spellings)) {
    it(`${name}: ${JSON.stringify(spelling)}`, () => {
      expect(normalizeUri(spelling)).toBe(SECRET);
    });
  }

  it('lowercases the host, drops userinfo, a trailing dot, empty and default ports', () => {
    const canonical = 'web+https://docs.example.com/a';
    for (const spelling of [
      'web+https://Docs.EXAMPLE.com/a',
      'web+https://docs.example.com:443/a',
      'web+https://docs.example.com:0443/a',
      'web+https://docs.example.com:/a',
      'web+https://docs.example.com./a',
      'web+https://alice:pw@docs.example.com/a',
      'web+https://evil.example%40docs.example.com@docs.example.com/a',
      'web+https://%64ocs.example.com/a',
    ]) {
      expect(normalizeUri(spelling), spelling).toBe(canonical);
    }
    expect(normalizeUri('web+https://docs.example.com:8443/a')).toBe('web+https://docs.example.com:8443/a');
    expect(normalizeUri('web+http://docs.example.com:80/a')).toBe('web+http://docs.example.com/a');
    expect(normalizeUri('web+http://[::1]:8080/a')).toBe('web+http://[::1]:8080/a');
    expect(normalizeUri('web+http://[::1]/a')).toBe('web+http://[::1]/a');
  });

  it('gives an empty path and a root path one form, and keeps path case', () => {
    expect(normalizeUri('docs+test://docs/')).toBe('docs+test://docs');
    expect(normalizeUri('docs+test://docs')).toBe('docs+test://docs');
    expect(normalizeUri('docs+test://docs/Private/A')).toBe('docs+test://docs/Private/A');
  });

  it('keeps opaque and rootless URIs recognizable', () => {
    expect(normalizeUri('URN:isbn:0451450523')).toBe('urn:isbn:0451450523');
    expect(normalizeUri('mailto:someone@example.com')).toBe('mailto:someone@example.com');
    expect(normalizeUri('note:a/./b/../c')).toBe('note:a/c');
  });

  it('applies Unicode NFC, so composed and decomposed spellings match', () => {
    const composed = normalizeUri('docs+file:///caf\u00e9');
    expect(normalizeUri('docs+file:///cafe\u0301')).toBe(composed);
    expect(normalizeUri('docs+file:///caf%C3%A9')).toBe(composed);
  });

  it('decodes the query but leaves its dot segments alone in the RFC reading', () => {
    expect(normalizeUri('web+https://api/search?q=%61%2F..')).toBe('web+https://api/search?q=a/..');
  });

  it('reads a template expression as part of the path when asked', () => {
    expect(normalizeUri('docs+test://docs/items/{id}', { template: true })).toBe(
      'docs+test://docs/items/{id}',
    );
    expect(normalizeUri('docs+test://docs/search{?q}', { template: true })).toBe(
      'docs+test://docs/search{?q}',
    );
    expect(normalizeUri('docs+test://docs/page{#section}', { template: true })).toBe(
      'docs+test://docs/page{#section}',
    );
    // Without the template flag the same text is a URI whose fragment starts at '#'.
    expect(normalizeUri('docs+test://docs/page{#section}')).toBe('docs+test://docs/page{');
  });
});

describe('normalizeUri: what cannot be canonicalized is refused (undefined = denied)', () => {
  const refused: Record<string, string> = {
    'no scheme': '/private/secret.txt',
    'relative reference': 'private/secret.txt',
    'stray percent': 'docs+file:///private/100%',
    'percent with one hex digit': 'docs+file:///private/%2',
    'percent with non-hex digits': 'docs+file:///private/%zz',
    'overlong UTF-8 dot (%C0%AE)': 'docs+file:///public/%C0%AE%C0%AE/private',
    'truncated UTF-8': 'docs+file:///caf%C3',
    'encoded surrogate': 'docs+file:///%ED%A0%80',
    'encoded NUL': 'docs+file:///private/secret.txt%00.png',
    'encoded newline': 'docs+file:///private/%0Asecret',
    'raw tab inside': 'docs+file:///pri\tvate/secret.txt',
    'raw DEL': 'docs+file:///private\u007f',
    'C1 control': 'docs+file:///private\u0085',
    'five layers of encoding': 'docs+file:///%2525252570rivate',
    'slash hidden in the host': 'web+https://public.example.com%2F..%2Fsecret/x',
    'backslash in the host': 'web+https://public.example.com\\secret',
    'non-numeric port': 'web+https://docs.example.com:https/a',
    'unclosed IPv6 literal': 'web+https://[::1/a',
  };
  for (const [name, uri] of Object.entries(refused)) {
    it(`${name}: ${JSON.stringify(uri)}`, () => {
      expect(normalizeUri(uri)).toBeUndefined();
      expect(uriReadings(uri)).toBeUndefined();
    });
  }
});

describe('uriReadings: a URI with a query or fragment is also read as an upstream that ignores them would', () => {
  it('has one reading without query or fragment', () => {
    expect(uriReadings(SECRET)).toEqual([SECRET]);
  });

  it('reads dot segments hidden behind ? as a naive upstream would', () => {
    expect(uriReadings('docs+file:///public/x?/../../private/secret.txt')).toEqual([
      'docs+file:///public/x?/../../private/secret.txt',
      SECRET,
    ]);
  });

  it('reads a fragment both as dropped and as part of the path', () => {
    expect(uriReadings('docs+file:///private/secret.txt#/../../public')).toEqual([
      SECRET,
      'docs+file:///public',
    ]);
  });

  it('collapses to one reading when both agree', () => {
    expect(uriReadings('web+https://api/search?q=1')).toEqual(['web+https://api/search?q=1']);
  });
});

describe('percentDecode', () => {
  it('decodes every layer, keeps a literal percent that was itself encoded', () => {
    expect(percentDecode('%2541')).toBe('A');
    expect(percentDecode('100%25')).toBe('100%');
    expect(percentDecode('100%25%20off')).toBe('100% off');
    expect(percentDecode('plain')).toBe('plain');
  });
});

describe('normalizePattern', () => {
  it('canonicalizes a pattern like a URI, keeping wildcards', () => {
    expect(normalizePattern('DOCS+File:///Public/../%70rivate/**')).toBe('docs+file:///private/**');
    expect(normalizePattern('*+FILE:///private/*')).toBe('*+file:///private/*');
    expect(normalizePattern('web+https://*.Example.COM:443/**')).toBe('web+https://*.example.com/**');
  });

  it('keeps patterns whose wildcard spans the scheme', () => {
    expect(normalizePattern('DOCS+**')).toBe('docs+**');
    expect(normalizePattern('**/./secret//**')).toBe('**/secret/**');
    expect(normalizePattern('**%73ecret**')).toBe('**secret**');
  });

  it('refuses patterns with neither a scheme nor a leading wildcard, or malformed encoding', () => {
    expect(normalizePattern('/private/**')).toBeUndefined();
    expect(normalizePattern('docs+file:///100%')).toBeUndefined();
    expect(normalizePattern('**%zz')).toBeUndefined();
  });
});
