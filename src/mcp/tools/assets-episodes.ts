// Assets and episodes: files registered by their description, and dialogues kept verbatim (cold:
// only recall_episodes finds them).
import { z } from 'zod';
import { inputSchemas } from '../../api/index.js';
import { kiokuTool, plainTool } from '../tool.js';
import { headOf } from '../../text/well-formed.js';

export const logEpisodes = kiokuTool({
  name: 'log_episodes',
  description:
    'Keep a dialogue verbatim when its exact words matter later (a negotiation, an incident call). Episodes are cold: recall_episodes finds them, ordinary recall does not.',
  input: inputSchemas.logEpisode,
  fields: { episode_id: 'episode_id', session_id: 'session_id', messages: 'messages' },
  extra: {},
  into: {},
  scope: 'memory:write',
  call: async (k, input, caller) => {
    const r = await k.logEpisode(input, caller);
    return { text: `kept episode ${r.episode_id} (${input.messages.length} messages)`, data: r };
  },
});

/** every layer off but the episodes: ordinary recall never reads them, this tool reads only them */
const EPISODES_ONLY = { cards: false, wiki: false, memories: false, notes: false, conversations: false, assets: false, episodes: true };

export const recallEpisodes = kiokuTool({
  name: 'recall_episodes',
  description: 'Search the verbatim dialogues kept with log_episodes (only those), when the exact words of an earlier conversation are needed.',
  input: inputSchemas.candidates,
  fields: { message: 'query', limit: 'limit' },
  extra: {},
  into: {},
  fold: () => ({ options: EPISODES_ONLY }),
  scope: 'memory:read',
  call: async (k, input, caller) => {
    const packet = await k.candidates(input, caller);
    const list = packet.records.map((r) => ({ evidence_key: r.evidence_key, title: r.title, text: r.excerpt, score: r.score }));
    return {
      text: list.length ? list.map((r) => `- [${r.evidence_key}] ${headOf(r.text, 400)}`).join('\n') : 'No kept dialogue matches.',
      data: { records: list },
    };
  },
});

export const registerAsset = kiokuTool({
  name: 'register_asset',
  description:
    "Register a file with a description (the description is what later searches find). Either `path`: an absolute path on the Kioku service's machine, read only if it lies under an asset root the operator configured for your namespace (KIOKU_ASSET_ROOTS; symlinks followed; the data dir, keys, auth file and /proc, /sys, /dev are always refused), the file staying where it is; or `content`: the bytes themselves (text, or base64 with encoding base64; at most 1 MiB) with an optional file `name`, kept by the service — for a client on another machine or a namespace with no asset root.",
  input: inputSchemas.registerAsset,
  fields: { id: 'id', path: 'path', content: 'content', encoding: 'encoding', name: 'name', description: 'description', tags: 'tags', mime: 'mime' },
  extra: {},
  into: {},
  scope: 'memory:write',
  call: async (k, input, caller) => {
    const r = await k.registerAsset(input, caller);
    return { text: `asset ${r.id}: ${r.size} bytes${r.changed ? '' : ' (unchanged)'}`, data: r };
  },
});

// the facade's asset(id, options) has no input schema (src/api lists none): the tool's own arguments
export const getAsset = plainTool({
  name: 'get_asset',
  description:
    "An asset's claim ticket (id, mime, bytes, description, path) and whether the file is still as registered (ok, changed, missing, or refused when the asset policy no longer lets the service read that path); with include_content, the content inline (text or base64), cut at 256 KB — read under the same policy as registration (your namespace's asset roots or its uploads, checked again now), else refused.",
  input: { id: z.string().min(1).max(512), include_content: z.boolean().optional(), max_bytes: z.number().int().min(1).max(262_144).optional() },
  call: async (kioku, a, context) => {
    const r = await (
      await kioku()
    ).asset(a.id, {
      ...(context.namespace ? { namespace: context.namespace } : {}),
      ...(a.include_content ? { include_content: true } : {}),
      ...(a.max_bytes ? { max_bytes: a.max_bytes } : {}),
    });
    return {
      text: `${r.id}: ${r.path} (${r.mime ?? 'unknown type'}, ${r.bytes} bytes) — ${r.status}${r.content ? `\n${r.content.encoding === 'utf8' ? r.content.data : '(base64 in structured content)'}` : ''}`,
      data: r,
    };
  },
});

export const assetAndEpisodeTools = [logEpisodes, recallEpisodes, registerAsset, getAsset];
