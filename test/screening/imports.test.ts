import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testEngine, type TestEngine } from '../helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

let dir: ReturnType<typeof tempDir>;
const cli = (...args: string[]) => runCli(dir.path, ...args);

const SANCTIONS = 'id,name,aliases,birth_date,countries,program\nX1,Zebulon Quartermaine,Zeb Quartermaine,1970-05-01,NG,TEST-PROGRAM\n';
const PEPS = 'id,name,positions,countries\nP1,Adaeze Okonkwo-Ibe,Governor of Testland,NG\n';

let server: TestEngine;
let receiver: Receiver;

beforeAll(async () => {
  dir = tempDir();
  writeFileSync(join(dir.path, 'sanctions.csv'), SANCTIONS);
  writeFileSync(join(dir.path, 'peps.csv'), PEPS);
  // The "server": opened before the CLI imports, it must pick them up from the log.
  server = await testEngine({ dataDir: dir.path, workerIntervalMs: 0 });
  receiver = await startReceiver();
}, 60_000);

afterAll(async () => {
  await server.engine.close();
  await receiver.close();
  dir.remove();
});

describe('screening import', () => {
  it('imports a list as an event, and is a no-op for an unchanged file', async () => {
    expect((await server.engine.screening.screen({ name: 'Zebulon Quartermaine' })).sanction).toEqual([]);
    const first = await cli('screening', 'import', '--format', 'csv', join(dir.path, 'sanctions.csv'), '--list', 'test-sanctions');
    expect(first.code).toBe(0);
    const outcome = JSON.parse(first.stdout);
    expect(outcome).toMatchObject({ changed: true, list: 'test-sanctions', type: 'sanction', records: 1 });

    const again = await cli('screening', 'import', '--format', 'csv', join(dir.path, 'sanctions.csv'), '--list', 'test-sanctions');
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('unchanged');
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, version: outcome.version });
    await server.engine.store.catchUp();
    expect(await server.engine.store.readStream('screening-list-test-sanctions')).toHaveLength(1);

    const { sanction } = await server.engine.screening.screen({ name: 'Zebulon Quartermaine' });
    expect(sanction[0]).toMatchObject({ name: 'Zebulon Quartermaine', listName: 'test-sanctions', listVersion: outcome.version });
  }, 120_000);

  it('imports a PEP list with --list pep', async () => {
    const res = await cli('screening', 'import', '--format', 'csv', join(dir.path, 'peps.csv'), '--list', 'pep');
    expect(JSON.parse(res.stdout)).toMatchObject({ changed: true, type: 'pep' });
    await server.engine.store.catchUp();
    expect((await server.engine.screening.screen({ name: 'Adaeze Okonkwo-Ibe' })).pep[0]).toMatchObject({ type: 'pep', listName: 'pep' });
  }, 60_000);

  it('records the bundled lists as versions, and refuses a bad format', async () => {
    const names = (await server.engine.screening.lists()).map((l) => `${l.list}:${l.format}`);
    expect(names).toEqual(
      expect.arrayContaining(['ofac-sdn:embedded', 'un-sc-consolidated:embedded', 'pep-nigeria-nass:embedded', 'test-sanctions:csv']),
    );
    expect((await cli('screening', 'import', '--format', 'xlsx', 'x')).code).toBe(2);
  });

  it('keeps imported lists and pending checks across a restart, and runs each check once', async () => {
    const actor = { businessId: 'biz_restart' };
    await server.engine.auth.issue({ name: 'restart', businessId: actor.businessId });
    const check = await server.engine.screening.submit(actor, {
      kind: 'sanction',
      text: 'Zebulon Quartermaine',
      callbackUrl: receiver.url,
    });
    await server.engine.close();
    server = await testEngine({ dataDir: dir.path, workerIntervalMs: 0 });
    expect(await server.engine.screening.runPending()).toBe(1);
    expect(await server.engine.screening.runPending()).toBe(0);
    expect(await server.engine.webhooks.runDue()).toBe(1);
    const done = await server.engine.screening.check(actor.businessId, check.id);
    expect(done.status).toBe('completed');
    expect(done.listVersions.map((l) => l.name)).toContain('test-sanctions');
    expect(JSON.parse(receiver.received[0]!.body).results[0].listName).toBe('test-sanctions');
  }, 60_000);

  it('replay --verify is OK after imports, checks and deliveries', async () => {
    const verify = await cli('replay', '--verify');
    expect(verify.stdout).toContain('OK');
    expect(verify.code).toBe(0);
  }, 60_000);
});
