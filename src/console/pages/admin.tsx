import type { Hono, MiddlewareHandler } from 'hono';
import type { FC } from 'hono/jsx';
import { ForbiddenError, ValidationError } from '../../errors.js';
import { CONSOLE_ROLES } from '../../users/index.js';
import { name, PostButton, Select, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { formText } from '../forms.js';
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

/** People and the four-eyes setting. */
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
    const [users, settings, waiting] = await Promise.all([
      peopleOf(c),
      engine.cases.settings(session.businessId),
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
        <form method="post" action="/console/admin/four-eyes" class="inline">
          <Csrf token={csrf} />
          <input type="hidden" name="fourEyes" value={settings.fourEyes ? 'off' : 'on'} />
          <p>
            Four eyes is <strong>{settings.fourEyes ? 'on' : 'off'}</strong>: closing a case with a disposition{' '}
            {settings.fourEyes ? 'takes a second person’s approval' : 'needs no second person'}.
          </p>
          {canChange ? <button type="submit">{settings.fourEyes ? 'Turn four eyes off' : 'Turn four eyes on'}</button> : null}
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
  app.post('/admin/four-eyes', async (c) => {
    const body = await c.req.parseBody();
    const { session } = c.var;
    await c.var.engine.cases.setFourEyes({ businessId: session.businessId, userId: session.user._id }, body.fourEyes === 'on');
    return c.redirect('/console/admin', 303);
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
