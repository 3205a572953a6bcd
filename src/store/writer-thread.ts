// The writer thread: owns one connection and runs every batch's transaction, so the commit's fsync and the
// inserts never block the thread that decides. Batches may arrive while one commits; they commit in order.
import { parentPort, workerData } from 'node:worker_threads';
import type { BatchRequest } from './batch.js';
import type { InlineProjector } from './commit.js';
import { openDatabase } from './database.js';
import { encodeError } from './wire-errors.js';
import { serialCommitter } from './writer.js';

export interface WriterThreadData {
  path: string;
  /** URL of a module exporting `createProjector(): InlineProjector`, built afresh in this thread. */
  projectorModule?: string;
}

export type ToWriter = { id: number; request: BatchRequest } | { id: number; deferred: number } | { close: true };

const port = parentPort!;
const { path, projectorModule } = workerData as WriterThreadData;
const { db } = openDatabase(path);
const projector: InlineProjector | undefined = projectorModule ? (await import(projectorModule)).createProjector() : undefined;
const serial = serialCommitter(db, () => projector);

port.on('message', async (message: ToWriter) => {
  if ('close' in message) {
    await db.destroy();
    port.close();
    return;
  }
  try {
    if ('deferred' in message) {
      port.postMessage({ id: message.id, deferred: await serial.projectDeferred(message.deferred) });
      return;
    }
    const reply = await serial.write(message.request);
    const outcomes = reply.outcomes.map((o) => ('error' in o ? { error: encodeError(o.error) } : o));
    port.postMessage({ id: message.id, reply: { ...reply, outcomes } });
  } catch (error) {
    port.postMessage({ id: message.id, failure: encodeError(error) });
  }
});
port.postMessage({ ready: true });
