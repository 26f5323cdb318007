// An in-house plugin with a reason of its own, written as a platform team would: registered beside the
// plugin with defineErrorReasons, typed by augmenting GatewayErrorReasons, and nothing in core edited.
import { defineErrorReasons, definePlugin, type ReasonsOf } from '../../src/index.js';

export const QuotaReasons = defineErrorReasons('@acme/switchyard-quota', {
  quota_exceeded: {
    code: -32017,
    summary: "(acme quota plugin) the client used today's quota: retry tomorrow, or ask for a larger quota",
    refusal: true,
  },
});

declare module '../../src/index.js' {
  interface GatewayErrorReasons extends ReasonsOf<typeof QuotaReasons> {}
}

/** Refuses every `resources/read` past `reads` per client. */
export const quota = definePlugin<{ reads: number }>({
  name: '@acme/switchyard-quota',
  setup({ reads }) {
    const used = new Map<string, number>();
    return {
      request: (ctx, next) => {
        if (ctx.method !== 'resources/read') return next();
        const count = (used.get(ctx.identity.id) ?? 0) + 1;
        used.set(ctx.identity.id, count);
        if (count <= reads) return next();
        const error = QuotaReasons.quota_exceeded.error(
          `Quota exceeded: ${reads} reads a day; retry tomorrow.`,
          { quota: reads },
        );
        return Promise.resolve({ ok: false, error });
      },
    };
  },
});
