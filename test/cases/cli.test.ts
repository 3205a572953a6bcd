import { expect, it } from 'vitest';
import { keysBind } from '../../src/cli/keys-bind.js';
import { createEngine } from '../../src/engine.js';
import { screeningCacheDir, silentLogger } from '../helpers.js';
import { cliDataDir, runCommand } from '../support/cli.js';

const dir = cliDataDir();
const open = () => createEngine({ dataDir: dir.path, screeningCacheDir, logger: silentLogger, tailIntervalMs: 0, workerIntervalMs: 0 });
const bind = (...argv: string[]) => runCommand(keysBind, argv);

it('keys bind makes a user the actor of an API key, refusing unknown keys and users of other businesses', async () => {
  const engine = await open();
  const keys = await engine.auth.issue({ name: 'desk', businessId: 'biz_cli' });
  const user = await engine.users.create(
    { businessId: 'biz_cli' },
    { firstName: 'Ife', lastName: 'Ola', email: 'ife@x.example', role: 'investigator' },
  );
  const stranger = await engine.users.create(
    { businessId: 'other' },
    { firstName: 'X', lastName: 'Y', email: 'x@x.example', role: 'investigator' },
  );
  await engine.close();

  expect(await bind('--key', keys.apiKey)).toMatchObject({ code: 2, stderr: expect.stringContaining('--user USER_ID are required') });
  expect(await bind('--key', 'ck_nope', '--user', user._id)).toMatchObject({ code: 2, stderr: expect.stringContaining('not found') });
  expect(await bind('--key', keys.apiKey, '--user', stranger._id)).toMatchObject({
    code: 2,
    stderr: expect.stringContaining('is not a user of business biz_cli'),
  });
  const bound = await bind('--key', keys.apiKey, '--user', user._id);
  expect(bound.code).toBe(0);
  expect(JSON.parse(bound.stdout)).toEqual({ apiKey: keys.apiKey, userId: user._id });

  const again = await open();
  try {
    expect(await again.auth.verify(keys.apiKey, keys.apiSecret)).toMatchObject({ businessId: 'biz_cli', userId: user._id });
  } finally {
    await again.close();
  }
});
