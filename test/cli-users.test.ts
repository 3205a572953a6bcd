import { describe, expect, it } from 'vitest';
import { keysCreate } from '../src/cli/keys.js';
import { usersCreate } from '../src/cli/users.js';
import { cliDataDir, runCommand } from './support/cli.js';

describe('the first admin from the CLI', () => {
  cliDataDir();

  it('lands in the business of the API key the install has, so the console shows the data sent with it', async () => {
    const key = await runCommand(keysCreate, ['--name', 'bootstrap']);
    const { businessId } = JSON.parse(key.stdout) as { businessId: string };
    expect(businessId).not.toBe('default');
    const admin = await runCommand(usersCreate, ['--email', 'ada@example.com', '--role', 'admin']);
    expect(admin.code).toBe(0);
    expect(JSON.parse(admin.stdout)).toMatchObject({ businessId, role: 'admin' });

    // With keys of two businesses the command cannot tell which one is meant, and says how to choose.
    await runCommand(keysCreate, ['--name', 'second', '--business', 'other']);
    const unsure = await runCommand(usersCreate, ['--email', 'bob@example.com', '--role', 'admin']);
    expect(unsure.code).toBe(2);
    expect(unsure.stderr).toContain('choose one with --business');
    expect(unsure.stderr).toContain(businessId);
    const chosen = await runCommand(usersCreate, ['--email', 'bob@example.com', '--role', 'admin', '--business', 'other']);
    expect(JSON.parse(chosen.stdout)).toMatchObject({ businessId: 'other' });
  });
});
