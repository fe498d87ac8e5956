// The fold worker: a rebuild's second core. It folds the projections it is given from the log's
// raw frames as the runner reads them (decoding them itself) and hands back each projection's
// packed state, which the runner loads and writes as the snapshot.
import { parentPort } from 'node:worker_threads';
import type { LogRecord } from '../../src/events/index.js';
import { decodeRecord } from '../../src/log/chain.js';
import { openRecord } from '../../src/privacy/seal.js';
import type { Projection } from '../projection.js';
import { packState } from '../snapshot-file.js';
import type { FoldedProjection, FromFoldWorker, ToFoldWorker } from './protocol.js';
import { WORKER_FOLDABLE } from './registry.js';

interface Fold {
  projection: Projection;
  failed?: FoldedProjection['failed'];
}

const port = parentPort;
if (!port) throw new Error('the fold worker runs as a worker thread');
const post = (message: FromFoldWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

/** the fold under way (the worker stays for the next one: its code is then warm) */
let folds: Fold[] = [];
/** the data keys of this fold: sealed texts are opened as the runner's thread opens them (issue 33) */
let keys = new Map<string, Buffer>();
const keyOf = (kid: string): Buffer | undefined => keys.get(kid);

function start(names: readonly string[], given: readonly [string, Uint8Array][] = []): void {
  keys = new Map(given.map(([kid, key]) => [kid, Buffer.from(key)]));
  folds = names.map((name) => {
    const Registered = Object.hasOwn(WORKER_FOLDABLE, name) ? WORKER_FOLDABLE[name] : undefined;
    if (!Registered) throw new Error(`no worker-foldable projection named ${name}`);
    return { projection: new Registered() };
  });
}

function apply(record: LogRecord): void {
  for (const fold of folds) {
    if (fold.failed) continue;
    try {
      fold.projection.apply(record);
    } catch (err) {
      fold.failed = { seq: record.seq, type: record.type, message: (err as Error).message };
    }
  }
}

function applyFrames(bytes: Uint8Array, ends: Uint32Array): void {
  const frames = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let start = 0;
  for (const end of ends) {
    apply(openRecord(decodeRecord(frames.subarray(start, end)), keyOf));
    start = end;
  }
}

function finish(): void {
  const transfer = new Set<ArrayBuffer>();
  const folded = folds.map((fold): FoldedProjection => {
    const packed = packState(fold.projection.snapshot());
    // a large state has its packing buffer to itself (packState); a small one shares the packer's, copied out
    const state = packed.state.length >= OWN_BUFFER_BYTES ? packed.state : new Uint8Array(packed.state);
    transfer.add(state.buffer as ArrayBuffer);
    return { name: fold.projection.name, ...packed, state, ...(fold.failed ? { failed: fold.failed } : {}) };
  });
  folds = [];
  keys = new Map();
  post({ type: 'done', folded }, [...transfer]);
}

const OWN_BUFFER_BYTES = 1 << 20;

port.on('message', (message: ToFoldWorker) => {
  try {
    if (message.type === 'start') start(message.names, message.keys);
    else if (message.type === 'frames') {
      applyFrames(message.bytes, message.ends);
      post({ type: 'applied' });
    } else finish();
  } catch (err) {
    // a frame that does not decode, or no memory left: the runner folds on its own thread and
    // meets (and reports) the same damage there
    post({ type: 'lost', message: (err as Error).message });
  }
});
