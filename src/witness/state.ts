import { readFile } from 'node:fs/promises';
import { writeDurably } from '../durable-file.js';

/** What a witness remembers of one log: the latest checkpoint it cosigned, as the log signed it. */
export interface LogRecord {
  size: number;
  /** Base64 root hash. */
  root: string;
  /** The checkpoint note with the log's signature and this witness's cosignature (served to monitors). */
  note: string;
}

/**
 * The witness's durable state: per origin, the latest cosigned checkpoint. Written whole (temporary file, fsync,
 * rename) before a cosignature is returned, so a witness that crashes never forgets what it vouched for.
 */
export class WitnessState {
  readonly #path: string;
  readonly #logs: Map<string, LogRecord>;

  private constructor(path: string, logs: Map<string, LogRecord>) {
    this.#path = path;
    this.#logs = logs;
  }

  static async open(path: string): Promise<WitnessState> {
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const logs = new Map<string, LogRecord>(text === undefined ? [] : Object.entries(JSON.parse(text).logs as Record<string, LogRecord>));
    return new WitnessState(path, logs);
  }

  latest(origin: string): LogRecord | undefined {
    return this.#logs.get(origin);
  }

  async record(origin: string, record: LogRecord): Promise<void> {
    const next = new Map(this.#logs).set(origin, record);
    await writeDurably(this.#path, `${JSON.stringify({ logs: Object.fromEntries(next) }, null, 2)}\n`);
    this.#logs.set(origin, record);
  }
}
