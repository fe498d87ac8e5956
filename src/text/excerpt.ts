// Cutting text to a size at natural boundaries: delivery, the hook and every rendering share it.

/** Cut a long body at paragraph boundaries (then sentence boundaries) to fit `max` characters. */
export function excerpt(text: string, max: number): { text: string; excerpt: boolean } {
  if (text.length <= max) return { text, excerpt: false };
  const paragraphs = text.split(/\n\s*\n/);
  let out = '';
  for (const p of paragraphs) {
    const next = out ? `${out}\n\n${p}` : p;
    if (next.length > max) break;
    out = next;
  }
  if (!out) {
    // one huge paragraph: whole sentences, each with the space after it (kept, so sentences never run together)
    for (const s of (paragraphs[0] ?? text).match(/[^.!?。！？]+[.!?。！？]*\s*|[.!?。！？]+\s*/gu) ?? []) {
      if ((out + s).trimEnd().length > max) break;
      out += s;
    }
    out = out.trimEnd();
  }
  return { text: out || text.slice(0, max), excerpt: true };
}
