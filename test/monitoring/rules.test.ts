import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { EngineOptions } from '../../src/engine.js';
import { tempDir, testApi, testEngine } from '../helpers.js';
import { tx } from './fixtures.js';

// Each backtest starts a thread, which under tsx (the tests) loads the rules and the store from source: seconds.
it('backtests uploaded candidate rules over the stored decisions', { timeout: 120_000 }, async () => {
  const api = await testApi();
  try {
    for (let i = 0; i < 3; i++)
      await api.call('POST', '/api/v1/transaction-monitoring/instant', { body: tx(`BT-${i}`, { transactionData: { amount: 60_000 } }) });
    const candidate = `rule BIG "Anything from 50k"\n  when transactionData.amount >= 50_000\n  score 50\n  reason C001 medium "50k or more"\nend\n`;
    const res = await api.call('POST', '/api/v1/transaction-monitoring/rules/backtest', {
      body: { files: { 'candidate.rules': candidate, 'decide.rules': 'decide\n  review at 40\n  otherwise approved\nend\n' } },
    });
    expect(res.body.message).toBe('Backtest completed');
    expect(res.body.data).toMatchObject({
      decisions: 3,
      changed: 3,
      transitions: { 'approved→review': 3 },
      ruleHits: { BIG: { current: 0, candidate: 3 } },
    });
    const broken = await api.call('POST', '/api/v1/transaction-monitoring/rules/backtest', { body: { files: { 'x.rules': 'rule X' } } });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/^candidate rules do not compile/);
    const badName = await api.call('POST', '/api/v1/transaction-monitoring/rules/backtest', {
      body: { files: { '../x.rules': candidate } },
    });
    expect(badName).toMatchObject({ status: 400, body: { message: 'files.../x.rules must be named NAME.rules or lists/NAME.txt' } });
  } finally {
    await api.close();
  }
});

/** An engine over a copy of the bundled rules that `use` may edit, on a manual clock. */
async function withRulesCopy(
  use: (t: Awaited<ReturnType<typeof testEngine>>, dir: string, clock: ManualClock) => Promise<void>,
  logger?: EngineOptions['logger'],
): Promise<void> {
  const dir = tempDir('ce-rules-');
  cpSync('rules', dir.path, { recursive: true });
  const clock = new ManualClock('2026-04-01T09:00:00.000Z');
  const t = await testEngine({ clock, rulesDir: dir.path, watchRules: false, ...(logger ? { logger } : {}) });
  try {
    await use(t, dir.path, clock);
  } finally {
    await t.close();
    dir.remove();
  }
}

it('a reloaded ruleset with a new velocity feature starts with its window rebuilt from the log', async () => {
  await withRulesCopy(async (t, dir, clock) => {
    for (let i = 0; i < 4; i++) {
      clock.advance(60_000);
      await t.engine.decide(
        tx(`RL-${i}`, {
          transactionData: { receiverAccount: 'mule-1', senderAccount: `s-${i}` },
          anonymizedUserData: { uniqueId: `u-${i}` },
        }),
      );
    }
    const before = t.engine.monitoring.rulesetVersion;
    writeFileSync(
      join(dir, 'mule.rules'),
      `rule MULE_30M "Receiver collecting fast"\n  when count(by receiver over 30 minutes) >= 5\n  score 40\n  reason M001 high "5 or more payments in 30 minutes"\nend\n`,
    );
    expect(await t.engine.monitoring.reloadRules()).toBe(true);
    expect(t.engine.monitoring.rulesetVersion).not.toBe(before);
    clock.advance(60_000);
    const d = await t.engine.decide(
      tx('RL-5', { transactionData: { receiverAccount: 'mule-1', senderAccount: 's-9' }, anonymizedUserData: { uniqueId: 'u-9' } }),
    );
    expect(d.ruleResult?.map((r) => r.id)).toContain('MULE_30M');
    const stored = await t.engine.monitoring.getTransaction('default', d.transactionId);
    expect(stored.features.velocity['count(by receiver over 30 minutes)']).toBe('5');
    expect(stored.rulesetVersion).toBe(t.engine.monitoring.rulesetVersion);
  });
});

/** A logger that keeps its entries at info and above. */
function kept(): { logger: EngineOptions['logger']; entries: Record<string, unknown>[] } {
  const entries: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(line: Buffer, _encoding, done) {
      entries.push(JSON.parse(line.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), entries };
}

it('a reloaded ruleset that reads history the current one does not keep finds it rebuilt from the log, in a thread', async () => {
  const { logger, entries } = kept();
  await withRulesCopy(async (t, dir, clock) => {
    const first = await t.engine.decide({ ...tx('IP-0'), ipAddress: '41.58.9.9' });
    expect(first.action.result).toBe('approved');
    clock.advance(10 * 60_000);
    writeFileSync(
      join(dir, 'ip.rules'),
      `rule IP_BACK "The same IP within the hour"\n  when minutesSince(lastSeen(ip)) < 60\n  score 5\n  reason I001 low "IP seen within the hour"\nend\n`,
    );
    expect(await t.engine.monitoring.reloadRules()).toBe(true);
    const d = await t.engine.decide({ ...tx('IP-1', { anonymizedUserData: { uniqueId: 'someone-else' } }), ipAddress: '41.58.9.9' });
    expect(d.ruleResult?.map((r) => r.id)).toContain('IP_BACK');
    const stored = await t.engine.monitoring.getTransaction('default', d.transactionId);
    expect(stored.features.lastSeen).toMatchObject({ ip: '2026-04-01T09:00:00.000Z' });
  }, logger);
  expect(entries.find((e) => e.msg === 'ruleset reloaded')).toMatchObject({ rebuilt: 'thread' });
});

it('shows the ruleset in force and the last refused reload on /healthz and /metrics, until a reload succeeds', async () => {
  const dir = tempDir('ce-rules-');
  cpSync('rules', dir.path, { recursive: true });
  const api = await testApi({ rulesDir: dir.path, watchRules: false });
  try {
    const version = api.engine.monitoring.rulesetVersion;
    const healthy = (await api.call('GET', '/healthz', { key: null })).body;
    expect(healthy.rules).toEqual({ version, loadedAt: expect.any(String), lastReloadError: null });

    writeFileSync(
      join(dir.path, 'broken.rules'),
      'rule BROKEN "x"\n  when transactionData.amout > 1\n  score 1\n  reason B1 low "b"\nend\n',
    );
    expect(await api.engine.monitoring.reloadRules()).toBe(false);
    const refused = (await api.call('GET', '/healthz', { key: null })).body.rules;
    expect(refused).toMatchObject({
      version,
      lastReloadError: {
        at: expect.any(String),
        errors: [expect.stringMatching(/broken\.rules:2:8 unknown field transactionData\.amout/)],
      },
    });
    const metrics = (await api.call('GET', '/metrics', { key: null })).body as string;
    expect(metrics).toContain(`rules_ruleset_info{version="${version}"`);
    expect(metrics).toMatch(/rules_last_reload_error_info\{error=".*broken\.rules:2:8 unknown field transactionData\.amout/);

    writeFileSync(
      join(dir.path, 'broken.rules'),
      'rule FIXED "x"\n  when transactionData.amount > 1000000000\n  score 1\n  reason B1 low "b"\nend\n',
    );
    expect(await api.engine.monitoring.reloadRules()).toBe(true);
    const fixed = (await api.call('GET', '/healthz', { key: null })).body.rules;
    expect(fixed).toMatchObject({ version: api.engine.monitoring.rulesetVersion, lastReloadError: null });
    expect(fixed.version).not.toBe(version);
    expect((await api.call('GET', '/metrics', { key: null })).body).not.toContain('rules_last_reload_error_info{');
  } finally {
    await api.close();
    dir.remove();
  }
});
