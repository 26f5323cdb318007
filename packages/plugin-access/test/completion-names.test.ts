import { describe, expect, it } from 'vitest';
import { screenCompletion } from '../src/completion.js';

// Completion arguments are the client's names: one called `__proto__` is an argument like any other.
describe('screenCompletion with argument names that are Object.prototype members', () => {
  it('expands the template with a context argument named __proto__', () => {
    const read: string[] = [];
    const mayRead = (uri: string) => {
      read.push(uri);
      return uri.endsWith('/ok');
    };
    const params = {
      ref: { type: 'ref/resource', uri: 'docs+test://docs/{__proto__}/{id}' },
      argument: { name: 'id', value: '' },
      context: { arguments: JSON.parse('{"__proto__": "team"}') },
    };
    const result = { completion: { values: ['ok', 'no'], total: 2 } };
    expect(screenCompletion(params, result, mayRead)).toEqual({
      result: { completion: { values: ['ok'], total: 1 } },
      withheld: 1,
    });
    expect(read).toEqual(['docs+test://docs/team/ok', 'docs+test://docs/team/no']);
  });
});
