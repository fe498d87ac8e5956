// A pure string function with its results kept: the same few thousand words and terms recur on
// every write of a library. Bounded: the table is emptied when it reaches `max` entries.
export function remembered(fn: (s: string) => string, max: number): (s: string) => string {
  const kept = new Map<string, string>();
  return (s) => {
    let out = kept.get(s);
    if (out === undefined) {
      if (kept.size >= max) kept.clear();
      kept.set(s, (out = fn(s)));
    }
    return out;
  };
}
