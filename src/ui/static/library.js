// Library: search with the recall core (read-only candidates: the fused records with `why`, nothing
// recorded), or browse with filters a page at a time over GET /v1/items and its cursor.
import { api, query } from './api.js';
import { h, itemLink, show, table, when } from './dom.js';

const LAYERS = ['card', 'wiki', 'memory', 'note', 'trace', 'episode', 'asset'];
const LAYER_SWITCH = { card: 'cards', wiki: 'wiki', memory: 'memories', note: 'notes', trace: 'conversations', asset: 'assets', episode: 'episodes' };
const FIELDS = [
  ['text', 'text contains'],
  ['kind', 'kind'],
  ['tag', 'tag'],
  ['entity', 'entity'],
  ['session', 'session'],
  ['since', 'since (ISO or "last week")'],
  ['until', 'until'],
];

function filterForm(params) {
  const field = (name, label, attrs = {}) => h('label', { for: `f-${name}` }, label, h('input', { id: `f-${name}`, name, value: params.get(name) ?? '', ...attrs }));
  const layer = h('select', { id: 'f-layer', name: 'layer' }, h('option', { value: '' }, 'any'), LAYERS.map((l) => h('option', { value: l, selected: params.get('layer') === l }, l)));
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Search and filter the library' },
    field('q', 'search (recall)', { type: 'search', placeholder: 'what do you want to find?' }),
    h('label', { for: 'f-layer' }, 'layer', layer),
    FIELDS.map(([n, l]) => field(n, l, { size: 12 })),
    h('label', { for: 'f-retired', class: 'check' }, h('input', { id: 'f-retired', name: 'include_retired', type: 'checkbox', value: '1', checked: params.get('include_retired') === '1' }), 'superseded and forgotten too'),
    h('button', { type: 'submit', class: 'primary' }, 'Go'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (String(v).trim() !== '') q.set(k, String(v).trim());
    location.hash = `#/library?${q}`;
  });
  return form;
}

async function search(ctx, params) {
  const layer = params.get('layer');
  const options = layer ? Object.fromEntries(Object.entries(LAYER_SWITCH).map(([l, sw]) => [sw, l === layer])) : undefined;
  const p = await api('POST', '/v1/candidates/query', { namespace: ctx.ns, query: params.get('q'), limit: 50, ...(options ? { options } : {}) });
  const rows = p.records.map((r) => [
    itemLink(r.evidence_key, r.title || r.id),
    r.layer + (r.provenance.kind ? ` · ${r.provenance.kind}` : ''),
    h('span', {}, r.excerpt.slice(0, 220)),
    h('span', {}, `fused ${r.why.fused_score.toFixed(3)}`, h('br'), h('span', { class: 'muted' }, Object.entries(r.why.lanes).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', '))),
  ]);
  return [
    h('p', { class: 'muted' }, `${p.records.length} records from the recall core (queries: ${p.queries.map((q) => q.kind).join(', ')}); a search here is read-only and recorded nowhere.`),
    p.warnings.length ? h('p', { class: 'warn' }, `warnings: ${p.warnings.join(', ')}`) : null,
    rows.length ? table(null, ['item', 'layer', 'excerpt', 'why (lane contributions)'], rows) : h('p', {}, 'Nothing found.'),
  ];
}

async function browse(ctx, params) {
  const q = { namespace: ctx.ns, limit: 50 };
  for (const k of ['layer', 'kind', 'tag', 'entity', 'session', 'since', 'until', 'text', 'include_retired', 'cursor']) if (params.get(k)) q[k] = params.get(k);
  const a = await api('GET', `/v1/items${query(q)}`);
  const rows = a.items.map((e) => [itemLink(e.key, e.title || e.id), e.layer + (e.kind ? ` · ${e.kind}` : '') + (e.status !== 'active' ? ` (${e.status})` : ''), e.text.slice(0, 200), when(e.occurred_at), e.tags.join(', ')]);
  const next = new URLSearchParams(params);
  if (a.next_cursor) next.set('cursor', a.next_cursor);
  return [
    rows.length ? table(null, ['item', 'layer · kind', 'text', 'occurred', 'tags'], rows) : h('p', {}, 'No items match.'),
    h('div', { class: 'pager' }, params.get('cursor') ? h('a', { href: `#/library?${withoutCursor(params)}` }, 'First page') : null, a.next_cursor ? h('a', { href: `#/library?${next}`, rel: 'next' }, 'Next page') : null),
  ];
}

function withoutCursor(params) {
  const p = new URLSearchParams(params);
  p.delete('cursor');
  return p;
}

export async function render(main, ctx) {
  const params = ctx.params;
  const body = params.get('q') ? await search(ctx, params) : await browse(ctx, params);
  show(main, h('h2', {}, 'Library'), filterForm(params), h('div', { id: 'results' }, body));
}
