import { CelScalar, type CelValue, celEnv, celFunc, isCelError, parse, plan } from '@bufbuild/cel';
import { celArguments } from './when-arguments.js';
import { type Expr, eachMessage, PLANNER_OPERATORS, references, rewrite } from './when-ast.js';
import { MAX_COST, METER, meters, STEP, withBudget } from './when-budget.js';
import { compileConstant, matchCost, meteredRe2 } from './when-regex.js';

/** The longest `when` expression accepted, in characters. */
export const MAX_WHEN_LENGTH = 2048;
/** The variables a `when` condition may read. */
export const WHEN_VARIABLES = ['identity', 'groups', 'server', 'tool', 'arguments', 'uri'] as const;
/** Type names CEL lets an expression mention (`type(x) == string`). */
const TYPE_NAMES = [
  'bool',
  'bytes',
  'double',
  'int',
  'uint',
  'string',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
];
/** Stands in for `arguments` where their value is not known: evaluates as an error it recognizes. */
const STAND_IN = '@switchyard_arguments';

let standInRead = false;

const env = celEnv({
  re2: meteredRe2,
  funcs: [
    ...meters,
    celFunc(STAND_IN, [], CelScalar.DYN, () => {
      standInRead = true;
      throw new Error('the arguments are not known here');
    }),
  ],
});

/**
 * The arguments a condition sees: `{ given }` for a tool call or prompt get (its `params.arguments`,
 * `{}` when absent); `'pending'` where the request will carry them but this decision has none (a listed
 * tool or prompt, a prompt completion, a task's follow-ups); undefined for requests that never carry
 * any (`arguments` is then `null`).
 */
export type WhenArguments = { readonly given: unknown } | 'pending' | undefined;

/** What a condition is evaluated over; absent fields are `null` in CEL. */
export interface WhenInput {
  readonly identity: string;
  readonly groups: readonly string[];
  readonly server?: string | undefined;
  readonly tool?: string | undefined;
  readonly uri?: string | undefined;
  readonly arguments?: WhenArguments;
}

/**
 * A condition's outcome: true or false; `'pending'` when it depends on arguments this decision does
 * not have; `{ error }` when it cannot be evaluated (an evaluation error, a non-boolean result, the
 * cost budget spent, or arguments over their bounds).
 */
export type WhenVerdict = boolean | 'pending' | { readonly error: string };

/** A compiled `when` condition (see {@link compileWhen}). */
export interface When {
  readonly source: string;
  /** The variables it reads (a subset of {@link WHEN_VARIABLES}). */
  readonly variables: ReadonlySet<string>;
  evaluate(input: WhenInput): WhenVerdict;
}

type Program = ReturnType<typeof plan>;

/**
 * Parses and plans a CEL condition once, at load. Throws an Error whose message says what is wrong
 * (a syntax error with its position, an unknown variable or function, a too-long expression); the
 * options parser prefixes it with the rule's path.
 */
export function compileWhen(source: string): When {
  if (source.length > MAX_WHEN_LENGTH) {
    throw new Error(`is ${source.length} characters long, over the limit of ${MAX_WHEN_LENGTH}`);
  }
  const expr = parseExpr(source);
  const { variables, functions } = references(expr);
  for (const name of variables) {
    if (!(WHEN_VARIABLES as readonly string[]).includes(name) && !TYPE_NAMES.includes(name)) {
      throw new Error(`reads an unknown variable "${name}" (the variables are ${WHEN_VARIABLES.join(', ')})`);
    }
  }
  for (const name of functions) {
    if (!PLANNER_OPERATORS.has(name) && env.funcs.find(name) === undefined) {
      throw new Error(`calls an unknown function "${name}"`);
    }
  }
  checkMatches(expr);
  const needsArguments = variables.has('arguments');
  const program = planExpr(rewrite(expr, { meter: METER, step: STEP }));
  const withoutArguments = needsArguments
    ? planExpr(rewrite(expr, { meter: METER, step: STEP, replace: { variable: 'arguments', by: STAND_IN } }))
    : program;
  const read = new Set([...variables].filter((name) => (WHEN_VARIABLES as readonly string[]).includes(name)));
  return {
    source,
    variables: read,
    evaluate(input) {
      // Every variable in the literal, `arguments` set after: `{ ...bindings, arguments }` would make a new
      // hidden class per evaluation on Node 20's V8 (docs/architecture.md, speed). A program planned
      // without `arguments` never reads it.
      const bindings: Record<string, unknown> = {
        identity: input.identity,
        groups: [...input.groups],
        server: input.server ?? null,
        tool: input.tool ?? null,
        uri: input.uri ?? null,
        arguments: null,
      };
      const given = input.arguments;
      if (!needsArguments || given === undefined) return run(program, bindings);
      if (given === 'pending') return run(withoutArguments, bindings, 'pending');
      const converted = celArguments(given.given);
      if (converted.ok) {
        bindings.arguments = converted.value;
        return run(program, bindings);
      }
      return run(withoutArguments, bindings, {
        error: `the condition cannot read them: ${converted.reason}`,
      });
    },
  };
}

/**
 * Compiles each constant pattern of a `matches` once, at load, and refuses a match of a constant text
 * whose cost alone is over the budget (it could never be evaluated).
 */
function checkMatches(root: Expr): void {
  eachMessage(root, (record) => {
    if (record.$typeName !== 'cel.expr.Expr.Call' || record.function !== 'matches') return;
    const call = record as unknown as { target?: Expr; args: Expr[] };
    const pattern = constantString(call.args[0]);
    if (pattern === undefined) return;
    compileConstant(pattern);
    const text = constantString(call.target);
    const cost = text === undefined ? undefined : matchCost(pattern, text);
    if (cost !== undefined && cost > MAX_COST) {
      throw new Error(
        `matches a constant text of ${text?.length} characters against a pattern that needs ${cost} cost units, over the budget of ${MAX_COST}`,
      );
    }
  });
}

function constantString(expr: Expr | undefined): string | undefined {
  const kind = expr?.exprKind;
  return kind?.case === 'constExpr' && kind.value.constantKind.case === 'stringValue'
    ? kind.value.constantKind.value
    : undefined;
}

function parseExpr(source: string): Expr {
  try {
    return parse(source).expr;
  } catch (error) {
    if (error instanceof RangeError) throw new Error('nests too deeply');
    const message = error instanceof Error ? error.message : String(error);
    // The parser's own form is `<input>:line:column: …`.
    throw new Error(message.replace(/^<input>:(\d+:\d+): /, 'syntax error at $1: '));
  }
}

function planExpr(expr: Expr): Program {
  try {
    return plan(env, expr);
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Evaluates within the cost budget. With `withoutArguments`, an error caused by reading the stand-in
 * for `arguments` is that verdict (CEL's `&&` and `||` still decide what does not depend on them).
 */
function run(
  program: Program,
  bindings: Record<string, unknown>,
  withoutArguments?: WhenVerdict,
): WhenVerdict {
  standInRead = false;
  const { result, exceeded } = withBudget(() => program(bindings as Parameters<Program>[0]));
  if (typeof result === 'boolean') return result;
  if (withoutArguments !== undefined && standInRead) return withoutArguments;
  if (exceeded) return { error: `the condition needs more than ${MAX_COST} cost units` };
  if (isCelError(result)) return { error: result.message };
  return { error: `the condition evaluates to ${describe(result)}, not a bool` };
}

function describe(value: CelValue): string {
  return value === null ? 'null' : typeof value === 'object' ? 'a list, map or object' : `a ${typeof value}`;
}
