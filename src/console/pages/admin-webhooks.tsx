import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { EVENT_TYPES } from '../../webhooks/events.js';
import { PostButton, ShownOnce, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { actorOf, formText, formValues } from '../forms.js';
import { Csrf, Page, fmtDate } from '../layout.js';

const BACK = '/console/admin/webhooks';
const endpointPath = (id: string) => `${BACK}/endpoints/${encodeURIComponent(id)}`;

/** When each type is sent (docs/webhooks.md), beside its checkbox. */
const SENT_WHEN: Record<(typeof EVENT_TYPES)[number], string> = {
  'decision.created': 'every instant decision',
  'decision.flagged': 'a decision other than approved',
  'case.created': 'a case is opened',
  'case.updated': 'a case changes, other than its status or alerts',
  'case.status_changed': "a case's status changes",
  'case.alert_added': 'a flagged decision joins a case',
  'cdd.request.completed': 'a CDD request finishes its checks',
  'screening.match.found': 'a screening check finds a match',
  'report.status_changed': "a regulatory report's status changes",
};

/** The nine event types as labelled checkboxes in a fieldset, the `chosen` ones ticked. */
const EventTypeChoice: FC<{ chosen: readonly string[] }> = ({ chosen }) => (
  <fieldset class="choices">
    <legend>Event types</legend>
    {EVENT_TYPES.map((type) => (
      <label class="choice">
        <input type="checkbox" name="eventTypes" value={type} checked={chosen.includes(type)} />
        <span>
          <code>{type}</code> <span class="muted">{SENT_WHEN[type]}</span>
        </span>
      </label>
    ))}
  </fieldset>
);

/** An endpoint's types, in the order of the choice above whatever order they were given in. */
const TypeList: FC<{ types: readonly string[] }> = ({ types }) => (
  <ul class="plain">
    {EVENT_TYPES.filter((t) => types.includes(t)).map((t) => (
      <li>
        <code>{t}</code>
      </li>
    ))}
  </ul>
);

const RemoveEndpoint: FC<{ csrf: string; endpoint: { id: string; url: string }; text: string }> = ({ csrf, endpoint, text }) => (
  <PostButton
    csrf={csrf}
    action={`${endpointPath(endpoint.id)}/remove`}
    text={text}
    label={`Remove the endpoint ${endpoint.url}`}
    kind="danger"
  />
);

/**
 * The business's webhooks through the webhook service the API uses: its endpoints, each with its own event types
 * and secret (list, create with the secret shown once, change the types, rotate the secret, remove), and the
 * default endpoint.
 * Admins change them; auditors read them (the console refuses their changes).
 */
export function registerAdminWebhooks(app: Hono<ConsoleEnv>): void {
  app.get('/admin/webhooks', async (c) => {
    const { engine, session, csrf } = c.var;
    const [endpoints, fallback] = await Promise.all([
      engine.webhooks.endpoints.list(session.businessId),
      engine.webhooks.endpoint(session.businessId),
    ]);
    const canChange = session.role === 'admin';
    return c.html(
      <Page title="Webhooks" session={session} csrf={csrf} current="/console/admin">
        <p>
          <a href="/console/admin">← Admin</a>
        </p>
        <p>Each endpoint receives the event types it is subscribed to, signed with its own secret, from its creation on.</p>
        <Table
          caption={`Webhook endpoints (${endpoints.length})`}
          columns={['URL', 'Description', 'Event types', 'Created', ...(canChange ? ['Change', 'Remove'] : [])]}
        >
          {endpoints.map((e) => (
            <tr>
              <td class="wrap">
                <code>{e.url}</code>
              </td>
              <td>{e.description || '—'}</td>
              <td>
                <TypeList types={e.eventTypes} />
              </td>
              <td>{fmtDate(e.createdAt)}</td>
              {canChange ? (
                <>
                  <td>
                    <a href={endpointPath(e.id)} aria-label={`Change the event types of ${e.url}`}>
                      Change types
                    </a>
                  </td>
                  <td>
                    <RemoveEndpoint csrf={csrf} endpoint={e} text="Remove" />
                  </td>
                </>
              ) : null}
            </tr>
          ))}
        </Table>
        {endpoints.length === 0 ? <p class="muted">No endpoint is subscribed to any event type.</p> : null}
        {canChange ? (
          <section aria-labelledby="new-endpoint-h">
            <h2 id="new-endpoint-h">Add an endpoint</h2>
            <form method="post" action={`${BACK}/endpoints`} class="stacked">
              <Csrf token={csrf} />
              <div>
                <label for="e-url">Endpoint URL (https)</label>
                <input id="e-url" name="url" type="url" required maxlength={2000} />
              </div>
              <div>
                <label for="e-description">Description (optional)</label>
                <input id="e-description" name="description" maxlength={500} />
              </div>
              <EventTypeChoice chosen={[]} />
              <div>
                <button type="submit">Create endpoint</button>
              </div>
            </form>
          </section>
        ) : null}

        <h2>Default endpoint</h2>
        <p>Where screening results go, apart from the endpoints above.</p>
        <Table caption="Default webhook endpoint" columns={['URL', 'Set']}>
          {fallback.url ? (
            <tr>
              <td class="wrap">
                <code>{fallback.url}</code>
              </td>
              <td>{fmtDate(fallback.updatedAt)}</td>
            </tr>
          ) : null}
        </Table>
        {fallback.url ? null : <p class="muted">No default endpoint is set.</p>}
        {canChange ? (
          <form method="post" action={`${BACK}/default`} class="inline" aria-label="Set the default webhook endpoint">
            <Csrf token={csrf} />
            <div>
              <label for="w-url">Default endpoint URL (https)</label>
              <input id="w-url" name="url" type="url" required maxlength={2000} size={50} />
            </div>
            <button type="submit">Set default endpoint</button>
          </form>
        ) : null}
      </Page>,
    );
  });

  app.post('/admin/webhooks/endpoints', async (c) => {
    const { engine, session, csrf } = c.var;
    const url = await formText(c, 'url', { max: 2000 });
    const description = await formText(c, 'description', { required: false, max: 500 });
    const eventTypes = await formValues(c, 'eventTypes');
    const created = await engine.webhooks.endpoints.create(actorOf(c), { url, eventTypes, description });
    return c.html(
      <ShownOnce
        title="Webhook endpoint created"
        session={session}
        csrf={csrf}
        notice="The endpoint is created. Its signing secret is shown only now: copy it to the receiver, which checks each delivery's signature with it."
        facts={[
          ['URL', <code>{created.url}</code>],
          ['Event types', <TypeList types={created.eventTypes} />],
          ['Signing secret', <code>{created.secret}</code>],
        ]}
        back={[BACK, 'Back to webhooks']}
      />,
    );
  });

  app.get('/admin/webhooks/endpoints/:id', async (c) => {
    const { engine, session, csrf } = c.var;
    const endpoint = await engine.webhooks.endpoints.get(session.businessId, c.req.param('id'));
    const canChange = session.role === 'admin';
    return c.html(
      <Page title="Webhook endpoint" session={session} csrf={csrf} current="/console/admin">
        <p>
          <a href={BACK}>← Webhooks</a>
        </p>
        <dl class="facts">
          <dt>URL</dt>
          <dd>
            <code>{endpoint.url}</code>
          </dd>
          <dt>Description</dt>
          <dd>{endpoint.description || '—'}</dd>
          <dt>Created</dt>
          <dd>{fmtDate(endpoint.createdAt)}</dd>
          <dt>Changed</dt>
          <dd>{fmtDate(endpoint.updatedAt)}</dd>
          {canChange ? null : (
            <>
              <dt>Event types</dt>
              <dd>
                <TypeList types={endpoint.eventTypes} />
              </dd>
            </>
          )}
        </dl>
        {canChange ? (
          <>
            <form method="post" action={`${endpointPath(endpoint.id)}/types`} class="stacked">
              <Csrf token={csrf} />
              <EventTypeChoice chosen={endpoint.eventTypes} />
              <div>
                <button type="submit">Save event types</button>
              </div>
            </form>
            <h2>Signing secret</h2>
            <p>A new secret is shown once; the current one keeps signing beside it for 24 hours, while the receiver changes over.</p>
            <PostButton
              csrf={csrf}
              action={`${endpointPath(endpoint.id)}/rotate`}
              text="Rotate secret"
              label={`Rotate the signing secret of ${endpoint.url}`}
              kind="secondary"
            />
            <h2>Removal</h2>
            <p>Nothing more is sent to a removed endpoint, and deliveries still pending to it are given up.</p>
            <RemoveEndpoint csrf={csrf} endpoint={endpoint} text="Remove endpoint" />
          </>
        ) : null}
      </Page>,
    );
  });

  app.post('/admin/webhooks/endpoints/:id/types', async (c) => {
    const eventTypes = await formValues(c, 'eventTypes');
    await c.var.engine.webhooks.endpoints.update(actorOf(c), c.req.param('id'), { eventTypes });
    return c.redirect(BACK, 303);
  });

  app.post('/admin/webhooks/endpoints/:id/rotate', async (c) => {
    const { engine, session, csrf } = c.var;
    const rotated = await engine.webhooks.endpoints.rotateSecret(actorOf(c), c.req.param('id'));
    return c.html(
      <ShownOnce
        title="Signing secret rotated"
        session={session}
        csrf={csrf}
        notice={`The new secret is shown only now. The previous one keeps signing beside it until ${fmtDate(rotated.previousValidUntil)}.`}
        facts={[['Signing secret', <code>{rotated.secret}</code>]]}
        back={[BACK, 'Back to webhooks']}
      />,
    );
  });

  app.post('/admin/webhooks/endpoints/:id/remove', async (c) => {
    await c.var.engine.webhooks.endpoints.delete(actorOf(c), c.req.param('id'));
    return c.redirect(BACK, 303);
  });

  app.post('/admin/webhooks/default', async (c) => {
    await c.var.engine.webhooks.setEndpoint(actorOf(c), await formText(c, 'url', { max: 2000 }));
    return c.redirect(BACK, 303);
  });
}
