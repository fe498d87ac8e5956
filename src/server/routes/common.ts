import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { LocalKioku } from '../../kioku.js';
import type { KiokuStore } from '../../store.js';
import type { ServerState } from '../state.js';
import { described } from '../edge.js';

export type Ready = { store: KiokuStore; core: NonNullable<ServerState['core']>; kioku: LocalKioku };

/** The open store, core and facade (the onRequest hook answers 503 before they exist). */
export function ready(state: ServerState): Ready {
  return { store: state.store as KiokuStore, core: state.core as NonNullable<ServerState['core']>, kioku: state.kioku as LocalKioku };
}

/** Route options of a route with no body or query schema: its OpenAPI summary and tags. */
export function doc(summary: string, tags: readonly string[] = []): { schema: Record<string, unknown> } {
  return { schema: described(summary, tags) };
}

export function plugin(fn: (app: FastifyInstance) => void | Promise<void>): FastifyPluginAsync {
  return async (app) => {
    await fn(app);
  };
}
