// POST /v1/secrets/reveal (issue 33): the value behind a placeholder, from this machine's vault.
// The door says where the caller is: a request from a non-loopback address, or carrying a proxy's
// forwarding header (a proxy on this machine would make every caller look local), is `remote`,
// and the facade refuses it (KIOKU_SECRET_REMOTE) whatever its token.
import type { FastifyRequest } from 'fastify';
import type { ServerState } from '../state.js';
import { bodyRoute } from '../edge.js';
import { plugin, ready } from './common.js';

// every header a common proxy or CDN adds to say whom it forwards for (nginx's default proxy_pass adds
// none: a reverse proxy on this machine must not be put in front of reveal — README, Privacy)
const FORWARDING_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-real-ip',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-client-ip',
  'x-cluster-client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'via',
] as const;

/** Whether the request comes straight from this machine: a loopback peer and no proxy in between. */
export function isLocalRequest(req: FastifyRequest): boolean {
  const peer = req.socket.remoteAddress ?? '';
  const loopback = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.test(peer);
  return loopback && FORWARDING_HEADERS.every((h) => req.headers[h] === undefined);
}

export const privacyRoutes = (state: ServerState) =>
  plugin((app) => {
    bodyRoute(
      app,
      {
        url: '/v1/secrets/reveal',
        method: 'revealSecret',
        scope: 'memory:write',
        summary: "the value behind a secret's placeholder ⟦secret:kind:id⟧, from this machine's vault: answered to a caller on this machine only",
        required: true,
        tags: ['privacy'],
      },
      (input, caller, req) => ready(state).kioku.revealSecret(input, { ...caller, remote: !isLocalRequest(req) }),
    );
  });
