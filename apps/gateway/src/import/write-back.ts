import { basename } from 'node:path';
import {
  applyEdits,
  type FormattingOptions,
  findNodeAtLocation,
  getNodeValue,
  type JSONPath,
  modify,
  parseTree,
} from 'jsonc-parser';
import { isObject, type SourceFormat } from './sources/format.js';

/** The stdio command a client runs to start Switchyard on `configFile` (absolute). */
export function switchyardCommand(configFile: string): { command: string; args: string[] } {
  return { command: 'npx', args: ['-y', 'switchyard', '--config', configFile] };
}

/**
 * Whether a client entry starts Switchyard (the one `--write-back` writes, or one written by hand):
 * `switchyard …`, or `npx [-y] switchyard[@version] …`. Such entries are never imported.
 */
export function isSwitchyardEntry(entry: unknown): boolean {
  if (!isObject(entry) || typeof entry.command !== 'string') return false;
  const command = basename(entry.command).replace(/\.(cmd|exe)$/i, '');
  if (command === 'switchyard') return true;
  if (command !== 'npx' || !Array.isArray(entry.args)) return false;
  const first = entry.args.find((arg) => typeof arg === 'string' && !arg.startsWith('-'));
  return typeof first === 'string' && /^switchyard(@.*)?$/.test(first);
}

/**
 * The client file with the imported entries (`removed`, JSON paths) taken out and one Switchyard entry put
 * in the format's place for it (replacing a Switchyard entry already there, whatever its name). Every other
 * key, comment and blank line stays: the edits are jsonc-parser's, applied to the text.
 */
export function rewriteClientFile(
  text: string,
  format: SourceFormat,
  removed: readonly JSONPath[],
  configFile: string,
): string {
  const options = formattingOf(text);
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const container = tree && findNodeAtLocation(tree, format.writeBackPath);
  const existing = container ? getNodeValue(container) : undefined;
  const current = isObject(existing)
    ? Object.keys(existing).find((name) => isSwitchyardEntry(existing[name]))
    : undefined;
  const target = [...format.writeBackPath, current ?? 'switchyard'];
  const entry = format.switchyardEntry(switchyardCommand(configFile));
  // The entry goes in first, then the others come out: removing every entry first would leave the
  // object's separators behind (`{ , }`) in a file with trailing commas.
  let out = applyEdits(text, modify(text, target, entry, { formattingOptions: options }));
  for (const path of removed) {
    if (samePath(path, target)) continue; // an imported server named "switchyard" was just replaced
    out = applyEdits(out, modify(out, [...path], undefined, { formattingOptions: options }));
  }
  return out;
}

function samePath(a: JSONPath, b: JSONPath): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

/** The file's own indentation and line ends, so inserted lines look like their neighbours. */
function formattingOf(text: string): FormattingOptions {
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (indented?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indented?.length ?? 2, eol };
}

/** `<file>.switchyard-backup-<ISO time>`, with `-` for `:` (Windows forbids `:` in file names). */
export function backupName(file: string, now: Date): string {
  return `${file}.switchyard-backup-${now.toISOString().replace(/:/g, '-')}`;
}
