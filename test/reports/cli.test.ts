import { expect, it } from 'vitest';
import { commands } from '../../src/cli/commands.js';
import { createEngine } from '../../src/engine.js';
import { screeningCacheDir, silentLogger } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { cliDataDir, runCommand } from '../support/cli.js';
import { settings } from './fixtures.js';

const dir = cliDataDir();
const reports = async (...argv: string[]) => runCommand(await commands['reports threshold']!.load(), argv);

it('reports threshold --date drafts the day’s threshold report and prints it as JSON', async () => {
  const engine = await createEngine({ dataDir: dir.path, screeningCacheDir, logger: silentLogger, tailIntervalMs: 0, workerIntervalMs: 0 });
  await engine.reports.configure({ businessId: 'clibiz' }, settings('nfiu'));
  const big = await engine.monitoring.decide(
    { businessId: 'clibiz' },
    tx('CLI-1', { transactionData: { amount: 6_000_000, transactionDate: '2026-03-02T09:00:00.000Z' } }),
  );
  await engine.monitoring.decide(
    { businessId: 'clibiz' },
    tx('CLI-2', { transactionData: { amount: 4_000_000, transactionDate: '2026-03-02T10:00:00.000Z' } }),
  );
  await engine.close();

  expect(await reports('--business', 'clibiz')).toMatchObject({ code: 2, stderr: expect.stringContaining('--date YYYY-MM-DD') });
  const drafted = await reports('--date', '2026-03-02', '--business', 'clibiz');
  expect(drafted.code).toBe(0);
  expect(JSON.parse(drafted.stdout)).toMatchObject({
    kind: 'threshold',
    status: 'draft',
    date: '2026-03-02',
    fiu: 'nfiu',
    transactionIds: [big.transactionId],
  });
  const again = await reports('--date', '2026-03-02', '--business', 'clibiz');
  expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('already reports this day') });
  const quiet = await reports('--date', '2026-03-05', '--business', 'clibiz');
  expect(quiet).toMatchObject({ code: 1, stderr: expect.stringContaining('nothing to report') });
}, 240_000);
