import { expandUriTemplate, isRecord } from '@switchyard/core';
import type { MayRead, Screened } from './withhold.js';

/**
 * A `completion/complete` answer for a resource template (`ref/resource`) with only the values that
 * lead to a resource the caller may read: the template is expanded with the value and the arguments the
 * client already gave (`context.arguments`), and a value whose URI the caller may not read is dropped, so
 * a template the caller may use does not offer the ids of resources it may not. When values are dropped,
 * `total` stays only if the upstream had shown every value (it becomes the number kept); otherwise it is
 * left out, as it would count values the caller may not see. Prompt completions are returned as is (a
 * denied prompt is refused before it is completed).
 */
export function screenCompletion(
  params: Record<string, unknown>,
  result: Record<string, unknown>,
  mayRead: MayRead,
): Screened {
  const { ref, argument, context } = params;
  const completion = result.completion;
  if (!isRecord(ref) || ref.type !== 'ref/resource' || typeof ref.uri !== 'string')
    return { result, withheld: 0 };
  if (!isRecord(completion) || !Array.isArray(completion.values) || !isRecord(argument)) {
    return { result, withheld: 0 };
  }
  const template = ref.uri;
  const name = String(argument.name);
  const given = isRecord(context) && isRecord(context.arguments) ? stringsOf(context.arguments) : {};
  const values = completion.values as unknown[];
  const kept = values.filter((value) => {
    if (typeof value !== 'string') return false;
    const uri = expandUriTemplate(template, { ...given, [name]: value });
    return uri !== undefined && mayRead(uri);
  });
  const withheld = values.length - kept.length;
  if (withheld === 0) return { result, withheld };
  const { total, ...rest } = completion;
  const screened: Record<string, unknown> = { ...rest, values: kept };
  if (total === values.length) screened.total = kept.length;
  return { result: { ...result, completion: screened }, withheld };
}

/** The string-valued arguments, by name (a client's names: a null-prototype record keeps `__proto__` a key). */
function stringsOf(record: Record<string, unknown>): Record<string, string> {
  const strings: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(record)) if (typeof value === 'string') strings[key] = value;
  return strings;
}
