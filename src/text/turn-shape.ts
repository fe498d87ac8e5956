// The shape of a conversation turn in a text (issue 35's sessions for plain memories): who speaks
// ("Caroline: …"), whether it asks. Memories written without a session_id are neighbours only
// when, besides being close in time, the later reads as a reply to the earlier (repliesTo): what
// a conversation written line by line looks like, and what a list of unrelated facts written one
// after the other does not (tests/recall-judge-deliver: four facts in a row must not lift each other).

/**
 * The speaker a conversation turn names in its own text: "Caroline: …", "Dr. Lee: …" — one to
 * three capitalised words before a colon at the very start; a full-width colon too ("Caroline：…",
 * as a CJK keyboard types it, with or without a space after).
 */
export function prefixSpeaker(text: string): string | undefined {
  const m = /^(\p{Lu}[\p{L}\p{N}.'’-]*(?: \p{Lu}[\p{L}\p{N}.'’-]*){0,2})(?::\s+|：\s*)\S/u.exec(text);
  return m?.[1];
}

/** A turn that asks: ends with a question mark (any script). */
export function isQuestion(text: string): boolean {
  return /[?？]\s*$/u.test(text);
}

/**
 * Words that head a labelled line, not a speaker's: "Decision: we ship on Fridays", "Constraint:
 * staging is frozen", "TODO: …", "Action Item: …". A note-taker's labels are common nouns and
 * markers; a dialogue's speakers are names (LoCoMo's ten: Caroline, Melanie, Jon, Gina, John, Maria,
 * Joanna, Nate, Tim; an agent's log: User, Assistant). A prefix any of whose words is one of these is
 * a label. Compared lower-cased.
 */
const LABEL_WORDS: ReadonlySet<string> = new Set([
  // what a note records
  'note', 'notes', 'nb', 'fyi', 'ps', 'tldr', 'tl;dr', 'memo', 'fact', 'facts', 'rule', 'rules', 'policy', 'convention', 'guideline',
  'principle', 'decision', 'decisions', 'constraint', 'constraints', 'requirement', 'requirements', 'assumption', 'assumptions',
  'preference', 'preferences', 'observation', 'insight', 'lesson', 'lessons', 'learning', 'learnings', 'finding', 'findings',
  'summary', 'recap', 'conclusion', 'outcome', 'result', 'results', 'context', 'background', 'definition', 'example', 'examples',
  'idea', 'ideas', 'question', 'questions', 'answer', 'problem', 'issue', 'bug', 'fix', 'solution', 'workaround', 'cause',
  'risk', 'risks', 'warning', 'caution', 'important', 'tip', 'hint', 'reminder', 'reminders', 'deadline', 'goal', 'goals',
  'plan', 'plans', 'agenda', 'topic', 'subject', 'title', 'source', 'reference', 'link', 'comment', 'feedback', 'update',
  'updates', 'status', 'progress', 'change', 'changes', 'changelog', 'release', 'incident', 'error', 'blocker', 'blockers',
  'priority', 'owner', 'action', 'actions', 'item', 'items', 'step', 'steps', 'task', 'tasks', 'todo', 'to-do', 'fixme', 'wip',
  'done', 'next', 'open', 'pending', 'resolved', 'key', 'info', 'log', 'meeting', 'event', 'date', 'time', 'location',
  // a mail's subject and forwards, a protocol naming a status line ("Re: the rota", "HTTP: 502 on /login")
  're', 'fw', 'fwd', 'http', 'https',
]);

/** A "Name:" prefix that is a label word's (LABEL_WORDS), so names no one speaking. */
export function isLabel(prefix: string): boolean {
  return prefix.split(' ').some((w) => LABEL_WORDS.has(w.toLowerCase()));
}

/** The speaker a line opens with, if its prefix is not a label (prefixSpeaker, then isLabel): "Note: …" names no one. */
export function lineSpeaker(text: string): string | undefined {
  const p = prefixSpeaker(text);
  return p === undefined || isLabel(p) ? undefined : p;
}

/**
 * Whether `later` reads as a reply to `earlier`, two texts written one after the other: the earlier
 * asks (a question and its answer), or each opens with a speaker and the speakers differ (a
 * dialogue's lines, "Caroline: …" then "Melanie: …"). Facts listed one after the other do neither;
 * nor do lines under one label ("Note: …", "Note: …"), nor labelled facts under different labels
 * ("Decision: …" then "Constraint: …": a label is not a speaker, isLabel). A speaker writing twice
 * in a row is not lifted by this rule (LoCoMo's 2,632 turn pairs alternate, every one).
 */
export function repliesTo(earlier: string, later: string): boolean {
  if (isQuestion(earlier)) return true;
  const a = lineSpeaker(earlier);
  const b = a === undefined ? undefined : lineSpeaker(later);
  return a !== undefined && b !== undefined && a.toLowerCase() !== b.toLowerCase();
}
