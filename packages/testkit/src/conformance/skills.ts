import {
  memorySkillFiles,
  type SkillCatalog,
  SkillsExtension,
} from '@modelcontextprotocol/server/ext/skills';

/** Two small skills, one with a nested reference file (so a directory has a sub-directory to list). */
const SKILL_FILES: Record<string, string> = {
  'conformance-greeting/SKILL.md': [
    '---',
    'name: conformance-greeting',
    'description: Greets the user briefly; used by the conformance fixture.',
    '---',
    '',
    '# Greeting',
    '',
    'Say hello in one sentence. Tone rules are in [the guide](references/GUIDE.md).',
    '',
  ].join('\n'),
  'conformance-greeting/references/GUIDE.md': '# Guide\n\nBe brief and friendly.\n',
  'conformance-summary/SKILL.md': [
    '---',
    'name: conformance-summary',
    'description: Summarises a text in three bullet points; used by the conformance fixture.',
    '---',
    '',
    '# Summary',
    '',
    'Write three bullet points, most important first.',
    '',
  ].join('\n'),
};

/**
 * The skills catalog (SEP-2640 extension) the fixture serves: `skills/list` (one skill per page, so the
 * cursor is exercised), `skills/get`, the `skill://` files and `resources/directory/read`.
 */
export function loadFixtureSkills(): Promise<SkillCatalog> {
  return SkillsExtension.load(memorySkillFiles(SKILL_FILES), { pageSize: 1, strict: true });
}
