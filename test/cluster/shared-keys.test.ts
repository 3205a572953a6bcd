import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { treeHeadMessage, type SignedTreeHead } from '../../src/audit/index.js';
import { verifySignature } from '../../src/audit/signing-key.js';
import type { Engine } from '../../src/engine.js';
import { tx } from '../monitoring/fixtures.js';
import { tempDir } from '../helpers.js';
import { describePostgres } from '../postgres.js';
import { caughtUp, testCluster, type TestCluster } from './cluster.js';

const actor = { businessId: 'biz_keys' };
const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams) as { expires?: string; max?: string; sig?: string };
const signedBy = (publicKey: string, head: SignedTreeHead) =>
  verifySignature(publicKey, treeHeadMessage(head), Buffer.from(head.signature, 'base64'));

describePostgres('signing keys shared by the nodes of one database', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    // No UPLOAD_SIGNING_SECRET, no AUDIT_SIGNING_KEY: nothing set up by the operator.
    cluster = await testCluster(2);
  }, 120_000);
  afterAll(async () => cluster.close());

  it('an upload URL one node signs is accepted by the other, before and after a rotation', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    const send = async (from: Engine, to: Engine, body: string) => {
      const { key, url } = await from.uploads.authorize(actor, { fileType: 'csv', access: 'private' });
      await caughtUp(to, await from.store.head());
      return { key, url, receive: () => to.uploads.receive(key, queryOf(url), [Buffer.from(body)]) };
    };
    const first = await send(a, b, 'a,b\n');
    expect(await first.receive()).toMatchObject({ key: first.key, size: 4 });
    await caughtUp(a, await b.store.head());
    const { url } = await b.uploads.describe(actor.businessId, first.key);
    expect((await a.uploads.open(first.key, queryOf(url))).size).toBe(4);

    // Issued before the rotation, used after it on the other node: the replaced key still verifies.
    const before = await send(b, a, 'c,d\n');
    await b.uploads.rotateKey();
    const after = await send(b, a, 'e,f\n');
    expect(new URL(after.url).searchParams.get('sig')).not.toBe(new URL(before.url).searchParams.get('sig'));
    expect(await before.receive()).toMatchObject({ size: 4 });
    expect(await after.receive()).toMatchObject({ size: 4 });
    // Neither node wrote a key into its own data folder.
    for (const node of [a, b]) expect(existsSync(join(node.options.dataDir, 'upload-signing.key'))).toBe(false);
  }, 60_000);

  it("both nodes' tree heads verify with the one key the log records, and a rotation on one reaches the other", async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    await a.decide(tx('KEYS-1'), actor);
    const [fromA, fromB] = await Promise.all([a.audit.treeHead(), b.audit.treeHead()]);
    const recorded = await a.audit.keys();
    expect(recorded).toHaveLength(1);
    expect(fromA.keyId).toBe(recorded[0]!.keyId);
    expect(fromB.keyId).toBe(recorded[0]!.keyId);
    expect(signedBy(recorded[0]!.publicKey, fromA)).toBe(true);
    expect(signedBy(recorded[0]!.publicKey, fromB)).toBe(true);
    for (const node of [a, b]) expect(existsSync(join(node.options.dataDir, 'audit-signing-key.pem'))).toBe(false);

    const rotated = await a.audit.rotateKey();
    await b.decide(tx('KEYS-2'), actor);
    await caughtUp(b, await a.store.head());
    const next = await b.audit.treeHead();
    expect(next.keyId).toBe(rotated.keyId);
    expect(signedBy(rotated.publicKey, next)).toBe(true);
    expect((await b.audit.keys()).map((k) => k.keyId)).toEqual([recorded[0]!.keyId, rotated.keyId]);
  }, 60_000);
});

describePostgres('tree heads published by one node of the cluster', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await testCluster(2, { auditCheckpointIntervalSeconds: 1 });
  }, 120_000);
  afterAll(async () => cluster.close());

  /** Has this node signed a head? Only the publisher signs: nothing else here asks for one. */
  const signed = async (node: Engine) => (await node.metrics.auditTreeSize.get()).values.some((v) => v.value > 0);
  const heads = async (node: Engine) => (await node.store.readStream('audit-tree-heads')).map((e) => e.data as SignedTreeHead);

  async function growFor(node: Engine, ms: number, prefix: string) {
    const until = Date.now() + ms;
    for (let i = 0; Date.now() < until; i++) {
      await node.decide(tx(`${prefix}-${i}`), actor);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('one node publishes while the other stays quiet, and the other takes over when it closes', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    await growFor(a, 3500, 'PUB-A');
    const signers = await Promise.all([a, b].map(signed));
    expect(signers.filter(Boolean)).toHaveLength(1);
    const holder = signers[0] ? a : b;
    const other = holder === a ? b : a;
    const published = await heads(other);
    expect(published.length).toBeGreaterThanOrEqual(2);
    // One publisher: each head covers a longer log than the one before.
    for (let i = 1; i < published.length; i++) expect(published[i]!.treeSize).toBeGreaterThan(published[i - 1]!.treeSize);

    await holder.close();
    await growFor(other, 3500, 'PUB-B');
    expect(await signed(other)).toBe(true);
    const later = (await heads(other)).slice(published.length);
    expect(later.length).toBeGreaterThanOrEqual(1);
    expect(later.every((h) => h.keyId === published[0]!.keyId)).toBe(true);
  }, 60_000);
});

describePostgres('tree heads when the publisher is SIGKILLed', () => {
  it("another node takes over publishing once the server drops the dead publisher's connection", async () => {
    const cluster = await testCluster(0);
    const dir = tempDir('ce-dying-');
    try {
      // The publisher, a process of its own (test/cluster/claim-holder.ts), holds the claim before the node starts.
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'test/cluster/claim-holder.ts', cluster.database.url, dir.path, '--tree-heads'],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const exited = new Promise((r) => child.once('exit', r));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
        child.once('exit', (code) => reject(new Error(`the publisher exited (${code}) before it held the claim`)));
      });
      const node = await cluster.add({ auditCheckpointIntervalSeconds: 1 });
      const published = async () => (await node.store.readStream('audit-tree-heads')).length;
      const signed = async () => (await node.metrics.auditTreeSize.get()).values.some((v) => v.value > 0);
      for (let i = 0; i < 100 && (await published()) < 2; i++) {
        await node.decide(tx(`KILL-A-${i}`), actor);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await published()).toBeGreaterThanOrEqual(2);
      expect(await signed()).toBe(false);

      child.kill('SIGKILL');
      await exited;
      const before = await published();
      // The server frees a dead client's session locks when it sees the socket close; the node's next tick takes over.
      for (let i = 0; i < 100 && !(await signed()); i++) {
        await node.decide(tx(`KILL-B-${i}`), actor);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await signed()).toBe(true);
      expect(await published()).toBeGreaterThan(before);
    } finally {
      await cluster.close();
      dir.remove();
    }
  }, 120_000);
});
