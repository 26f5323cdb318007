import { z } from 'zod';
import { compileWhen, type When } from './when.js';

/**
 * A `when` option: a CEL condition compiled once as the options load (DESIGN §8: a bad one is a config
 * error at its path, e.g. `options.rules[1].when: expected a valid CEL condition (syntax error at 1:15: …)`).
 */
export const whenOption = z
  .string({ error: 'expected a string' })
  .min(1, { error: 'expected a non-empty string' })
  .transform((source, ctx): When => {
    try {
      return compileWhen(source);
    } catch (error) {
      ctx.issues.push({
        code: 'custom',
        input: source,
        message: `expected a valid CEL condition (${error instanceof Error ? error.message : String(error)})`,
      });
      return z.NEVER;
    }
  });
