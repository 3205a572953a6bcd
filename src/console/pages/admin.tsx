import type { Hono, MiddlewareHandler } from 'hono';
import type { FC } from 'hono/jsx';
import { ACTION_LABELS, APPROVAL_ACTIONS, isApprovalAction } from '../../approvals/index.js';
import { ForbiddenError, ValidationError } from '../../errors.js';
import { CONSOLE_ROLES } from '../../users/index.js';
import { name, PostButton, Select, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { formText, formValues } from '../forms.js';
import { personOf } from '../approvals.js';
import { peopleOf } from '../people.js';
import { Csrf, Notice, Page, fmtDate } from '../layout.js';

/** An admin's form for a new person, who gets a one-time password. */
const AddPerson: FC<{ csrf: string }> = ({ csrf }) => (
  <>
    <h3>Add a person</h3>
    <form method="post" action="/console/admin/people" class="inline">
      <Csrf token={csrf} />
      <div>
        <label for="p-first">First name</label>
        <input id="p-first" name="firstName" required />
      </div>
      <div>
        <label for="p-last">Last name</label>
        <input id="p-last" name="lastName" required />
      </div>
      <div>
        <label for="p-email">Email</label>
        <input id="p-email" name="email" type="email" required />
      </div>
      <Select id="p-role" label="Role" name="role" options={CONSOLE_ROLES.map((r) => [r, r] as const)} />
      <button type="submit">Add person</button>
    </form>
  </>
);

/** People and the four-eyes policy. */
export function registerAdmin(app: Hono<ConsoleEnv>): void {
  // Admins change these; auditors read them (the console refuses an auditor's every change), analysts neither.
  const adminsAndAuditors: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
    if (c.var.session.role !== 'admin' && c.var.session.role !== 'auditor')
      throw new ForbiddenError('Only admins manage people, API keys and settings');
    await next();
  };
  app.use('/admin', adminsAndAuditors);
  app.use('/admin/*', adminsAndAuditors);

  app.get('/admin', async (c) => {
    const { engine, session, csrf } = c.var;
    const [users, policy, waiting] = await Promise.all([
      peopleOf(c),
      engine.approvals.policy(session.businessId),
      engine.signIn.throttled(session.businessId),
    ]);
    const canChange = session.role === 'admin';
    return c.html(
      <Page title="Admin" session={session} csrf={csrf} current="/console/admin">
        <ul class="plain">
          <li>
            <a href="/console/admin/keys">API keys</a>
          </li>
          <li>
            <a href="/console/admin/webhooks">Webhooks</a>
          </li>
        </ul>
        <h2>Four eyes</h2>
        <form method="post" action="/console/admin/approval-policy" class="stacked" aria-label="Four-eyes policy">
          <Csrf token={csrf} />
          <fieldset>
            <legend>These actions take effect only when a second person approves them (Approvals):</legend>
            {APPROVAL_ACTIONS.map((a) => (
              <div>
                <input
                  type="checkbox"
                  id={`policy-${a}`}
                  name="actions"
                  value={a}
                  checked={policy.includes(a)}
                  disabled={a === 'policy.change' || !canChange}
                />
                <label for={`policy-${a}`}>
                  {ACTION_LABELS[a]}
                  {a === 'policy.change' ? ' (always)' : ''}
                </label>
              </div>
            ))}
          </fieldset>
          {canChange ? (
            <div>
              <label for="policy-reason">Why (for the approver)</label>
              <input id="policy-reason" name="reason" maxlength={500} />
              <button type="submit">Ask to change the policy</button>
            </div>
          ) : null}
        </form>
        <h2>People</h2>
        <Table caption="People of this business" columns={['Name', 'Email', 'Role', 'Created', 'Sign-in']}>
          {users.map((u) => {
            const until = waiting.get(u._id);
            return (
              <tr>
                <td>{name(u)}</td>
                <td>{u.email}</td>
                <td>{u.role}</td>
                <td>{fmtDate(u.createdAt)}</td>
                <td>
                  {until ? (
                    <>
                      waits until {fmtDate(until)} after failed attempts
                      {canChange ? (
                        <PostButton
                          csrf={csrf}
                          action="/console/admin/people/unlock"
                          fields={{ userId: u._id }}
                          text="Unlock"
                          label={`Unlock the sign-in of ${name(u)}`}
                          kind="secondary"
                        />
                      ) : null}
                    </>
                  ) : (
                    'open'
                  )}
                </td>
              </tr>
            );
          })}
        </Table>
        {canChange ? <AddPerson csrf={csrf} /> : null}
      </Page>,
    );
  });
  // A change of the policy is always a request: a second person approves it in the inbox.
  app.post('/admin/approval-policy', async (c) => {
    const actions = (await formValues(c, 'actions')).filter(isApprovalAction);
    const reason = await formText(c, 'reason', { required: false, max: 500 });
    const request = await c.var.engine.approvals.request(c.var.session.businessId, personOf(c), {
      action: 'policy.change',
      subject: { kind: 'policy', id: 'four-eyes' },
      summary: `Four eyes on: ${actions.map((a) => ACTION_LABELS[a].toLowerCase()).join('; ') || 'nothing but this policy'}`,
      payload: { actions },
      reason,
    });
    return c.redirect(`/console/approvals/${request.request_id}`, 303);
  });

  app.post('/admin/people/unlock', async (c) => {
    const { session } = c.var;
    await c.var.engine.signIn.unlock(session.businessId, await formText(c, 'userId', { max: 100 }), session.user._id);
    return c.redirect('/console/admin', 303);
  });

  app.post('/admin/people', async (c) => {
    const body = await c.req.parseBody();
    const text = (k: string) => (typeof body[k] === 'string' ? (body[k] as string).trim() : '');
    const role = text('role');
    if (!(CONSOLE_ROLES as readonly string[]).includes(role))
      throw new ValidationError(`role must be one of: ${CONSOLE_ROLES.join(', ')}`, 'role');
    for (const field of ['firstName', 'lastName', 'email']) if (!text(field)) throw new ValidationError(`${field} is required`, field);
    const { engine, session, csrf } = c.var;
    const actor = { businessId: session.businessId, userId: session.user._id };
    const user = await engine.users.create(actor, { firstName: text('firstName'), lastName: text('lastName'), email: text('email'), role });
    const password = await engine.signIn.issueOneTimePassword(session.businessId, user._id, session.user._id);
    return c.html(
      <Page title="Person added" session={session} csrf={csrf} current="/console/admin">
        <Notice kind="info">
          {name(user)} ({user.email}, {user.role}) can sign in with the one-time password <code>{password}</code>, shown only now. They
          choose their own at the first sign-in.
        </Notice>
        <p>
          <a href="/console/admin">Back to admin</a>
        </p>
      </Page>,
    );
  });
}
