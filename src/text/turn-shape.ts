// The shape of a conversation turn in a text (issue 35's sessions for plain memories): who speaks
// ("Caroline: …"), whether it asks. Memories written without a session_id are neighbours only
// when, besides being close in time, the later reads as a reply to the earlier (repliesTo): what
// a conversation written line by line looks like, and what a list of unrelated facts written one
// after the other does not (tests/recall-judge-deliver: four facts in a row must not lift each other).

/**
 * The speaker a conversation turn names in its own text: "Caroline: …", "Dr. Lee: …" — one to
 * three capitalised words before a colon at the very start.
 */
export function prefixSpeaker(text: string): string | undefined {
  const m = /^(\p{Lu}[\p{L}\p{N}.'’-]*(?: \p{Lu}[\p{L}\p{N}.'’-]*){0,2}):\s+\S/u.exec(text);
  return m?.[1];
}

/** A turn that asks: ends with a question mark (any script). */
export function isQuestion(text: string): boolean {
  return /[?？]\s*$/u.test(text);
}

/**
 * Whether `later` reads as a reply to `earlier`, two texts written one after the other: the earlier
 * asks (a question and its answer), or each opens with a speaker and the speakers differ (a
 * dialogue's lines, "Caroline: …" then "Melanie: …"). Facts listed one after the other do neither;
 * nor do lines under one label ("Note: …", "Note: …"). A speaker writing twice in a row is not
 * lifted by this rule (LoCoMo's 2,632 turn pairs alternate, every one).
 */
export function repliesTo(earlier: string, later: string): boolean {
  if (isQuestion(earlier)) return true;
  const a = prefixSpeaker(earlier);
  const b = a === undefined ? undefined : prefixSpeaker(later);
  return a !== undefined && b !== undefined && a.toLowerCase() !== b.toLowerCase();
}
