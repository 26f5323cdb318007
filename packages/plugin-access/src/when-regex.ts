import { RE2JS } from '@bufbuild/re2';
import { take } from './when-budget.js';

/**
 * What RE2's work costs in the `when` budget. A match runs the compiled program over the input, at
 * worst every instruction at every character (RE2 is linear in the input, but by the program's size):
 * it costs the input's length times the program's instructions, charged before it runs. Compiling
 * costs about 4 µs an instruction, so {@link COMPILE_COST} units each.
 */
export const COMPILE_COST = 20;
/** Patterns not known at load (read from the arguments) kept compiled, the oldest dropped first. */
const MAX_CACHED = 256;

interface Compiled {
  readonly regex: RE2JS;
  /** The program's instructions. */
  readonly size: number;
}

/** Patterns that are constants of a condition, compiled at load and kept. */
const constant = new Map<string, Compiled>();
const cached = new Map<string, Compiled>();

/**
 * The `re2` of the CEL environment: `matches` compiles through it (a pattern compiled before costs
 * nothing more; a new one is charged an upper bound of its compilation first) and tests through it
 * (charged the input's length times the program's size first).
 */
export const meteredRe2 = {
  compile(pattern: string): { test(input: string): boolean } {
    const compiled = constant.get(pattern) ?? cached.get(pattern) ?? compileNew(pattern);
    return {
      test(input: string): boolean {
        take(1 + input.length * compiled.size);
        return compiled.regex.test(input);
      },
    };
  },
};

/** Compiles a condition's constant pattern at load; a pattern that does not compile fails when matched, as before. */
export function compileConstant(pattern: string): void {
  if (constant.has(pattern)) return;
  try {
    constant.set(pattern, compile(pattern));
  } catch {
    // The evaluation reports it.
  }
}

/** The work a match of `input` against a constant `pattern` costs, if the pattern compiles. */
export function matchCost(pattern: string, input: string): number | undefined {
  const compiled = constant.get(pattern);
  return compiled && 1 + input.length * compiled.size;
}

function compileNew(pattern: string): Compiled {
  take(COMPILE_COST * sizeBound(pattern));
  const compiled = compile(pattern);
  if (cached.size >= MAX_CACHED) cached.delete(cached.keys().next().value as string);
  cached.set(pattern, compiled);
  return compiled;
}

function compile(pattern: string): Compiled {
  const regex = RE2JS.compile(pattern);
  return { regex, size: regex.re2Input.prog.numInst() };
}

/**
 * An upper bound of the instructions `pattern` compiles to, from its text alone: a few per character,
 * times the repetitions (`{n}`, `{n,m}`, `{n,}`), whose product RE2 holds to 1000 where they nest.
 */
export function sizeBound(pattern: string): number {
  let repeats = 1;
  for (const [, min, comma, max] of pattern.matchAll(/\{(\d{1,4})(,?)(\d{0,4})\}/g)) {
    repeats = Math.min(1000, repeats * Math.max(1, Number(min), comma && max ? Number(max) : 0));
  }
  return 4 * (pattern.length + 1) * repeats;
}
