// Publishing a shadow ruleset through the API is a four-eyes request: nothing changes until a person other than its
// maker approves it, and an approval for a shadow that no longer runs publishes nothing.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';

const rules = (threshold: string) =>
  `rule BIG "Big"\n  when transactionData.amount >= ${threshold}\n  score 50\n  reason P1 high "big"\nend\ndecide\n  review at 40\n  otherwise approved\nend\n`;

let api: TestApi;
let rulesDir: string;
const admin = (id: string) => ({ kind: 'user' as const, id, name: id });

beforeAll(async () => {
  rulesDir = await mkdtemp(join(tmpdir(), 'shadow-publish-'));
  await cp(join(import.meta.dirname, '..', '..', 'rules'), rulesDir, {
    recursive: true,
    filter: (p) => !/\.(rules|test\.json)$/.test(p) || p.includes('customer-risk'),
  });
  await writeFile(join(rulesDir, 'big.rules'), rules('1_000_000'));
  api = await testApi({ rulesDir, watchRules: false, workerIntervalMs: 0 });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await rm(rulesDir, { recursive: true, force: true });
});

const deploy = (threshold: string) =>
  api.call('POST', '/api/v1/transaction-monitoring/rules/shadow', { body: { files: { 'big.rules': rules(threshold) } } });

it('asks for a second person, who publishes exactly the shadow asked about', async () => {
  const businessId = api.tenantA.businessId;
  const before = api.engine.monitoring.rulesInForce().version;
  expect((await api.call('POST', '/api/v1/transaction-monitoring/rules/shadow/publish', { body: {} })).status).toBe(404);

  expect((await deploy('500_000')).status).toBe(201);
  const asked = await api.call('POST', '/api/v1/transaction-monitoring/rules/shadow/publish', { body: { reason: 'fewer misses' } });
  expect(asked.status).toBe(202);
  expect(asked.body.data).toMatchObject({ action: 'ruleset.publish', status: 'pending', reason: 'fewer misses' });
  expect(asked.body.data.maker).toBe('API key tenant-a');
  expect(api.engine.monitoring.rulesInForce().version).toBe(before);
  expect((await api.call('POST', '/api/v1/transaction-monitoring/rules/shadow/publish', { body: { what: 1 } })).status).toBe(400);

  // The shadow asked about is replaced by another before anyone approves: the approval publishes nothing.
  expect((await api.call('DELETE', '/api/v1/transaction-monitoring/rules/shadow')).status).toBe(200);
  const second = await deploy('200_000');
  await expect(api.engine.approvals.decide(businessId, admin('abe'), asked.body.data.requestId, true, '')).rejects.toThrow(
    /no longer runs/,
  );
  expect((await api.engine.approvals.get(businessId, asked.body.data.requestId)).status).toBe('failed');
  expect(api.engine.monitoring.rulesInForce().version).toBe(before);

  // Asked again by a person, for the running shadow: the maker cannot approve it; another person publishes it.
  const row = await api.engine.approvals.request(businessId, admin('ada'), {
    action: 'ruleset.publish',
    subject: { kind: 'ruleset', id: second.body.data.shadow.shadowId },
    summary: 'Publish',
    payload: { shadowId: second.body.data.shadow.shadowId },
    reason: '',
  });
  await expect(api.engine.approvals.decide(businessId, admin('ada'), row.request_id, true, '')).rejects.toThrow(/cannot approve/);
  await api.engine.approvals.decide(businessId, admin('abe'), row.request_id, true, '');
  expect(api.engine.monitoring.rulesInForce().version).toBe(second.body.data.shadow.candidateVersion);
  const report = await api.call('GET', '/api/v1/transaction-monitoring/rules/shadow');
  expect(report.body.data.shadow).toMatchObject({ status: 'stopped', stopReason: 'published' });
});
