// Small inline SVG charts (no library: a few bars read faster than a table, and cost no download).
const NS = 'http://www.w3.org/2000/svg';

function el(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * Grouped bars per day. `series`: [{ label, cls, values: number[] }] over `days` (labels).
 * The title and a description make it readable to a screen reader; the numbers are in the tooltip.
 */
export function dayBars(title, days, series) {
  const w = 540;
  const hgt = 160;
  const pad = { l: 34, r: 6, t: 8, b: 22 };
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const band = (w - pad.l - pad.r) / Math.max(1, days.length);
  const bw = Math.max(2, (band - 4) / series.length);
  const svg = el('svg', { class: 'chart', viewBox: `0 0 ${w} ${hgt}`, role: 'img', 'aria-label': title });
  svg.append(el('title', {}, title));
  const y = (v) => pad.t + (hgt - pad.t - pad.b) * (1 - v / max);
  svg.append(el('line', { x1: pad.l, x2: w - pad.r, y1: y(0), y2: y(0) }));
  svg.append(el('text', { x: 2, y: y(max) + 8 }, String(max)));
  svg.append(el('text', { x: 2, y: y(0) }, '0'));
  days.forEach((d, i) => {
    series.forEach((s, j) => {
      const v = s.values[i] ?? 0;
      const r = el('rect', { class: s.cls, x: pad.l + i * band + 2 + j * bw, y: y(v), width: bw - 1, height: Math.max(0, y(0) - y(v)) });
      r.append(el('title', {}, `${d} ${s.label}: ${v}`));
      svg.append(r);
    });
    if (days.length <= 16 || i % Math.ceil(days.length / 8) === 0) svg.append(el('text', { x: pad.l + i * band + 2, y: hgt - 6 }, d.slice(5)));
  });
  return svg;
}

/** One horizontal bar split in parts: [{ label, cls, value }]. */
export function splitBar(title, parts) {
  const w = 540;
  const total = parts.reduce((a, p) => a + p.value, 0);
  const svg = el('svg', { class: 'chart', viewBox: `0 0 ${w} 28`, role: 'img', 'aria-label': title });
  svg.append(el('title', {}, title));
  let x = 0;
  for (const p of parts) {
    const width = total ? (w * p.value) / total : 0;
    const r = el('rect', { class: p.cls, x, y: 2, width, height: 24 });
    r.append(el('title', {}, `${p.label}: ${p.value}`));
    svg.append(r);
    x += width;
  }
  return svg;
}

/** Labelled horizontal bars: [[label, value], …]. */
export function hBars(title, rows) {
  const w = 540;
  const row = 18;
  const labelW = 170;
  const max = Math.max(1, ...rows.map((r) => r[1]));
  const svg = el('svg', { class: 'chart', viewBox: `0 0 ${w} ${rows.length * row + 4}`, role: 'img', 'aria-label': title });
  svg.append(el('title', {}, title));
  rows.forEach(([label, value], i) => {
    const y = i * row + 2;
    svg.append(el('text', { x: 0, y: y + 12 }, label));
    const r = el('rect', { class: 'bar', x: labelW, y, width: Math.max(1, ((w - labelW - 40) * value) / max), height: row - 5 });
    r.append(el('title', {}, `${label}: ${value}`));
    svg.append(r, el('text', { x: labelW + ((w - labelW - 40) * value) / max + 4, y: y + 12 }, String(value)));
  });
  return svg;
}
