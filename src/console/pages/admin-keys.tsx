import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { IssuedKey } from '../../auth/index.js';
import type { Session } from '../../users/index.js';
import { PostButton, ShownOnce, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { actorOf, formText } from '../forms.js';
import { afterGate, personOf } from '../approvals.js';
import { Csrf, Page, fmtDate } from '../layout.js';

/** A new key's secrets, the one time they are shown. */
export const KeyShownOnce: FC<{ session: Session; csrf: string; issued: IssuedKey; notice: string; back: readonly [string, string] }> = ({
  session,
  csrf,
  issued,
  notice,
  back,
}) => (
  <ShownOnce
    title="API key created"
    session={session}
    csrf={csrf}
    notice={notice}
    facts={[
      ['apiKey', <code>{issued.apiKey}</code>],
      ['apiSecret', <code>{issued.apiSecret}</code>],
      ['Webhook signing secret', <code>{issued.webhookSecret}</code>],
    ]}
    back={back}
  />
);

/** The business's API keys: admins create them (the secret shown once) and revoke them, auditors read them. */
export function registerAdminKeys(app: Hono<ConsoleEnv>): void {
  app.get('/admin/keys', async (c) => {
    const { engine, session, csrf } = c.var;
    const keys = await engine.auth.listOf(session.businessId);
    const canChange = session.role === 'admin';
    return c.html(
      <Page title="API keys" session={session} csrf={csrf} current="/console/admin">
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
                    <PostButton
                      csrf={csrf}
                      action="/console/admin/keys/revoke"
                      fields={{ apiKey: k.apiKey }}
                      text="Revoke"
                      label={`Revoke the key ${k.name}`}
                      kind="danger"
                      confirm={`Revoke the key ${k.name}? Machines using it are refused from then on.`}
                    />
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
      </Page>,
    );
  });

  app.post('/admin/keys', async (c) => {
    const name = await formText(c, 'name', { max: 100 });
    const { engine, session, csrf } = c.var;
    const gated = await engine.approvals.gate(
      session.businessId,
      personOf(c),
      {
        action: 'apikey.create',
        subject: { kind: 'api-key', id: name },
        summary: `Create the API key ${name}`,
        payload: { name },
        reason: '',
      },
      () => engine.auth.issue({ name, businessId: session.businessId }, actorOf(c)),
    );
    if (!gated.done) return afterGate(c, gated, '/console/admin/keys');
    return c.html(
      <KeyShownOnce
        session={session}
        csrf={csrf}
        issued={gated.done}
        notice={`The key ${name} is created. Its secret is shown only now: copy it to the machine that will use it.`}
        back={['/console/admin/keys', 'Back to API keys']}
      />,
    );
  });

  app.post('/admin/keys/revoke', async (c) => {
    const apiKey = await formText(c, 'apiKey', { max: 200 });
    const { engine, session } = c.var;
    const gated = await engine.approvals.gate(
      session.businessId,
      personOf(c),
      {
        action: 'apikey.revoke',
        subject: { kind: 'api-key', id: apiKey },
        summary: `Revoke the API key ${apiKey}`,
        payload: { apiKey },
        reason: '',
      },
      () => engine.auth.revoke(apiKey, actorOf(c)),
    );
    return afterGate(c, gated, '/console/admin/keys');
  });
}
