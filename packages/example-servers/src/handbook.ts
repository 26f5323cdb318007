/** One page of the example team handbook the `docs` server serves. */
export interface HandbookPage {
  /** The last segment of its URI: `file:///handbook/<slug>.md`. */
  slug: string;
  title: string;
  description: string;
  markdown: string;
}

/** The handbook: a few short pages with enough text to search and summarize. */
export const HANDBOOK: readonly HandbookPage[] = [
  {
    slug: 'onboarding',
    title: 'Onboarding',
    description: 'Your first week: accounts, the repositories, who to ask',
    markdown: `# Onboarding

Welcome to the platform team. In your first week:

1. Ask #it-help for your laptop, VPN and SSO accounts.
2. Clone the monorepo and run \`pnpm start\`: the gateway and two example servers come up locally.
3. Pair with your onboarding buddy on one ticket from the \`good-first-issue\` queue.
4. Read the [incident runbook](file:///handbook/incident-runbook.md) before your first on-call shadow shift.

Questions go to your buddy first, then #platform.
`,
  },
  {
    slug: 'incident-runbook',
    title: 'Incident runbook',
    description: 'What to do when the pager goes off, step by step',
    markdown: `# Incident runbook

1. **Acknowledge** the page within 5 minutes.
2. **Assess** severity: SEV1 = customers cannot work, SEV2 = degraded, SEV3 = internal only.
3. **Open a ticket** with the alert name as its title; post its id in #incidents.
4. **Mitigate first**: roll back the last deploy, fail over, or scale out. Root cause comes later.
5. **Communicate** every 30 minutes for SEV1 and SEV2 on the status page.
6. **Close** the ticket with a one-line summary; schedule the postmortem within 3 working days.

Escalation: the secondary on-call, then the engineering manager on duty.
`,
  },
  {
    slug: 'deploys',
    title: 'Deploying',
    description: 'How changes reach production, and how to roll back',
    markdown: `# Deploying

Every merge to \`main\` builds a release candidate. Deploys go out from the release dashboard:
canary (5 %) for 15 minutes, then everyone. A red canary rolls back by itself.

To roll back by hand: \`release rollback <service>\` restores the previous build in about 2 minutes.
Never deploy on Friday after 15:00 without a second reviewer.
`,
  },
  {
    slug: 'on-call',
    title: 'On-call',
    description: 'Rotation, handover and what counts as an emergency',
    markdown: `# On-call

The rotation is one week, Monday 10:00 to Monday 10:00, primary and secondary.
At handover, walk through open incident tickets and anything flaky from the past week.
Page only for customer impact; everything else becomes a ticket for working hours.
`,
  },
  {
    slug: 'style-guide',
    title: 'Writing style guide',
    description: 'How we write tickets, docs and commit messages',
    markdown: `# Writing style guide

- Titles say what is wrong, not what to do: "Login fails for SSO users", not "Fix login".
- Say what you saw, what you expected, and how to see it again.
- Short sentences. Plain words. Link, don't paste.
`,
  },
];

/** The URI the `docs` server gives a page. */
export function pageUri(page: Pick<HandbookPage, 'slug'>): string {
  return `file:///handbook/${page.slug}.md`;
}

/** Pages whose title or text contains every word of `query` (case-insensitive), best (most hits) first. */
export function searchHandbook(query: string): HandbookPage[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const scored = HANDBOOK.map((page) => {
    const text = `${page.title}\n${page.markdown}`.toLowerCase();
    let hits = 0;
    for (const word of words) {
      const count = text.split(word).length - 1;
      if (count === 0) return { page, hits: 0 };
      hits += count;
    }
    return { page, hits };
  });
  return scored
    .filter((s) => s.hits > 0)
    .sort((a, b) => b.hits - a.hits)
    .map((s) => s.page);
}
