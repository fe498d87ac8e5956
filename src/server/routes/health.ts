import type { AppOptions } from '../state.js';
import { plugin } from './common.js';

export const healthRoutes = (options: AppOptions) =>
  plugin((app) => {
    app.get('/v1/health', { schema: { summary: 'liveness, readiness and whether auth is required (always open)' } }, async (req) => {
      const s = options.state;
      const basic = { ok: true, ready: s.ready, auth_required: options.auth.required };
      // with tokens configured, an anonymous caller learns liveness and readiness only: the log head
      // and activity are for token holders
      if (options.auth.required && !options.auth.authenticate(req.headers.authorization)) return basic;
      return {
        ...basic,
        uptime_s: Math.round((Date.now() - s.startedAt) / 1000),
        ...(s.ready && s.store
          ? {
              head: s.store.log.head(),
              projections: s.store.projections.status().map((p) => ({ name: p.name, seq: p.seq, ...(p.failed ? { failed: p.failed } : {}) })),
            }
          : { progress: s.progress ?? null }),
        ...(s.core?.embedder ? { embedder: s.core.embedder.id, judge: s.core.judge.id } : {}),
      };
    });
  });
