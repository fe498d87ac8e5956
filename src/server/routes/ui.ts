// The web page at /ui: its static files (src/ui/static, no build step) and the sign-in that turns a
// token into a session cookie (src/ui/sessions.ts). The page reads and writes through the same
// /v1 routes, with the same auth, as every other client: nothing here answers from the library.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { KiokuError } from '../../errors.js';
import type { Principal } from '../../access.js';
import { clearedCookie, sessionCookie, type UiSession, type UiSessions } from '../../ui/sessions.js';
import { loadStaticFiles, PAGE_HEADERS, type StaticFile } from '../../ui/static-files.js';
import type { AppOptions } from '../state.js';
import { plugin } from './common.js';

const signInSchema = z.strictObject({ token: z.string().min(1).max(4_096) });

/** What the page learns of who it is: never the token, never another principal. */
function whoAmI(options: AppOptions, principal: Principal | undefined, session: UiSession | undefined) {
  if (!options.auth.required) return { auth_required: false, signed_in: true, anonymous: true, scopes: [...(principal?.scopes ?? [])] };
  if (!session) return { auth_required: true, signed_in: false };
  const p = session.principal;
  return { auth_required: true, signed_in: true, anonymous: false, name: p.name, namespace: p.namespace, scopes: [...p.scopes], csrf: session.csrf };
}

function sendFile(req: FastifyRequest, reply: FastifyReply, file: StaticFile | undefined): FastifyReply {
  if (!file) throw new KiokuError('KIOKU_NOT_FOUND', `no page file ${req.url.split('?')[0]}`);
  void reply.headers({ ...PAGE_HEADERS, 'cache-control': 'no-cache', etag: file.etag });
  if (req.headers['if-none-match'] === file.etag) return reply.status(304).send();
  return reply.type(file.type).send(file.body);
}

export const uiRoutes = (options: AppOptions, sessions: UiSessions) =>
  plugin((app) => {
    const files = loadStaticFiles();
    const index = (req: FastifyRequest, reply: FastifyReply) => sendFile(req, reply, files.get('index.html'));
    app.get('/ui', { schema: { hide: true } }, index);
    app.get('/ui/', { schema: { hide: true } }, index);
    app.get<{ Params: { file: string } }>('/ui/:file', { schema: { hide: true } }, async (req, reply) => sendFile(req, reply, files.get(req.params.file)));

    app.get('/ui/session', { schema: { hide: true } }, async (req, reply) => {
      void reply.headers({ ...PAGE_HEADERS, 'cache-control': 'no-store' });
      return whoAmI(options, options.auth.authenticate(undefined), sessions.find(req.headers.cookie));
    });

    // the token travels once, in this body; the answer sets the cookie and never echoes it
    app.post('/ui/session', { schema: { hide: true } }, async (req, reply) => {
      void reply.headers({ ...PAGE_HEADERS, 'cache-control': 'no-store' });
      if (!options.auth.required) return whoAmI(options, options.auth.authenticate(undefined), undefined);
      const parsed = signInSchema.safeParse(req.body);
      if (!parsed.success) throw new KiokuError('KIOKU_INPUT_INVALID', 'send {"token": "<a token of the auth file>"}', { details: { field: 'token' } });
      const principal = options.auth.authenticate(`Bearer ${parsed.data.token}`);
      if (!principal || /\s/.test(parsed.data.token)) throw new KiokuError('KIOKU_UNAUTHORIZED', 'that token is not one of the auth file');
      const { id, session } = sessions.create(principal);
      void reply.header('set-cookie', sessionCookie(id, req.protocol === 'https'));
      return whoAmI(options, principal, session);
    });

    app.post('/ui/session/end', { schema: { hide: true } }, async (req, reply) => {
      sessions.end(req.headers.cookie);
      void reply.headers({ ...PAGE_HEADERS, 'cache-control': 'no-store', 'set-cookie': clearedCookie() });
      return { signed_in: false };
    });
  });
