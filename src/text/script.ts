// Script detection: which text the English-only dense model can read.
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;
const CJK_GLOBAL = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/gu;
const LATIN_LETTER = /[A-Za-z\u00c0-\u024f]/gu;

const NOT_ASCII = /[^\x00-\x7f]/;

export function isAscii(text: string): boolean {
  return !NOT_ASCII.test(text);
}

/** NFKC, lower-cased: what tokens and fingerprints compare. ASCII skips NFKC, which leaves it as it is (and was a tenth of a rebuild's fingerprints). */
export function lowerNfkc(text: string, ascii = isAscii(text)): string {
  return ascii ? text.toLowerCase() : text.normalize('NFKC').toLowerCase();
}

export function isCjkChar(ch: string): boolean {
  return CJK.test(ch);
}

/**
 * True when most letters are CJK. The bundled USE-lite model maps such text to
 * nearly identical vectors, so it skips the dense lane and relies on keyword lanes.
 */
export function isMainlyCjk(text: string): boolean {
  const cjk = text.match(CJK_GLOBAL)?.length ?? 0;
  if (cjk === 0) return false;
  const latin = text.match(LATIN_LETTER)?.length ?? 0;
  // A CJK character carries about as much as a short Latin word (~4 letters).
  return cjk * 4 > latin;
}
