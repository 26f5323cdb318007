/**
 * The catalog bench's data, in apps/bench/data: the generated services' specs (services.json, in catalog
 * order: dev, ops, data, work, business) and the labelled task phrasings (labelled.json).
 *
 * The phrasings say how a user would ask, each naming the one tool (by exposed name) that should come
 * first, written by hand to paraphrase, not copy, the tools' descriptions (test/catalog-labelled.test.ts
 * holds them to that). `labelled`: even entries tune the ranking options, odd ones are held out (quality.ts
 * `halves`). `blind`: written after the ranking options, the thesaurus and the boosts were frozen on the
 * first set, never used to change them; its numbers are the honest estimate for unseen phrasings.
 * `blind2`: written for the search-recall branch (README.md of packages/core/src/search) before any of its
 * ranking changes were measured on it, from the tool names alone, and measured once, at the end.
 */
import { readFileSync } from 'node:fs';
import type { ServiceSpec } from './model.js';

export interface LabelledQuery {
  query: string;
  expected: string;
}

/** Same path from src/catalog and dist/catalog. */
function readData<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../data/${name}`, import.meta.url), 'utf8')) as T;
}

/** The generated services, in catalog order. */
export const SERVICES: readonly ServiceSpec[] = readData<ServiceSpec[]>('services.json');

const labelled = readData<Record<'labelled' | 'blind' | 'blind2', LabelledQuery[]>>('labelled.json');
export const LABELLED: readonly LabelledQuery[] = labelled.labelled;
export const LABELLED_BLIND: readonly LabelledQuery[] = labelled.blind;
export const LABELLED_BLIND_2: readonly LabelledQuery[] = labelled.blind2;
