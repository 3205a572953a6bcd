// The writer thread: owns one connection and runs every batch's transaction, so the commit's fsync and the
// inserts never block the thread that decides. Batches may arrive while one commits; they commit in order.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { BatchRequest } from './batch.js';
import type { InlineProjector } from './commit.js';
import { openDatabase } from './database.js';
import { ControlFence } from './fence.js';
import { encodeError } from './wire-errors.js';
import { serialCommitter } from './writer.js';

export interface WriterThreadData {
  path: string;
  /** URL of a module exporting `createProjector(): InlineProjector`, built afresh in this thread. */
  projectorModule?: string;
  /** Control event types: appends made from state older than one of them are refused (fence.ts; deciding threads). */
  controlTypes?: readonly string[];
}

export type ToWriter =
  | { id: number; request: BatchRequest }
  | { id: number; deferred: number }
  | { close: true }
  /** Another store of the process (a deciding thread's) writes through `port`, as client `client`. */
  | { port: MessagePort; client: number };

const parent = parentPort!;
const { path, projectorModule, controlTypes } = workerData as WriterThreadData;
const { db } = openDatabase(path);
const projector: InlineProjector | undefined = projectorModule ? (await import(projectorModule)).createProjector() : undefined;
const serial = serialCommitter(db, () => projector, controlTypes && new ControlFence(new Set(controlTypes)));

const serve = (port: MessagePort, client: number) => async (message: ToWriter) => {
  if ('port' in message) {
    message.port.on('message', serve(message.port, message.client));
    return;
  }
  if ('close' in message) {
    if (client === 0) await db.destroy();
    port.close();
    return;
  }
  try {
    if ('deferred' in message) {
      port.postMessage({ id: message.id, deferred: await serial.projectDeferred(message.deferred) });
      return;
    }
    const reply = await serial.write(message.request, client);
    const outcomes = reply.outcomes.map((o) => ('error' in o ? { error: encodeError(o.error) } : o));
    port.postMessage({ id: message.id, reply: { ...reply, outcomes } });
  } catch (error) {
    port.postMessage({ id: message.id, failure: encodeError(error) });
  }
};
parent.on('message', serve(parent as MessagePort, 0));
parent.postMessage({ ready: true });
