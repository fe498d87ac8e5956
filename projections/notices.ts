// notices: what members sent each other, what arrived and what was signed off (issue 34), per
// namespace, folded from notice.* events by the pure fold of src/knowledge/notices.ts.
import type { LogRecord } from '../src/events/index.js';
import { evolveNotices, inboxOf, NOTICE_FOLD_TYPES, outboxOf, type InboxItem, type Notice, type NoticeState, type OutboxItem } from '../src/knowledge/notices.js';
import { PlainStateProjection } from './projection.js';

const NONE: Readonly<Record<string, Notice>> = Object.freeze({});

export class NoticesProjection extends PlainStateProjection<NoticeState> {
  readonly name = 'notices';
  readonly version = 2;
  readonly types: ReadonlySet<string> = new Set(NOTICE_FOLD_TYPES);

  constructor() {
    super(() => ({}));
  }

  apply(record: LogRecord): void {
    evolveNotices(this.state, record);
  }

  /** A namespace's notices by id. */
  of(ns: string): Readonly<Record<string, Notice>> {
    return this.state[ns] ?? NONE;
  }

  inbox(ns: string, member: string, includeAcked = false): InboxItem[] {
    return inboxOf(this.of(ns), member, includeAcked);
  }

  outbox(ns: string, member: string): OutboxItem[] {
    return outboxOf(this.of(ns), member);
  }
}
