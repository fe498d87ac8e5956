// Which fields of each event type hold text a person or a tool wrote (issue 33): the ones redaction
// reads. Written once per type, so a new event type is a decision (tests/privacy-redact.test.ts
// fails a catalogued type missing here). Ids, keys, hashes, names and paths are not text: a secret
// there would break the identity of an item, and no door puts one there.
//   'query'              a string field
//   'terms[]'            every string of an array
//   'messages[].text'    a field of every object of an array
//   'tool_data**'        every string anywhere below (tool output a host hands in as it is)
export type TextPath = string;

/** A type not listed here (a writer newer than this list) has every string read: redacting too much beats a leak. */
export const UNLISTED_TYPE_FIELDS: readonly TextPath[] = ['**'];

// keyed by name, not by EventType: the catalog grows in other hands, and a missing entry is caught by a test, not the compiler
export const TEXT_FIELDS: Readonly<Record<string, readonly TextPath[]>> = {
  'session.opened': ['agent', 'client', 'cwd'],
  'turn.started': ['query', 'conversation[].text', 'speaker'],
  'recall.performed': ['queries[].text', 'options.tags[]'],
  'verdict.recorded': [],
  'delivery.made': [],
  'turn.completed': ['answer', 'tool_data**'],
  'memory.written': ['text', 'terms[]', 'entities[]', 'tags[]', 'attachments[]', 'speaker'],
  'memory.superseded': ['reason'],
  'memory.forgotten': ['reason'],
  'memory.audience_set': [],
  'card.upserted': ['title', 'sections[].heading', 'sections[].body', 'sections[].title', 'tags[]'],
  'card.removed': ['reason'],
  'wiki.upserted': ['title', 'sections[].heading', 'sections[].body', 'sections[].title', 'tags[]'],
  'wiki.removed': ['reason'],
  'note.upserted': ['sections[].heading', 'sections[].body', 'sections[].title'],
  'note.removed': ['reason'],
  'episode.logged': ['messages[].text'],
  'asset.registered': ['description', 'tags[]'],
  'embedding.computed': [],
  'job.event': ['detail'],
  'org.space_added': ['title'],
  'org.space_moved': [],
  'org.space_removed': [],
  'org.member_added': ['display_name'],
  'org.member_removed': [],
  'org.member_joined': [],
  'org.member_left': [],
  'lifecycle.transitioned': ['reason'],
  'evidence.fetched': [],
  'item.forgotten': ['reason'],
  purged: ['reason'],
  'secret.redacted': [],
  'notice.sent': ['text'],
  'notice.arrived': [],
  'notice.acked': ['note'],
};

/**
 * Names and ids (issue 33): an item's identity, a space's or a member's name. A secret there cannot
 * be replaced by a placeholder (the caller names the item by it, and names allow no placeholder),
 * so a write holding one is refused whole, naming the field, and nothing is appended. An uploaded
 * file's name is redacted at the door instead (Knowledge.registerAssetParsed), before it is a path.
 */
export const NAME_FIELDS: Readonly<Record<string, readonly TextPath[]>> = {
  'session.opened': ['session_id'],
  'turn.started': ['turn_id', 'session_id'],
  'memory.written': ['id', 'session_id'],
  'episode.logged': ['episode_id', 'session_id'],
  'asset.registered': ['id'],
  'card.upserted': ['id'],
  'wiki.upserted': ['topic_id'],
  'org.space_added': ['space', 'parent'],
  'org.space_moved': ['space', 'parent'],
  'org.member_added': ['member', 'tokens[]'],
  'org.member_joined': ['member', 'space'],
  'notice.sent': ['evidence_key'],
};

/**
 * Apply `redact` to every text a path names in `data`, returning a new object where anything
 * changed (the input is never mutated) and the paths that changed.
 */
export function mapTextFields(data: unknown, paths: readonly TextPath[], redact: (text: string) => string): { data: unknown; changed: string[] } {
  const changed: string[] = [];
  let out = data;
  for (const path of paths) {
    const next = mapPath(out, path, redact);
    if (next !== out) {
      changed.push(path);
      out = next;
    }
  }
  return { data: out, changed };
}

/** One step of a text path: a field of an object, every element of an array, the string itself, everything below, or nothing. */
type Step = { field: string } | 'each' | 'leaf' | 'deep' | 'none';

/** Paths parsed once (a handful per event type): each open and seal walked them with a regex per level and per array element. */
const stepsByPath = new Map<string, readonly Step[]>();

function stepsOf(path: string): readonly Step[] {
  const held = stepsByPath.get(path);
  if (held) return held;
  const steps: Step[] = [];
  for (let rest = path; ; ) {
    if (rest === '' || rest === '**') {
      steps.push(rest === '' ? 'leaf' : 'deep');
      break;
    }
    if (rest.startsWith('[]')) {
      steps.push('each');
      rest = rest.slice(2).replace(/^\./, '');
      continue;
    }
    const m = /^([A-Za-z0-9_]+)(.*)$/.exec(rest);
    if (!m) {
      steps.push('none'); // a path that names nothing: every value stays as it is
      break;
    }
    steps.push({ field: m[1] as string });
    rest = (m[2] as string).replace(/^\./, '');
  }
  stepsByPath.set(path, steps);
  return steps;
}

function mapPath(value: unknown, path: string, redact: (text: string) => string): unknown {
  return mapSteps(value, stepsOf(path), 0, redact);
}

function mapSteps(value: unknown, steps: readonly Step[], at: number, redact: (text: string) => string): unknown {
  const step = steps[at] as Step;
  if (step === 'leaf') return typeof value === 'string' ? redact(value) : value;
  if (step === 'deep') return mapDeep(value, redact);
  if (step === 'each') return Array.isArray(value) ? sameOrCopy(value, value.map((v) => mapSteps(v, steps, at + 1, redact))) : value;
  if (step === 'none' || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const obj = value as Record<string, unknown>;
  if (!(step.field in obj)) return value;
  const next = mapSteps(obj[step.field], steps, at + 1, redact);
  return next === obj[step.field] ? value : { ...obj, [step.field]: next };
}

function mapDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    // argv-like arrays: a value after a flag (`--password`, `-p`) is read with its flag as its label
    const out = value.map((v, i) => {
      const flag = value[i - 1];
      return typeof v === 'string' && typeof flag === 'string' && flag.startsWith('-') ? labelled(flag, ' ', v, redact) : mapDeep(v, redact);
    });
    return sameOrCopy(value, out);
  }
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return value;
  const obj = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(obj)) {
    // structured tool data names a secret by its key ({"password": "…"}, {"Authorization": "Bearer …"}),
    // and a key can itself be a secret ({"ghp_…": 1}): both are read, never only the bare value
    const key = redact(k);
    const next = typeof v === 'string' ? labelled(k, ': ', v, redact) : mapDeep(v, redact);
    if (key !== k) {
      copy ??= { ...obj };
      delete copy[k];
      copy[key] = next;
    } else if (next !== v) (copy ??= { ...obj })[k] = next;
  }
  return copy ?? value;
}

/** `value` redacted as the rules read it after its label (`label: value`), else on its own. */
function labelled(label: string, separator: string, value: string, redact: (text: string) => string): string {
  const prefix = label + separator;
  const read = redact(prefix + value);
  if (read !== prefix + value && read.startsWith(prefix)) return read.slice(prefix.length);
  return redact(value);
}

function sameOrCopy(before: unknown[], after: unknown[]): unknown[] {
  return after.every((v, i) => v === before[i]) ? before : after;
}
