import { createHash, generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointText } from '../../src/audit/checkpoint-text.js';
import { consistencyProof, leafHash, rootOf, type Hash } from '../../src/audit/merkle.js';
import { noteSigner, openNote, parseVkey, signatureLine } from '../../src/audit/note.js';
import { systemClock } from '../../src/clock.js';
import { addCheckpointBody } from '../../src/witness/request.js';
import { witnessApp } from '../../src/witness/server.js';
import { WitnessState } from '../../src/witness/state.js';
import { Witness } from '../../src/witness/witness.js';
import { tempDir } from '../helpers.js';
import { logKey, ORIGIN } from './witness-fixtures.js';

const leaves = (tag: string, n: number, from = 0): Hash[] =>
  Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`${i < from ? 'a' : tag} ${i}`)));

describe('the witness (c2sp.org/tlog-witness add-checkpoint)', () => {
  let dir: ReturnType<typeof tempDir>;
  const log = logKey();
  const witnessKey = generateKeyPairSync('ed25519').privateKey;
  let app: ReturnType<typeof witnessApp>;
  let witness: Witness;

  const open = async () => {
    witness = new Witness({
      name: 'witness.test/w1',
      privateKey: witnessKey,
      logs: [parseVkey(log.vkey)],
      state: await WitnessState.open(`${dir.path}/state.json`),
      clock: systemClock,
    });
    app = witnessApp(witness);
  };
  beforeEach(async () => {
    dir = tempDir('ce-witness-');
    await open();
  });
  afterEach(() => dir.remove());

  const signed = (history: Hash[], size: number, signer = noteSigner(ORIGIN, log.key)) => {
    const text = checkpointText({ origin: ORIGIN, size, root: rootOf(history.slice(0, size)) });
    return `${text}\n${signer.sign(text)}`;
  };
  const proof = (history: Hash[], old: number, size: number) =>
    consistencyProof(old, size, async (lo, hi) => rootOf(history.slice(lo, hi)));
  const add = (body: string) => app.request('/add-checkpoint', { method: 'POST', body });
  const submit = async (history: Hash[], old: number, size: number) =>
    add(addCheckpointBody(old, await proof(history, old, size), signed(history, size)));

  it('cosigns a first checkpoint and its extensions, with a cosignature/v1 line that verifies with its key', async () => {
    const history = leaves('a', 20);
    const first = await submit(history, 0, 5);
    expect(first.status).toBe(200);
    const line = await first.text();
    expect(line).toMatch(/^— witness\.test\/w1 \S+\n$/u);
    const text = checkpointText({ origin: ORIGIN, size: 5, root: rootOf(history.slice(0, 5)) });
    expect(openNote(`${text}\n${line}`, [parseVkey(witness.vkey)]).verified).toHaveLength(1);
    expect((await submit(history, 5, 13)).status).toBe(200);
    expect((await submit(history, 13, 13)).status).toBe(200);
  });

  it('answers 409 with the size it knows (text/x.tlog.size) to a stale old size, and keeps it across a restart', async () => {
    const history = leaves('a', 20);
    await submit(history, 0, 8);
    await open(); // a new process over the same state file
    const stale = await submit(history, 0, 12);
    expect(stale.status).toBe(409);
    expect(stale.headers.get('Content-Type')).toBe('text/x.tlog.size');
    expect(await stale.text()).toBe('8\n');
  });

  it('refuses with 422 a rewritten history, and a rollback regrown differently; 409 for one truncated below what it cosigned', async () => {
    const history = leaves('a', 20);
    await submit(history, 0, 8);
    const rewritten = leaves('b', 20, 3); // leaves 3 and on differ
    const refused = await submit(rewritten, 8, 12);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toMatch(/does not show that the checkpoint of size 12 extends the one of size 8/);
    // Truncated to 6 and regrown: a checkpoint of 6 is behind what the witness cosigned...
    const truncated = await submit(rewritten, 6, 6);
    expect(truncated.status).toBe(409);
    expect(await truncated.text()).toBe('8\n');
    // ...and one of the same size as before with another root is inconsistent.
    const sameSize = await submit(rewritten, 8, 8);
    expect(sameSize.status).toBe(422);
    // The witness still holds the history it vouched for.
    expect((await submit(history, 8, 16)).status).toBe(200);
  });

  it('answers 404 for an unknown origin, 403 without a valid signature of the log, 400 for a malformed request', async () => {
    const history = leaves('a', 4);
    const other = checkpointText({ origin: 'other.example/log', size: 4, root: rootOf(history) });
    expect((await add(addCheckpointBody(0, [], `${other}\n${noteSigner('other.example/log', log.key).sign(other)}`))).status).toBe(404);
    const stranger = noteSigner(ORIGIN, generateKeyPairSync('ed25519').privateKey);
    expect((await add(addCheckpointBody(0, [], signed(history, 4, stranger)))).status).toBe(403);
    const text = checkpointText({ origin: ORIGIN, size: 4, root: rootOf(history) });
    const forged = signatureLine(ORIGIN, parseVkey(log.vkey).keyId, Buffer.alloc(64, 7)); // the log's name and key ID, a bad signature
    expect((await add(addCheckpointBody(0, [], `${text}\n${forged}`))).status).toBe(403);
    expect((await add(addCheckpointBody(5, [], signed(history, 4)))).status).toBe(400);
    expect((await add(`old 01\n\n${signed(history, 4)}`)).status).toBe(400);
    expect((await add('not a request')).status).toBe(400);
  });

  it('answers 422 to a proof from size 0, and to an empty tree whose root is not the hash of nothing', async () => {
    const history = leaves('a', 4);
    expect((await add(addCheckpointBody(0, [history[0]!], signed(history, 4)))).status).toBe(422);
    const text = checkpointText({ origin: ORIGIN, size: 0, root: history[0]! });
    expect((await add(addCheckpointBody(0, [], `${text}\n${noteSigner(ORIGIN, log.key).sign(text)}`))).status).toBe(422);
  });

  it('serves monitors the latest checkpoint it cosigned, with its cosignature', async () => {
    const history = leaves('a', 6);
    await submit(history, 0, 6);
    const hash = createHash('sha256').update(ORIGIN).digest('hex');
    const res = await app.request(`/${hash}/checkpoint`);
    expect(res.status).toBe(200);
    const note = await res.text();
    expect(openNote(note, [parseVkey(witness.vkey), parseVkey(log.vkey)]).verified).toHaveLength(2);
    expect((await app.request(`/${'0'.repeat(64)}/checkpoint`)).status).toBe(404);
  });
});
