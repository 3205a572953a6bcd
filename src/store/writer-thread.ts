// The writer thread: owns one connection and runs every batch's transaction, so the commit's fsync and the
// inserts never block the thread that decides. Batches arrive one at a time (the store keeps one in flight).
import { parentPort, workerData } from 'node:worker_threads';
import type { BatchRequest } from './batch.js';
import { commitBatch, type InlineProjector } from './commit.js';
import { openDatabase } from './database.js';
import { encodeError } from './wire-errors.js';

export interface WriterThreadData {
  path: string;
  /** URL of a module exporting `createProjector(): InlineProjector`, built afresh in this thread. */
  projectorModule?: string;
}

export type ToWriter = { id: number; request: BatchRequest } | { close: true };

const port = parentPort!;
const { path, projectorModule } = workerData as WriterThreadData;
const { db } = openDatabase(path);
const projector: InlineProjector | undefined = projectorModule ? (await import(projectorModule)).createProjector() : undefined;

port.on('message', async (message: ToWriter) => {
  if ('close' in message) {
    await db.destroy();
    port.close();
    return;
  }
  try {
    const reply = await commitBatch(db, projector, message.request);
    const outcomes = reply.outcomes.map((o) => ('error' in o ? { error: encodeError(o.error) } : o));
    port.postMessage({ id: message.id, reply: { ...reply, outcomes } });
  } catch (error) {
    port.postMessage({ id: message.id, failure: encodeError(error) });
  }
});
port.postMessage({ ready: true });
