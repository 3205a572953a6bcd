import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomerInputSchema } from '../../src/cdd/index.js';
import { individual, sanctioned } from '../cdd/fixtures.js';
import { chromiumAvailable, type ConsoleRig, LAYOUT_PROBE, type Person, see, shot, signIn, startRig } from './browser.js';

const base = JSON.parse(readFileSync('rules/test-base.json', 'utf8'));
let seq = 0;
/** The rules' sample transaction, with a fresh reference and the given changes. */
function transaction(changes: { amount?: number; uniqueId?: string; deviceId?: string } = {}) {
  const tx = structuredClone(base);
  tx.transactionData.reference = `TX-E2E-${Date.now()}-${++seq}`;
  // An account of its own, so that one test's amounts never count in another's velocity windows.
  tx.transactionData.senderAccount = String(1_000_000_000 + seq);
  if (changes.amount !== undefined) tx.transactionData.amount = changes.amount;
  if (changes.uniqueId) tx.anonymizedUserData.uniqueId = changes.uniqueId;
  if (changes.deviceId) tx.device.deviceId = changes.deviceId;
  return tx;
}

// Each test drives a browser against a server doing scrypt on a shared machine: a budget of its own, not the default 30 s.
describe.runIf(chromiumAvailable())('analyst console in Chromium', { timeout: 120_000 }, () => {
  let rig: ConsoleRig;
  let admin: Person;
  let analyst: Person;
  let auditor: Person;
  let outsider: Person;

  beforeAll(async () => {
    rig = await startRig();
    admin = await rig.person('acme', 'admin', 'Ada', 'Admin');
    analyst = await rig.person('acme', 'analyst', 'Ann', 'Analyst');
    auditor = await rig.person('acme', 'auditor', 'Otto', 'Auditor');
    outsider = await rig.person('globex', 'analyst', 'Gus', 'Globex');
  }, 120_000);
  afterAll(async () => rig?.close());

  it('signs in with a one-time password, forces its change, and signs out on the server', async () => {
    const user = await rig.engine.users.create(
      { businessId: 'acme' },
      { firstName: 'Nora', lastName: 'New', email: 'nora@acme.example', role: 'analyst' },
    );
    const once = await rig.engine.signIn.issueOneTimePassword('acme', user._id, 'test');
    const context = await rig.browser.newContext({ baseURL: rig.base, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto('/console');
    await page.waitForURL('**/console/sign-in');
    await shot(page, 'sign-in');
    await signIn(page, 'nora@acme.example', 'wrong password entirely');
    await see(page.getByRole('alert'));
    expect(await page.getByRole('alert').innerText()).toContain('Email or password is wrong');
    await signIn(page, 'nora@acme.example', once);
    await page.waitForURL('**/console/password');
    await page.getByLabel('Current password').fill(once);
    await page.getByLabel('New password (at least 12 characters)').fill('a much better passphrase');
    await page.getByLabel('New password again').fill('a much better passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL('**/console/dashboard');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Dashboard');

    const [cookie] = (await context.cookies()).filter((c) => c.name === 'console_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/console/sign-in');
    // The old cookie no longer opens anything: the session ended on the server.
    const replay = await rig.browser.newContext({ baseURL: rig.base });
    await replay.addCookies([{ ...cookie! }]);
    const again = await replay.newPage();
    await again.goto('/console/queue');
    expect(again.url()).toContain('/console/sign-in');
    await replay.close();
    await context.close();
  });

  it('works a flagged transaction from open to closed with a comment, an attachment and four-eyes approval', async () => {
    // A customer of its own: alerts group on their subject's open case.
    const decision = await rig.engine.decide(transaction({ amount: 600_000, uniqueId: 'user-e2e-case' }), { businessId: 'acme' });
    expect(decision.action.result).not.toBe('APPROVE');
    const stored = await rig.engine.monitoring.getTransaction('acme', decision.transactionId);
    expect(stored.caseId).toBeTruthy();
    const caseId = stored.caseId!;

    // The business puts closing under four eyes (a policy change takes two: tests/console/approvals.e2e.test.ts).
    const policy = await rig.engine.approvals.request(
      'acme',
      { kind: 'user', id: admin.userId, name: 'Ada Admin' },
      {
        action: 'policy.change',
        subject: { kind: 'policy', id: 'four-eyes' },
        summary: 'Four eyes on closing',
        payload: { actions: ['case.close'] },
        reason: 'audit',
      },
    );
    await rig.engine.approvals.decide('acme', { kind: 'user', id: 'second-admin', name: 'Second Admin' }, policy.request_id, true, '');
    const a = await rig.signedIn(admin);
    await a.page.goto('/console/admin');
    expect(await a.page.getByLabel('Closing a case').isChecked()).toBe(true);
    await shot(a.page, 'admin');

    const { page } = await rig.signedIn(analyst);
    await page.getByRole('link', { name: 'Queue' }).click();
    await page.waitForURL('**/console/queue');
    await shot(page, 'queue');
    await page.locator(`a[href="/console/cases/${caseId}"]`).first().click();
    await page.waitForURL(`**/console/cases/${caseId}`);
    await see(page.getByRole('heading', { name: 'Alerts (1)' }));
    // The full explanation: score, action, reason, each fired rule with its test and observed values, the ruleset version.
    await see(page.getByText(stored.rulesetVersion));
    await see(page.getByRole('cell', { name: /LIMIT_INDIVIDUAL/ }));
    await see(page.getByText(/transactionData\.amount = 600000/).first());

    await page.getByLabel('Assign to').selectOption(analyst.userId);
    await page.getByRole('button', { name: 'Assign' }).click();
    await see(page.getByText('Assigned to Ann Analyst'));
    await page.getByLabel('Move to').selectOption('in progress');
    await page.getByRole('button', { name: 'Change status' }).click();
    await see(page.getByText('Status changed from open to in progress'));

    await page.getByLabel('New task').fill('Call the customer');
    await page.getByRole('button', { name: 'Add task' }).click();
    await page.getByRole('button', { name: 'Complete task: Call the customer' }).click();
    await see(page.getByText('Task completed: Call the customer'));

    await page.getByLabel('New comment').fill('Customer confirmed the school fees payment by phone.');
    await page
      .getByLabel(/Attach a file/)
      .setInputFiles({ name: 'call-note.txt', mimeType: 'text/plain', buffer: Buffer.from('call at 10:02') });
    await see(page.getByRole('status').filter({ hasText: 'Uploaded call-note.txt' }));
    await page.getByRole('button', { name: 'Add comment' }).click();
    await see(page.getByText('Comment added with 1 attachment(s)'));
    expect(await page.getByRole('list', { name: 'Attachments' }).getByRole('link').count()).toBe(1);

    await page.getByLabel('Move to').selectOption('resolved');
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.getByLabel('Disposition').selectOption('false positive');
    await page.getByLabel('Rationale').fill('School fees, confirmed by phone; amount matches the invoice.');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Request closure (four eyes)' }).click();
    await see(page.getByText('You asked for this: it takes effect when someone else approves it.'));
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await page.goto(`/console/cases/${caseId}`);
    await see(page.getByRole('table', { name: 'Requests about this case' }).getByText('pending'));
    await shot(page, 'case');

    await a.page.goto('/console/approvals');
    await a.page
      .getByRole('link', { name: /Close case/ })
      .first()
      .waitFor();
    await a.page
      .getByRole('table', { name: /Waiting for a second person/ })
      .getByRole('link')
      .first()
      .click();
    await a.page.getByRole('button', { name: 'Approve' }).click();
    await see(a.page.locator('dd .badge.approved'));
    await a.page.goto(`/console/cases/${caseId}`);
    await see(a.page.getByText(/requested by Ann Analyst, approved by Ada Admin/).first());
    await see(a.page.locator('dd').filter({ hasText: 'closed (false positive)' }));
    await shot(a.page, 'case-closed');
    const closed = await rig.engine.cases.get('acme', caseId);
    expect(closed.status).toBe('closed');
    expect(closed.log.map((l) => l.user.firstName)).toEqual(expect.arrayContaining(['Ann', 'Ada']));
    await a.context.close();
  });

  it('refuses a POST without its CSRF token, and anything an auditor tries to change', async () => {
    const decision = await rig.engine.decide(transaction({ amount: 700_000 }), { businessId: 'acme' });
    const caseId = (await rig.engine.monitoring.getTransaction('acme', decision.transactionId)).caseId!;
    const { context, page } = await rig.signedIn(analyst);
    const noToken = await page.request.post(`/console/cases/${caseId}/comments`, { form: { text: 'sneaky' } });
    expect(noToken.status()).toBe(403);
    const signInNoToken = await page.request.post('/console/sign-in', { form: { email: analyst.email, password: analyst.password } });
    expect(signInNoToken.status()).toBe(403);
    await context.close();

    const o = await rig.signedIn(auditor);
    await o.page.goto(`/console/cases/${caseId}`);
    await see(o.page.getByRole('heading', { name: 'Timeline' }));
    expect(await o.page.getByRole('button', { name: 'Change status' }).count()).toBe(0);
    const csrf = await o.page.locator('input[name=_csrf]').first().inputValue();
    for (const [path, form] of [
      [`/console/cases/${caseId}/comments`, { text: 'auditor note' }],
      [`/console/cases/${caseId}/status`, { status: 'in progress' }],
      ['/console/admin/approval-policy', { actions: 'list.add' }],
    ] as const) {
      const res = await o.page.request.post(path, { form: { ...form, _csrf: csrf } });
      expect(res.status(), path).toBe(403);
    }
    expect((await rig.engine.cases.get('acme', caseId)).comments).toHaveLength(0);
    await o.context.close();
  });

  it('marks the cookie Secure behind https, and serves its scripts from the packages', async () => {
    const context = await rig.browser.newContext({ baseURL: rig.base, extraHTTPHeaders: { 'X-Forwarded-Proto': 'https' } });
    const page = await context.newPage();
    for (const file of ['htmx.min.js', 'chart.umd.min.js', 'console.js', 'console.css']) {
      expect((await page.request.get(`/console/assets/${file}`)).status(), file).toBe(200);
    }
    const res = await page.request.get('/console/sign-in');
    expect(res.headers()['set-cookie']).toMatch(/HttpOnly; .*Secure; SameSite=Strict|Secure/);
    expect(res.headers()['set-cookie']).toContain('SameSite=Strict');
    await context.close();
  });

  it("never shows one business's people another's data", async () => {
    const decision = await rig.engine.decide(transaction({ amount: 650_000 }), { businessId: 'acme' });
    const caseId = (await rig.engine.monitoring.getTransaction('acme', decision.transactionId)).caseId!;
    const { context, page } = await rig.signedIn(outsider);
    // The dashboard counts nothing of acme's, and the queue lists none of its cases.
    expect(await page.getByRole('table', { name: 'Decisions per action' }).getByRole('row').count()).toBe(1);
    await page.goto('/console/queue');
    expect(await page.getByRole('table').innerText()).not.toContain('TX-E2E');
    const res = await page.goto(`/console/cases/${caseId}`);
    expect(res?.status()).toBe(404);
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const post = await page.request.post(`/console/cases/${caseId}/comments`, { form: { text: 'x', _csrf: csrf } });
    expect(post.status()).toBe(404);
    await context.close();
  });

  it('adds a blacklist entry and the next decision for that user changes', async () => {
    const before = await rig.engine.decide(transaction({ uniqueId: 'user-e2e-listed' }), { businessId: 'acme' });
    const fired = (d: typeof before) => d.ruleResult?.map((r) => r.id) ?? [];
    expect(fired(before)).not.toContain('BL_USER');
    expect(before.action.result).not.toBe('rejected');
    const { context, page } = await rig.signedIn(analyst);
    await page.goto('/console/lists');
    await page.getByLabel('List', { exact: true }).selectOption('users');
    await page.getByLabel('Value').fill('user-e2e-listed');
    await page.getByRole('button', { name: 'Add to blacklist' }).click();
    await see(page.getByRole('cell', { name: 'user-e2e-listed' }));
    await shot(page, 'lists');
    const after = await rig.engine.decide(transaction({ uniqueId: 'user-e2e-listed' }), { businessId: 'acme' });
    expect(after.action.result).toBe('rejected');
    expect(fired(after)).toContain('BL_USER');
    const stored = await rig.engine.monitoring.getTransaction('acme', after.transactionId);
    await page.goto('/console/transactions');
    await page.getByLabel('Reference or transactionId').fill(stored.reference);
    await page.getByRole('button', { name: 'Find' }).click();
    await see(page.getByRole('cell', { name: /BL_USER|ENGINE_BLACKLIST/ }));
    await see(page.getByText(/anonymizedUserData\.uniqueId = user-e2e-listed/));
    // The user's decisions, through the link on the decision: both, newest first.
    await page.getByRole('link', { name: 'Decisions of user user-e2e-listed' }).click();
    const listed = page.getByRole('table', { name: 'Decisions of user user-e2e-listed (2)' });
    await see(listed);
    const rows = await listed.getByRole('row').allInnerTexts();
    expect(rows[1]).toContain(stored.reference);
    expect(rows[2]).toContain((await rig.engine.monitoring.getTransaction('acme', before.transactionId)).reference);
    await shot(page, 'transactions');
    await context.close();
  });

  it('checks a candidate rule at file:line:col and shows its backtest diff with a chart', async () => {
    for (let i = 0; i < 3; i++) await rig.engine.decide(transaction({ amount: 30_000 + i }), { businessId: 'acme' });
    const { context, page } = await rig.signedIn(analyst);
    await page.goto('/console/rules');
    await see(page.getByRole('cell', { name: 'LIMIT_INDIVIDUAL' }));
    const rule = (field: string) =>
      `rule BIG_CANDIDATE "Amounts of 20,000 or more"\n  when ${field} >= 20000\n  score 90\n  reason TST001 high "Candidate: amounts of 20,000 or more"\nend\n`;
    await page.getByLabel('Rules (paste)').fill(rule('transactionData.amountt'));
    await page.getByRole('button', { name: 'Check' }).click();
    await see(page.getByRole('alert'));
    expect(await page.getByRole('alert').innerText()).toMatch(/candidate\.rules:2:\d+: /);
    await page.getByLabel('Rules (paste)').fill(rule('transactionData.amount'));
    await page.getByRole('button', { name: 'Run backtest' }).click();
    await see(page.getByRole('heading', { name: 'Backtest of candidate.rules' }));
    await see(page.getByRole('cell', { name: 'BIG_CANDIDATE' }));
    expect(await page.getByRole('cell', { name: /→rejected/ }).count()).toBeGreaterThan(0);
    await see(page.locator('canvas[data-drawn="1"]'));
    await shot(page, 'rules-backtest');
    await context.close();
  });

  it('screens a name over the lists in force, showing each candidate’s scores and why', async () => {
    const { context, page } = await rig.signedIn(auditor);
    await page.goto('/console/screening');
    await see(page.getByRole('table', { name: 'Lists in force' }));
    await page.getByLabel('Name', { exact: true }).fill('Vladimir Putin');
    await page.getByLabel('Country (ISO 2)').fill('RU');
    await page.getByRole('button', { name: 'Screen' }).click();
    const candidates = page.getByRole('table', { name: /Candidates for/ });
    await see(candidates);
    expect(await candidates.innerText()).toMatch(/words: .*putin/i);
    await shot(page, 'screening');
    await context.close();
  });

  it('reviews a sanctions match on the customer page, as an event with the person as actor, and shows it in the history', async () => {
    const customer = CustomerInputSchema.parse(individual('ofac7', { ...sanctioned, accounts: [], kycDocuments: [] }));
    await rig.engine.cdd.customers.create({ businessId: 'acme' }, customer);
    const { requestId } = await rig.engine.cdd.requests.start(
      { businessId: 'acme' },
      { customerUniqueId: 'ofac7', workflowSlug: 'individual-standard' },
    );
    await rig.engine.cdd.runPending();

    // An auditor reads the matches and is offered no review.
    const o = await rig.signedIn(auditor);
    await o.page.goto('/console/customers/ofac7');
    await see(o.page.getByRole('table', { name: /Sanctions matches of request/ }));
    expect(await o.page.getByRole('button', { name: /Confirm \(found\)/ }).count()).toBe(0);
    await o.context.close();

    const { context, page } = await rig.signedIn(analyst);
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByLabel('Customer id or account number').fill('ofac7');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL('**/console/customers/ofac7');
    const matches = page.getByRole('table', { name: /Sanctions matches of request/ });
    const row = matches
      .getByRole('row')
      .filter({ hasText: /zawahiri/i })
      .first();
    const candidate = (await row.locator('strong').first().innerText()).trim();
    await row.getByLabel(`Note on ${candidate}`).fill('Same name, birth date and nationality as the listed person.');
    await row.getByRole('button', { name: `Confirm (found): ${candidate}` }).click();
    const history = page.getByRole('list', { name: `Review history of ${candidate}` }).first();
    await see(history);
    expect(await history.innerText()).toMatch(/Ann Analyst.*pending → found: Same name, birth date and nationality/s);
    await see(page.getByRole('cell', { name: /found by Ann Analyst/ }));
    // Confirming rates the customer high and opens a case, both shown on the page.
    await see(page.locator('dd').filter({ hasText: /high/ }));
    expect(
      await page
        .getByRole('table', { name: /^Cases/ })
        .getByRole('link')
        .count(),
    ).toBeGreaterThan(0);
    await shot(page, 'customer');

    const reviewed = (await rig.engine.store.readStream(`cdd-request/${requestId}`)).filter((e) => e.type === 'CddMatchReviewed');
    expect(reviewed).toHaveLength(1);
    expect(reviewed[0]!.metadata.actor).toBe(analyst.userId);
    expect(reviewed[0]!.data).toMatchObject({ status: 'found', reviewedBy: analyst.userId, note: expect.stringContaining('Same name') });

    // A review without a note is refused, naming the field.
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const bare = await page.request.post('/console/customers/ofac7/review', {
      form: { _csrf: csrf, requestId, type: 'sanctions', index: '0', status: 'not found', note: '' },
    });
    expect(bare.status()).toBe(400);
    expect(await bare.text()).toContain('note is required');
    await context.close();
  });

  it('opens on a dashboard of open cases, the last day of decisions and rule hits, and the ruleset in force', async () => {
    await rig.engine.decide(transaction({ amount: 800_000 }), { businessId: 'acme' });
    const stats = await rig.engine.monitoring.decisionStats('acme');
    const { context, page } = await rig.signedIn(analyst);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Dashboard');
    const open = await rig.engine.cases.read.countsByStatus('acme', { priority: 'high' });
    const matrix = page.getByRole('table', { name: /Cases and alerts not closed/ });
    await see(matrix);
    expect(await matrix.getByRole('row', { name: /^high/ }).getByRole('cell').first().innerText()).toBe(String(open.get('open') ?? 0));
    const actions = page.getByRole('table', { name: 'Decisions per action' });
    for (const [action, n] of Object.entries(stats.byAction))
      expect(await actions.getByRole('row', { name: new RegExp(`^${action}`) }).innerText()).toContain(String(n));
    await see(page.getByRole('table', { name: 'Rule hits' }).getByRole('cell', { name: 'LIMIT_INDIVIDUAL' }));
    await see(page.getByText(rig.engine.monitoring.rulesetVersion));
    expect(await page.locator('canvas[data-drawn="1"]').count()).toBe(2);
    await shot(page, 'dashboard');
    await context.close();
  });

  it('lets an admin create an API key shown once and revoke it; an auditor only reads', async () => {
    const a = await rig.signedIn(admin);
    await a.page.getByRole('link', { name: 'Admin' }).click();
    await a.page.getByRole('link', { name: 'API keys' }).click();
    await a.page.getByLabel('Key name').fill('payments switch');
    await a.page.getByRole('button', { name: 'Create key' }).click();
    await see(a.page.getByText('Its secret is shown only now'));
    const values = await a.page.locator('dl.facts dd code').allInnerTexts();
    const [apiKey, apiSecret] = values;
    expect(await rig.engine.auth.verify(apiKey, apiSecret)).toMatchObject({ businessId: 'acme', keyName: 'payments switch' });
    await a.page.getByRole('link', { name: 'Back to API keys' }).click();
    // The list shows the key, never its secret.
    await see(a.page.getByRole('cell', { name: apiKey! }));
    expect(await a.page.content()).not.toContain(apiSecret);
    a.page.once('dialog', (dialog) => {
      expect(dialog.message()).toContain('Revoke the key payments switch?');
      void dialog.accept();
    });
    await a.page.getByRole('button', { name: 'Revoke the key payments switch' }).click();
    await see(a.page.getByRole('row', { name: /payments switch/ }).getByRole('cell', { name: 'revoked' }));
    expect(await rig.engine.auth.verify(apiKey, apiSecret)).toBeUndefined();
    await shot(a.page, 'admin-keys');
    const actors = (await rig.engine.store.readAll({ types: ['ApiKeyIssued', 'ApiKeyRevoked'], limit: 1000 }))
      .filter((e) => e.metadata.businessId === 'acme')
      .map((e) => [e.type, e.metadata.actor]);
    expect(actors).toEqual(
      expect.arrayContaining([
        ['ApiKeyIssued', admin.userId],
        ['ApiKeyRevoked', admin.userId],
      ]),
    );
    await a.context.close();

    const o = await rig.signedIn(auditor);
    await o.page.goto('/console/admin/keys');
    await see(o.page.getByRole('cell', { name: apiKey! }));
    expect(await o.page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    const csrf = await o.page.locator('input[name=_csrf]').first().inputValue();
    for (const [path, form] of [
      ['/console/admin/keys', { name: 'auditor key' }],
      ['/console/admin/keys/revoke', { apiKey: apiKey! }],
    ] as const) {
      const res = await o.page.request.post(path, { form: { ...form, _csrf: csrf } });
      expect(res.status(), path).toBe(403);
    }
    expect((await rig.engine.auth.listOf('acme')).map((k) => k.name)).not.toContain('auditor key');
    await o.context.close();

    const n = await rig.signedIn(analyst);
    expect((await n.page.goto('/console/admin/keys'))?.status()).toBe(403);
    await n.context.close();
  });

  it("manages a business's webhook endpoints by event type: create (secret shown once), change types, rotate, remove", async () => {
    const a = await rig.signedIn(admin);
    await a.page.getByRole('link', { name: 'Admin' }).click();
    await a.page.getByRole('link', { name: 'Webhooks' }).click();
    await a.page.waitForURL('**/console/admin/webhooks');
    // No type ticked: refused naming the field, nothing created.
    await a.page.getByLabel('Endpoint URL (https)', { exact: true }).fill('https://hooks.acme.example/cases');
    await a.page.getByRole('button', { name: 'Create endpoint' }).click();
    await see(a.page.getByRole('alert').filter({ hasText: 'eventTypes must list at least one event type' }));
    expect(await rig.engine.webhooks.endpoints.list('acme')).toHaveLength(0);

    await a.page.goto('/console/admin/webhooks');
    await a.page.getByLabel('Endpoint URL (https)', { exact: true }).fill('https://hooks.acme.example/cases');
    await a.page.getByLabel('Description (optional)').fill('Case desk');
    await a.page.getByRole('checkbox', { name: /^case\.created/ }).check();
    await a.page.getByRole('checkbox', { name: /^decision\.flagged/ }).check();
    await a.page.getByRole('button', { name: 'Create endpoint' }).click();
    await see(a.page.getByText('Its signing secret is shown only now'));
    const secret = await a.page.locator('dl.facts dd code').last().innerText();
    expect(secret).toMatch(/^whsec_/);
    const [created] = await rig.engine.webhooks.endpoints.list('acme');
    expect(created).toMatchObject({ url: 'https://hooks.acme.example/cases', description: 'Case desk' });
    expect(created!.eventTypes.sort()).toEqual(['case.created', 'decision.flagged']);
    expect(await rig.engine.webhooks.endpoints.secrets(created!.id)).toEqual([secret]);

    await a.page.getByRole('link', { name: 'Back to webhooks' }).click();
    const row = a.page.getByRole('table', { name: 'Webhook endpoints (1)' }).getByRole('row', { name: /hooks\.acme\.example\/cases/ });
    await see(row);
    expect(await row.innerText()).toMatch(/decision\.flagged[\s\S]*case\.created/);
    // The list never shows the secret again.
    expect(await a.page.content()).not.toContain(secret);

    await a.page.getByRole('link', { name: 'Change the event types of https://hooks.acme.example/cases' }).click();
    await a.page.getByRole('checkbox', { name: /^decision\.flagged/ }).uncheck();
    await a.page.getByRole('checkbox', { name: /^case\.status_changed/ }).check();
    await a.page.getByRole('button', { name: 'Save event types' }).click();
    await a.page.waitForURL('**/console/admin/webhooks');
    await see(row.getByText('case.status_changed'));
    expect((await rig.engine.webhooks.endpoints.get('acme', created!.id)).eventTypes.sort()).toEqual([
      'case.created',
      'case.status_changed',
    ]);

    // A new secret, shown once; the old one signs beside it for a while.
    await a.page.getByRole('link', { name: 'Change the event types of https://hooks.acme.example/cases' }).click();
    await a.page.getByRole('button', { name: 'Rotate the signing secret of https://hooks.acme.example/cases' }).click();
    await see(a.page.getByText('The new secret is shown only now'));
    const rotated = await a.page.locator('dl.facts dd code').innerText();
    expect(await rig.engine.webhooks.endpoints.secrets(created!.id)).toEqual([rotated, secret]);
    await a.page.getByRole('link', { name: 'Back to webhooks' }).click();

    await a.page.getByLabel('Default endpoint URL (https)').fill('https://hooks.acme.example/compliance');
    await a.page.getByRole('button', { name: 'Set default endpoint' }).click();
    await see(a.page.getByRole('cell', { name: 'https://hooks.acme.example/compliance' }));
    await shot(a.page, 'admin-webhooks');

    // Another business's endpoint does not exist here.
    const other = await rig.engine.webhooks.endpoints.create(
      { businessId: 'globex' },
      { url: 'https://hooks.globex.example/x', eventTypes: ['case.created'] },
    );
    expect((await a.page.goto(`/console/admin/webhooks/endpoints/${other.id}`))?.status()).toBe(404);
    await a.page.goto('/console/admin/webhooks');
    const csrf = await a.page.locator('input[name=_csrf]').first().inputValue();
    const foreign = await a.page.request.post(`/console/admin/webhooks/endpoints/${other.id}/remove`, { form: { _csrf: csrf } });
    expect(foreign.status()).toBe(404);
    expect(await rig.engine.webhooks.endpoints.list('globex')).toHaveLength(1);

    // An auditor reads the endpoints and is offered no change; their POSTs are refused.
    const o = await rig.signedIn(auditor);
    await o.page.goto('/console/admin/webhooks');
    await see(o.page.getByRole('cell', { name: 'https://hooks.acme.example/cases' }));
    expect(await o.page.getByRole('button', { name: 'Create endpoint' }).count()).toBe(0);
    expect(await o.page.getByRole('button', { name: /Remove/ }).count()).toBe(0);
    const auditorCsrf = await o.page.locator('input[name=_csrf]').first().inputValue();
    for (const [path, form] of [
      ['/console/admin/webhooks/endpoints', { url: 'https://evil.example/hook', eventTypes: 'case.created' }],
      [`/console/admin/webhooks/endpoints/${created!.id}/types`, { eventTypes: 'decision.created' }],
      [`/console/admin/webhooks/endpoints/${created!.id}/rotate`, {}],
      [`/console/admin/webhooks/endpoints/${created!.id}/remove`, {}],
      ['/console/admin/webhooks/default', { url: 'https://evil.example/hook' }],
    ] as const) {
      const res = await o.page.request.post(path, { form: { ...form, _csrf: auditorCsrf } });
      expect(res.status(), path).toBe(403);
    }
    await o.context.close();
    const n = await rig.signedIn(analyst);
    expect((await n.page.goto('/console/admin/webhooks'))?.status()).toBe(403);
    await n.context.close();

    // Without its CSRF token, even an admin's removal is refused.
    const noToken = await a.page.request.post(`/console/admin/webhooks/endpoints/${created!.id}/remove`, { form: {} });
    expect(noToken.status()).toBe(403);
    await a.page.getByRole('button', { name: 'Remove the endpoint https://hooks.acme.example/cases' }).click();
    await see(a.page.getByRole('table', { name: 'Webhook endpoints (0)' }));
    expect(await rig.engine.webhooks.endpoints.list('acme')).toHaveLength(0);

    const actors = (
      await rig.engine.store.readAll({
        types: [
          'WebhookEndpointCreated',
          'WebhookEndpointChanged',
          'WebhookEndpointSecretRotated',
          'WebhookEndpointDeleted',
          'WebhookEndpointSet',
        ],
        limit: 1000,
      })
    )
      .filter((e) => e.metadata.businessId === 'acme')
      .map((e) => [e.type, e.metadata.actor]);
    expect(actors).toEqual([
      ['WebhookEndpointCreated', admin.userId],
      ['WebhookEndpointChanged', admin.userId],
      ['WebhookEndpointSecretRotated', admin.userId],
      ['WebhookEndpointSet', admin.userId],
      ['WebhookEndpointDeleted', admin.userId],
    ]);
    await a.context.close();
  });

  it('fits every page at 1280 px and at a tablet’s 820 px, with each control labelled and a skip link first', async () => {
    const decision = await rig.engine.decide(transaction({ amount: 620_000, uniqueId: 'user-e2e-layout' }), { businessId: 'acme' });
    const stored = await rig.engine.monitoring.getTransaction('acme', decision.transactionId);
    // A customer of its own with screening matches, so the test runs alone too.
    const customer = CustomerInputSchema.parse(individual('layout7', { ...sanctioned, accounts: [], kycDocuments: [] }));
    await rig.engine.cdd.customers.create({ businessId: 'acme' }, customer);
    await rig.engine.cdd.requests.start({ businessId: 'acme' }, { customerUniqueId: 'layout7', workflowSlug: 'individual-standard' });
    await rig.engine.cdd.runPending();
    const endpoint = await rig.engine.webhooks.endpoints.create(
      { businessId: 'acme' },
      { url: 'https://hooks.acme.example/layout', eventTypes: ['case.created', 'report.status_changed'] },
    );
    const pages = [
      ['dashboard', '/console/dashboard'],
      ['queue', '/console/queue'],
      ['case', `/console/cases/${stored.caseId}`],
      ['transactions', `/console/transactions?q=${stored.reference}`],
      ['customer', '/console/customers/layout7'],
      ['screening', '/console/screening?name=Vladimir+Putin&country=RU'],
      ['lists', '/console/lists'],
      ['rules', '/console/rules'],
      ['admin', '/console/admin'],
      ['admin-keys', '/console/admin/keys'],
      ['admin-webhooks', '/console/admin/webhooks'],
      ['admin-webhook-endpoint', `/console/admin/webhooks/endpoints/${endpoint.id}`],
    ] as const;
    const { context, page } = await rig.signedIn(admin);
    // Every page at both widths before judging, so that one run shows (and screenshots) all that is wrong.
    const problems: object[] = [];
    for (const width of [1280, 820]) {
      await page.setViewportSize({ width, height: 1000 });
      for (const [name, path] of pages) {
        const res = await page.goto(path);
        expect(res?.status(), path).toBe(200);
        const layout = await page.evaluate<{ overflow: number; clipped: string[]; unlabelled: string[] }>(LAYOUT_PROBE);
        await shot(page, `${width}-${name}`);
        await page.keyboard.press('Tab');
        const first = await page.evaluate<string>('document.activeElement.textContent.trim()');
        const skip = (await page.locator('.skip').boundingBox())?.x ?? -1;
        if (layout.overflow > 0 || layout.clipped.length > 0 || layout.unlabelled.length > 0 || first !== 'Skip to content' || skip < 0)
          problems.push({ path, width, ...layout, first, skip });
      }
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});
