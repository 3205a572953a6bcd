import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serve } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine.js';
import { createApp } from '../../src/http/app.js';
import { screeningCacheDir, silentLogger, tempDir } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { logKey, ORIGIN, startWitness, type RunningWitness } from './witness-fixtures.js';

/** The shell block under `<!-- walk-through: NAME -->` in docs/audit.md, as written there. */
function block(name: string): string {
  const doc = readFileSync('docs/audit.md', 'utf8');
  const found = new RegExp(`<!-- walk-through: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!found) throw new Error(`docs/audit.md has no walk-through block "${name}"`);
  return found[1]!;
}

describe("docs/audit.md's walk-through, run as written against a server and a witness", () => {
  let dir: ReturnType<typeof tempDir>;
  let witness: RunningWitness;
  let engine: Engine;
  let server: ReturnType<typeof serve>;
  const log = logKey();
  beforeEach(async () => {
    dir = tempDir('ce-walk-');
    witness = await startWitness(dir.path, log.vkey);
    engine = await createEngine({
      dataDir: join(dir.path, 'data'),
      logger: silentLogger,
      watchRules: false,
      workerIntervalMs: 0,
      screeningCacheDir,
      auditOrigin: ORIGIN,
      auditSigningKey: log.pem,
      auditWitnesses: witness.policy,
    });
    server = serve({ fetch: createApp(engine).fetch, port: 0, hostname: '127.0.0.1' });
    await once(server, 'listening');
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await engine.close();
    await witness.close();
    dir.remove();
  });

  it('verifies the kept checkpoint, then a later decision, its inclusion, consistency since the visit and the cosignatures', async () => {
    const key = await engine.auth.issue({ name: 'auditor' });
    for (let i = 0; i < 6; i++) await engine.decide(tx(`before-${i}`), { businessId: key.businessId });
    // The outsider's folder: the repository's files it runs, and the files the walk-through writes.
    const work = join(dir.path, 'work');
    mkdirSync(work);
    for (const entry of ['package.json', 'node_modules', 'bin', 'src', 'examples', 'rules'])
      symlinkSync(join(process.cwd(), entry), join(work, entry));
    const env = {
      ...process.env,
      ENGINE: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      API_KEY: key.apiKey,
      API_SECRET: key.apiSecret,
      WITNESS_VKEY: witness.vkey,
      DATA_DIR: join(dir.path, 'data'),
      AUDIT_SIGNING_KEY: log.pem,
      AUDIT_LOG_ORIGIN: ORIGIN,
      LOG_LEVEL: 'silent',
    };
    const run = (script: string, extra: Record<string, string> = {}) =>
      promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: work, env: { ...env, ...extra } }).then(
        (r) => r.stdout + r.stderr,
        (e: { stdout: string; stderr: string }) => {
          throw new Error(`the walk-through failed:\n${e.stdout}${e.stderr}`);
        },
      );

    const first = await run(block('first visit'));
    expect(first).toMatch(/^VERIFIED: checkpoint of compliance\.test\/audit-log at \d+ events, cosigned by witness\.test\/w1$/m);

    for (let i = 0; i < 4; i++) await engine.decide(tx(`after-${i}`), { businessId: key.businessId });
    const decided = await engine.decide(tx('the-one', { transactionData: { amount: 424242 } }), { businessId: key.businessId });
    for (let i = 0; i < 3; i++) await engine.decide(tx(`later-${i}`), { businessId: key.businessId });
    const later = await run(block('later visit'), { TX: decided.transactionId });
    expect(later).toContain(`"transactionId":"${decided.transactionId}"`);
    expect(later).toContain('"amount":424242');
    expect(later).toMatch(
      /^VERIFIED: event \S+ \(TransactionDecided\) at position \d+ is in compliance\.test\/audit-log of \d+ events, cosigned by witness\.test\/w1$/m,
    );
    expect(later).toMatch(
      /^VERIFIED: compliance\.test\/audit-log of \d+ events extends the kept checkpoint of \d+ events, cosigned by witness\.test\/w1$/m,
    );
    // What the walk-through kept for the next visit is the new checkpoint.
    const kept = JSON.parse(readFileSync(join(work, 'kept.json'), 'utf8')) as { data: { treeSize: number } };
    const proof = JSON.parse(readFileSync(join(work, 'proof.json'), 'utf8')) as { data: { treeHead: { treeSize: number } } };
    expect(kept.data.treeSize).toBe(proof.data.treeHead.treeSize);
  }, 300_000);
});
