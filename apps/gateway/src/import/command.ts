import { constants } from 'node:fs';
import { access, copyFile, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { JSONPath } from 'jsonc-parser';
import { ConfigError, parseConfig } from '../config/load.js';
import { type DetectedSource, detectFormat } from './detect.js';
import { lineDiff } from './diff.js';
import { convertEntry } from './entry.js';
import { currentLocationContext, defaultLocations, type LocationContext } from './locations.js';
import { describeSourceIssue, readSource, type SourceFile, type SourceIssue } from './read-source.js';
import { type FoundServer, toConfig } from './to-config.js';
import type { VariableFindings } from './variables.js';
import { backupName, isSwitchyardEntry, rewriteClientFile } from './write-back.js';

export interface ImportOptions {
  /** Client files; none = every client's default locations that exist. */
  files: readonly string[];
  /** The Switchyard config to write (default `./switchyard.json`). */
  out?: string;
  writeBack?: boolean;
  force?: boolean;
  /** Where the default locations are (default: this process's HOME, APPDATA, platform and cwd). */
  locations?: LocationContext;
  now?: () => Date;
}

interface Source {
  file: SourceFile;
  detected: DetectedSource;
  /** JSON paths of the entries imported from it. */
  imported: JSONPath[];
  /** How many entries already start Switchyard. */
  switchyard: number;
}

/**
 * `switchyard import`: reads client MCP configs (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf),
 * writes their servers as one Switchyard config and, with `writeBack`, replaces them in each client file
 * with one entry that starts Switchyard. Everything is read and checked before anything is written.
 * Resolves to the exit code: 0 written (or nothing to do), 1 a bad file, nothing found, or `out` exists.
 */
export async function runImport(
  options: ImportOptions,
  out: (text: string) => void,
  err: (text: string) => void,
): Promise<number> {
  const context = options.locations ?? currentLocationContext();
  const outFile = resolve(context.cwd, options.out ?? 'switchyard.json');
  const explicit = options.files.length > 0;
  const files = explicit
    ? options.files.map((f) => resolve(context.cwd, f))
    : await existing(defaultLocations(context).map((l) => l.file));
  if (files.length === 0) {
    err(
      `switchyard import: no client config found; looked for:\n${defaultLocations(context)
        .map((l) => `  ${l.file} (${l.client})`)
        .join('\n')}\nName the files to import: switchyard import <file>…\n`,
    );
    return 1;
  }

  const issues: SourceIssue[] = [];
  const notes: string[] = [];
  const found: VariableFindings = { variables: new Map(), notes: new Set() };
  const servers: FoundServer[] = [];
  const sources: Source[] = [];
  for (const file of new Set(files)) {
    const read = await readSource(file);
    if ('message' in read) {
      issues.push(read);
      continue;
    }
    const detected = detectFormat(read);
    if (detected === 'unknown') {
      if (explicit)
        issues.push({
          file,
          message:
            'not a client MCP config: no "mcpServers" (Claude Desktop, Claude Code, Cursor, Windsurf), "servers" (VS Code mcp.json) or "mcp.servers" (VS Code settings.json)',
        });
      continue;
    }
    if ('message' in detected) {
      issues.push(detected);
      continue;
    }
    const source: Source = { file: read, detected, imported: [], switchyard: 0 };
    sources.push(source);
    const inputs = new Map(
      (detected.format.inputs?.(read.value as Record<string, unknown>) ?? []).map((i) => [i.id, i]),
    );
    for (const group of detected.groups) {
      for (const [name, raw] of Object.entries(group.servers)) {
        if (isSwitchyardEntry(raw)) {
          source.switchyard += 1;
          continue;
        }
        const path = [...group.path, name];
        const entry = convertEntry(raw, {
          source: read,
          path,
          inputs,
          workspace: workspaceOf(file),
          home: context.home,
          issues,
          notes,
          found,
        });
        if (entry === undefined) continue;
        servers.push({ file, name, entry });
        source.imported.push(path);
        if (entry.disabled)
          notes.push(`${name}: disabled in ${file}: imported with "disabled": true (not started)`);
      }
    }
  }
  if (issues.length > 0) {
    err(
      `${issues.map((i) => `switchyard import: ${describeSourceIssue(i)}`).join('\n')}\nNothing was written.\n`,
    );
    return 1;
  }
  if (servers.length === 0) {
    const registered = sources.filter((s) => s.switchyard > 0);
    if (registered.length > 0) {
      err(
        `switchyard import: nothing to import: ${registered.map((s) => s.file.file).join(', ')} ${registered.length === 1 ? 'lists' : 'list'} only Switchyard. Nothing was written.\n`,
      );
      return 0;
    }
    err(
      `switchyard import: no MCP servers found in ${[...new Set(files)].join(', ')}. Nothing was written.\n`,
    );
    return 1;
  }

  const plan = toConfig(servers);
  const invalid = validate(plan.config, outFile);
  if (invalid.length > 0) {
    const from = (issuePath: string) => {
      const name = /^\$\.mcpServers\.([a-z][a-z0-9-]*)/.exec(issuePath)?.[1];
      const origin = plan.names.find((n) => n.as === name && !n.duplicate);
      return origin ? ` (server "${origin.name}" of ${origin.file})` : '';
    };
    err(
      `${invalid.map((i) => `switchyard import: ${i.path}: ${i.message}${from(i.path)}`).join('\n')}\nNothing was written.\n`,
    );
    return 1;
  }
  if (!options.force && (await exists(outFile))) {
    err(
      `switchyard import: ${outFile} exists; pass --force to overwrite it, or --out <file>. Nothing was written.\n`,
    );
    return 1;
  }

  // Every client file's new text is computed before anything is written.
  const rewrites = options.writeBack
    ? sources
        .filter((s) => s.imported.length > 0)
        .map((s) => ({
          file: s.file.file,
          before: s.file.text,
          after: rewriteClientFile(s.file.text, s.detected.format, s.imported, outFile),
        }))
        .filter((r) => r.after !== r.before)
    : [];

  await writeFile(outFile, `${JSON.stringify(plan.config, null, 2)}\n`);
  const now = options.now?.() ?? new Date();
  for (const rewrite of rewrites) {
    const backup = backupName(rewrite.file, now);
    await copyFile(rewrite.file, backup, constants.COPYFILE_EXCL);
    await writeFile(rewrite.file, rewrite.after);
    err(`${lineDiff(rewrite.before, rewrite.after, rewrite.file)}backup: ${backup}\n`);
  }

  for (const n of plan.names) {
    if (n.duplicate) notes.push(`${n.name} (${n.file}): same server as "${n.as}": imported once`);
    else if (n.as !== n.name) notes.push(`${n.name} (${n.file}): imported as "${n.as}"`);
  }
  for (const note of [...notes, ...found.notes]) err(`note: ${note}\n`);
  if (found.variables.size > 0) {
    err(
      `Set these environment variables where the gateway runs (the config reads them as \${VAR}):\n${[
        ...found.variables,
      ]
        .map(([name, from]) => `  ${name}  (${from})`)
        .join('\n')}\n`,
    );
  }
  const count = Object.keys(plan.config.mcpServers).length;
  const fromFiles = new Set(servers.map((s) => s.file)).size;
  out(
    `imported ${count} server${count === 1 ? '' : 's'} from ${fromFiles} file${fromFiles === 1 ? '' : 's'} into ${outFile}` +
      (rewrites.length > 0
        ? `; ${rewrites.length} client file${rewrites.length === 1 ? '' : 's'} now start${rewrites.length === 1 ? 's' : ''} Switchyard`
        : '') +
      '\n',
  );
  return 0;
}

/**
 * The gateway's own validation of the config to be written, with every `${VAR}` taken as set (the user
 * sets them later); a URL that is only known once its variables are read is not judged.
 */
function validate(config: unknown, outFile: string) {
  const env = new Proxy({} as NodeJS.ProcessEnv, { get: () => 'placeholder' });
  try {
    parseConfig(config, { source: outFile, baseDir: dirname(outFile), env });
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const servers = (config as { mcpServers: Record<string, { url?: string }> }).mcpServers;
    return error.issues.filter((issue) => {
      const name = /^\$\.mcpServers\.([a-z][a-z0-9-]*)\.url$/.exec(issue.path)?.[1];
      return !(name && servers[name]?.url?.includes('${'));
    });
  }
}

/** The project folder of a project-level client file (`.vscode/`, `.cursor/`, `.mcp.json`). */
function workspaceOf(file: string): string | undefined {
  const folder = dirname(file);
  if (['.vscode', '.cursor'].includes(basename(folder))) return dirname(folder);
  return basename(file) === '.mcp.json' ? folder : undefined;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

async function existing(files: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) if (await exists(file)) found.push(file);
  return found;
}
