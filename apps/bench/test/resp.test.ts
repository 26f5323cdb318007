import { describe, expect, it } from 'vitest';
import { encodeCommand, keyShape, parseInfo, parseReply, RespError } from '../src/replicas/resp.js';

const buf = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('encodeCommand', () => {
  it('encodes a command as a RESP array of bulk strings (lengths in bytes)', () => {
    expect(encodeCommand(['INFO', 'memory']).toString()).toBe('*2\r\n$4\r\nINFO\r\n$6\r\nmemory\r\n');
    expect(encodeCommand(['SET', 'k', 'é']).toString()).toBe('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\né\r\n');
  });
});

describe('parseReply', () => {
  it('parses simple strings, integers, bulk strings and nil', () => {
    expect(parseReply(buf('+OK\r\n'))).toEqual({ value: 'OK', end: 5 });
    expect(parseReply(buf(':42\r\n'))).toEqual({ value: 42, end: 5 });
    expect(parseReply(buf('$5\r\nhello\r\n'))).toEqual({ value: 'hello', end: 11 });
    expect(parseReply(buf('$-1\r\n'))).toEqual({ value: null, end: 5 });
  });

  it('parses nested arrays (a SCAN reply) and reports where the reply ends', () => {
    const scan = '*2\r\n$1\r\n0\r\n*2\r\n$3\r\nk:1\r\n$3\r\nk:2\r\n';
    expect(parseReply(buf(`${scan}:7\r\n`))).toEqual({ value: ['0', ['k:1', 'k:2']], end: scan.length });
  });

  it('parses a reply at an offset (several replies in one buffer)', () => {
    const two = buf(':1\r\n:2\r\n');
    const first = parseReply(two)!;
    expect(parseReply(two, first.end)).toEqual({ value: 2, end: 8 });
  });

  it('waits for the rest of an incomplete reply (undefined), whatever its type', () => {
    for (const partial of ['', '+OK', '$5\r\nhel', '$5\r\nhello', '*2\r\n:1\r\n', '*1\r\n$3\r\nab']) {
      expect(parseReply(buf(partial))).toBeUndefined();
    }
  });

  it('throws the error Redis answered, and on bytes that are not RESP', () => {
    expect(() => parseReply(buf('-ERR unknown command\r\n'))).toThrow(RespError);
    expect(() => parseReply(buf('-ERR unknown command\r\n'))).toThrow('ERR unknown command');
    expect(() => parseReply(buf('HTTP/1.1 400\r\n'))).toThrow(/not a RESP reply/);
  });
});

describe('parseInfo', () => {
  it('reads the field:value lines of an INFO reply, skipping headers and blank lines', () => {
    const info =
      '# Memory\r\nused_memory:1034888\r\nused_memory_human:1010.63K\r\n\r\n# Server\r\nredis_version:7.0.15\r\n';
    expect(parseInfo(info)).toEqual({
      used_memory: '1034888',
      used_memory_human: '1010.63K',
      redis_version: '7.0.15',
    });
  });

  it('keeps colons inside values', () => {
    expect(parseInfo('executable:/usr/bin/redis-server\nconfig_file:\nmaster_host:a:b\n')).toMatchObject({
      config_file: '',
      master_host: 'a:b',
    });
  });
});

describe('keyShape', () => {
  it('masks ids and numbers so keys of one kind count together', () => {
    expect(keyShape('switchyard:session:3f9a2b4c-1d2e-4f50-9a8b-0c1d2e3f4a5b')).toBe('switchyard:session:*');
    expect(keyShape('switchyard:rl:client:deadbeefcafe')).toBe('switchyard:rl:client:*');
    expect(keyShape('bench:cache:a+test://a/r/17')).toBe('bench:cache:a+test://a/r/*');
    expect(keyShape('bench:plain')).toBe('bench:plain');
    expect(keyShape('bench:sessions:session:uClGJtLku3wNjUIwIIKmg')).toBe('bench:sessions:session:*');
    expect(keyShape('bench:sessions:session:En2ltEYz-ktB_TwltvA-qg:subs')).toBe(
      'bench:sessions:session:*:subs',
    );
  });
});
