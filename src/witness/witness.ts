import { createHash, type KeyObject } from 'node:crypto';
import type { Clock } from '../clock.js';
import { EMPTY_ROOT, verifyConsistency } from '../audit/merkle.js';
import { cosigner, NoteError, verifiedSignatures, type Cosigner, type NoteVerifier } from '../audit/note.js';
import { parseAddCheckpoint } from './request.js';
import type { WitnessState } from './state.js';

/** An add-checkpoint answer, with the status the spec gives each outcome. */
export type AddCheckpointResult =
  | { status: 200; cosignatures: string }
  | { status: 409; size: number }
  | { status: 400 | 403 | 404 | 422; message: string };

/**
 * A tlog-witness (c2sp.org/tlog-witness): for each log it knows (by origin, with the log's verifier keys) it keeps the
 * latest checkpoint it cosigned, and cosigns a new one only if a consistency proof shows it extends that one. A log
 * that rewrote or rolled back its history cannot get the result cosigned.
 */
export class Witness {
  readonly #cosigner: Cosigner;
  readonly #logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  readonly #state: WitnessState;
  readonly #clock: Clock;
  /** Checking the old size and recording the new checkpoint happen as one step: requests take turns. */
  #turn: Promise<unknown> = Promise.resolve();

  constructor(input: { name: string; privateKey: KeyObject; logs: readonly NoteVerifier[]; state: WitnessState; clock: Clock }) {
    this.#cosigner = cosigner(input.name, input.privateKey);
    const logs = new Map<string, NoteVerifier[]>();
    // A log's key is named after its origin (tlog-checkpoint: the key name SHOULD match the origin line).
    for (const v of input.logs) logs.set(v.name, [...(logs.get(v.name) ?? []), v]);
    this.#logs = logs;
    this.#state = input.state;
    this.#clock = input.clock;
  }

  /** This witness's verifier key (cosignature/v1), for the logs and their auditors. */
  get vkey(): string {
    return this.#cosigner.verifier.vkey;
  }

  addCheckpoint(body: string): Promise<AddCheckpointResult> {
    const run = this.#turn.then(() => this.#add(body));
    this.#turn = run.catch(() => undefined);
    return run;
  }

  async #add(body: string): Promise<AddCheckpointResult> {
    let request: ReturnType<typeof parseAddCheckpoint>;
    try {
      request = parseAddCheckpoint(body);
    } catch (error) {
      if (error instanceof NoteError) return { status: 400, message: error.message };
      throw error;
    }
    const { oldSize, proof, note, checkpoint } = request;
    const keys = this.#logs.get(checkpoint.origin);
    if (!keys) return { status: 404, message: `unknown log origin ${JSON.stringify(checkpoint.origin)}` };
    try {
      if (verifiedSignatures(note, keys).length === 0)
        return { status: 403, message: "the checkpoint carries no signature of the log's key" };
    } catch (error) {
      if (error instanceof NoteError) return { status: 403, message: error.message };
      throw error;
    }
    if (oldSize > checkpoint.size) return { status: 400, message: `old size ${oldSize} is above the checkpoint's size ${checkpoint.size}` };
    const latest = this.#state.latest(checkpoint.origin);
    if (oldSize !== (latest?.size ?? 0)) return { status: 409, size: latest?.size ?? 0 };
    if (checkpoint.size === 0 && !checkpoint.root.equals(EMPTY_ROOT)) {
      return { status: 422, message: 'a checkpoint of size 0 must have the root of the empty tree' };
    }
    if (oldSize === 0) {
      if (proof.length > 0) return { status: 422, message: 'a consistency proof from size 0 must be empty' };
    } else if (!verifyConsistency(oldSize, checkpoint.size, Buffer.from(latest!.root, 'base64'), checkpoint.root, proof)) {
      return {
        status: 422,
        message: `the consistency proof does not show that the checkpoint of size ${checkpoint.size} extends the one of size ${oldSize} this witness cosigned`,
      };
    }
    const line = this.#cosigner.sign(note.text, BigInt(Math.floor(this.#clock.now().getTime() / 1000)));
    const logLines = note.signatures.filter((s) => keys.some((k) => k.name === s.name && k.keyId === s.keyId)).map((s) => s.line);
    await this.#state.record(checkpoint.origin, {
      size: checkpoint.size,
      root: checkpoint.root.toString('base64'),
      note: `${note.text}\n${logLines.join('')}${line}`,
    });
    return { status: 200, cosignatures: line };
  }

  /** The latest cosigned checkpoint of the log whose origin hashes (SHA-256, lowercase hex) to `originHash`. */
  checkpoint(originHash: string): string | undefined {
    for (const origin of this.#logs.keys()) {
      if (createHash('sha256').update(origin).digest('hex') === originHash) return this.#state.latest(origin)?.note;
    }
    return undefined;
  }
}
