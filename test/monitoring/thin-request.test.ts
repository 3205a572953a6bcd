import { expect, it } from 'vitest';
import { testApi } from '../helpers.js';
import { tx } from './fixtures.js';

it('a body with only a reference and an amount goes to review, its decision listing the fields the rules could not read', async () => {
  const api = await testApi();
  try {
    const thin = await api.call('POST', '/api/v1/transaction-monitoring/instant?missingFeatures=true', {
      body: { transactionData: { reference: 'THIN-1', amount: 5000 } },
    });
    expect(thin.status).toBe(200);
    expect(thin.body.data).toMatchObject({ action: { result: 'review', code: 2 }, reason: { code: 'DQ001' } });
    const missing = thin.body.data.missingFeatures as string[];
    expect(missing).toEqual(expect.arrayContaining(['anonymizedUserData.uniqueId', 'transactionData.senderAccount', 'device.deviceId']));
    expect(missing).not.toContain('transactionData.amount');
    expect([...missing].sort()).toEqual(missing);
    // The stored decision keeps the list, so the explanation survives.
    const stored = await api.call('GET', `/api/v1/transaction-monitoring/transactions/${thin.body.data.transactionId}`);
    expect(stored.body.data.missingFeatures).toEqual(missing);

    // A full request is approved as before, and names only the optional fields it lacks.
    const full = await api.call('POST', '/api/v1/transaction-monitoring/instant', { body: tx('FULL-1') });
    expect(full.body.data.action.result).toBe('approved');
    expect(full.body.data.missingFeatures).toBeUndefined();
    const asked = await api.call('POST', '/api/v1/transaction-monitoring/instant?missingFeatures=true', { body: tx('FULL-1') });
    expect(asked.body.data.missingFeatures ?? []).not.toContain('anonymizedUserData.uniqueId');

    // Unasked, the answer holds the interface's fields alone; the stored decision keeps the list all the same.
    const again = await api.call('POST', '/api/v1/transaction-monitoring/instant', {
      body: { transactionData: { reference: 'THIN-1', amount: 5000 } },
    });
    expect(Object.keys(again.body.data).sort()).toEqual(['action', 'reason', 'riskScore', 'ruleResult', 'transactionId']);
    const bad = await api.call('POST', '/api/v1/transaction-monitoring/instant?missingFeatures=yes', { body: tx('FULL-2') });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('missingFeatures');
    const library = await api.engine.decide({ transactionData: { reference: 'THIN-2', amount: 5000 } });
    expect(library.missingFeatures).toBeUndefined();
    expect(
      (await api.engine.decide({ transactionData: { reference: 'THIN-3', amount: 5000 } }, { missingFeatures: true })).missingFeatures,
    ).toEqual(missing);
  } finally {
    await api.close();
  }
});
