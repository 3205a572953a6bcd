// API keys managed by a person (the console): the events name the person, and another business's key is not theirs.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEngine, type TestEngine } from '../helpers.js';

let t: TestEngine;
// An engine start indexes the bundled lists: on a loaded machine that outlasts the default hook budget.
beforeAll(async () => {
  t = await testEngine({ workerIntervalMs: 0, watchRules: false });
}, 180_000);
afterAll(async () => t.close());

it('issues and revokes a key as a person of its business, lists the business’s keys, and never revokes another’s', async () => {
  const { auth, store } = t.engine;
  const ada = { businessId: 'acme', userId: 'user-ada' };
  const mine = await auth.issue({ name: 'switch', businessId: 'acme' }, ada);
  const theirs = await auth.issue({ name: 'other', businessId: 'tenantb' });
  expect((await auth.listOf('acme')).map((k) => [k.name, k.revoked])).toEqual([['switch', false]]);
  await expect(auth.revoke(theirs.apiKey, ada)).rejects.toThrow(/not found/);
  expect(await auth.verify(theirs.apiKey, theirs.apiSecret)).toMatchObject({ businessId: 'tenantb' });
  await auth.revoke(mine.apiKey, ada);
  expect(await auth.verify(mine.apiKey, mine.apiSecret)).toBeUndefined();
  const events = await store.readStream(`apikey-${mine.apiKey}`);
  expect(events.map((e) => [e.type, e.metadata.actor, e.metadata.businessId])).toEqual([
    ['ApiKeyIssued', 'user-ada', 'acme'],
    ['ApiKeyRevoked', 'user-ada', 'acme'],
  ]);
});
