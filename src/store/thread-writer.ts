import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
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

/** The writer thread itself, or a port of it that another thread's store writes through. */
type Endpoint = Worker | MessagePort;

/**
 * A store's side of the writer thread: sends its batches, and settles each with the thread's answer. The thread
 * commits batches of every port in one queue (serialCommitter), so a deciding thread's appends share its commits.
 */
export class WriterPort implements Writer {
  readonly #endpoint: Endpoint;
  readonly #waiting = new Map<number, { resolve(reply: any): void; reject(error: unknown): void }>();
  readonly fences: boolean;
  #nextId = 0;
  #stopped: Error | undefined;
  #closing = false;

  constructor(endpoint: Endpoint, fences: boolean) {
    this.#endpoint = endpoint;
    this.fences = fences;
    endpoint.on('message', (message: FromWriter) => {
      if ('ready' in message) return;
      const waiting = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      // While closing, stay referenced until the thread exits, or the process could end before close() resolves.
      if (this.#waiting.size === 0 && !this.#closing) endpoint.unref();
      if ('reply' in message) {
        const outcomes = message.reply.outcomes.map((o) => ('error' in o ? { error: decodeError(o.error as WireError) } : o));
        waiting?.resolve({ ...message.reply, outcomes });
      } else if ('deferred' in message) waiting?.resolve(message.deferred);
      else waiting?.reject(decodeError(message.failure));
    });
    endpoint.unref();
  }

  /** Rejects what waits, and every later write, with `error`. */
  protected stop(error: Error): void {
    this.#stopped ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(this.#stopped);
    this.#waiting.clear();
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
      this.#endpoint.ref();
      this.#endpoint.postMessage(message(id));
    });
  }

  /** Stops sending; resolves once `closed` (the thread's exit, or nothing to wait for on a port) has happened. */
  protected async closeWith(closed: Promise<unknown>): Promise<void> {
    if (this.#stopped || this.#closing) return;
    this.#closing = true;
    this.#stopped = new Error('event store is closed');
    this.#endpoint.ref();
    this.#endpoint.postMessage({ close: true } satisfies ToWriter);
    await closed;
  }

  async close(): Promise<void> {
    await this.closeWith(Promise.resolve());
    (this.#endpoint as MessagePort).close();
  }
}

/**
 * Runs the store's transactions in a worker thread with its own connection (WAL lets the caller's connection
 * keep reading). A write resolves only after the thread's commit returned, so acknowledged means durable.
 */
export class ThreadWriter extends WriterPort {
  readonly #worker: Worker;
  #clients = 0;

  private constructor(worker: Worker, fences: boolean) {
    super(worker, fences);
    this.#worker = worker;
    worker.on('error', (error) => this.stop(new Error(`event store writer thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => this.stop(new Error(`event store writer thread stopped (exit code ${code})`)));
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
        resolve(new ThreadWriter(worker, data.controlTypes !== undefined));
      });
    });
  }

  /** A port of this writer for another thread's store (`new WriterPort(port, …)` there): its commits are shared. */
  connect(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    this.#worker.postMessage({ port: port2, client: ++this.#clients } satisfies ToWriter, [port2]);
    return port1;
  }

  override async close(): Promise<void> {
    await this.closeWith(new Promise((resolve) => this.#worker.once('exit', resolve)));
  }
}
