import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UnauthorizedError } from '../../src/errors.js';
import { afterFailure, delayAfter, isLocked, LOCK_AFTER } from '../../src/users/lockout.js';
import { testEngine, type TestEngine } from '../helpers.js';

describe('sign-in throttle', () => {
  it('locks at the fifth failure in a row and unlocks after the lock has run out', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), (n) => {
        const now = new Date('2026-01-01T00:00:00Z');
        let state = { failures: 0, lockedUntil: null as string | null };
        for (let i = 0; i < n; i++) state = afterFailure(state, now);
        expect(isLocked(state, now)).toBe(n >= LOCK_AFTER);
        expect(isLocked(state, new Date(now.getTime() + 16 * 60_000))).toBe(false);
      }),
      { seed: 29, numRuns: 50 },
    );
    expect(delayAfter(1)).toBe(0);
    expect(delayAfter(3)).toBeGreaterThan(0);
    expect(delayAfter(100)).toBeLessThanOrEqual(2000);
  });
});

describe('people sign in', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await testEngine();
  });
  afterAll(async () => t?.close());

  it('signs in with a one-time password that must be changed, records failures, and ends sessions on sign-out', async () => {
    const { engine } = t;
    const user = await engine.users.create(
      { businessId: 'b1' },
      { firstName: 'Ina', lastName: 'Ivers', email: 'ina@b1.example', role: 'analyst' },
    );
    const once = await engine.signIn.issueOneTimePassword('b1', user._id, 'test');
    await expect(engine.signIn.signIn('ina@b1.example', 'not the password')).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(engine.signIn.signIn('nobody@b1.example', 'whatever')).rejects.toBeInstanceOf(UnauthorizedError);
    const { token, session } = await engine.signIn.signIn('INA@b1.example', once);
    expect(session).toMatchObject({ businessId: 'b1', role: 'analyst', mustChangePassword: true });
    await expect(engine.signIn.changePassword(session, once, 'short')).rejects.toThrow(/at least 12/);
    await engine.signIn.changePassword(session, once, 'a sound passphrase');
    expect((await engine.signIn.session(token))?.mustChangePassword).toBe(false);
    await engine.signIn.signOut(session);
    expect(await engine.signIn.session(token)).toBeUndefined();

    const types = (await engine.store.readStream(`user-b1-${user._id}`)).map((e) => e.type);
    expect(types).toEqual(['UserCreated', 'UserPasswordSet', 'UserSignInFailed', 'UserSignedIn', 'UserPasswordSet', 'UserSignedOut']);
    // The log holds the scrypt hash, never the password.
    const set = (await engine.store.readStream(`user-b1-${user._id}`))[1]!;
    expect(JSON.stringify(set.data)).not.toContain(once);
    expect((set.data as { hash: string }).hash).toMatch(/^scrypt\$131072\$8\$1\$/);
  });

  it('locks an account after repeated failures, even against the right password', async () => {
    const { engine } = t;
    const user = await engine.users.create(
      { businessId: 'b1' },
      { firstName: 'Lu', lastName: 'Lock', email: 'lu@b1.example', role: 'admin' },
    );
    await engine.signIn.setPassword('b1', user._id, 'the right passphrase', 'test');
    const guesses = Array.from({ length: LOCK_AFTER }, (_, i) => engine.signIn.signIn('lu@b1.example', `guess ${i}`).catch((e) => e));
    for (const result of await Promise.all(guesses)) expect(result).toBeInstanceOf(UnauthorizedError);
    await expect(engine.signIn.signIn('lu@b1.example', 'the right passphrase')).rejects.toBeInstanceOf(UnauthorizedError);
  }, 30_000);
});
