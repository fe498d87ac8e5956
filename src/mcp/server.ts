// The MCP tool set over one Kioku facade (local or remote). Each tool has a zod input
// schema, answers with structured content and a short text rendering, and says in its
// description *when* an agent should call it: directives at the start of a session,
// recall before answering, write when a topic closes, browse by topic or time when a
// search misses. Every tool is a call of the facade: no second search path.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { isKiokuError } from '../errors.js';
import type { Kioku } from '../kioku.js';
import { MEMORY_KINDS } from '../knowledge/kinds.js';
import { renderContext } from '../recall/render.js';
import type { RecallPacket } from '../recall/packet.js';
import { packageVersion } from '../package-root.js';

export interface McpOptions {
  /** the facade, resolved on first use so that the handshake never waits for a service or a model */
  kioku: () => Promise<Kioku>;
  /** the namespace every call acts in (KIOKU_NAMESPACE); the token's or private when absent */
  namespace?: string | undefined;
  now?: () => Date;
}

type ToolAnswer = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

const memoryShape = {
  id: z.string().min(1).max(512).optional().describe('your id for it (makes the write idempotent); generated when absent'),
  kind: z.enum(MEMORY_KINDS).describe('fact, decision, commitment, preference, directive, constraint, procedure, event, observation or note'),
  text: z.string().min(1).max(100_000).describe('the memory itself, self-contained: who, what, when, why (stored exactly as sent)'),
  terms: z.array(z.string()).max(100).optional().describe('expansion words a later search might use (synonyms, ids, other languages)'),
  entities: z.array(z.string()).max(100).optional().describe('people, systems, projects it is about'),
  tags: z.array(z.string()).max(100).optional().describe('domains, e.g. "security" for a constraint'),
  attachments: z.array(z.string()).max(100).optional(),
  supersede_ids: z.array(z.string()).max(100).optional().describe('ids of memories this one replaces'),
  occurred_at: z.string().optional().describe('when it happened (ISO 8601); defaults to now'),
};

const itemView = (e: Record<string, unknown>) => ({
  evidence_key: e['key'],
  id: e['id'],
  layer: e['layer'],
  ...(e['kind'] ? { kind: e['kind'] } : {}),
  title: e['title'],
  text: e['text'],
  occurred_at: e['occurred_at'],
  status: e['status'],
  ...(e['head_id'] ? { current: e['head_id'] } : {}),
  ...(Array.isArray(e['tags']) && (e['tags'] as unknown[]).length ? { tags: e['tags'] } : {}),
  ...(e['owner'] ? { owner: e['owner'] } : {}),
});

function renderItems(items: ReturnType<typeof itemView>[], empty: string): string {
  if (items.length === 0) return empty;
  return items
    .map(
      (i) =>
        `- [${String(i.evidence_key)}]${i.kind ? ` (${String(i.kind)})` : ''}${i.status !== 'active' ? ` [${String(i.status)}${i.current ? ` → ${String(i.current)}` : ''}]` : ''} ${String(i.text).slice(0, 400)}`,
    )
    .join('\n');
}

function renderPacket(p: RecallPacket): string {
  const delivered = renderContext(p);
  const others = p.records
    .filter((r) => !r.why.delivered)
    .slice(0, 5)
    .map((r) => `- [${r.evidence_key}] ${r.title}`);
  return [delivered || 'Nothing to deliver for this message.', others.length ? `Other candidates (ask get_memory for one):\n${others.join('\n')}` : '']
    .filter(Boolean)
    .join('\n\n');
}

/**
 * The rhythm of a session, given to the client at initialize (MCP `instructions`): when to call
 * what. Each tool's description repeats its own part.
 */
export const SESSION_RHYTHM = [
  'Kioku is your long-term memory for this user. The rhythm of a session:',
  '1. At the start: call recall_directives. Follow the standing instructions, habits and constraints it returns for the whole session; its `now` is the authoritative current time (you have no reliable clock).',
  "2. Before answering each turn: call search_memory with `sentence` (the user's words plus the gist of your last reply) and `terms` (expansion words: synonyms, names, the other language). This is thinking, not something to wait to be asked for. Before writing code or a design, also call recall_constraints.",
  '3. When a topic closes: call write_memory once with the decisions, commitments, preferences and facts worth keeping (a batch; kind, terms, entities). Name supersede_ids when a memory replaces an older one; otherwise look at the supersede_candidates it returns.',
  '4. When the user asks about the past and a search misses, switch entry points: recall_timeline (a time range, "last week"), recall_topic (an entity), recall_episodes (the verbatim dialogue), get_related (follow links from an item you found).',
  'Use what applies; ignore the rest without mentioning it. Results are ranked and bounded: ask get_memory for one item in full.',
].join('\n');

export function createMcpServer(options: McpOptions): McpServer {
  const server = new McpServer({ name: 'kioku', version: packageVersion() }, { capabilities: { tools: {} }, instructions: SESSION_RHYTHM });
  const ns = options.namespace ? { namespace: options.namespace } : {};
  // a Kioku error is an answer the agent can act on (isError with its code), never a crash of the server
  const run = async (fn: (k: Kioku) => Promise<{ text: string; data: Record<string, unknown> }>): Promise<ToolAnswer> => {
    try {
      const { text, data } = await fn(await options.kioku());
      return { content: [{ type: 'text', text }], structuredContent: data };
    } catch (err) {
      const code = isKiokuError(err) ? err.code : 'KIOKU_INTERNAL';
      const message = err instanceof Error ? err.message : String(err);
      return { content: [{ type: 'text', text: `${code}: ${message}` }], structuredContent: { error: { code, message } }, isError: true };
    }
  };
  const items = (k: Kioku, query: Parameters<Kioku['items']>[0], empty: string) =>
    k.items({ ...ns, ...query }).then((a) => {
      const list = a.items.map((e) => itemView(e as unknown as Record<string, unknown>));
      return {
        text: renderItems(list, empty),
        data: { namespace: a.namespace, ...(a.range ? { range: a.range } : {}), items: list, total: a.total, truncated: a.truncated },
      };
    });

  server.registerTool(
    'recall',
    {
      description:
        'Search Kioku before answering a question that may depend on what was decided, written or said before. Give the user message (and the recent conversation for follow-ups). Returns at most three delivered items worth using, and the other candidates by evidence key.',
      inputSchema: {
        message: z.string().min(1).max(20_000).describe("the user's message, as written"),
        conversation: z
          .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() }))
          .max(8)
          .optional()
          .describe('the last few messages, oldest first, for follow-ups like "and the other one?"'),
        limit: z.number().int().min(1).max(50).optional(),
        session_id: z.string().min(1).max(512).optional(),
        options: z.record(z.string(), z.unknown()).optional().describe('layer switches and filters, e.g. {"wiki": false, "semantic": false, "tags": ["deploy"]} (tags: only items carrying every one)'),
      },
    },
    (a) =>
      run(async (k) => {
        const packet = await k.recall({
          ...ns,
          query: a.message,
          ...(a.conversation ? { conversation: a.conversation } : {}),
          ...(a.limit ? { limit: a.limit } : {}),
          ...(a.session_id ? { session_id: a.session_id } : {}),
          ...(a.options ? { options: a.options as never } : {}),
        });
        return { text: renderPacket(packet), data: packet as unknown as Record<string, unknown> };
      }),
  );

  server.registerTool(
    'search_memory',
    {
      description:
        'Search the library directly, ranked and bounded, without the judge or delivery: give the sentence you are looking for (read by meaning) and, apart, the expansion words (ids, synonyms, other languages) matched literally. Use it to look something up mid-task or when recall delivered nothing.',
      inputSchema: {
        sentence: z.string().min(1).max(2_000).describe('what you are looking for, as a sentence'),
        terms: z.array(z.string().min(1).max(200)).max(50).optional().describe('literal expansion words, searched apart from the sentence'),
        limit: z.number().int().min(1).max(50).optional(),
        semantic: z.boolean().optional().describe('false: lexical only (faster)'),
        tags: z.array(z.string().min(1).max(200)).min(1).max(20).optional().describe('only items carrying every one of these tags'),
        layers: z
          .array(z.enum(['cards', 'wiki', 'memories', 'notes', 'conversations', 'assets', 'episodes']))
          .min(1)
          .optional(),
      },
    },
    (a) =>
      run(async (k) => {
        const only = a.layers
          ? Object.fromEntries(['cards', 'wiki', 'memories', 'notes', 'conversations', 'assets', 'episodes'].map((l) => [l, a.layers!.includes(l as never)]))
          : {};
        const packet = await k.candidates({
          ...ns,
          query: a.sentence,
          ...(a.terms?.length ? { terms: a.terms } : {}),
          limit: a.limit ?? 10,
          options: { ...only, ...(a.semantic === false ? { semantic: false } : {}), ...(a.tags ? { tags: a.tags } : {}) } as never,
        });
        const list = packet.records.map((r) => ({
          evidence_key: r.evidence_key,
          layer: r.layer,
          title: r.title,
          excerpt: r.excerpt,
          score: r.score,
          occurred_at: r.occurred_at,
        }));
        return {
          text: list.length ? list.map((r) => `- [${r.evidence_key}] ${r.excerpt.slice(0, 300)}`).join('\n') : 'Nothing matches.',
          data: { retrieval_mode: packet.retrieval_mode, records: list, warnings: packet.warnings },
        };
      }),
  );

  server.registerTool(
    'write_memory',
    {
      description:
        'Write what should outlive this conversation when a topic closes: a decision and its reason, a fact learned, a preference or standing instruction (kind directive), a hard constraint (kind constraint, tagged by domain). Batch several at once. When you name no supersede_ids, the answer lists older memories that may be replaced (supersede_candidates).',
      inputSchema: { memories: z.array(z.object(memoryShape)).min(1).max(500) },
    },
    (a) =>
      run(async (k) => {
        const r = await k.writeMemories({ ...ns, memories: a.memories as never });
        const candidates = Object.entries(r.supersede_candidates);
        return {
          text: `wrote ${r.written.length} of ${r.ids.length} (${r.ids.join(', ')})${candidates.length ? `; may supersede: ${candidates.map(([id, c]) => `${id} → ${c.map((x) => x.id).join(', ')}`).join('; ')}` : ''}`,
          data: r as unknown as Record<string, unknown>,
        };
      }),
  );

  server.registerTool(
    'supersede',
    {
      description: 'Mark older memories as replaced by a newer one (the newer is the current answer; the older stay in history).',
      inputSchema: {
        id: z.string().min(1).max(512).describe('the newer memory'),
        superseded_ids: z.array(z.string().min(1).max(512)).min(1).max(100),
        reason: z.string().max(2_000).optional(),
      },
    },
    (a) =>
      run(async (k) => {
        const r = await k.supersede(a.id, { ...ns, superseded_ids: a.superseded_ids, ...(a.reason ? { reason: a.reason } : {}) });
        return { text: `${a.superseded_ids.join(', ')} superseded by ${a.id}`, data: r };
      }),
  );

  server.registerTool(
    'forget',
    {
      description: 'Forget a memory that is wrong or must not be used (a tombstone: it is never recalled again; the log keeps the history).',
      inputSchema: { id: z.string().min(1).max(512), reason: z.string().max(2_000).optional() },
    },
    (a) =>
      run(async (k) => {
        const r = await k.forget(a.id, { ...ns, ...(a.reason ? { reason: a.reason } : {}) });
        return { text: `forgot ${a.id}`, data: r };
      }),
  );

  server.registerTool(
    'set_memory_audience',
    {
      description:
        'Set who a memory is for. Kioku runs for a single user here: the audience can only be you, [] (owner only) or ["me"]; naming anyone else is refused with KIOKU_AUDIENCE_REFUSED and nothing changes.',
      inputSchema: {
        id: z.string().min(1).max(512),
        audience: z.array(z.string().min(1).max(200)).max(100).describe('[] or ["me"]: any other name is refused (no other members in single-user mode)'),
      },
    },
    (a) =>
      run(async (k) => {
        const r = await k.setAudience(a.id, { ...ns, audience: a.audience });
        return { text: `audience of ${a.id}: ${a.audience.join(', ') || '(owner only)'}`, data: r };
      }),
  );

  server.registerTool(
    'get_memory',
    {
      description: 'Read one item whole by its evidence key (as recall and the other tools show it), with its supersede history for memories.',
      inputSchema: { evidence_key: z.string().min(1).max(8_192) },
    },
    (a) =>
      run(async (k) => {
        const e = await k.evidence(a.evidence_key);
        const view = itemView(e as unknown as Record<string, unknown>);
        return { text: renderItems([view], ''), data: e as unknown as Record<string, unknown> };
      }),
  );

  server.registerTool(
    'get_related',
    {
      description:
        'Follow the edges from one item (by evidence key) when you need its context: what it superseded or was superseded by, the cards it references or that reference it, the turns before and after it in its session, and items about the same entities.',
      inputSchema: { evidence_key: z.string().min(1).max(8_192), limit: z.number().int().min(1).max(100).optional() },
    },
    (a) =>
      run(async (k) => {
        const r = await k.related(a.evidence_key, a.limit ? { limit: a.limit } : {});
        return {
          text: r.edges.length
            ? r.edges.map((e) => `- ${e.relation}${e.entity ? ` (${e.entity})` : ''}: [${e.evidence_key}] ${e.title}`).join('\n')
            : 'No related items.',
          data: r as unknown as Record<string, unknown>,
        };
      }),
  );

  server.registerTool(
    'recall_directives',
    {
      description:
        "Call at the start of a session: the user's standing instructions and preferences (memories of kind directive and preference), newest first, and the authoritative current time.",
      inputSchema: { limit: z.number().int().min(1).max(200).optional() },
    },
    (a) =>
      run(async (k) => {
        const r = await items(k, { layers: ['memory'], kinds: ['directive', 'preference'], limit: a.limit ?? 50 }, 'No standing directives.');
        const now = (options.now?.() ?? new Date()).toISOString();
        return { text: `now: ${now}\n${r.text}`, data: { now, ...r.data } };
      }),
  );

  server.registerTool(
    'recall_constraints',
    {
      description:
        'Before acting in a domain (security, deploys, data, money…): the hard constraints recorded for it (memories of kind constraint, optionally by domain tag).',
      inputSchema: { domain: z.string().min(1).max(200).optional(), limit: z.number().int().min(1).max(200).optional() },
    },
    (a) =>
      run((k) =>
        items(
          k,
          { layers: ['memory'], kinds: ['constraint'], ...(a.domain ? { tags: [a.domain] } : {}), limit: a.limit ?? 50 },
          `No constraints${a.domain ? ` for ${a.domain}` : ''}.`,
        ),
      ),
  );

  server.registerTool(
    'recall_topic',
    {
      description: 'When a search misses, switch entry point: everything about one person, system or project (by entity or speaker name), newest first.',
      inputSchema: {
        entity: z.string().min(1).max(200),
        include_history: z.boolean().optional().describe('also superseded and forgotten items, each marked with what replaced it'),
        limit: z.number().int().min(1).max(200).optional(),
      },
    },
    (a) => run((k) => items(k, { entity: a.entity, include_retired: a.include_history ?? false, limit: a.limit ?? 20 }, `Nothing recorded about ${a.entity}.`)),
  );

  server.registerTool(
    'recall_timeline',
    {
      description:
        'What happened in a time range: ISO times, or phrases like "last week", "yesterday", "in September", "九月那阵子". Use when the user asks about a period rather than a topic.',
      inputSchema: {
        from: z.string().min(1).max(200).describe('an ISO time, or a phrase that names the whole range'),
        to: z.string().min(1).max(200).optional(),
        layers: z.array(z.enum(['card', 'wiki', 'memory', 'note', 'trace', 'episode', 'asset'])).optional(),
        limit: z.number().int().min(1).max(200).optional(),
      },
    },
    (a) =>
      run((k) =>
        items(
          k,
          { from: a.from, ...(a.to ? { to: a.to } : {}), ...(a.layers ? { layers: a.layers } : {}), limit: a.limit ?? 30 },
          'Nothing recorded in that range.',
        ),
      ),
  );

  server.registerTool(
    'recall_session',
    {
      description: 'The turns and memories of one earlier session, newest first (to pick up where it left off).',
      inputSchema: { session_id: z.string().min(1).max(512), limit: z.number().int().min(1).max(200).optional() },
    },
    (a) => run((k) => items(k, { session_id: a.session_id, limit: a.limit ?? 50 }, `No session ${a.session_id} here.`)),
  );

  server.registerTool(
    'list_memories',
    {
      description:
        "Browse what the library holds, not ranked: items in a stable order (evidence key), filtered by layer, kind, tag, entity, session, time range or a text substring, a page at a time. Pass next_cursor back as cursor (with the same filters) for the next page. Use it to see what is stored, or to check before writing a duplicate.",
      inputSchema: {
        layers: z.array(z.enum(['card', 'wiki', 'memory', 'note', 'trace', 'episode', 'asset'])).min(1).optional(),
        kinds: z.array(z.string().min(1).max(50)).max(20).optional().describe('memory kinds: fact, decision, preference, directive, constraint, …'),
        tags: z.array(z.string().min(1).max(200)).max(20).optional().describe('items carrying every one of these tags'),
        entity: z.string().min(1).max(200).optional(),
        session_id: z.string().min(1).max(512).optional(),
        since: z.string().min(1).max(200).optional().describe('an ISO time, or a phrase ("last week")'),
        until: z.string().min(1).max(200).optional(),
        text: z.string().min(1).max(500).optional().describe('a substring of the title or text (case-insensitive)'),
        include_retired: z.boolean().optional(),
        limit: z.number().int().min(1).max(500).optional().describe('default 50'),
        cursor: z.string().min(1).max(4_096).optional(),
      },
    },
    (a) =>
      run(async (k) => {
        const page = await k.list({ ...ns, ...a });
        const list = page.items.map((e) => itemView(e as unknown as Record<string, unknown>));
        const more = page.next_cursor ? `\n(more: call again with cursor "${page.next_cursor}")` : '';
        return {
          text: `${renderItems(list, 'Nothing matches.')}${more}`,
          data: { namespace: page.namespace, items: list, next_cursor: page.next_cursor, scanned: page.scanned },
        };
      }),
  );

  server.registerTool(
    'log_episodes',
    {
      description:
        'Keep a dialogue verbatim when its exact words matter later (a negotiation, an incident call). Episodes are cold: recall_episodes finds them, ordinary recall does not.',
      inputSchema: {
        episode_id: z.string().min(1).max(512).optional(),
        session_id: z.string().min(1).max(512).optional(),
        messages: z
          .array(z.object({ role: z.enum(['user', 'assistant', 'system', 'tool']), text: z.string().max(100_000), at: z.string().optional() }))
          .min(1)
          .max(10_000),
      },
    },
    (a) =>
      run(async (k) => {
        const r = await k.logEpisode({ ...ns, ...a } as never);
        return { text: `kept episode ${r.episode_id} (${a.messages.length} messages)`, data: r };
      }),
  );

  server.registerTool(
    'recall_episodes',
    {
      description: 'Search the verbatim dialogues kept with log_episodes (only those), when the exact words of an earlier conversation are needed.',
      inputSchema: { message: z.string().min(1).max(20_000), limit: z.number().int().min(1).max(50).optional() },
    },
    (a) =>
      run(async (k) => {
        const off = { cards: false, wiki: false, memories: false, notes: false, conversations: false, assets: false };
        const packet = await k.candidates({ ...ns, query: a.message, ...(a.limit ? { limit: a.limit } : {}), options: { ...off, episodes: true } as never });
        const list = packet.records.map((r) => ({ evidence_key: r.evidence_key, title: r.title, text: r.excerpt, score: r.score }));
        return {
          text: list.length ? list.map((r) => `- [${r.evidence_key}] ${r.text.slice(0, 400)}`).join('\n') : 'No kept dialogue matches.',
          data: { records: list },
        };
      }),
  );

  server.registerTool(
    'register_asset',
    {
      description:
        "Register a file with a description (the description is what later searches find). Either `path`: an absolute path on the Kioku service's machine, read only if it lies under an asset root the operator configured for your namespace (KIOKU_ASSET_ROOTS; symlinks followed; the data dir, keys, auth file and /proc, /sys, /dev are always refused), the file staying where it is; or `content`: the bytes themselves (text, or base64 with encoding base64; at most 1 MiB) with an optional file `name`, kept by the service — for a client on another machine or a namespace with no asset root.",
      inputSchema: {
        id: z.string().min(1).max(512).optional(),
        path: z.string().min(1).max(4_096).optional(),
        content: z.string().optional(),
        encoding: z.enum(['utf8', 'base64']).optional(),
        name: z.string().min(1).max(200).optional(),
        description: z.string().min(1).max(10_000),
        tags: z.array(z.string()).max(100).optional(),
        mime: z.string().max(200).optional(),
      },
    },
    (a) =>
      run(async (k) => {
        const r = await k.registerAsset({ ...ns, ...a });
        return { text: `asset ${r.id}: ${r.size} bytes${r.changed ? '' : ' (unchanged)'}`, data: r };
      }),
  );

  server.registerTool(
    'get_asset',
    {
      description:
        "An asset's claim ticket (id, mime, bytes, description, path) and whether the file is still as registered (ok, changed, missing, or refused when the asset policy no longer lets the service read that path); with include_content, the content inline (text or base64), cut at 256 KB — read under the same policy as registration (your namespace's asset roots or its uploads, checked again now), else refused.",
      inputSchema: { id: z.string().min(1).max(512), include_content: z.boolean().optional(), max_bytes: z.number().int().min(1).max(262_144).optional() },
    },
    (a) =>
      run(async (k) => {
        const r = await k.asset(a.id, { ...ns, ...(a.include_content ? { include_content: true } : {}), ...(a.max_bytes ? { max_bytes: a.max_bytes } : {}) });
        return {
          text: `${r.id}: ${r.path} (${r.mime ?? 'unknown type'}, ${r.bytes} bytes) — ${r.status}${r.content ? `\n${r.content.encoding === 'utf8' ? r.content.data : '(base64 in structured content)'}` : ''}`,
          data: r as unknown as Record<string, unknown>,
        };
      }),
  );

  server.registerTool(
    'stats',
    {
      description:
        'What the library holds in your namespace (items by layer, active and retired; events recorded): to tell whether Kioku knows anything yet. The shared log head is shown only to a caller who may see the whole service.',
      inputSchema: {},
    },
    () =>
      run(async (k) => {
        const r = await k.stats({ ...ns });
        return {
          text: `${r.items.active} active of ${r.items.total} items in ${r.namespace} (${JSON.stringify(r.items.by_layer)}); ${r.events} events${r.head ? `; log head ${r.head.seq}` : ''}`,
          data: r as unknown as Record<string, unknown>,
        };
      }),
  );

  // Single-user Kioku has no other members: the org tools answer empty and say why, and anything
  // that would need another member is refused, never silently dropped.
  const alone = 'Kioku runs for a single user here: there are no other members, spaces or notices.';
  for (const [name, description, key] of [
    ['inbox', 'Notices other members sent you (none in single-user mode).', 'notices'],
    ['outbox', 'Notices you sent to other members (none in single-user mode).', 'notices'],
    ['list_spaces', 'The shared spaces you belong to (none in single-user mode).', 'spaces'],
    ['list_members', 'The members of a space (none in single-user mode).', 'members'],
  ] as const) {
    server.registerTool(name, { description, inputSchema: {} }, async () => ({
      content: [{ type: 'text' as const, text: alone }],
      structuredContent: { [key]: [], single_user: true, explanation: alone },
    }));
  }
  server.registerTool(
    'ack',
    { description: 'Acknowledge a notice from your inbox (there are none in single-user mode).', inputSchema: { notice_id: z.string().min(1).max(512) } },
    async (a) => ({
      content: [{ type: 'text' as const, text: `KIOKU_NOT_FOUND: no notice ${a.notice_id}. ${alone}` }],
      structuredContent: { error: { code: 'KIOKU_NOT_FOUND', message: `no notice ${a.notice_id}` } },
      isError: true,
    }),
  );
  server.registerTool(
    'notify',
    {
      description: 'Send a notice to another member (refused in single-user mode).',
      inputSchema: { to: z.string().min(1).max(200), text: z.string().min(1).max(10_000) },
    },
    async (a) => ({
      content: [{ type: 'text' as const, text: `KIOKU_FORBIDDEN: there is no member "${a.to}" to notify. ${alone}` }],
      structuredContent: { error: { code: 'KIOKU_FORBIDDEN', message: `no member "${a.to}" in single-user mode` } },
      isError: true,
    }),
  );

  return server;
}
