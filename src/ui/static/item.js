// One item: its text (secrets appear as the placeholders the store keeps), where it came from, its
// supersede history both ways, related items, and the actions a person needs on a memory — forget,
// mark superseded, change audience — each asked for again before it is done.
import { api, keyPath } from './api.js';
import { confirmDialog, failure, h, itemLink, num, show, table, when } from './dom.js';

/** Fields shown as rows, when present; any field the server adds later shows in "more". */
const SHOWN = ['key', 'layer', 'kind', 'status', 'occurred_at', 'session_id', 'owner', 'audience', 'tags', 'entities', 'source_path', 'superseded_by', 'head_id', 'seq'];
const HIDDEN = new Set([...SHOWN, 'text', 'title', 'heading', 'history', 'terms', 'ns', 'id', 'content_fp', 'fingerprint', 'supersedes', 'section', 'position']);

const value = (v) => (Array.isArray(v) ? v.join(', ') || '—' : v === undefined || v === null ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

function facts(e) {
  const rows = SHOWN.filter((k) => e[k] !== undefined).map((k) => [k, k === 'superseded_by' || k === 'head_id' ? itemLink(`ev1:${e.ns}:memory:${e[k]}`, e[k]) : k === 'occurred_at' ? when(e[k]) : value(e[k])]);
  const more = Object.keys(e).filter((k) => !HIDDEN.has(k));
  return [table(null, ['field', 'value'], rows), more.length ? h('details', {}, h('summary', {}, 'more fields'), table(null, ['field', 'value'], more.map((k) => [k, value(e[k])]))) : null];
}

function history(e) {
  const chain = e.history ?? [];
  // the head of a chain supersedes every other memory of it (the history lists the chain)
  const supersedes = e.supersedes ?? (e.head_id === e.id ? chain.filter((c) => c.id !== e.id).map((c) => c.id) : []);
  if (!chain.length && !supersedes.length && !e.superseded_by) return null;
  return [
    h('h3', {}, 'Supersede history'),
    e.superseded_by ? h('p', {}, 'Superseded by ', itemLink(`ev1:${e.ns}:memory:${e.superseded_by}`, e.superseded_by), '.') : null,
    supersedes.length ? h('p', {}, 'Supersedes ', supersedes.map((id) => [itemLink(`ev1:${e.ns}:memory:${id}`, id), ' '])) : null,
    chain.length ? table('the chain, oldest first', ['memory', 'status', 'seq'], chain.map((c) => [itemLink(`ev1:${e.ns}:memory:${c.id}`, c.id), c.status, String(c.seq)])) : null,
  ];
}

function usage(u) {
  const rows = [
    ['considered by recall', num(u.usage.considered)],
    ['judged', num(u.usage.judged)],
    ['judged relevant', num(u.usage.relevant)],
    ['returned', num(u.usage.returned)],
    ['delivered', num(u.access.delivered)],
    ['looked up', num(u.access.looked_up)],
    ['fetched by key', num(u.access.fetched)],
    ['last accessed', u.access.last ? when(u.access.last) : 'never'],
    ['last used (delivered or fetched)', u.access.last_used ? when(u.access.last_used) : 'never'],
    ['lifecycle', u.lifecycle ? u.lifecycle.state + (u.lifecycle.since ? ` since ${when(u.lifecycle.since)}` : '') : 'candidate'],
  ];
  return [u.demoted ? h('p', { class: 'warn' }, 'Demoted: judged decisively and never useful.') : null, table(null, ['counter', { label: 'value', num: true }], rows)];
}

function related(r) {
  if (!r.edges.length) return h('p', { class: 'muted' }, 'No related items.');
  return table(null, ['relation', 'item', 'status'], r.edges.map((x) => [x.relation + (x.entity ? ` (${x.entity})` : ''), itemLink(x.evidence_key, x.title || x.evidence_key), x.status]));
}

/** Run a confirmed write and show the item again; a refusal is shown in place. */
async function act(out, ask, run) {
  if (!(await confirmDialog(...ask))) return;
  try {
    await run();
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } catch (err) {
    show(out, failure(err));
  }
}

function actions(e, ctx) {
  if (e.layer !== 'memory' || e.status !== 'active') return null;
  if (!ctx.session?.scopes?.includes('memory:write')) return h('p', { class: 'muted' }, 'This token may not change memories (memory:write).');
  const out = h('div', { role: 'status', 'aria-live': 'polite' });
  const base = `/v1/memories/${encodeURIComponent(e.id)}`;
  const ns = e.ns;
  const forget = h('button', { type: 'button', class: 'danger' }, 'Forget…');
  forget.addEventListener('click', () =>
    act(out, ['Forget this memory?', `“${e.text.slice(0, 160)}” will no longer be recalled (the log keeps the record).`, 'Forget'], () => api('POST', `${base}/forget`, { namespace: ns, reason: 'forgotten from the web page' })),
  );
  const head = h('input', { id: 'head-id', placeholder: 'memory id' });
  const sup = h('form', { class: 'filters' }, h('label', { for: 'head-id' }, 'superseded by (memory id)', head), h('button', { type: 'submit' }, 'Mark superseded…'));
  sup.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const id = head.value.trim();
    if (id) act(out, ['Mark as superseded?', `Memory ${id} will replace this one in recall.`, 'Supersede'], () => api('POST', `/v1/memories/${encodeURIComponent(id)}/supersede`, { namespace: ns, superseded_ids: [e.id], reason: 'from the web page' }));
  });
  const aud = h('input', { id: 'audience', value: (e.audience ?? []).join(', '), placeholder: 'me, org, space:…' });
  const audForm = h('form', { class: 'filters' }, h('label', { for: 'audience' }, 'audience (comma-separated)', aud), h('button', { type: 'submit' }, 'Change audience…'));
  audForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const audience = aud.value.split(',').map((x) => x.trim()).filter(Boolean);
    act(out, ['Change who may see this memory?', `New audience: ${audience.join(', ') || '(none)'}`, 'Change'], () => api('POST', `${base}/audience`, { namespace: ns, audience }));
  });
  return [h('h3', {}, 'Actions'), h('div', { class: 'actions' }, forget), sup, audForm, out];
}

export async function render(main, ctx) {
  const key = ctx.arg;
  const soft = (p) => p.catch((err) => ({ error: err }));
  const [e, rel, use] = await Promise.all([
    api('GET', `/v1/evidence/${keyPath(key)}`).catch((err) => {
      if (err.status === 404) return null; // a forgotten item may be hidden from reads altogether
      throw err;
    }),
    soft(api('GET', `/v1/evidence/${keyPath(key)}/related?limit=30`)),
    soft(api('GET', `/v1/evidence/${keyPath(key)}/usage`)),
  ]);
  if (!e) return show(main, h('h2', {}, 'No such item'), h('p', { role: 'note' }, h('code', {}, key), ' is not in the library (it may have been forgotten).'));
  show(
    main,
    h('h2', {}, e.title && e.title !== e.text ? e.title : `${e.layer} ${e.id}`),
    e.heading ? h('p', { class: 'muted' }, e.heading) : null,
    e.status !== 'active' ? h('p', { class: 'warn', role: 'note' }, `This item is ${e.status}.`) : null,
    h('div', { class: 'text', 'data-field': 'text' }, e.text),
    facts(e),
    history(e),
    h('h3', {}, 'Usage'),
    use.error ? failure(use.error) : usage(use),
    h('h3', {}, 'Related items'),
    rel.error ? failure(rel.error) : related(rel),
    actions(e, ctx),
  );
}
