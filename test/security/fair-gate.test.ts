import { expect, it } from 'vitest';
import { FairGate } from '../../src/http/fair-gate.js';

it('lets waiting tenants in by turns once full, so one tenant waits for one slot, not behind another tenant burst', async () => {
  const gate = new FairGate(2);
  const order: string[] = [];
  const releases: (() => void)[] = [];
  const job = (tenant: string, n: number) =>
    gate.run(tenant, async () => {
      order.push(`${tenant}${n}`);
      await new Promise<void>((resolve) => releases.push(resolve));
    });
  const done = [...Array.from({ length: 6 }, (_, i) => job('A', i)), job('B', 0), job('B', 1), job('C', 0)];
  await new Promise((r) => setImmediate(r));
  expect(order).toEqual(['A0', 'A1']);
  expect(gate.active).toBe(2);
  while (order.length < 9) {
    releases.shift()!();
    await new Promise((r) => setImmediate(r));
  }
  for (const release of releases) release();
  await Promise.all(done);
  // First come first served would run A0..A5 before B0; by turns, B and C come in after one of A's.
  expect(order).toEqual(['A0', 'A1', 'A2', 'B0', 'C0', 'A3', 'B1', 'A4', 'A5']);
  expect(gate.active).toBe(0);
});

it('runs work at once while there is room, and frees the slot of work that throws', async () => {
  const gate = new FairGate(1);
  await expect(gate.run('A', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  expect(gate.active).toBe(0);
  expect(await gate.run('B', async () => 'ran')).toBe('ran');
});
