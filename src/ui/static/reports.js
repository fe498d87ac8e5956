// Cold knowledge (considered often, never judged relevant) and the delivery report (how much of
// each delivered item the answers used), as the same reports `kioku report` prints.
import { api, query } from './api.js';
import { h, itemLink, num, show, table } from './dom.js';
import { splitBar } from './charts.js';

async function cold(main, ctx) {
  const min = ctx.params.get('min') ?? '5';
  const r = await api('GET', `/v1/knowledge/cold${query({ namespace: ctx.ns, min_considered: min })}`);
  const form = h('form', { class: 'filters' }, h('label', { for: 'min' }, 'considered at least', h('input', { id: 'min', name: 'min', type: 'number', min: 1, value: min })), h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/cold?min=${encodeURIComponent(form.elements.min.value)}`;
  });
  const heads = ['item', { label: 'considered', num: true }, { label: 'judged', num: true }, { label: 'relevant', num: true }, { label: 'returned', num: true }];
  show(
    main,
    h('h2', {}, 'Cold knowledge'),
    h('p', { class: 'muted' }, `Items recall keeps finding that the judge never found relevant: candidates to rewrite, retag or forget. Basis: ${r.basis}.`),
    form,
    r.items.length ? table(null, heads, r.items.map((i) => [itemLink(i.key), num(i.considered), num(i.judged), num(i.relevant), num(i.returned)])) : h('p', {}, 'No cold items at this threshold.'),
  );
}

async function delivery(main, ctx) {
  const days = ctx.params.get('days') ?? '7';
  const r = await api('GET', `/v1/reports/delivery${query({ namespace: ctx.ns, days })}`);
  const form = h('form', { class: 'filters' }, h('label', { for: 'days' }, 'days', h('input', { id: 'days', name: 'days', type: 'number', min: 1, max: 3650, value: days })), h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/delivery?days=${encodeURIComponent(form.elements.days.value)}`;
  });
  const dist = Object.entries(r.overlap_distribution);
  const cls = ['bar3', 'bar3', 'bar', 'bar2', 'bar2'];
  show(
    main,
    h('h2', {}, 'Delivery report'),
    h('p', { class: 'muted' }, r.basis),
    form,
    h('p', {}, `${num(r.turns)} completed turns in the last ${r.days} days.`),
    h('h3', {}, 'Share of each delivered excerpt used by the answer'),
    splitBar('Overlap distribution', dist.map(([label, value], i) => ({ label, value, cls: cls[i] }))),
    table(null, ['term overlap', { label: 'deliveries', num: true }], dist.map(([k, v]) => [k, num(v)])),
    h('h3', {}, 'Delivered repeatedly, least used'),
    r.least_used_repeated.length
      ? table(null, ['item', { label: 'delivered', num: true }, { label: 'mean overlap', num: true }], r.least_used_repeated.map((x) => [itemLink(x.key), num(x.delivered), x.mean_overlap.toFixed(3)]))
      : h('p', {}, 'No item was delivered twice in this window.'),
  );
}

export async function render(main, ctx) {
  return ctx.page === 'cold' ? cold(main, ctx) : delivery(main, ctx);
}
