import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openNote, parseVkey } from '../../src/audit/note.js';
import type { Engine, EngineOptions } from '../../src/engine.js';
import { createApp } from '../../src/http/app.js';
import { openEngine, tempDir } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { BACKENDS, createTestDatabase, skipBackend, type TestDatabase } from '../postgres.js';
import { insider } from './insider.js';
import { logKey, ORIGIN, runVerifier, startWitness, type RunningWitness } from './witness-fixtures.js';

const log = logKey();

describe.each(BACKENDS)('%s: checkpoints cosigned by a witness', (backend) => {
  let dir: ReturnType<typeof tempDir>;
  let database: TestDatabase | undefined;
  let witness: RunningWitness;
  let engine: Engine;
  const open = (extra: Partial<EngineOptions> = {}) =>
    openEngine(dir.path, {
      auditOrigin: ORIGIN,
      auditSigningKey: log.pem,
      auditWitnesses: witness.policy,
      ...(database ? { databaseUrl: database.url } : {}),
      ...extra,
    });

  beforeEach(async (context) => {
    if (skipBackend(backend)) return context.skip();
    dir = tempDir('ce-witnessed-');
    database = backend === 'sqlite' ? undefined : await createTestDatabase();
    witness = await startWitness(dir.path, log.vkey);
    engine = await open();
  });
  afterEach(async () => {
    if (skipBackend(backend)) return;
    await engine.close();
    await witness.close();
    await database?.drop();
    dir.remove();
  });

  it('serves each checkpoint with the cosignature, keeps it across a restart, and proves consistency since a kept one', async () => {
    const app = createApp(engine);
    const key = await engine.auth.issue({ name: 'switch' });
    const headers = { apiKey: key.apiKey, apiSecret: key.apiSecret };
    for (let i = 0; i < 5; i++) await engine.decide(tx(`w-${i}`), { businessId: key.businessId });
    const first = (await (await app.request('/api/v1/audit/checkpoint', { headers })).json()) as {
      data: { treeSize: number; note: string };
    };
    expect(openNote(first.data.note, [parseVkey(witness.vkey)]).verified).toHaveLength(1);
    expect(openNote(first.data.note, [parseVkey(log.vkey)]).verified).toHaveLength(1);
    const health = (await (await app.request('/healthz')).json()) as { status: string; audit: { witnessing: { cosignatures: number } } };
    expect(health.status).toBe('ok');
    expect(health.audit.witnessing.cosignatures).toBe(1);

    for (let i = 5; i < 9; i++) await engine.decide(tx(`w-${i}`), { businessId: key.businessId });
    const decided = await engine.decide(tx('w-last'), { businessId: key.businessId });
    const proofRes = await app.request(`/api/v1/transaction-monitoring/transactions/${decided.transactionId}/proof`, { headers });
    const proof = (await proofRes.json()) as { data: { treeHead: { treeSize: number; note: string } } };
    const to = proof.data.treeHead.treeSize;
    expect(openNote(proof.data.treeHead.note, [parseVkey(witness.vkey)]).verified).toHaveLength(1);

    // A restart: the head recorded with its cosignature is what proofs it covers are served against.
    await engine.close();
    engine = await open();
    const reopened = createApp(engine);
    const again = (await (
      await reopened.request(`/api/v1/transaction-monitoring/transactions/${decided.transactionId}/proof`, { headers })
    ).json()) as typeof proof;
    expect(again.data.treeHead.note).toBe(proof.data.treeHead.note);

    const consistency = await reopened.request(`/api/v1/audit/consistency?from=${first.data.treeSize}&to=${to}`, { headers });
    expect(consistency.status).toBe(200);
    const files = { kept: join(dir.path, 'kept.json'), consistency: join(dir.path, 'consistency.json'), key: join(dir.path, 'log.vkey') };
    writeFileSync(files.kept, JSON.stringify(first));
    writeFileSync(files.consistency, await consistency.text());
    writeFileSync(files.key, log.vkey);
    const checked = await runVerifier(files.consistency, files.key, '--witness', witness.vkey, '--since', files.kept);
    expect(checked.out).toMatch(/^VERIFIED: compliance\.test\/audit-log of \d+ events extends the kept checkpoint/m);
    expect(checked.code).toBe(0);
  });

  it('answers 400 naming the field for a bad consistency query, and 404 for a size it recorded no checkpoint of', async () => {
    const app = createApp(engine);
    const key = await engine.auth.issue({ name: 'auditor' });
    const headers = { apiKey: key.apiKey, apiSecret: key.apiSecret };
    const latest = (await (await app.request('/api/v1/audit/checkpoint', { headers })).json()) as { data: { treeSize: number } };
    for (const [query, field] of [
      ['from=abc', 'from'],
      ['from=-1', 'from'],
      ['from=1&to=1.5', 'to'],
      [`from=${latest.data.treeSize + 1}&to=${latest.data.treeSize}`, 'from'],
    ] as const) {
      const res = await app.request(`/api/v1/audit/consistency?${query}`, { headers });
      expect(res.status, query).toBe(400);
      expect(await res.text(), query).toContain(field);
    }
    const missing = await app.request('/api/v1/audit/consistency?from=0&to=999999', { headers });
    expect(missing.status).toBe(404);
  });
});

describe('an insider who rewrites an amount and recomputes the chain, then restarts with the same key', () => {
  let dir: ReturnType<typeof tempDir>;
  let witness: RunningWitness;
  beforeEach(async () => {
    dir = tempDir('ce-forgery-');
    witness = await startWitness(dir.path, log.vkey);
  });
  afterEach(async () => {
    await witness.close();
    dir.remove();
  });

  it('gets no cosignature: the new checkpoint stays below quorum, /healthz and /metrics say so, and the verifier rejects its proof', async () => {
    const open = () => openEngine(dir.path, { auditOrigin: ORIGIN, auditSigningKey: log.pem, auditWitnesses: witness.policy });
    let engine = await open();
    const key = await engine.auth.issue({ name: 'switch' });
    const headers = { apiKey: key.apiKey, apiSecret: key.apiSecret };
    const victim = await engine.decide(tx('forged', { transactionData: { amount: 987654 } }), { businessId: key.businessId });
    for (let i = 0; i < 10; i++) await engine.decide(tx(`honest-${i}`), { businessId: key.businessId });
    const honest = await engine.audit.checkpoint();
    expect(openNote(honest.note, [parseVkey(witness.vkey)]).verified).toHaveLength(1);
    await engine.close();

    insider(dir.path, (rows) => {
      for (const row of rows)
        if (row.type === 'TransactionDecided' && row.data.includes('987654')) row.data = row.data.replaceAll('987654', '9876');
      return rows;
    });

    engine = await open();
    try {
      const app = createApp(engine);
      const res = await app.request(`/api/v1/transaction-monitoring/transactions/${victim.transactionId}/proof`, { headers });
      expect(res.status, await res.clone().text()).toBe(200);
      const proof = (await res.json()) as { data: { event: { data: unknown }; treeHead: { note: string } } };
      expect(JSON.stringify(proof.data.event.data)).toContain('9876');
      expect(JSON.stringify(proof.data.event.data)).not.toContain('987654');
      // The witness refused: the forged history does not extend the one it cosigned.
      expect(openNote(proof.data.treeHead.note, [parseVkey(log.vkey)]).verified).toHaveLength(1);
      expect(() => openNote(proof.data.treeHead.note, [parseVkey(witness.vkey)])).toThrow(/no verifiable signatures/);
      const status = engine.audit.witnessStatus()!;
      expect(status).toMatchObject({ cosignatures: 0, quorum: 1, belowQuorum: true });
      expect(status.refusals[0]!.reason).toMatch(/refused \(422\)/);

      const health = await app.request('/healthz');
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({
        status: 'degraded',
        reason: expect.stringMatching(/has 0 of the 1 witness cosignatures/),
      });
      const metrics = await (await app.request('/metrics')).text();
      expect(metrics).toMatch(/^audit_checkpoint_cosignatures 0$/m);
      expect(metrics).toMatch(/^audit_witness_quorum 1$/m);

      const files = { proof: join(dir.path, 'proof.json'), key: join(dir.path, 'public-key.json') };
      writeFileSync(files.proof, JSON.stringify(proof));
      writeFileSync(files.key, JSON.stringify({ current: await engine.audit.publicKey() }, null, 2));
      // With the log's key alone the forged proof passes: the key is the insider's too.
      expect((await runVerifier(files.proof, files.key)).code).toBe(0);
      const rejected = await runVerifier(files.proof, files.key, '--witness', witness.vkey);
      expect(rejected.out).toMatch(/NOT VERIFIED: the checkpoint has 0 of the 1 witness cosignatures required/);
      expect(rejected.code).toBe(1);
    } finally {
      await engine.close();
    }
  });
});
