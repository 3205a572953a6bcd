import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { describePostgres } from '../postgres.js';
import { caughtUp, testCluster, type TestCluster } from './cluster.js';

const actor = { businessId: 'biz_files' };
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams) as { expires?: string; max?: string; sig?: string };
const keyOf = (url: string) => new URL(url).pathname.split('/').pop()!;

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Issued on one node, sent to another (the load balancer's pick), read back through a third party's URL on the first. */
async function uploadAcross(from: Engine, to: Engine, body: Buffer): Promise<string> {
  const { key, url } = await from.uploads.authorize(actor, { fileType: 'csv', access: 'private' });
  await caughtUp(to, await from.store.head());
  expect(await to.uploads.receive(key, queryOf(url), [body], body.length)).toMatchObject({ key, size: body.length, sha256: sha(body) });
  return key;
}

describePostgres('uploads with two nodes', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    // Nodes share the URL signing secret as the docs ask; the bytes they share through the database.
    cluster = await testCluster(2, { uploadSigningSecret: 'a-secret-every-node-of-this-cluster-shares' });
  }, 120_000);
  afterAll(async () => cluster.close());

  it('serves through one node a file received by the other, small and spread over several chunks', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    for (const body of [Buffer.from('a,b\n1,2\n'), randomBytes(3 * 1024 * 1024 + 17), Buffer.alloc(0)]) {
      const key = await uploadAcross(a, b, body);
      await caughtUp(a, await b.store.head());
      const { url } = await a.uploads.describe(actor.businessId, key);
      const opened = await a.uploads.open(keyOf(url), queryOf(url));
      expect(opened.size).toBe(body.length);
      expect(sha(await bytesOf(opened.stream))).toBe(sha(body));
    }
  });

  it('keeps the size limit: a body over it leaves no bytes and the URL still usable', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    const { key, url } = await a.uploads.authorize(actor, { fileType: 'csv', access: 'private', maxBytes: 10 });
    await caughtUp(b, await a.store.head());
    await expect(b.uploads.receive(key, queryOf(url), [Buffer.alloc(11)])).rejects.toThrow(/larger than its limit of 10 bytes/);
    expect(await b.uploads.receive(key, queryOf(url), [Buffer.from('0123456789')])).toMatchObject({ size: 10 });
  });

  it('takes one of two PUTs of one key made on two nodes at once, and serves its bytes', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    const { key, url } = await a.uploads.authorize(actor, { fileType: 'csv', access: 'private' });
    await caughtUp(b, await a.store.head());
    const bodies = [Buffer.from('from node a'), Buffer.from('from node b')];
    const results = await Promise.allSettled([
      a.uploads.receive(key, queryOf(url), [bodies[0]!]),
      b.uploads.receive(key, queryOf(url), [bodies[1]!]),
    ]);
    const taken = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(taken).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ message: expect.stringMatching(/already received/) });
    await caughtUp(a, await b.store.head());
    const { url: download } = await a.uploads.describe(actor.businessId, key);
    expect(await bytesOf((await b.uploads.open(key, queryOf(download))).stream)).toEqual(bodies[taken[0]!]);
  });
});
