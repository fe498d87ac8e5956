// Recall and search: the judged delivery for a message, and the ranked candidates without a judge.
import { z } from 'zod';
import { inputSchemas } from '../../api/index.js';
import { LAYER_OPTIONS } from '../../recall/request.js';
import { LAYERS } from '../../events/index.js';
import { renderPacket } from '../render.js';
import { kiokuTool } from '../tool.js';
import { headOf } from '../../text/well-formed.js';

const recallFields = inputSchemas.recall.shape;
/** search_memory's layer names: the option switch of each layer (cards, wiki, memories, …) */
const LANES = LAYERS.map((layer) => LAYER_OPTIONS[layer].on);

export const recall = kiokuTool({
  name: 'recall',
  description:
    'Search Kioku before answering a question that may depend on what was decided, written or said before. Give the user message (and the recent conversation for follow-ups). Returns at most three delivered items worth using, and the other candidates by evidence key.',
  input: inputSchemas.recall,
  fields: { message: 'query', conversation: 'conversation', limit: 'limit', session_id: 'session_id', options: 'options' },
  describe: {
    message: "the user's message, as written",
    conversation: 'the last few messages, oldest first, for follow-ups like "and the other one?"',
    options: 'layer switches and filters, e.g. {"wiki": false, "semantic": false, "tags": ["deploy"]} (tags: only items carrying every one)',
  },
  extra: {},
  into: {},
  scope: 'memory:read',
  call: async (k, input, caller) => {
    const packet = await k.recall(input, caller);
    return { text: renderPacket(packet), data: packet };
  },
});

export const searchMemory = kiokuTool({
  name: 'search_memory',
  description:
    'Search the library directly, ranked and bounded, without the judge or delivery: give `query`, the sentence you are looking for (read by meaning), and, apart, `terms`, the expansion words (ids, synonyms, other languages) matched literally. Use it to look something up mid-task or when recall delivered nothing.',
  input: inputSchemas.candidates,
  fields: { query: 'query', limit: 'limit' },
  // the seed's name is query; sentence is what this tool called it before (kept for agents that learnt it)
  aliases: { sentence: 'query' },
  describe: { query: "what you are looking for, as a sentence (the user's words plus the gist of your last reply)" },
  extra: {
    // an empty list is no expansion (the facade's terms take one at least)
    terms: z.array(recallFields.terms.unwrap().element).max(50).optional().describe('literal expansion words, searched apart from the query'),
    semantic: z.boolean().optional().describe('false: lexical only (faster)'),
    tags: z.array(z.string().min(1).max(200)).min(1).max(20).optional().describe('only items carrying every one of these tags'),
    layers: z.array(recallFields.options.unwrap().keyof().extract(LANES)).min(1).optional(),
  },
  into: { terms: 'terms', semantic: 'options', tags: 'options', layers: 'options' },
  fold: (a) => ({
    ...(a.terms?.length ? { terms: a.terms } : {}),
    options: {
      ...(a.layers ? Object.fromEntries(LANES.map((lane) => [lane, a.layers?.includes(lane) ?? true])) : {}),
      ...(a.semantic === false ? { semantic: false } : {}),
      ...(a.tags ? { tags: a.tags } : {}),
    },
  }),
  scope: 'memory:read',
  call: async (k, input, caller) => {
    const packet = await k.candidates(input, caller);
    const list = packet.records.map((r) => ({
      evidence_key: r.evidence_key,
      layer: r.layer,
      title: r.title,
      excerpt: r.excerpt,
      score: r.score,
      occurred_at: r.occurred_at,
    }));
    return {
      text: list.length ? list.map((r) => `- [${r.evidence_key}] ${headOf(r.excerpt, 300)}`).join('\n') : 'Nothing matches.',
      data: { retrieval_mode: packet.retrieval_mode, records: list, warnings: packet.warnings },
    };
  },
});

export const recallTools = [recall, searchMemory];
