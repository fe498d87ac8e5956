export * from './catalog.js';
export * from './envelope.js';
export * from './vector-encoding.js';
export * from './recall-event.js';
export * from './vocabulary.js';
