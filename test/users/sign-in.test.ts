import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UnauthorizedError } from '../../src/errors.js';
import { ACCOUNT_THROTTLE, ADDRESS_THROTTLE, afterFailure, isThrottled, waitAfter } from '../../src/users/throttle.js';
import { ManualClock } from '../../src/clock.js';
import { SignInService } from '../../src/users/index.js';
import { testEngine, type TestEngine } from '../helpers.js';

describe('sign-in throttle', () => {
  it('waits from the fourth failure in a row, twice as long each time up to its cap, and never locks for good', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), (n) => {
        const now = new Date('2026-01-01T00:00:00Z');
        let state = { failures: 0, lockedUntil: null as string | null };
        for (let i = 0; i < n; i++) state = afterFailure(state, now, ACCOUNT_THROTTLE);
        expect(isThrottled(state, now)).toBe(n > ACCOUNT_THROTTLE.free);
        expect(isThrottled(state, new Date(now.getTime() + ACCOUNT_THROTTLE.maxWaitMs))).toBe(false);
      }),
      { seed: 29, numRuns: 50 },
    );
    expect(waitAfter(3, ACCOUNT_THROTTLE)).toBe(0);
    expect([4, 5, 6].map((n) => waitAfter(n, ACCOUNT_THROTTLE))).toEqual([1000, 2000, 4000]);
    expect(waitAfter(1000, ACCOUNT_THROTTLE)).toBe(15 * 60 * 1000);
  });
});

// One engine for the file, on a clock that only the second block's tests move; the first block's person is of a
// business of its own.
let t: TestEngine;
const clock = new ManualClock('2026-03-01T08:00:00Z');
beforeAll(async () => {
  t = await testEngine({ clock, consoleIdleMs: 20 * 60_000 });
});
afterAll(async () => t?.close());

describe('people sign in', () => {
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
    // The log holds the scrypt hash at the engine's cost (the run's cheap one; production's in the timing test
    // below), never the password.
    const set = (await engine.store.readStream(`user-b1-${user._id}`))[1]!;
    expect(JSON.stringify(set.data)).not.toContain(once);
    expect((set.data as { hash: string }).hash).toMatch(new RegExp(`^scrypt\\$${engine.options.passwordScryptN ?? 2 ** 17}\\$8\\$1\\$`));
  });
});

describe('sign-in with a clock', () => {
  beforeAll(async () => {
    const user = await t.engine.users.create(
      { businessId: 'c1' },
      { firstName: 'Ida', lastName: 'Idle', email: 'ida@c1.example', role: 'analyst' },
    );
    await t.engine.signIn.setPassword('c1', user._id, 'the right passphrase', 'test');
  });

  it('makes a stranger wait after repeated failures, even with the right password, but not the known browser of the account', async () => {
    const { engine } = t;
    const user = await engine.users.create(
      { businessId: 'c1' },
      { firstName: 'Lu', lastName: 'Lock', email: 'lu@c1.example', role: 'admin' },
    );
    await engine.signIn.setPassword('c1', user._id, 'the right passphrase', 'test');
    const { device } = await engine.signIn.signIn('lu@c1.example', 'the right passphrase', { address: '10.0.0.1' });
    const guesses = Array.from({ length: ACCOUNT_THROTTLE.free + 1 }, (_, i) =>
      engine.signIn.signIn('lu@c1.example', `guess ${i}`, { address: '203.0.113.9' }).catch((e) => e),
    );
    for (const result of await Promise.all(guesses)) expect(result).toBeInstanceOf(UnauthorizedError);
    await expect(engine.signIn.signIn('lu@c1.example', 'the right passphrase', { address: '198.51.100.7' })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect([...(await engine.signIn.throttled('c1')).keys()]).toEqual([user._id]);
    // The owner's own browser still gets in, and keeps its device token.
    const again = await engine.signIn.signIn('lu@c1.example', 'the right passphrase', { address: '10.0.0.1', device });
    expect(again.device).toBe(device);
  }, 30_000);

  it('lets an admin unlock a waiting account', async () => {
    const { engine } = t;
    const user = await engine.users.create(
      { businessId: 'c1' },
      { firstName: 'Ul', lastName: 'Ock', email: 'ul@c1.example', role: 'analyst' },
    );
    await engine.signIn.setPassword('c1', user._id, 'the right passphrase', 'test');
    for (let i = 0; i <= ACCOUNT_THROTTLE.free; i++) await engine.signIn.signIn('ul@c1.example', `guess ${i}`).catch(() => undefined);
    await expect(engine.signIn.signIn('ul@c1.example', 'the right passphrase')).rejects.toBeInstanceOf(UnauthorizedError);
    await engine.signIn.unlock('c1', user._id, 'admin-1');
    await expect(engine.signIn.signIn('ul@c1.example', 'the right passphrase')).resolves.toBeTruthy();
  }, 30_000);

  it('checks an attempt again once its wait has passed', async () => {
    const { signIn } = t.engine;
    for (let i = 0; i <= ACCOUNT_THROTTLE.free; i++) await signIn.signIn('ida@c1.example', `guess ${i}`).catch(() => undefined);
    await expect(signIn.signIn('ida@c1.example', 'the right passphrase')).rejects.toBeInstanceOf(UnauthorizedError);
    clock.advance(waitAfter(ACCOUNT_THROTTLE.free + 1, ACCOUNT_THROTTLE));
    await expect(signIn.signIn('ida@c1.example', 'the right passphrase')).resolves.toBeTruthy();
  }, 30_000);

  it('ends a session idle longer than the idle timeout, and any session eight hours after sign-in', async () => {
    const { signIn } = t.engine;
    const idle = await signIn.signIn('ida@c1.example', 'the right passphrase');
    clock.advance(19 * 60_000);
    expect(await signIn.session(idle.token)).toBeTruthy();
    clock.advance(19 * 60_000);
    // 38 minutes after sign-in, 19 after the last request: alive.
    expect(await signIn.session(idle.token)).toBeTruthy();
    clock.advance(21 * 60_000);
    expect(await signIn.session(idle.token)).toBeUndefined();

    const busy = await signIn.signIn('ida@c1.example', 'the right passphrase');
    for (let minutes = 0; minutes < 8 * 60 - 10; minutes += 10) {
      clock.advance(10 * 60_000);
      expect(await signIn.session(busy.token)).toBeTruthy();
    }
    clock.advance(10 * 60_000);
    expect(await signIn.session(busy.token)).toBeUndefined();
  }, 60_000);

  it('throttles an address failing across many emails, but not a browser that signed in before', async () => {
    const { signIn } = t.engine;
    const { device } = await signIn.signIn('ida@c1.example', 'the right passphrase', { address: '192.0.2.1' });
    for (let i = 0; i <= ADDRESS_THROTTLE.free; i++)
      await signIn.signIn(`nobody-${i}@c1.example`, 'whatever it is', { address: '192.0.2.1' }).catch(() => undefined);
    await expect(signIn.signIn('ida@c1.example', 'the right passphrase', { address: '192.0.2.1' })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await expect(signIn.signIn('ida@c1.example', 'the right passphrase', { address: '192.0.2.1', device })).resolves.toBeTruthy();
    await expect(signIn.signIn('ida@c1.example', 'the right passphrase', { address: '192.0.2.2' })).resolves.toBeTruthy();
  }, 120_000);

  it('answers an unknown email, a wrong password and a waiting account after the same scrypt work', async () => {
    // At production strength (the service's default cost), not the run's cheap one: a skipped hash must show.
    const { engine } = t;
    const signIn = new SignInService(engine.db, engine.store, clock, (businessId, userId) => engine.users.find(businessId, userId));
    const user = await engine.users.create(
      { businessId: 'c1' },
      { firstName: 'Tim', lastName: 'Ing', email: 'tim@c1.example', role: 'analyst' },
    );
    await signIn.setPassword('c1', user._id, 'the right passphrase', 'test');
    const stored = await engine.db
      .selectFrom('user_credentials')
      .select('password_hash')
      .where('user_id', '=', user._id)
      .executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    const time = async (email: string) => {
      const start = performance.now();
      await signIn.signIn(email, 'not the password').catch(() => undefined);
      return performance.now() - start;
    };
    const median = async (email: string) => {
      const runs = [await time(email), await time(email), await time(email)];
      return runs.sort((a, b) => a - b)[1]!;
    };
    const unknown = await median('nobody-at-all@c1.example');
    // The first three fail freely; the fourth starts a wait, during which every attempt is refused unchecked.
    const wrong = await median('tim@c1.example');
    await time('tim@c1.example');
    const waiting = await median('tim@c1.example');
    expect((await signIn.throttled('c1')).has(user._id)).toBe(true);
    // Each costs one scrypt (about 0.1 s); a refusal without one took 4 ms against a second. A ratio, not a target.
    for (const [a, b] of [
      [unknown, wrong],
      [unknown, waiting],
      [wrong, waiting],
    ] as const)
      expect(Math.max(a, b) / Math.min(a, b)).toBeLessThan(3);
  }, 60_000);
});
