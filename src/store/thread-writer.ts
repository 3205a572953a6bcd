import type { Worker } from 'node:worker_threads';
import { startThread, threadEntry } from '../threads.js';
import type { BatchReply, BatchRequest } from './batch.js';
import type { DeferredReply } from './commit.js';
import { decodeError, type WireError } from './wire-errors.js';
import type { Writer } from './writer.js';
import type { ToWriter, WriterThreadData } from './writer-thread.js';

type FromWriter =
  | { ready: true }
  | { id: number; reply: BatchReply }
  | { id: number; deferred: DeferredReply }
  | { id: number; failure: WireError };

const entry = threadEntry(import.meta.url, 'writer-thread');

/**
 * Runs the store's transactions in a worker thread with its own connection (WAL lets the caller's connection
 * keep reading). A write resolves only after the thread's commit returned, so acknowledged means durable.
 */
export class ThreadWriter implements Writer {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve(reply: any): void; reject(error: unknown): void }>();
  #nextId = 0;
  #stopped: Error | undefined;
  #closing = false;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (message: FromWriter) => {
      if ('ready' in message) return;
      const waiting = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      // While closing, stay referenced until the thread exits, or the process could end before close() resolves.
      if (this.#waiting.size === 0 && !this.#closing) worker.unref();
      if ('reply' in message) {
        const outcomes = message.reply.outcomes.map((o) => ('error' in o ? { error: decodeError(o.error as WireError) } : o));
        waiting?.resolve({ ...message.reply, outcomes });
      } else if ('deferred' in message) waiting?.resolve(message.deferred);
      else waiting?.reject(decodeError(message.failure));
    });
    const stop = (error: Error) => {
      this.#stopped ??= error;
      for (const waiting of this.#waiting.values()) waiting.reject(this.#stopped);
      this.#waiting.clear();
    };
    worker.on('error', (error) => stop(new Error(`event store writer thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => stop(new Error(`event store writer thread stopped (exit code ${code})`)));
  }

  static start(data: WriterThreadData): Promise<ThreadWriter> {
    const worker = startThread(entry, (module) => ({ ...data, projectorModule: data.projectorModule && module(data.projectorModule) }));
    return new Promise((resolve, reject) => {
      const failed = (error: Error) => reject(new Error(`event store writer thread did not start: ${error.message}`, { cause: error }));
      const exited = (code: number) => failed(new Error(`exit code ${code}`));
      worker.once('error', failed);
      worker.once('exit', exited);
      worker.once('message', () => {
        worker.off('error', failed);
        worker.off('exit', exited);
        worker.unref();
        resolve(new ThreadWriter(worker));
      });
    });
  }

  write(request: BatchRequest): Promise<BatchReply> {
    return this.#send((id) => ({ id, request }));
  }

  projectDeferred(limit: number): Promise<DeferredReply> {
    return this.#send((id) => ({ id, deferred: limit }));
  }

  #send<T>(message: (id: number) => ToWriter): Promise<T> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      // Referenced while a request is in flight, so a process awaiting an append does not exit under it.
      this.#worker.ref();
      this.#worker.postMessage(message(id));
    });
  }

  async close(): Promise<void> {
    if (this.#stopped || this.#closing) return;
    this.#closing = true;
    const exited = new Promise((resolve) => this.#worker.once('exit', resolve));
    this.#stopped = new Error('event store is closed');
    this.#worker.ref();
    this.#worker.postMessage({ close: true } satisfies ToWriter);
    await exited;
  }
}
