import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { caseSettingsStream } from '../../src/cases/events.js';
import { verifyReplay } from '../../src/projections/index.js';
import { individual, sanctioned } from '../cdd/fixtures.js';
import { testEngine } from '../helpers.js';
import { BACKENDS, skipBackend } from '../postgres.js';

/**
 * Law: whatever sequence of domain commands ran, rebuilding every read model from the log gives exactly the
 * live read models. Each domain adds its commands to this list.
 */
type Step = (engine: Engine, businesses: string[]) => Promise<unknown>;

const name = fc.stringMatching(/^[A-Za-z][a-z]{1,8}$/);
const pick = fc.nat({ max: 3 });

const steps: fc.Arbitrary<Step>[] = [
  fc.record({ first: name, last: name, b: pick }).map(
    ({ first, last, b }) =>
      async (e: Engine, biz: string[]) =>
        e.users.create(
          { businessId: biz[b % biz.length]! },
          { firstName: first, lastName: last, email: `${first}.${last}@x.example`, role: 'analyst' },
        ),
  ),
  fc.record({ n: name, b: pick }).map(
    ({ n, b }) =>
      async (e: Engine, biz: string[]) =>
        e.auth.issue({ name: n, businessId: biz[b % biz.length] }),
  ),
  pick.map((k) => async (e: Engine) => {
    const keys = await e.auth.list();
    if (keys.length > 0) await e.auth.revoke(keys[k % keys.length]!.apiKey);
  }),
  pick.map((b) => async (e: Engine, biz: string[]) => e.auth.rotateWebhookSecret(biz[b % biz.length]!)),
  // Screening checks, webhook endpoints and deliveries (to a closed port, so attempts fail and are rescheduled).
  fc
    .record({
      b: pick,
      kind: fc.constantFrom('adverse-media' as const, 'sanction' as const, 'risk-monitoring' as const),
      callback: fc.boolean(),
    })
    .map(
      ({ b, kind, callback }) =>
        async (e: Engine, biz: string[]) =>
          e.screening.submit(
            { businessId: biz[b % biz.length]! },
            { kind, text: 'Vladimir Putin', ...(callback ? { callbackUrl: 'http://127.0.0.1:9/hook' } : {}) },
          ),
    ),
  pick.map(
    (b) => async (e: Engine, biz: string[]) => e.webhooks.setEndpoint({ businessId: biz[b % biz.length]! }, 'http://127.0.0.1:9/default'),
  ),
  fc.constant(async (e: Engine) => e.screening.runPending()),
  fc.constant(async (e: Engine) => e.webhooks.runDue()),
  fc.record({ b: pick, name }).map(
    ({ b, name: n }) =>
      async (e: Engine, biz: string[]) =>
        e.screening.screenAndRecord({ businessId: biz[b % biz.length]! }, { name: n }),
  ),
  pick.map((b) => async (e: Engine, biz: string[]) => {
    const { deliveries } = await e.webhooks.list(biz[b % biz.length]!, { page: 1, limit: 1 });
    if (deliveries[0]) await e.webhooks.redeliver({ businessId: biz[b % biz.length]! }, deliveries[0].id);
  }),
  // Cases (opened by other domains or by hand, updated, commented, tasks ticked) and uploads attached to them.
  fc.record({ b: pick, r: pick, p: fc.constantFrom('low' as const, 'critical' as const) }).map(
    ({ b, r, p }) =>
      async (e: Engine, biz: string[]) =>
        e.cases.open({
          businessId: biz[b % biz.length]!,
          module: 'aml',
          record: { id: `r${r}`, type: 'customer', name: 'N' },
          title: 'hit',
          description: '',
          priority: p,
        }),
  ),
  fc
    .record({
      b: pick,
      c: pick,
      status: fc.constantFrom('in progress' as const, 'pending review' as const, 'resolved' as const, 'closed' as const),
      esc: fc.boolean(),
    })
    .map(({ b, c, status, esc }) => async (e: Engine, biz: string[]) => {
      const { cases } = await e.cases.list(biz[b % biz.length]!, {}, { page: 1, limit: 4 });
      if (cases[c % Math.max(cases.length, 1)])
        await e.cases.update({ businessId: biz[b % biz.length]! }, cases[c % cases.length]!._id, { status, isEscalated: esc });
    }),
  fc.record({ b: pick, c: pick, text: name, upload: fc.boolean() }).map(({ b, c, text, upload }) => async (e: Engine, biz: string[]) => {
    const businessId = biz[b % biz.length]!;
    const { cases } = await e.cases.list(businessId, {}, { page: 1, limit: 4 });
    const target = cases[c % Math.max(cases.length, 1)];
    if (!target) return;
    const task = await e.cases.addTask({ businessId }, target._id, text);
    await e.cases.setTaskStatus({ businessId }, target._id, task.tasks[0]!._id, true);
    if (!upload) return e.cases.addComment({ businessId }, target._id, { text });
    const { key, url } = await e.uploads.authorize({ businessId }, { fileType: 'txt', access: 'private' });
    await e.uploads.receive(key, Object.fromEntries(new URL(url).searchParams), [new TextEncoder().encode(text)]);
    await e.cases.addComment({ businessId }, target._id, { text, attachments: [key] });
    return e.cases.addAttachment({ businessId }, target._id, key);
  }),
  // Alert grouping settings (decisions below then group by customer or account, fresh after an hour or never),
  // and bulk actions over a business's cases.
  fc.record({ b: pick, account: fc.boolean(), hours: fc.constantFrom(null, 1) }).map(
    ({ b, account, hours }) =>
      async (e: Engine, biz: string[]) =>
        e.cases.changeSettings(
          { businessId: biz[b % biz.length]! },
          { groupBy: account ? 'account' : 'customer', freshCaseAfterHours: hours },
        ),
  ),
  // Four eyes: the case settings' fourEyes as logs written before the approvals policy took it over carry it, and
  // policy changes approved by a second person; the policy's read model folds both.
  fc.record({ b: pick, on: fc.boolean() }).map(
    ({ b, on }) =>
      async (e: Engine, biz: string[]) =>
        e.store.append(
          caseSettingsStream(biz[b % biz.length]!),
          [{ type: 'CaseSettingsChanged', data: { fourEyes: on, groupBy: 'customer' } }],
          {
            metadata: { businessId: biz[b % biz.length]! },
          },
        ),
  ),
  fc.record({ b: pick, lists: fc.boolean() }).map(({ b, lists }) => async (e: Engine, biz: string[]) => {
    const businessId = biz[b % biz.length]!;
    const request = await e.approvals.request(
      businessId,
      { kind: 'user', id: 'maker', name: 'Maker' },
      {
        action: 'policy.change',
        subject: { kind: 'policy', id: 'four-eyes' },
        summary: 'policy',
        payload: { actions: lists ? ['list.add'] : [] },
        reason: '',
      },
    );
    return e.approvals.decide(businessId, { kind: 'user', id: 'checker', name: 'Checker' }, request.request_id, true, '');
  }),
  fc.record({ b: pick, close: fc.boolean(), text: name }).map(
    ({ b, close, text }) =>
      async (e: Engine, biz: string[]) =>
        e.cases.bulk(
          { businessId: biz[b % biz.length]! },
          { filters: { status: 'open' } },
          close ? { type: 'close', disposition: 'reported', note: text } : { type: 'status', status: 'in progress' },
        ),
  ),
  // Customer due diligence: customers (one on the OFAC list), updates, requests run by the worker, match reviews.
  fc.record({ b: pick, c: pick, ofac: fc.boolean() }).map(
    ({ b, c, ofac }) =>
      async (e: Engine, biz: string[]) =>
        e.cdd.customers.create(
          { businessId: biz[b % biz.length]! },
          individual(`c${c}`, { accounts: [], ...(ofac ? sanctioned : {}) }) as never,
        ),
  ),
  fc.record({ b: pick, c: pick, occupation: name }).map(
    ({ b, c, occupation }) =>
      async (e: Engine, biz: string[]) =>
        e.cdd.customers.update({ businessId: biz[b % biz.length]! }, `c${c}`, { occupation, countryOfResidence: c % 2 ? 'IR' : 'NG' }),
  ),
  fc.record({ b: pick, c: pick }).map(
    ({ b, c }) =>
      async (e: Engine, biz: string[]) =>
        e.cdd.requests.start({ businessId: biz[b % biz.length]! }, { customerUniqueId: `c${c}`, workflowSlug: 'individual-standard' }),
  ),
  fc.constant(async (e: Engine) => e.cdd.runPending()),
  fc.constant(async (e: Engine) => e.cdd.runDue()),
  fc.record({ b: pick, c: pick, found: fc.boolean() }).map(({ b, c, found }) => async (e: Engine, biz: string[]) => {
    const businessId = biz[b % biz.length]!;
    const requests = await e.cdd.requests.list(businessId, `c${c}`, { page: 1, limit: 5 });
    const waiting = requests.data.find((r) => r.status === 'awaiting confirmation');
    if (!waiting) return;
    const matches = (await e.cdd.requests.matches(businessId, waiting._id)) as Record<string, { reviewStatus: string }[] | null>;
    for (const type of ['pep', 'sanctions', 'adverseMedia'] as const) {
      const index = (matches[type] ?? []).findIndex((m) => m.reviewStatus === 'pending');
      if (index >= 0) return e.cdd.requests.review({ businessId }, waiting._id, { type, index, status: found ? 'found' : 'not found' });
    }
  }),
  // Transaction monitoring: decisions (some opening cases), blacklist changes and saved devices.
  fc.record({ b: pick, r: pick, u: pick, amount: fc.constantFrom(20_000, 600_000, 4_800_000) }).map(
    ({ b, r, u, amount }) =>
      async (e: Engine, biz: string[]) =>
        e.monitoring.decide(
          { businessId: biz[b % biz.length]! },
          {
            transactionData: { reference: `ref-${r}`, amount, senderAccount: `s${u}`, receiverAccount: 'r1' },
            anonymizedUserData: { uniqueId: `u${u}` },
            device: { deviceId: `d${u}` },
          },
        ),
  ),
  fc
    .record({
      b: pick,
      u: pick,
      add: fc.boolean(),
      list: fc.constantFrom('users' as const, 'accounts' as const, 'devices' as const, 'vasReceivers' as const),
    })
    .map(({ b, u, add, list }) => async (e: Engine, biz: string[]) => {
      const actor = { businessId: biz[b % biz.length]! };
      return add ? e.monitoring.addToBlacklist(actor, list, `u${u}`) : e.monitoring.removeFromBlacklist(actor, list, `u${u}`);
    }),
  fc.record({ b: pick, u: pick, os: fc.constantFrom('13', '14') }).map(
    ({ b, u, os }) =>
      async (e: Engine, biz: string[]) =>
        e.monitoring.saveDevice(
          { businessId: biz[b % biz.length]! },
          { customerId: `u${u}`, device: { deviceId: `d${u}`, osVersion: os } },
        ),
  ),
];

for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`replay law (${backend})`, () => {
    it(
      'rebuilding read models from the log equals the live read models',
      async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(fc.oneof(...steps), { minLength: 1, maxLength: 25 }), async (sequence) => {
            const t = await testEngine({ backend });
            try {
              const businesses = ['biz_a', 'biz_b', 'biz_c'];
              for (const step of sequence)
                await step(t.engine, businesses).catch((err: Error) => expect(err.name).toMatch(/Conflict|NotFound/));
              // The deferred read models (the decisions index) to the head, so the law covers them whole.
              await t.engine.store.settleDeferred();
              const decided = await t.engine.store.readAll({ types: ['TransactionDecided'], limit: 1000 });
              expect(await t.engine.projections.deferredPosition(t.engine.db)).toBeGreaterThanOrEqual(decided.at(-1)?.position ?? 0);
              const report = await verifyReplay(t.engine.db, t.engine.store, t.engine.projections);
              expect(report.diffs).toEqual([]);
              expect(report.ok).toBe(true);
            } finally {
              await t.close();
            }
          }),
          // On PostgreSQL each run also creates and drops a database, about a second; fewer runs keep it bounded.
          { numRuns: backend === 'sqlite' ? 25 : 10, seed: 28 },
        );
        // Every run starts and closes an engine of its own (writer thread, screening lists): on the shared 2-core
        // machine the whole property has taken from 18 s to just over the suite's 30 s default.
      },
      backend === 'sqlite' ? 120_000 : 240_000,
    );
  });
