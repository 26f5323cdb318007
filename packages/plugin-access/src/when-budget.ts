import { CelScalar, type CelValue, celFunc, isCelList, isCelMap } from '@bufbuild/cel';

/**
 * The work one evaluation of a `when` condition may do, in cost units: each comprehension step costs
 * {@link STEP_COST}, and each value passed to a function or operator, or iterated by a comprehension,
 * costs 1 plus its size (a string's length; a list's or map's elements, recursively), a constant
 * included; a regular expression's match costs what `when-regex.ts` charges, before it runs. `@bufbuild/cel`
 * has no cost limit of its own, so the plugin meters the expression (see `rewrite` in `when-ast.ts`).
 */
export const MAX_COST = 20_000;
/** What one comprehension step costs, beyond what its operands cost. */
export const STEP_COST = 10;
/** The function the metered expression calls on each operand (it charges the operand's size). */
export const METER = '@switchyard_cost';
/** The function the metered expression calls on each comprehension's loop condition (a step). */
export const STEP = '@switchyard_step';

let remaining = 0;

/** Thrown inside the evaluator when an evaluation is over budget; CEL turns it into an error value. */
class OverBudget extends Error {
  constructor() {
    super(`the condition needs more than ${MAX_COST} cost units`);
  }
}

/** The metering functions: each charges and returns its operand unchanged. */
export const meters = [
  celFunc(METER, [CelScalar.DYN], CelScalar.DYN, (value: CelValue) => {
    charge(value);
    return value;
  }),
  celFunc(STEP, [CelScalar.DYN], CelScalar.DYN, (value: CelValue) => {
    take(STEP_COST);
    return value;
  }),
];

/** Runs one evaluation with a fresh budget; `exceeded` tells whether it ran out (its result is then an error or was decided without the rest). */
export function withBudget<T>(evaluate: () => T): { result: T; exceeded: boolean } {
  remaining = MAX_COST;
  const result = evaluate();
  return { result, exceeded: remaining < 0 };
}

/** Charges `units` against the running evaluation's budget; throws (an error value in CEL) once it is spent. */
export function take(units: number): void {
  remaining -= units;
  if (remaining < 0) throw new OverBudget();
}

function charge(value: CelValue): void {
  const pending: CelValue[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next === 'string' || next instanceof Uint8Array) {
      take(1 + next.length);
    } else if (isCelList(next)) {
      take(1 + next.size);
      for (const item of next) if (isContainer(item)) pending.push(item);
    } else if (isCelMap(next)) {
      take(1 + 2 * next.size);
      for (const [key, item] of next) {
        if (typeof key === 'string') take(key.length);
        if (isContainer(item)) pending.push(item);
      }
    } else {
      take(1);
    }
  }
}

/** Values whose size is not already counted by their container's element count. */
function isContainer(value: CelValue): boolean {
  return typeof value === 'string' || value instanceof Uint8Array || isCelList(value) || isCelMap(value);
}
