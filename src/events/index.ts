export * from './catalog.js';
export * from './envelope.js';
