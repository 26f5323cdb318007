import type { PromptInput } from './sources/format.js';

/** What a client's `${…}` references resolve against. */
export interface VariableContext {
  /** VS Code `inputs`, by id. */
  inputs: ReadonlyMap<string, PromptInput>;
  /** The project folder of a workspace file (`${workspaceFolder}`), when the file is in one. */
  workspace?: string;
  /** `${userHome}`. */
  home: string;
}

/** What rewriting found: environment variables the user must set (name → where it came from), and notes. */
export interface VariableFindings {
  variables: Map<string, string>;
  notes: Set<string>;
}

/** `${input:github-token}` becomes `${GITHUB_TOKEN}`. */
export function inputVariable(id: string): string {
  const name = id.toUpperCase().replace(/[^A-Z0-9_]+/g, '_');
  return /^[A-Z_]/.test(name) ? name : `_${name}`;
}

const REFERENCE = /\$\{([^}]*)\}/g;
const PLAIN = /^([A-Za-z_][A-Za-z0-9_]*)(:-.*)?$/s;

/**
 * Rewrites a client's variable references as Switchyard's `${VAR}` (read from the gateway's environment):
 * `${env:VAR}` (VS Code, Cursor, Windsurf) → `${VAR}`; `${input:id}` (VS Code) → `${ID}`; `${VAR}` and
 * `${VAR:-default}` (Claude Code) stay; `${workspaceFolder}` and `${userHome}` become the folder itself.
 * The value is never looked up: a secret stays a reference.
 */
export function rewriteVariables(text: string, ctx: VariableContext, found: VariableFindings): string {
  return text.replace(REFERENCE, (whole, inner: string) => {
    if (inner.startsWith('env:')) {
      const name = inner.slice(4);
      found.variables.set(name, found.variables.get(name) ?? 'environment');
      return `\${${name}}`;
    }
    if (inner.startsWith('input:')) {
      const id = inner.slice(6);
      const name = inputVariable(id);
      const description = ctx.inputs.get(id)?.description;
      found.variables.set(name, `VS Code input "${id}"${description ? `: ${description}` : ''}`);
      return `\${${name}}`;
    }
    if (inner === 'workspaceFolder') {
      if (ctx.workspace !== undefined) return ctx.workspace;
      found.variables.set('WORKSPACE_FOLDER', '${workspaceFolder} of a file outside a project folder');
      return '${WORKSPACE_FOLDER}';
    }
    if (inner === 'userHome') return ctx.home;
    const plain = PLAIN.exec(inner);
    if (plain !== null) {
      const name = plain[1]!;
      found.variables.set(name, found.variables.get(name) ?? 'environment');
      return whole;
    }
    found.notes.add(`"${whole}" is not a variable Switchyard expands: it is kept as written; edit it`);
    return whole;
  });
}
