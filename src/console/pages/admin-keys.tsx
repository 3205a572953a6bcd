import type { Context, Hono } from 'hono';
import { ValidationError } from '../../errors.js';
import { Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { Csrf, Notice, Page, fmtDate } from '../layout.js';

const actorOf = (c: Context<ConsoleEnv>) => ({
  businessId: c.var.session.businessId,
  userId: c.var.session.user._id,
  requestId: c.get('requestId' as never),
});

/**
 * Where the business's webhooks go, read and written through the webhook service: the one place to change when
 * a business has several endpoints.
 */
const webhookEndpoints = {
  async list(c: Context<ConsoleEnv>): Promise<{ url: string; updatedAt: string | null }[]> {
    const endpoint = await c.var.engine.webhooks.endpoint(c.var.session.businessId);
    return endpoint.url ? [{ url: endpoint.url, updatedAt: endpoint.updatedAt }] : [];
  },
  async set(c: Context<ConsoleEnv>, url: string): Promise<void> {
    await c.var.engine.webhooks.setEndpoint(actorOf(c), url);
  },
};

const field = async (c: Context<ConsoleEnv>, name: string, max: number): Promise<string> => {
  const value = (await c.req.parseBody())[name];
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text) throw new ValidationError(`${name} is required`, name);
  if (text.length > max) throw new ValidationError(`${name} is longer than ${max} characters`, name);
  return text;
};

/** The business's API keys (create, shown once; revoke) and webhook endpoints: admins change them, auditors read them. */
export function registerAdminKeys(app: Hono<ConsoleEnv>): void {
  app.get('/admin/keys', async (c) => {
    const { engine, session, csrf } = c.var;
    const [keys, endpoints] = await Promise.all([engine.auth.listOf(session.businessId), webhookEndpoints.list(c)]);
    const canChange = session.role === 'admin';
    return c.html(
      <Page title="API keys and webhooks" session={session} csrf={csrf} current="/console/admin">
        <p>
          <a href="/console/admin">← Admin</a>
        </p>
        <Table caption={`API keys (${keys.length})`} columns={['Name', 'Key', 'Created', 'State', ...(canChange ? ['Revoke'] : [])]}>
          {keys.map((k) => (
            <tr>
              <td>{k.name}</td>
              <td>
                <code>{k.apiKey}</code>
              </td>
              <td>{fmtDate(k.createdAt)}</td>
              <td>{k.revoked ? 'revoked' : 'active'}</td>
              {canChange ? (
                <td>
                  {k.revoked ? null : (
                    <form method="post" action="/console/admin/keys/revoke">
                      <Csrf token={csrf} />
                      <input type="hidden" name="apiKey" value={k.apiKey} />
                      <button type="submit" class="danger" aria-label={`Revoke the key ${k.name}`}>
                        Revoke
                      </button>
                    </form>
                  )}
                </td>
              ) : null}
            </tr>
          ))}
        </Table>
        {canChange ? (
          <form method="post" action="/console/admin/keys" class="inline" aria-label="Create an API key">
            <Csrf token={csrf} />
            <div>
              <label for="k-name">Key name</label>
              <input id="k-name" name="name" required maxlength={100} />
            </div>
            <button type="submit">Create key</button>
          </form>
        ) : null}
        <Table caption="Webhook endpoints" columns={['URL', 'Set']}>
          {endpoints.map((e) => (
            <tr>
              <td>
                <code>{e.url}</code>
              </td>
              <td>{fmtDate(e.updatedAt)}</td>
            </tr>
          ))}
        </Table>
        {endpoints.length === 0 ? <p class="muted">No webhook endpoint is set: events are not sent anywhere.</p> : null}
        {canChange ? (
          <form method="post" action="/console/admin/webhooks" class="inline" aria-label="Set the webhook endpoint">
            <Csrf token={csrf} />
            <div>
              <label for="w-url">Endpoint URL (https)</label>
              <input id="w-url" name="url" type="url" required maxlength={2000} size={50} />
            </div>
            <button type="submit">Set endpoint</button>
          </form>
        ) : null}
      </Page>,
    );
  });

  app.post('/admin/keys', async (c) => {
    const name = await field(c, 'name', 100);
    const { engine, session, csrf } = c.var;
    const key = await engine.auth.issue({ name, businessId: session.businessId }, actorOf(c));
    return c.html(
      <Page title="API key created" session={session} csrf={csrf} current="/console/admin">
        <Notice kind="info">The key {name} is created. Its secret is shown only now: copy it to the machine that will use it.</Notice>
        <dl class="facts">
          <dt>apiKey</dt>
          <dd>
            <code>{key.apiKey}</code>
          </dd>
          <dt>apiSecret</dt>
          <dd>
            <code>{key.apiSecret}</code>
          </dd>
          <dt>Webhook signing secret</dt>
          <dd>
            <code>{key.webhookSecret}</code>
          </dd>
        </dl>
        <p>
          <a href="/console/admin/keys">Back to API keys</a>
        </p>
      </Page>,
    );
  });

  app.post('/admin/keys/revoke', async (c) => {
    await c.var.engine.auth.revoke(await field(c, 'apiKey', 200), actorOf(c));
    return c.redirect('/console/admin/keys', 303);
  });

  app.post('/admin/webhooks', async (c) => {
    await webhookEndpoints.set(c, await field(c, 'url', 2000));
    return c.redirect('/console/admin/keys', 303);
  });
}
