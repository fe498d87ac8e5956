import type { AppOptions } from '../app.js';
import { plugin } from './common.js';

export const healthRoutes = (options: AppOptions) =>
  plugin((app) => {
    app.get('/v1/health', { schema: { summary: 'liveness, readiness and whether auth is required (always open)' } }, async () => {
      const s = options.state;
      return {
        ok: true,
        ready: s.ready,
        auth_required: options.auth.required,
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
