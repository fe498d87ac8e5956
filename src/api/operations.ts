// Every facade method's input schema, from one place. Each is the command's own schema (with the
// namespace as the API names it), gathered in src/wire.ts; the doors feed the same schema to their
// validators (fastify's schema compiler, the MCP SDK) and to their docs (OpenAPI, tool schemas),
// so a door never declares a field the facade does not know.
import { z } from 'zod';
import { wire } from '../wire.js';
import {
  artifactsAnswerSchema,
  assetRegisteredSchema,
  audienceAnswerSchema,
  completeTurnAnswerSchema,
  contextAnswerSchema,
  episodeAnswerSchema,
  forgetAnswerSchema,
  purgeAnswerSchema,
  jobEventAnswerSchema,
  memoryWriteAnswerSchema,
  pipelineSnapshotAnswerSchema,
  recallPacketSchema,
  relationsAnswerSchema,
  sessionAnswerSchema,
  statsAnswerSchema,
  supersedeAnswerSchema,
  turnAnswerSchema,
} from './outputs.js';

/** What a method's input is when a door has nothing but a namespace to send (GET routes, lookups by id). */
export const namespaceOnly = wire.inNamespace;

/**
 * The input schema of every Kioku method that takes a body or query, by method name. A method with
 * a path id (`forget(id, input)`) lists the schema of its `input`; methods that take only an id or
 * nothing (evidence, artifacts, ingestStatus, logStats, logRecord, backupPoint, close) have none.
 */
export const inputSchemas = {
  openSession: wire.openSession,
  startTurn: wire.startTurn,
  completeTurn: wire.completeTurn,
  recall: wire.recall,
  context: wire.recall,
  candidates: wire.recall,
  writeMemories: wire.memories,
  forget: wire.forget,
  purge: wire.purge,
  supersede: wire.supersede,
  importDocuments: wire.import,
  replay: wire.replay,
  lifecycleRun: wire.lifecycleRun,
  setAudience: wire.audience,
  notify: wire.notify,
  ack: wire.ack,
  changeOrg: wire.orgChange,
  items: wire.items,
  logEpisode: wire.episode,
  registerAsset: wire.asset,
  recordJobEvent: wire.jobEvent,
  list: wire.list,
  importItems: wire.importItems,
  revealSecret: wire.revealSecret,
} as const satisfies Record<string, z.ZodType>;

export type MethodWithInput = keyof typeof inputSchemas;

/**
 * The input schema of the methods a door calls from a query string (GET routes): they document and
 * type the query; the facade checks the values by hand with the messages these always gave (a query's
 * `?days=x` is a NaN, named as a bad days, not as a type error), so these are not parsed at the edge.
 */
export const querySchemas = {
  cold: wire.cold,
  deliveryReport: wire.deliveryReport,
  document: wire.inNamespace,
  source: wire.inNamespace,
  relations: wire.inNamespace,
  stats: wire.inNamespace,
  inbox: wire.inbox,
  outbox: wire.inNamespace,
  org: wire.inNamespace,
  asset: wire.assetQuery,
  related: wire.related,
  pipelineSnapshot: wire.pipelineSnapshot,
  pipelineJobs: wire.pipelineJobs,
  activity: wire.activity,
  verifyLog: wire.verifyLog,
  logFrames: wire.logFrames,
} as const satisfies Record<string, z.ZodType>;

/**
 * The output schema of the facade methods whose answers are documented field by field (each checked
 * against the method's answer type at compile time, src/api/outputs.ts); the rest answer their
 * TypeScript types (src/kioku.ts) and are documented as objects.
 */
export const outputSchemas = {
  openSession: sessionAnswerSchema,
  startTurn: turnAnswerSchema,
  completeTurn: completeTurnAnswerSchema,
  recall: recallPacketSchema,
  context: contextAnswerSchema,
  candidates: recallPacketSchema,
  writeMemories: memoryWriteAnswerSchema,
  forget: forgetAnswerSchema,
  purge: purgeAnswerSchema,
  supersede: supersedeAnswerSchema,
  setAudience: audienceAnswerSchema,
  registerAsset: assetRegisteredSchema,
  logEpisode: episodeAnswerSchema,
  recordJobEvent: jobEventAnswerSchema,
  relations: relationsAnswerSchema,
  stats: statsAnswerSchema,
  pipelineSnapshot: pipelineSnapshotAnswerSchema,
  artifacts: artifactsAnswerSchema,
} as const satisfies Record<string, z.ZodType>;
