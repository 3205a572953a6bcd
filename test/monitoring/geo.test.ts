// IP geolocation is the embedder's (the engine ships no geolocation data): with a provider the geography rules
// see the address's country, and the decision keeps what they saw.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEngine, type TestEngine } from '../helpers.js';
import { tx } from './fixtures.js';

const COUNTRIES: Record<string, string> = { '102.89.1.10': 'NG', '81.2.69.160': 'GB' };

let t: TestEngine;
beforeAll(async () => {
  t = await testEngine({ ipCountry: (ip) => COUNTRIES[ip] });
});
afterAll(() => t.close());

const fired = (decision: { ruleResult: { id: string }[] | null }) => decision.ruleResult?.map((r) => r.id) ?? [];

it('fires the IP country rule when the address is in another country than the location', async () => {
  const abroad = await t.engine.decide({ ...tx('geo-1'), ipAddress: '81.2.69.160' });
  expect(fired(abroad)).toContain('IP_COUNTRY_MISMATCH');
  const { features } = await t.engine.monitoring.getTransaction('default', abroad.transactionId);
  expect(features.ipCountries).toEqual({ '81.2.69.160': 'GB' });

  const home = await t.engine.decide(tx('geo-2'));
  expect(fired(home)).not.toContain('IP_COUNTRY_MISMATCH');
});

it('leaves the rule silent for an address the provider does not know', async () => {
  const unknown = await t.engine.decide({ ...tx('geo-3'), ipAddress: '10.0.0.1' });
  expect(fired(unknown)).not.toContain('IP_COUNTRY_MISMATCH');
  const { features } = await t.engine.monitoring.getTransaction('default', unknown.transactionId);
  expect(features.ipCountries).toEqual({ '10.0.0.1': null });
});
