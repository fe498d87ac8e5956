// Browse: one item whole and its edges, items by what they are (directives, constraints, a topic,
// a time range, a session), a page of the library in key order, and what the library holds.
import { z } from 'zod';
import { inputSchemas, querySchemas } from '../../api/index.js';
import { browseItems, itemView, renderItems } from '../render.js';
import { KiokuError } from '../../errors.js';
import { kiokuTool, namespaceReadTool, plainTool } from '../tool.js';

const items = inputSchemas.items;
const evidenceKey = z.string().min(1).max(8_192);
/** an item as the agent has it: its evidence key (as every answer shows it), or a memory's id */
const itemArgs = {
  evidence_key: evidenceKey.optional().describe('the item\'s evidence key, as recall and the other tools show it'),
  id: z.string().min(1).max(512).optional().describe("or a memory's id (instead of evidence_key)"),
};
/** The one item a call names: its evidence key or a memory id, exactly one of them. */
function itemOf(a: { evidence_key?: string | undefined; id?: string | undefined }, tool: string): string {
  const ref = a.evidence_key ?? a.id;
  if (ref === undefined || (a.evidence_key !== undefined && a.id !== undefined))
    throw new KiokuError('KIOKU_INPUT_INVALID', `${tool}: evidence_key: give the item's evidence_key or a memory's id (one of them)`, { details: { field: 'evidence_key' } });
  return ref;
}
/** the facade's page size without its default (50): a browse tool folds in its own */
const ownLimit = { limit: items.shape.limit.removeDefault().optional() };

export const getMemory = plainTool({
  name: 'get_memory',
  description: "Read one item whole by its evidence key (as recall and the other tools show it) or a memory's id, with its supersede history for memories.",
  input: itemArgs,
  call: async (kioku, a) => {
    const e = await (await kioku()).evidence(itemOf(a, 'get_memory'));
    return { text: renderItems([itemView(e)], ''), data: e };
  },
});

export const getRelated = plainTool({
  name: 'get_related',
  description:
    "Follow the edges from one item (by evidence key, or a memory's id) when you need its context: what it superseded or was superseded by, the cards it references or that reference it, the turns before and after it in its session, and items about the same entities.",
  input: { ...itemArgs, limit: querySchemas.related.shape.limit },
  call: async (kioku, a) => {
    const r = await (await kioku()).related(itemOf(a, 'get_related'), a.limit ? { limit: a.limit } : {});
    return {
      text: r.edges.length ? r.edges.map((e) => `- ${e.relation}${e.entity ? ` (${e.entity})` : ''}: [${e.evidence_key}] ${e.title}`).join('\n') : 'No related items.',
      data: r,
    };
  },
});

export const recallDirectives = kiokuTool({
  name: 'recall_directives',
  description:
    "Call at the start of a session: the user's standing instructions and preferences (memories of kind directive and preference), newest first, and the authoritative current time.",
  input: items,
  fields: { limit: 'limit' },
  extra: {},
  into: {},
  fold: () => ({ layers: ['memory'], kinds: ['directive', 'preference'] }),
  scope: 'memory:read',
  call: async (k, input, caller, _extra, context) => {
    const r = await browseItems(k, input, caller, 'No standing directives.');
    const now = context.now().toISOString();
    return { text: `now: ${now}\n${r.text}`, data: { now, ...r.data } };
  },
});

export const recallConstraints = kiokuTool({
  name: 'recall_constraints',
  description:
    'Before acting in a domain (security, deploys, data, money…): the hard constraints recorded for it (memories of kind constraint, optionally by domain tag).',
  input: items,
  fields: { limit: 'limit' },
  extra: { domain: items.shape.tags.unwrap().element.optional() },
  into: { domain: 'tags' },
  fold: (a) => ({ layers: ['memory'], kinds: ['constraint'], ...(a.domain ? { tags: [a.domain] } : {}) }),
  scope: 'memory:read',
  call: (k, input, caller, a) => browseItems(k, input, caller, `No constraints${a.domain ? ` for ${a.domain}` : ''}.`),
});

export const recallTopic = kiokuTool({
  name: 'recall_topic',
  description: 'When a search misses, switch entry point: everything about one person, system or project (by entity or speaker name), newest first.',
  input: items,
  fields: { entity: 'entity', include_history: 'include_retired' },
  required: ['entity'],
  describe: { include_history: 'also superseded and forgotten items, each marked with what replaced it' },
  extra: ownLimit,
  into: { limit: 'limit' },
  fold: (a) => ({ limit: a.limit ?? 20 }),
  scope: 'memory:read',
  call: (k, input, caller) => browseItems(k, input, caller, `Nothing recorded about ${input.entity ?? ''}.`),
});

export const recallTimeline = kiokuTool({
  name: 'recall_timeline',
  description:
    'What happened in a time range: ISO times, or phrases like "last week", "yesterday", "in September", "九月那阵子". Use when the user asks about a period rather than a topic.',
  input: items,
  fields: { from: 'from', to: 'to', layers: 'layers' },
  required: ['from'],
  describe: { from: 'an ISO time, or a phrase that names the whole range' },
  extra: ownLimit,
  into: { limit: 'limit' },
  fold: (a) => ({ limit: a.limit ?? 30 }),
  scope: 'memory:read',
  call: (k, input, caller) => browseItems(k, input, caller, 'Nothing recorded in that range.'),
});

export const recallSession = kiokuTool({
  name: 'recall_session',
  description: 'The turns and memories of one earlier session, newest first (to pick up where it left off).',
  input: items,
  fields: { session_id: 'session_id', limit: 'limit' },
  required: ['session_id'],
  extra: {},
  into: {},
  scope: 'memory:read',
  call: (k, input, caller) => browseItems(k, input, caller, `No session ${input.session_id ?? ''} here.`),
});

export const listMemories = kiokuTool({
  name: 'list_memories',
  description:
    'Browse what the library holds, not ranked: items in a stable order (evidence key), filtered by layer, kind, tag, entity, session, time range or a text substring, a page at a time. Pass next_cursor back as cursor (with the same filters) for the next page. Use it to see what is stored, or to check before writing a duplicate.',
  input: inputSchemas.list,
  fields: {
    ...{ layers: 'layers', kinds: 'kinds', tags: 'tags', entity: 'entity', session_id: 'session_id', since: 'since', until: 'until' },
    ...{ text: 'text', include_retired: 'include_retired', limit: 'limit', cursor: 'cursor' },
  },
  describe: {
    kinds: 'memory kinds: fact, decision, preference, directive, constraint, …',
    tags: 'items carrying every one of these tags',
    since: 'an ISO time, or a phrase ("last week")',
    text: 'a substring of the title or text (case-insensitive)',
    limit: 'default 50',
  },
  extra: {},
  into: {},
  scope: 'memory:read',
  call: async (k, input, caller) => {
    const page = await k.list(input, caller);
    const list = page.items.map(itemView);
    const more = page.next_cursor ? `\n(more: call again with cursor "${page.next_cursor}")` : '';
    return {
      text: `${renderItems(list, 'Nothing matches.')}${more}`,
      data: { namespace: page.namespace, items: list, next_cursor: page.next_cursor, scanned: page.scanned },
    };
  },
});

export const stats = namespaceReadTool({
  name: 'stats',
  description:
    'What the library holds in your namespace (items by layer, active and retired; events recorded): to tell whether Kioku knows anything yet. The shared log head is shown only to a caller who may see the whole service.',
  call: async (k, input, caller) => {
    const r = await k.stats(input, caller);
    return {
      text: `${r.items.active} active of ${r.items.total} items in ${r.namespace} (${JSON.stringify(r.items.by_layer)}); ${r.events} events${r.head ? `; log head ${r.head.seq}` : ''}`,
      data: r,
    };
  },
});

export const browseTools = [getMemory, getRelated, recallDirectives, recallConstraints, recallTopic, recallTimeline, recallSession, listMemories, stats];
