import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../src/audit/index.js';
import { createEngine, type Engine } from '../../src/engine.js';
import { createApp } from '../../src/http/app.js';
import { DECISION_KEYS } from '../../src/monitoring/compact-keys.js';
import { decodeNumbered, encodeNumbered } from '../../src/store/index.js';
import { runCli, silentLogger, tempDir } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { insider } from './insider.js';

const open = (dataDir: string) => createEngine({ dataDir, logger: silentLogger, tailIntervalMs: 0, watchRules: false });

describe('the audit log against an insider who rewrites the SQLite file', () => {
  let dir: ReturnType<typeof tempDir>;
  let checkpoint: Checkpoint;
  let size: number;

  beforeEach(async () => {
    dir = tempDir('ce-audit-');
    const engine = await open(dir.path);
    await engine.auth.issue({ name: 'switch' });
    for (let i = 0; i < 40; i++) await engine.decide(tx(`audit-${i}`));
    checkpoint = await engine.audit.checkpoint();
    size = checkpoint.treeSize;
    // The log grows after the checkpoint, as it does in production.
    for (let i = 40; i < 45; i++) await engine.decide(tx(`audit-${i}`));
    await engine.close();
  });
  afterEach(() => dir.remove());

  const verify = async () => {
    const engine = await open(dir.path);
    try {
      return await engine.audit.verify([{ source: 'kept.json', checkpoint }]);
    } finally {
      await engine.close();
    }
  };

  it('verifies an untouched log that grew after the checkpoint', async () => {
    const report = await verify();
    expect(report.ok).toBe(true);
    expect(report.checkpoints[0]!.message).toMatch(/extends this checkpoint/);
  });

  it.each([1, 7, 20])('catches event %i rewritten with every later chain hash recomputed, and names its position', async (position) => {
    insider(dir.path, (rows) => {
      const row = rows[position - 1]!;
      row.metadata = JSON.stringify({ ...JSON.parse(row.metadata), actor: 'someone-else' });
      return rows;
    });
    const report = await verify();
    expect(report.chain.ok).toBe(true); // the old check is fooled...
    expect(report.ok).toBe(false); // ...the checkpoint is not
    const verdict = report.checkpoints[0]!;
    expect(verdict.ok).toBe(false);
    expect(verdict.altered!.from).toBeLessThanOrEqual(position);
    expect(verdict.altered!.to).toBeGreaterThanOrEqual(position);
  });

  it('catches the tail truncated below the checkpoint and says which positions are gone', async () => {
    insider(dir.path, (rows) => rows.slice(0, size - 3));
    const report = await verify();
    expect(report.ok).toBe(false);
    expect(report.checkpoints[0]!.message).toMatch(new RegExp(`truncated: the log has ${size - 3} events`));
    expect(report.checkpoints[0]!.altered).toEqual({ from: size - 2, to: size });
  });

  it('catches two events swapped (positions renumbered, hashes recomputed)', async () => {
    insider(dir.path, (rows) => {
      const [a, b] = [rows[10]!, rows[11]!];
      rows[10] = { ...b, global_position: a.global_position };
      rows[11] = { ...a, global_position: b.global_position };
      return rows;
    });
    const report = await verify();
    expect(report.ok).toBe(false);
    expect(report.checkpoints[0]!.altered!.from).toBeLessThanOrEqual(11);
    expect(report.checkpoints[0]!.altered!.to).toBeGreaterThanOrEqual(11);
  });

  it('narrows a rewrite down to the events between two tree heads the engine published along the way', async () => {
    const engine = await open(dir.path);
    const heads: number[] = [];
    for (let i = 0; i < 12; i++) {
      await engine.decide(tx(`anchored-${i}`));
      await engine.audit.publish();
      heads.push(await engine.store.head());
    }
    // The most events one decision and its publication wrote (a decision that opens a case writes more than one).
    const widest = Math.max(...heads.slice(1).map((h, i) => h - heads[i]!));
    const kept = await engine.audit.checkpoint();
    await engine.close();
    const target = kept.treeSize - 6;
    insider(dir.path, (rows) => {
      rows[target - 1]!.recorded_at = '2020-01-01T00:00:00.000Z';
      return rows;
    });
    const reopened = await open(dir.path);
    const report = await reopened.audit.verify([{ source: 'kept.json', checkpoint: kept }]);
    await reopened.close();
    // A decision and a publication lie between two published heads: the change is pinned to those events.
    const { from, to } = report.checkpoints[0]!.altered!;
    expect(from).toBeLessThanOrEqual(target);
    expect(to).toBeGreaterThanOrEqual(target);
    expect(to - from).toBeLessThan(widest);
    expect(report.checkpoints[0]!.message).toMatch(/^rewritten: /);
  }, 120_000);

  it('catches an edit that left the chain broken, at its exact position', async () => {
    const db = new Database(join(dir.path, 'compliance.db'));
    db.exec('DROP TRIGGER events_no_update');
    db.prepare("UPDATE events SET metadata = replace(metadata, 'default', 'other') WHERE global_position = 9").run();
    db.close();
    const report = await verify();
    expect(report.ok).toBe(false);
    expect(report.chain.problems[0]!.position).toBe(9);
  });

  it('refuses a checkpoint whose signature does not verify, or that a key the log never recorded signed', async () => {
    const engine = await open(dir.path);
    try {
      const forged = { ...checkpoint, treeSize: checkpoint.treeSize - 1 };
      const [bad] = await engine.audit.verify([{ source: 'forged.json', checkpoint: forged }]).then((r) => r.checkpoints);
      expect(bad!.message).toMatch(/signature does not verify/);
    } finally {
      await engine.close();
    }
  });

  it('runs as `audit verify` on the command line, exit 1 and the position on a rewritten log', async () => {
    const file = join(dir.path, 'kept.json');
    writeFileSync(file, JSON.stringify(checkpoint));
    const clean = await runCli(dir.path, 'audit', 'verify', '--checkpoint', file);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/verified: the log extends every checkpoint/);
    insider(dir.path, (rows) => rows.slice(0, size - 2));
    const truncated = await runCli(dir.path, 'audit', 'verify', '--checkpoint', file);
    expect(truncated.code).toBe(1);
    expect(truncated.stdout).toMatch(/FAIL .*truncated/);
  }, 180_000);
});

describe('inclusion proofs checked by the shipped verifier, with no database', () => {
  let dir: ReturnType<typeof tempDir>;
  let engine: Engine;
  beforeEach(async () => {
    dir = tempDir('ce-proof-');
    engine = await open(dir.path);
  });
  afterEach(async () => {
    await engine.close();
    dir.remove();
  });

  const runVerifier = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['examples/verify-proof.mjs', ...args]).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );

  it('proves a decision to an outsider, and a tampered copy of the proof fails', async () => {
    const app = createApp(engine);
    const key = await engine.auth.issue({ name: 'switch' });
    const headers = { apiKey: key.apiKey, apiSecret: key.apiSecret };
    const decisions = [];
    for (let i = 0; i < 300; i++) decisions.push(await engine.decide(tx(`proof-${i}`), { businessId: key.businessId }));
    const id = decisions[137]!.transactionId;
    const res = await app.request(`/api/v1/transaction-monitoring/transactions/${id}/proof`, { headers });
    expect(res.status).toBe(200);
    const proof = (await res.json()) as {
      data: { event: { data: any; streamId: string }; readable: { data: any }; treeHead: { publicKey: string } };
    };
    expect(proof.data.event.streamId).toContain(id);
    const file = join(dir.path, 'proof.json');
    const keyFile = join(dir.path, 'trusted.pem');
    const original = JSON.stringify(proof);
    writeFileSync(file, original);
    writeFileSync(keyFile, (await engine.audit.publicKey()).publicKey);
    const good = await runVerifier(file, keyFile);
    expect(good.out).toMatch(/^VERIFIED: event .* \(TransactionDecided\)/m);
    expect(good.code).toBe(0);

    expect(good.out).toContain(`readable form: the stored data, decoded with key table ${DECISION_KEYS.id}`);
    expect(proof.data.readable.data.decision.action).toEqual(decisions[137]!.action);

    // The stored decision (keys numbered) tampered into an approval, and its readable form with it.
    const stored = decodeNumbered(proof.data.event.data) as any;
    stored.decision.action = { result: 'approved', code: 1 };
    stored.decision.riskScore = '0';
    proof.data.event.data = encodeNumbered(DECISION_KEYS, stored);
    proof.data.readable.data = stored;
    writeFileSync(file, JSON.stringify(proof));
    const tampered = await runVerifier(file, keyFile);
    expect(tampered.code).toBe(1);
    expect(tampered.out).toMatch(/NOT VERIFIED: the event's content does not match its hash/);

    // The stored decision kept, its readable form shown as an approval: refused.
    const shown = JSON.parse(original);
    shown.data.readable.data.decision.action = { result: 'approved', code: 1 };
    writeFileSync(file, JSON.stringify(shown));
    const misread = await runVerifier(file, keyFile);
    expect(misread.code).toBe(1);
    expect(misread.out).toMatch(/NOT VERIFIED: the readable form is not the stored data decoded with key table/);

    // Or read with another key table, in which 'action' and 'riskScore' trade places: refused by the table's hash.
    const swapped = JSON.parse(original);
    const keys = swapped.data.readable.keyTable.keys as string[];
    const [a, r] = [keys.indexOf('action'), keys.indexOf('riskScore')];
    [keys[a], keys[r]] = [keys[r]!, keys[a]!];
    writeFileSync(file, JSON.stringify(swapped));
    const otherTable = await runVerifier(file, keyFile);
    expect(otherTable.code).toBe(1);
    expect(otherTable.out).toMatch(/NOT VERIFIED: the key table's hash is \S+, not the id it is given/);

    // Restored, but checked against a key the auditor does not trust: refused.
    writeFileSync(file, original);
    const stranger = join(dir.path, 'stranger.pem');
    writeFileSync(stranger, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const untrusted = await runVerifier(file, stranger);
    expect(untrusted.code).toBe(1);
    expect(untrusted.out).toMatch(/not signed by the trusted log key/);
  });

  it('refuses to prove an event altered in the database since it was hashed into the tree', async () => {
    const key = await engine.auth.issue({ name: 'switch' });
    const decision = await engine.decide(tx('victim'), { businessId: key.businessId });
    await engine.audit.checkpoint();
    const db = new Database(join(dir.path, 'compliance.db'));
    db.exec('DROP TRIGGER events_no_update');
    db.prepare('UPDATE events SET data = replace(data, \'"victim"\', \'"other"\') WHERE stream_id LIKE ?').run(
      `%${decision.transactionId}`,
    );
    db.close();
    const position = await engine.monitoring.decisionPosition(key.businessId, decision.transactionId);
    await expect(engine.audit.prove(position)).rejects.toThrow(/does not match its chain hash/);
  });

  it('proves a case log entry', async () => {
    const app = createApp(engine);
    const key = await engine.auth.issue({ name: 'investigator-tool' });
    const headers = { apiKey: key.apiKey, apiSecret: key.apiSecret, 'Content-Type': 'application/json' };
    const created = await app.request('/api/v1/case-management/case', {
      method: 'POST',
      headers,
      body: JSON.stringify({
        module: 'transaction-monitoring',
        record: { id: 'r1', type: 'transaction', name: 'r1' },
        title: 'T',
        description: 'D',
        priority: 'low',
      }),
    });
    const body = (await created.json()) as { data: { _id: string; log: { _id: string }[] } };
    expect(created.status, JSON.stringify(body)).toBe(201);
    const entry = body.data.log[0]!;
    const res = await app.request(`/api/v1/case-management/case/${body.data._id}/log/${entry._id}/proof`, { headers });
    expect(res.status).toBe(200);
    const file = join(dir.path, 'case-proof.json');
    writeFileSync(file, await res.text());
    expect((await runVerifier(file)).code).toBe(0);
    const missing = await app.request(`/api/v1/case-management/case/${body.data._id}/log/nope/proof`, { headers });
    expect(missing.status).toBe(404);
  });
});
