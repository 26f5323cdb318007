import { isRecord } from '@switchyard/core';
import type { MayRead } from './withhold.js';

/** The URIs a skill entry (SEP-2640) names: its SKILL.md and every file of its `resources`. */
export function skillFileUris(skill: unknown): unknown[] {
  if (!isRecord(skill)) return [undefined];
  const files = Array.isArray(skill.resources) ? skill.resources : [];
  return [skill.uri, ...files.map((file) => (isRecord(file) ? file.uri : undefined))];
}

/**
 * What a `skills/get` or `resources/directory/read` answer may show the caller, as a listing would: a
 * skill entry only when every file it names may be read (`refused` otherwise), a directory only the
 * children that may be read (`hidden` counts the others).
 */
export function screenSkillResult(
  method: string,
  result: Record<string, unknown>,
  mayRead: MayRead,
): { result: Record<string, unknown>; hidden: number; refused: boolean } {
  const readable = (uri: unknown) => typeof uri === 'string' && mayRead(uri);
  if (method === 'skills/get') {
    return { result, hidden: 0, refused: !skillFileUris(result.skill).every(readable) };
  }
  if (method !== 'resources/directory/read' || !Array.isArray(result.resources)) {
    return { result, hidden: 0, refused: false };
  }
  const kept = result.resources.filter((child) => isRecord(child) && readable(child.uri));
  const hidden = result.resources.length - kept.length;
  return { result: hidden === 0 ? result : { ...result, resources: kept }, hidden, refused: false };
}
