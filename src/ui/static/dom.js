// Small DOM helpers: elements built with textContent only (a library's text is never parsed as HTML).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replace an element's content. */
export function show(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const fmt = new Intl.NumberFormat();
export const num = (n) => (typeof n === 'number' ? fmt.format(n) : '—');

/** A time as the reader's local date and time. */
export function when(t) {
  if (t === undefined || t === null) return '—';
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleString();
}

/** A link to an item's page. */
export function itemLink(key, label) {
  return h('a', { href: `#/item/${encodeURIComponent(key)}`, class: label === undefined ? 'key' : 'item' }, label ?? key);
}

/** A table from column heads and rows of cells. */
export function table(caption, heads, rows) {
  return h(
    'table',
    {},
    caption ? h('caption', { class: 'muted' }, caption) : null,
    h('thead', {}, h('tr', {}, heads.map((x) => h('th', { scope: 'col', class: x.num ? 'num' : null }, x.label ?? x)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c, i) => h('td', { class: heads[i]?.num ? 'num' : null }, c))))),
  );
}

/** A failure as the page shows it: the code and message the API gave. */
export function failure(err) {
  return h('p', { class: 'error', role: 'alert' }, err.code ? `${err.code}: ${err.message}` : String(err.message ?? err));
}

/** Ask before an action that changes the library; resolves true when confirmed. */
export function confirmDialog(title, body, confirmLabel) {
  return new Promise((done) => {
    const dlg = h(
      'dialog',
      { 'aria-labelledby': 'dlg-title' },
      h('h2', { id: 'dlg-title' }, title),
      h('p', {}, body),
      h(
        'form',
        { method: 'dialog', class: 'actions' },
        h('button', { value: 'cancel', type: 'submit' }, 'Cancel'),
        h('button', { value: 'confirm', type: 'submit', class: 'danger' }, confirmLabel),
      ),
    );
    dlg.addEventListener('close', () => {
      done(dlg.returnValue === 'confirm');
      dlg.remove();
    });
    document.body.append(dlg);
    dlg.showModal();
  });
}
