// docs/rules.md "Changing a rule safely": each step's command, run in order on one data folder: check and test a
// candidate, backtest it, run it in shadow on the next decisions, read its report, publish it, read performance.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { rulesBacktest, rulesCheck, rulesPerformance, rulesShadow, rulesTest } from '../../src/cli/rules.js';
import { openEngine } from '../helpers.js';
import { runCommand } from '../support/cli.js';
import { tx } from './fixtures.js';

const NIGHT = `rule DORMANT_NIGHT "Dormant account moves money at night"
  tags dormant, time
  when transactionData.isDormantAccount = true
    and hourOfDay(transactionData.transactionDate) between 0 and 4
    and transactionData.amount >= 40_000
  score 45
  reason PAT012 high "A dormant account sends NGN 40,000 or more between midnight and 5 a.m."
end
`;
const NIGHT_TESTS = {
  cases: [
    {
      name: 'dormant, 02:30 Lagos time',
      request: { transactionData: { isDormantAccount: true, amount: 45000, transactionDate: '2024-06-12T01:30:00.000Z' } },
      fires: ['DORMANT_NIGHT'],
    },
    {
      name: 'the same at 10:30',
      request: { transactionData: { isDormantAccount: true, amount: 45000, transactionDate: '2024-06-12T09:30:00.000Z' } },
      notFires: ['DORMANT_NIGHT'],
    },
  ],
};

const dirs: string[] = [];
const env = { DATA_DIR: process.env.DATA_DIR, RULES_DIR: process.env.RULES_DIR };
afterAll(async () => {
  for (const [k, v] of Object.entries(env))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

it('walks a rule from test to backtest, shadow, publish and performance', async () => {
  const root = await mkdtemp(join(tmpdir(), 'change-rule-'));
  dirs.push(root);
  const [data, live, candidate] = ['data', 'live', 'candidate'].map((d) => join(root, d)) as [string, string, string];
  const bundled = join(import.meta.dirname, '..', '..', 'rules');
  await cp(bundled, live, { recursive: true });
  await cp(bundled, candidate, { recursive: true });
  await writeFile(join(candidate, 'night.rules'), NIGHT);
  await writeFile(join(candidate, 'night.test.json'), JSON.stringify(NIGHT_TESTS));
  Object.assign(process.env, { DATA_DIR: data, RULES_DIR: live });
  const businessId = 'walk';
  // Dormant accounts paying at 02:30 Lagos time: decided under the live rules, which the candidate would flag.
  const night = (i: number, day: string) =>
    tx(`WALK-${day}-${i}`, {
      transactionData: {
        isDormantAccount: true,
        amount: 45_000,
        transactionDate: `2026-03-${day}T01:30:00.000Z`,
        senderAccount: `10000000${i}0`,
      },
      anonymizedUserData: { uniqueId: `walker-${i}` },
      device: { deviceId: `walk-dev-${i}` },
    });

  expect(await runCommand(rulesCheck, [candidate])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^OK: \d+ rules in 9 files$/) });
  expect(await runCommand(rulesTest, [candidate])).toMatchObject({
    code: 0,
    stdout: expect.stringContaining('night.test.json › dormant, 02:30 Lagos time'),
  });

  let engine = await openEngine(data, { rulesDir: live });
  for (let i = 0; i < 3; i++) expect((await engine.monitoring.decide({ businessId }, night(i, '02'))).action.result).toBe('approved');
  await engine.close();

  const backtest = await runCommand(rulesBacktest, ['--candidate', candidate, '--business', businessId]);
  expect(backtest).toMatchObject({ code: 0, stdout: expect.stringContaining('3 decisions replayed, 3 changed') });

  expect(await runCommand(rulesShadow, ['start', '--candidate', candidate, '--business', businessId, '--hours', '48'])).toMatchObject({
    code: 0,
    stdout: expect.stringContaining(': running, until'),
  });
  // The server resumes the shadow and evaluates the decisions it makes from then on.
  engine = await openEngine(data, { rulesDir: live });
  for (let i = 0; i < 4; i++) await engine.monitoring.decide({ businessId }, night(i, '03'));
  await engine.shadows.settle(businessId);
  await engine.close();
  const report = await runCommand(rulesShadow, ['report', '--business', businessId]);
  expect(report.code).toBe(0);
  expect(report.stdout).toContain('4 decisions evaluated, 4 would change');
  expect(report.stdout).toContain('approved→review        4');
  expect(report.stdout).toMatch(/WALK-03-0 \(walker-0\) at .*: approved→review \[\] → \[DORMANT_NIGHT\]/);

  expect(await runCommand(rulesShadow, ['publish', '--business', businessId])).toMatchObject({
    code: 0,
    stdout: expect.stringContaining('stopped (published'),
  });
  expect(await readFile(join(live, 'night.rules'), 'utf8')).toBe(NIGHT);
  engine = await openEngine(data, { rulesDir: live });
  expect((await engine.monitoring.decide({ businessId }, night(9, '04'))).action.result).toBe('review');
  await engine.close();

  // Days are those the decisions were made on: the last 30 days, today's included.
  const performance = await runCommand(rulesPerformance, ['--business', businessId]);
  expect(performance.code).toBe(0);
  expect(performance.stdout).toMatch(/DORMANT_NIGHT +1 +1 +1 /);
}, 120_000);
