// Lone UTF-16 surrogates: what a client leaves when it cuts a string inside an emoji.
// They cannot be stored as UTF-8 unchanged, so the edge refuses them rather than
// acknowledging one text and storing another.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}
