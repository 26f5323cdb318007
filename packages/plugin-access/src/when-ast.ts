import type { parse } from '@bufbuild/cel';

/** A node of a parsed CEL expression (macros already expanded into comprehensions). */
export type Expr = ReturnType<typeof parse>['expr'];

/** What an expression refers to: its free variables and the functions it calls. */
export interface References {
  readonly variables: ReadonlySet<string>;
  readonly functions: ReadonlySet<string>;
}

/**
 * The calls the evaluator plans itself (no function of that name exists in the environment). The cost
 * meter leaves their operands alone: they short-circuit, or are planned as attribute accesses.
 */
export const PLANNER_OPERATORS: ReadonlySet<string> = new Set([
  '_&&_',
  '_||_',
  '_?_:_',
  '_[_]',
  '_[?_]',
  '_?._',
  '@not_strictly_false',
  '__not_strictly_false__',
]);

/**
 * The free variables (identifiers not bound by a comprehension) and the called functions of `root`.
 */
export function references(root: Expr): References {
  const variables = new Set<string>();
  const functions = new Set<string>();
  const visit = (expr: Expr | undefined, bound: ReadonlySet<string>): void => {
    const kind = expr?.exprKind;
    switch (kind?.case) {
      case 'identExpr':
        if (!bound.has(kind.value.name)) variables.add(kind.value.name);
        return;
      case 'selectExpr':
        visit(kind.value.operand, bound);
        return;
      case 'callExpr':
        functions.add(kind.value.function);
        visit(kind.value.target, bound);
        for (const arg of kind.value.args) visit(arg, bound);
        return;
      case 'listExpr':
        for (const element of kind.value.elements) visit(element, bound);
        return;
      case 'structExpr':
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value, bound);
          visit(entry.value, bound);
        }
        return;
      case 'comprehensionExpr': {
        const c = kind.value;
        visit(c.iterRange, bound);
        visit(c.accuInit, bound);
        const withAccu = new Set([...bound, c.accuVar]);
        const inLoop = new Set([...withAccu, c.iterVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
        visit(c.loopCondition, inLoop);
        visit(c.loopStep, inLoop);
        visit(c.result, withAccu);
        return;
      }
      default:
        return;
    }
  };
  visit(root, new Set());
  return { variables, functions };
}

/** How {@link rewrite} changes an expression. */
export interface Rewrite {
  /** Wraps each call's operands, and each comprehension's range, in a call of this function. */
  readonly meter: string;
  /** Wraps each comprehension's loop condition in a call of this function. */
  readonly step: string;
  /** Replaces the free variable `variable` by a call of `by` (a function of no arguments). */
  readonly replace?: { readonly variable: string; readonly by: string };
}

/**
 * A copy of `root` for the cost meter: every operand of a function call (the accumulator of a macro
 * excepted, a constant included: inside a loop it is passed once per step) and every comprehension range goes through `how.meter`, which charges its size, and every
 * loop condition through `how.step`, which charges a step. With `replace`, the free variable is replaced by a call (evaluated as an error the caller
 * recognizes), so an expression can be evaluated without that variable's value.
 */
export function rewrite(root: Expr, how: Rewrite): Expr {
  let nextId = maxId(root) + 1n;
  const call = (fn: string, args: Expr[]): Expr => ({
    $typeName: 'cel.expr.Expr',
    id: nextId++,
    exprKind: { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, args } },
  });
  const metered = (expr: Expr, bound: ReadonlySet<string>, accumulators: ReadonlySet<string>): Expr => {
    const copy = visit(expr, bound, accumulators);
    const kind = expr.exprKind;
    if (kind.case === 'identExpr' && accumulators.has(kind.value.name)) return copy;
    return call(how.meter, [copy]);
  };
  const visit = (expr: Expr, bound: ReadonlySet<string>, accumulators: ReadonlySet<string>): Expr => {
    const kind = expr.exprKind;
    switch (kind.case) {
      case 'identExpr':
        if (how.replace && kind.value.name === how.replace.variable && !bound.has(kind.value.name)) {
          return call(how.replace.by, []);
        }
        return { ...expr };
      case 'selectExpr':
        return withKind(expr, {
          ...kind,
          value: {
            ...kind.value,
            operand: kind.value.operand && visit(kind.value.operand, bound, accumulators),
          },
        });
      case 'callExpr': {
        const operand = PLANNER_OPERATORS.has(kind.value.function) ? visit : metered;
        return withKind(expr, {
          ...kind,
          value: {
            ...kind.value,
            target: kind.value.target && operand(kind.value.target, bound, accumulators),
            args: kind.value.args.map((arg) => operand(arg, bound, accumulators)),
          },
        });
      }
      case 'listExpr':
        return withKind(expr, {
          ...kind,
          value: { ...kind.value, elements: kind.value.elements.map((e) => visit(e, bound, accumulators)) },
        });
      case 'structExpr':
        return withKind(expr, {
          ...kind,
          value: {
            ...kind.value,
            entries: kind.value.entries.map((entry) => ({
              ...entry,
              keyKind:
                entry.keyKind.case === 'mapKey'
                  ? { ...entry.keyKind, value: visit(entry.keyKind.value, bound, accumulators) }
                  : entry.keyKind,
              value: entry.value && visit(entry.value, bound, accumulators),
            })),
          },
        });
      case 'comprehensionExpr': {
        const c = kind.value;
        const withAccu = new Set([...bound, c.accuVar]);
        const accus = new Set([...accumulators, c.accuVar]);
        const inLoop = new Set([...withAccu, c.iterVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
        return withKind(expr, {
          ...kind,
          value: {
            ...c,
            iterRange: c.iterRange && metered(c.iterRange, bound, accumulators),
            accuInit: c.accuInit && visit(c.accuInit, bound, accumulators),
            loopCondition: c.loopCondition && call(how.step, [visit(c.loopCondition, inLoop, accus)]),
            loopStep: c.loopStep && visit(c.loopStep, inLoop, accus),
            result: c.result && visit(c.result, withAccu, accus),
          },
        });
      }
      default:
        return { ...expr };
    }
  };
  return visit(root, new Set(), new Set());
}

function withKind(expr: Expr, exprKind: Expr['exprKind']): Expr {
  return { ...expr, exprKind };
}

function maxId(root: Expr): bigint {
  let max = root.id;
  eachMessage(root, (record) => {
    if (record.$typeName === 'cel.expr.Expr' && typeof record.id === 'bigint' && record.id > max) {
      max = record.id;
    }
  });
  return max;
}

/** Calls `visit` with every message of a parsed expression (each node and its parts), depth first. */
export function eachMessage(root: Expr, visit: (record: Record<string, unknown>) => void): void {
  const walk = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    const record = value as Record<string, unknown>;
    visit(record);
    for (const [key, item] of Object.entries(record)) if (key !== '$typeName') walk(item);
  };
  walk(root);
}
