import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedSchema, validateAgainst } from '../../src/reports/schema.js';
import { testEngine, type TestEngine } from '../helpers.js';
import { customer, reportedCase, settings } from './fixtures.js';

let t: TestEngine;
beforeAll(async () => {
  t = await testEngine();
});
afterAll(async () => t.close());

describe('an STR from a case closed as reported', () => {
  it('carries the customer, the counterparty and the reason, and validates against the shipped goAML schema', async () => {
    const { engine } = t;
    const actor = { businessId: 'acme', userId: 'analyst1' };
    await engine.reports.configure(actor, settings());
    await engine.cdd.customers.create({ businessId: 'acme' }, customer('cust1', '0123456789'));
    const caseId = await reportedCase(engine, 'acme', 'cust1', '0123456789', 'STR-1');
    const report = await engine.reports.draftStr(actor, { caseId });
    expect(report).toMatchObject({ kind: 'str', status: 'draft', caseId, version: 1, missing: [] });
    const xml = await engine.reports.xml('acme', report.id);
    expect(await validateAgainst(xml, shippedSchema())).toEqual([]);
    expect(xml).toContain('<t_from_my_client>');
    expect(xml).toContain('<t_to>');
    expect(xml).toContain('<first_name>Adebayo</first_name>');
    expect(xml).toContain('<amount_local>7250000</amount_local>');
    expect(xml).toMatch(/<reason>.*Rules fired: /);
  });
});
