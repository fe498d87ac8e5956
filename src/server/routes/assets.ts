// Episodes and assets: a dialogue kept verbatim, a file registered by path or content, and an
// asset's claim ticket (its content inline on request, read under the same asset policy).
import { KiokuError } from '../../errors.js';
import type { ServerState } from '../state.js';
import { bodyRoute, queryRoute } from '../edge.js';
import { plugin, ready } from './common.js';

/** `?max_bytes=`: a positive integer, or absent. */
function maxBytesOf(raw: unknown): number | undefined {
  const maxBytes = raw === undefined ? undefined : Number(raw);
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 1))
    throw new KiokuError('KIOKU_INPUT_INVALID', 'max_bytes must be a positive integer', { details: { field: 'max_bytes' } });
  return maxBytes;
}

export const assetRoutes = (state: ServerState) =>
  plugin((app) => {
    const tags = ['knowledge'];
    bodyRoute(
      app,
      { url: '/v1/episodes', method: 'logEpisode', scope: 'memory:write', summary: 'keep a dialogue verbatim (cold: recalled only on request)', required: true, tags },
      (input, caller) => ready(state).kioku.logEpisode(input, caller),
    );

    bodyRoute(
      app,
      {
        url: '/v1/assets',
        method: 'registerAsset',
        scope: 'memory:write',
        summary: "register a file by path (only under the namespace's asset root, KIOKU_ASSET_ROOTS) or by uploaded content; its description is its search text",
        required: true,
        tags,
      },
      (input, caller) => ready(state).kioku.registerAsset(input, caller),
    );

    queryRoute<{ id: string }>(
      app,
      {
        url: '/v1/assets/:id',
        scope: 'memory:read',
        summary: "an asset's claim ticket and status; ?include_content=1 inlines it (read under the same asset policy as registration)",
        tags,
      },
      async (caller, req) => {
        const { include_content: inline, max_bytes } = req.query;
        const maxBytes = maxBytesOf(max_bytes);
        return ready(state).kioku.asset(
          req.params.id,
          { namespace: caller.namespace, include_content: inline === '1' || inline === 'true', ...(maxBytes ? { max_bytes: maxBytes } : {}) },
          caller,
        );
      },
    );
  });
