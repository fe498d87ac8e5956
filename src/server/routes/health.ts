import { VECTOR_INDEX } from '../../../projections/index.js';
import type { KiokuStore } from '../../store.js';
import { principalSeesService } from '../../access.js';
import type { AppOptions } from '../state.js';
import { plugin } from './common.js';

export const healthRoutes = (options: AppOptions) =>
  plugin((app) => {
    app.get('/v1/health', { schema: { summary: 'liveness, readiness and whether auth is required (always open)' } }, async (req) => {
      const s = options.state;
      const basic = { ok: true, ready: s.ready, auth_required: options.auth.required };
      // with tokens configured, an anonymous caller learns liveness and readiness only: the log head
      // and activity are for token holders
      const principal = options.auth.authenticate(req.headers.authorization) ?? options.uiSessions?.find(req.headers.cookie)?.principal;
      if (!principal) return basic;
      const models = s.core?.embedder ? { embedder: s.core.embedder.id, judge: s.core.judge.id } : {};
      const uptime = { uptime_s: Math.round((Date.now() - s.startedAt) / 1000) };
      if (!principalSeesService(principal)) {
        // a namespaced token: its own counts, never the shared log's head, projection positions or
        // start-up progress (they move with every namespace's writes)
        const ns = principal.namespace;
        const own = s.ready && s.store && s.kioku ? { ...storeConnection(s.store), ...(await s.kioku.stats({ namespace: ns }, { namespaces: [ns] })) } : {};
        return { ...basic, ...uptime, namespace: ns, ...own, ...models };
      }
      return {
        ...basic,
        ...uptime,
        ...(s.ready && s.store ? { head: s.store.log.head(), ...storeHealth(s.store) } : { progress: s.progress ?? null }),
        ...models,
      };
    });
  });

/**
 * What a namespaced token learns of the store: its kind, whether it is connected (writes are
 * refused while not) and whether reads may be stale (cut off, or projections stalled) — no heads,
 * no seqs and no stall message (they speak of the whole log).
 */
function storeConnection(store: KiokuStore): { store: { kind: string; connected: boolean }; stale: boolean } {
  const connected = store.log.health?.().connected ?? true;
  return { store: { kind: store.log.kind, connected }, stale: !connected || store.projections.stall() !== undefined };
}

/**
 * The store as this node sees it: kind, connection and replication lag (node head vs the
 * shared table's head), and projection lag (node head vs the slowest projection). A node cut
 * off from a shared store is `stale`: it answers reads from its projections, refuses writes.
 */
export function storeHealth(store: KiokuStore): Record<string, unknown> {
  const head = store.log.head().seq;
  const projections = store.projections.status();
  const applied = Math.min(head, ...projections.filter((p) => !p.failed).map((p) => p.seq));
  const shared = store.log.health?.();
  // projections that stopped following the log (a record that does not decode, the store away) say why
  const stalled = store.projections.stall();
  return {
    store: shared ?? { kind: store.log.kind, connected: true },
    stale: (shared ? !shared.connected : false) || stalled !== undefined,
    projection_lag: Math.max(0, head - applied),
    // hnswlib-node's graph, or the exact scan when its addon did not load (projections/vector/graph.ts)
    vector_index: VECTOR_INDEX,
    ...(stalled ? { projections_stalled: stalled } : {}),
    projections: projections.map((p) => ({ name: p.name, seq: p.seq, ...(p.loading ? { loading: true } : {}), ...(p.failed ? { failed: p.failed } : {}) })),
  };
}
