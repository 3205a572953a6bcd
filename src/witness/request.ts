// The body of a tlog-witness add-checkpoint request: `old N`, up to 63 base64 proof hashes, a blank line, a checkpoint.
import { parseCheckpointText, type CheckpointBody } from '../audit/checkpoint-text.js';
import { decodeBase64, NoteError, parseNote, type Note } from '../audit/note.js';

export const MAX_PROOF_LINES = 63;

export interface AddCheckpoint {
  oldSize: number;
  proof: Buffer[];
  note: Note;
  checkpoint: CheckpointBody;
}

/** Refuses a malformed request (the witness answers 400 with the reason). */
export function parseAddCheckpoint(body: string): AddCheckpoint {
  const blank = body.indexOf('\n\n');
  if (blank < 0) throw new NoteError('the body has no blank line between the old size and proof and the checkpoint');
  const [old, ...proofLines] = body.slice(0, blank).split('\n');
  const size = /^old (0|[1-9][0-9]*)$/.exec(old ?? '');
  if (!size || !Number.isSafeInteger(Number(size[1])))
    throw new NoteError('the first line must be `old <size>`, a decimal without leading zeroes');
  if (proofLines.length > MAX_PROOF_LINES) throw new NoteError(`more than ${MAX_PROOF_LINES} consistency proof lines`);
  const proof = proofLines.map((line, i) => {
    const hash = decodeBase64(line);
    if (hash?.length !== 32) throw new NoteError(`consistency proof line ${i + 1} is not base64 of a 32-byte hash`);
    return hash;
  });
  const note = parseNote(body.slice(blank + 2));
  return { oldSize: Number(size[1]), proof, note, checkpoint: parseCheckpointText(note.text) };
}

/** The request body the engine sends. */
export const addCheckpointBody = (oldSize: number, proof: readonly Buffer[], signedNote: string): string =>
  `old ${oldSize}\n${proof.map((h) => `${h.toString('base64')}\n`).join('')}\n${signedNote}`;
