import type { Logger } from '../logger.js';
import { addCheckpointBody } from '../witness/request.js';
import type { Hash } from './merkle.js';
import { COSIGNATURE_V1, NoteError, parseNote, parseVkey, verifiedSignatures, type NoteVerifier } from './note.js';

/** A witness the engine asks to cosign: its submission prefix and its cosignature/v1 verifier key. */
export interface WitnessEndpoint {
  url: string;
  verifier: NoteVerifier;
}

/** AUDIT_WITNESSES and AUDIT_WITNESS_QUORUM: whom to ask, and how many cosignatures a checkpoint needs. */
export interface WitnessPolicy {
  witnesses: readonly WitnessEndpoint[];
  quorum: number;
}

export const NO_WITNESSES: WitnessPolicy = { witnesses: [], quorum: 0 };

/**
 * `URL VKEY` pairs separated by commas or newlines, e.g.
 * `https://witness.auditor.example/w1 witness.auditor.example/w1+3c1a…+BP…`; the quorum defaults to all of them.
 */
export function parseWitnessPolicy(list: string | undefined, quorum: string | undefined): WitnessPolicy {
  const entries = (list ?? '')
    .split(/[,\n]/)
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const witnesses = entries.map((entry) => {
    const [url, vkey, ...rest] = entry.split(/\s+/);
    if (!url || !vkey || rest.length > 0) throw new Error(`AUDIT_WITNESSES: each witness is "URL VKEY", got ${JSON.stringify(entry)}`);
    if (!/^https?:\/\//.test(url)) throw new Error(`AUDIT_WITNESSES: ${url} is not an http(s) URL`);
    let verifier: NoteVerifier;
    try {
      verifier = parseVkey(vkey);
    } catch (error) {
      throw new Error(`AUDIT_WITNESSES: ${(error as Error).message}`);
    }
    if (verifier.type !== COSIGNATURE_V1)
      throw new Error(`AUDIT_WITNESSES: ${verifier.name}'s key is not a cosignature/v1 key (type 0x04)`);
    return { url: url.replace(/\/$/, ''), verifier };
  });
  const n = quorum === undefined || quorum === '' ? witnesses.length : Number(quorum);
  if (!Number.isInteger(n) || n < 0 || n > witnesses.length) {
    throw new Error(
      `AUDIT_WITNESS_QUORUM must be a whole number from 0 to the ${witnesses.length} witnesses of AUDIT_WITNESSES, got ${quorum}`,
    );
  }
  return { witnesses, quorum: n };
}

/** How long one witness may take to answer before the checkpoint is recorded without its cosignature. */
const TIMEOUT_MS = 5000;

export interface CosignOutcome {
  /** The note with the witnesses' verified cosignature lines appended. */
  note: string;
  cosignatures: number;
  /** Why each witness that did not cosign did not. */
  refusals: { witness: string; reason: string }[];
}

/**
 * Asks every witness to cosign a checkpoint (c2sp.org/tlog-witness add-checkpoint), with a consistency proof from
 * the size each last cosigned. That size is remembered from earlier answers and seeded from the cosignatures of the
 * last recorded checkpoint; a witness that remembers another answers 409 with its size, and is asked once more
 * from there. Only cosignature lines that verify with the witness's key are kept.
 */
export class Witnessing {
  readonly #policy: WitnessPolicy;
  readonly #logger: Logger;
  readonly #sizes = new Map<string, number>();

  constructor(policy: WitnessPolicy, logger: Logger) {
    this.#policy = policy;
    this.#logger = logger;
  }

  get quorum(): number {
    return this.#policy.quorum;
  }

  get configured(): number {
    return this.#policy.witnesses.length;
  }

  /** The witnesses that cosigned `note` (a recorded checkpoint of `size`) have that size, at least. */
  seed(note: string, size: number): void {
    for (const w of this.#policy.witnesses) if (this.count(note, [w]) > 0) this.#sizes.set(w.url, size);
  }

  /** How many of `witnesses` (default: all) cosigned `note`. */
  count(note: string, witnesses: readonly WitnessEndpoint[] = this.#policy.witnesses): number {
    try {
      return verifiedSignatures(
        parseNote(note),
        witnesses.map((w) => w.verifier),
      ).length;
    } catch {
      return 0;
    }
  }

  async cosign(note: string, size: number, proof: (oldSize: number) => Promise<Hash[]>): Promise<CosignOutcome> {
    const refusals: CosignOutcome['refusals'] = [];
    const lines = await Promise.all(
      this.#policy.witnesses.map(async (w) => {
        try {
          return await this.#ask(w, note, size, proof);
        } catch (error) {
          refusals.push({ witness: w.verifier.name, reason: (error as Error).message });
          this.#logger.warn({ witness: w.url, size, err: error }, 'a witness did not cosign the audit checkpoint');
          return '';
        }
      }),
    );
    const cosigned = note + lines.join('');
    return { note: cosigned, cosignatures: this.count(cosigned), refusals };
  }

  async #ask(w: WitnessEndpoint, note: string, size: number, proof: (oldSize: number) => Promise<Hash[]>): Promise<string> {
    let old = Math.min(this.#sizes.get(w.url) ?? 0, size);
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await fetch(`${w.url}/add-checkpoint`, {
        method: 'POST',
        body: addCheckpointBody(old, await proof(old), note),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const body = await response.text();
      if (response.status === 200) {
        const text = parseNote(note).text;
        const line = body.split(/(?<=\n)/).find((l) => {
          try {
            return verifiedSignatures(parseNote(`${text}\n${l}`), [w.verifier]).length > 0;
          } catch (error) {
            if (error instanceof NoteError) return false;
            throw error;
          }
        });
        if (!line) throw new Error(`${w.verifier.name} answered 200 without a cosignature that verifies with its key`);
        this.#sizes.set(w.url, size);
        return line;
      }
      if (response.status === 409 && attempt === 0) {
        const known = Number(body.trim());
        if (!Number.isSafeInteger(known)) throw new Error(`${w.verifier.name} answered 409 without a tree size`);
        this.#sizes.set(w.url, known);
        if (known > size) {
          throw new Error(`${w.verifier.name} has cosigned ${known} events of this log, which now has ${size}: the log was rolled back`);
        }
        old = known;
        continue;
      }
      throw new Error(`${w.verifier.name} refused (${response.status}): ${body.trim()}`);
    }
    throw new Error(`${w.verifier.name} kept answering 409`);
  }
}
