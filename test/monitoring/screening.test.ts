import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEngine, type TestEngine } from '../helpers.js';

let t: TestEngine;
beforeAll(async () => {
  t = await testEngine();
});
afterAll(() => t.close());

const transfer = (reference: string, receiverName: string) => ({
  transactionData: { reference, amount: 15_000, currency: 'NGN', senderAccount: '0011223344', receiverAccount: '5566778899' },
  screeningData: { senderName: 'Chinedu Okafor', receiverName },
});

it('screens the receiver against the embedded sanctions lists in-process', async () => {
  const listed = await t.engine.decide(transfer('scr-1', 'Ayman al-Zawahiri'));
  const fired = listed.ruleResult?.map((r) => r.id) ?? [];
  expect(fired).toContain('SANCTIONS_RECEIVER');
  expect(listed.action.result).toBe('review');
  expect(listed.reason.code).toBe('SCR001');

  const clean = await t.engine.decide(transfer('scr-2', 'Chinwe Adebayo'));
  expect(clean.ruleResult?.map((r) => r.id) ?? []).not.toContain('SANCTIONS_RECEIVER');
});
