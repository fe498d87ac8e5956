// The head Kioku acknowledged, kept beside LevelDB where damage to LevelDB's write-ahead log
// cannot silently lower it (issue 29 item 3: one flipped byte in `log/*.log` made LevelDB drop
// 27 acknowledged records on recovery, and the head meta, written in the same batches, dropped
// with them, so the chain verified clean and the next write reused seq 14).
//
// Layout: two fixed 128-byte slots written in turn, each [magic:4][seq:8][hash:32][sha256 of
// the 44 bytes before:32]. A write overwrites the older slot in place (no new blocks, so a full
// disk does not refuse it) and a torn or flipped slot leaves the other, one commit older, intact.
import { closeSync, fsyncSync, openSync, readFileSync, type PathLike } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sha256 } from './codec.js';

export interface AckedHead {
  seq: number;
  /** hex sha256 of the record at seq */
  hash: string;
}

/** What the file holds: the newest intact slot, and whether a slot was damaged (or the file is not ours). */
export interface AckedHeadRead {
  head: AckedHead | undefined;
  damaged: boolean;
}

const MAGIC = Buffer.from('KAH1', 'latin1');
const SLOT = 128;
const BODY = 4 + 8 + 32;

function encodeSlot(seq: number, hash: Buffer): Buffer {
  const slot = Buffer.alloc(SLOT);
  MAGIC.copy(slot, 0);
  slot.writeBigUInt64BE(BigInt(seq), 4);
  hash.copy(slot, 12);
  sha256(slot.subarray(0, BODY)).copy(slot, BODY);
  return slot;
}

function decodeSlot(bytes: Buffer): AckedHead | undefined {
  if (bytes.length < BODY + 32 || !bytes.subarray(0, 4).equals(MAGIC)) return undefined;
  if (!sha256(bytes.subarray(0, BODY)).equals(bytes.subarray(BODY, BODY + 32))) return undefined;
  const seq = Number(bytes.readBigUInt64BE(4));
  return Number.isSafeInteger(seq) ? { seq, hash: bytes.toString('hex', 12, 44) } : undefined;
}

function parse(bytes: Buffer): AckedHeadRead & { newest: number } {
  const slots = [0, 1].map((i) => (bytes.length >= (i + 1) * SLOT ? decodeSlot(bytes.subarray(i * SLOT, (i + 1) * SLOT)) : undefined));
  const written = [0, 1].filter((i) => bytes.length >= (i + 1) * SLOT && bytes.subarray(i * SLOT, (i + 1) * SLOT).some((b) => b !== 0));
  const damaged = written.some((i) => slots[i] === undefined) || (bytes.length > 0 && bytes.length !== 2 * SLOT);
  let newest = -1;
  for (const i of [0, 1]) if (slots[i] && (newest < 0 || (slots[i] as AckedHead).seq > (slots[newest] as AckedHead).seq)) newest = i;
  return { head: newest < 0 ? undefined : slots[newest], damaged, newest };
}

/** Read the file without opening it for writing (verify). A missing file holds nothing. */
export function readAckedHead(file: PathLike): AckedHeadRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { head: undefined, damaged: false };
    throw err;
  }
  const { head, damaged } = parse(bytes);
  return { head, damaged };
}

/**
 * The file, open for the log's writer. `record()` calls are written in order and coalesced: a
 * call made while a write is being synced waits for the next write, which carries the newest
 * head, so the extra sync overlaps LevelDB's next group instead of doubling each group's wait.
 */
export class AckedHeadFile {
  private next: number;
  private wanted: { seq: number; hash: Buffer } | undefined;
  private waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  private writing: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    readonly found: AckedHeadRead,
    newest: number,
  ) {
    this.next = newest === 0 ? 1 : 0;
  }

  static async open(path: string): Promise<AckedHeadFile> {
    let handle: FileHandle;
    let created = false;
    try {
      handle = await open(path, 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      handle = await open(path, 'wx+', 0o644);
      created = true;
    }
    try {
      const bytes = await handle.readFile();
      if (created) {
        // a new file: its folder entry must be durable too, or a crash could lose the file itself
        await handle.write(Buffer.alloc(2 * SLOT), 0, 2 * SLOT, 0);
        await handle.sync();
        syncFolder(dirname(path));
      }
      const parsed = parse(bytes);
      return new AckedHeadFile(path, handle, { head: parsed.head, damaged: parsed.damaged }, parsed.newest);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** Resolves once a head at or past `seq` is durable in the file. */
  record(seq: number, hash: Buffer): Promise<void> {
    this.wanted = { seq, hash };
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.writing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.wanted) {
        const { seq, hash } = this.wanted;
        const waiting = this.waiting;
        this.wanted = undefined;
        this.waiting = [];
        try {
          await this.handle.write(encodeSlot(seq, hash), 0, SLOT, this.next * SLOT);
          await this.handle.datasync();
          this.next = 1 - this.next;
          for (const w of waiting) w.resolve();
        } catch (err) {
          for (const w of waiting) w.reject(err);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  /** Wait for pending writes, then close the file. */
  async close(): Promise<void> {
    while (this.writing) await this.writing;
    await this.handle.close();
  }
}

function syncFolder(folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
