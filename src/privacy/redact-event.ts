// The one redaction step before anything reaches the log (issue 33): every event any door, command
// or job appends passes through the store's write guard, which replaces the secrets in its text
// fields (fields.ts) by placeholders, keeps the values in the vault (durably, before the append),
// and adds one `secret.redacted` event per placeholder naming where it was found and its kind —
// never the value. The events keep their ids and evidence keys; fingerprints are recomputed over
// the redacted text (a fingerprint of the original would let someone test guesses of a weak
// password). Placeholders are stable (same namespace and value, same id), so a text written twice
// is the same item twice, and redacting a redacted event changes nothing.
import { KiokuError } from '../errors.js';
import { validateEvent, type ValidatedEvent } from '../events/index.js';
import { findSecrets, redactText, type Redaction } from './detect.js';
import { mapTextFields, NAME_FIELDS, TEXT_FIELDS, UNLISTED_TYPE_FIELDS } from './fields.js';
import type { SecretVault } from './vault.js';

/** What a store runs over each write's validated events before they are encoded (src/log/chain.ts). */
export type WriteGuard = (events: readonly ValidatedEvent[]) => ValidatedEvent[];

export interface SecretRedactor {
  /** the guard the store installs */
  guard: WriteGuard;
  /** a text as it would be stored in `namespace` (no vault write): what a command compares stored text with */
  redact(namespace: string, text: string): string;
}

/** One event's text fields redacted, with each distinct secret found (value included: it goes to the vault, not the log). */
export function redactEventData(
  type: string,
  data: unknown,
  idOf: (value: string) => string,
): { data: unknown; findings: (Redaction['findings'][number] & { field: string })[] } {
  const paths = TEXT_FIELDS[type] ?? UNLISTED_TYPE_FIELDS;
  if (paths.length === 0) return { data, findings: [] };
  const findings: (Redaction['findings'][number] & { field: string })[] = [];
  let field = '';
  const redact = (text: string): string => {
    const r = redactText(text, idOf);
    for (const f of r.findings) findings.push({ ...f, field });
    return r.text;
  };
  let out = data;
  for (const path of paths) {
    field = path;
    out = mapTextFields(out, [path], redact).data;
  }
  return { data: out, findings };
}

/** Fingerprints follow their text: memory.written's of `text`, each section's of its body. */
function refreshFingerprints(type: string, data: Record<string, unknown>, fingerprint: (text: string) => string): Record<string, unknown> {
  if (type === 'memory.written' && typeof data['fingerprint'] === 'string' && typeof data['text'] === 'string') {
    return { ...data, fingerprint: fingerprint(data['text']) };
  }
  if (Array.isArray(data['sections'])) {
    const sections = (data['sections'] as Record<string, unknown>[]).map((s) =>
      typeof s['fingerprint'] === 'string' && typeof s['body'] === 'string' ? { ...s, fingerprint: fingerprint(s['body']) } : s,
    );
    return { ...data, sections };
  }
  return data;
}

/** A name or id holding a secret (NAME_FIELDS) refuses the write whole: a placeholder cannot stand in for a name. */
export function refuseSecretNames(type: string, data: unknown): void {
  for (const path of NAME_FIELDS[type] ?? []) {
    let kind: string | undefined;
    mapTextFields(data, [path], (text) => {
      kind ??= findSecrets(text)[0]?.kind;
      return text;
    });
    if (kind !== undefined)
      throw new KiokuError('KIOKU_INPUT_INVALID', `${type}: ${path.replace('[]', '')}: looks like a credential (${kind}); a name or id cannot hold one (it would be stored as given): choose another`, {
        details: { field: path.replace('[]', ''), kind },
      });
  }
}

/** The event again after redaction; a field whose schema admits no placeholder is refused naming the field, never stored as it was. */
function revalidated(event: ValidatedEvent, data: unknown, fields: readonly string[]): ValidatedEvent {
  try {
    return validateEvent({ type: event.type, ns: event.ns, actor: event.actor, data });
  } catch (err) {
    throw new KiokuError('KIOKU_INPUT_INVALID', `${event.type}: ${fields.join(', ')}: holds what looks like a credential, and this field cannot hold its placeholder: remove it`, {
      details: { field: fields[0] ?? '' },
      cause: err,
    });
  }
}

export function secretRedactor(vault: SecretVault, fingerprint: (text: string) => string): SecretRedactor {
  const guard: WriteGuard = (events) => {
    const out: ValidatedEvent[] = [];
    const notes: ValidatedEvent[] = [];
    for (const event of events) {
      refuseSecretNames(event.type, event.data);
      const { data, findings } = redactEventData(event.type, event.data, (value) => vault.idOf(event.ns, value));
      if (findings.length === 0) {
        out.push(event);
        continue;
      }
      const redacted = refreshFingerprints(event.type, data as Record<string, unknown>, fingerprint);
      // validated again: the catalog's bounds hold for what is stored, not only for what was sent
      out.push(revalidated(event, redacted, [...new Set(findings.map((f) => f.field))]));
      // who wrote it: in an org its writer may reveal it (issue 34)
      for (const f of findings) vault.put(event.ns, f.id, f.kind, f.value, event.actor);
      const byId = new Map<string, { kind: string; fields: Set<string> }>();
      for (const f of findings) {
        const seen = byId.get(f.id) ?? { kind: f.kind, fields: new Set<string>() };
        seen.fields.add(f.field);
        byId.set(f.id, seen);
      }
      for (const [id, { kind, fields }] of byId) {
        notes.push(validateEvent({ type: 'secret.redacted', ns: event.ns, actor: event.actor, data: { id, kind, event_type: event.type, fields: [...fields] } }));
      }
    }
    // the notes after the write's own events: a caller's results line up with what it appended
    return notes.length === 0 ? out : [...out, ...notes];
  };
  return {
    guard,
    redact: (namespace, text) => redactText(text, (value) => vault.idOf(namespace, value)).text,
  };
}

/**
 * A text redacted here, its values kept in `vault`: for text that waits on disk before it reaches a
 * store (the hook's spool of captures the service could not take), so no plaintext waits either.
 * The store's guard later finds only placeholders and changes nothing.
 */
export function redactWithVault(vault: SecretVault, namespace: string, text: string): string {
  const r = redactText(text, (value) => vault.idOf(namespace, value));
  for (const f of r.findings) vault.put(namespace, f.id, f.kind, f.value);
  return r.text;
}
