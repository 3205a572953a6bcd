import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors.js';
import { createApp } from '../../src/http/app.js';
import { type TestEngine, testEngine } from '../helpers.js';

describe('console pages give nothing away', () => {
  let t: TestEngine;
  let app: ReturnType<typeof createApp>;
  let cookie: string;
  beforeAll(async () => {
    // An absolute rules folder, as the server's own configuration makes it.
    t = await testEngine({ rulesDir: resolve('rules'), watchRules: false });
    app = createApp(t.engine);
    const user = await t.engine.users.create(
      { businessId: 'acme' },
      { firstName: 'Ada', lastName: 'Admin', email: 'ada@acme.example', role: 'admin' },
    );
    await t.engine.signIn.setPassword('acme', user._id, 'a long enough passphrase', 'test');
    const { token } = await t.engine.signIn.signIn('ada@acme.example', 'a long enough passphrase');
    cookie = `console_session=${token}`;
  });
  afterAll(async () => t?.close());

  const goBack = async (referer: string) => {
    const res = await app.request('http://localhost/console/cases/no-such-case', { headers: { cookie, referer } });
    expect(res.status).toBe(404);
    return /<a href="([^"]*)">Go back<\/a>/.exec(await res.text())?.[1];
  };

  it('leads "Go back" to a console page of this origin only', async () => {
    await expect(t.engine.cases.get('acme', 'no-such-case')).rejects.toBeInstanceOf(NotFoundError);
    expect(await goBack('http://localhost/console/queue?status=open')).toBe('/console/queue?status=open');
    for (const foreign of [
      'http://localhost.evil.example/console/queue',
      'https://evil.example/console/queue',
      'http://localhost/docs',
      'not a url',
    ])
      expect(await goBack(foreign)).toBe('/console/dashboard');
  });

  it('names the rule files in force without the server paths they live at', async () => {
    const res = await app.request('http://localhost/console/rules', { headers: { cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('rules in');
    expect(html).not.toContain(resolve('rules'));
  });
});
