import type { Hono } from 'hono';
import { num, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { Notice, Page, fmtDate } from '../layout.js';

const words = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean),
  );

/** A name searched over the lists in force, each candidate with its scores and what it shares with the query; and the lists. */
export function registerScreening(app: Hono<ConsoleEnv>): void {
  app.get('/screening', async (c) => {
    const { engine, session, csrf } = c.var;
    const name = (c.req.query('name') ?? '').trim();
    const country = (c.req.query('country') ?? '').trim().toUpperCase() || undefined;
    const birthDate = (c.req.query('birthDate') ?? '').trim() || undefined;
    const threshold = Number(c.req.query('threshold') || 70);
    const [lists, result] = await Promise.all([
      engine.screening.lists(),
      name ? engine.screening.screen({ name, country, birthDate, threshold, limit: 20 }) : undefined,
    ]);
    const query = words(name);
    const candidates = result ? [...result.sanction, ...result.pep].sort((a, b) => b.confidenceScore - a.confidenceScore) : [];
    return c.html(
      <Page title="Screening" session={session} csrf={csrf} current="/console/screening">
        <form method="get" action="/console/screening" class="inline" aria-label="Screen a name">
          <div>
            <label for="s-name">Name</label>
            <input id="s-name" name="name" type="search" value={name} required maxlength={300} size={30} />
          </div>
          <div>
            <label for="s-birth">Birth date or year</label>
            <input id="s-birth" name="birthDate" value={birthDate ?? ''} size={10} />
          </div>
          <div>
            <label for="s-country">Country (ISO 2)</label>
            <input id="s-country" name="country" value={country ?? ''} size={3} maxlength={2} />
          </div>
          <div>
            <label for="s-threshold">Minimum score</label>
            <input id="s-threshold" name="threshold" type="number" min={0} max={100} value={String(threshold)} />
          </div>
          <button type="submit">Screen</button>
        </form>
        {result && candidates.length === 0 ? <Notice kind="info">No candidate scores {threshold} or more.</Notice> : null}
        {candidates.length > 0 ? (
          <Table
            caption={<>Candidates for “{name}”</>}
            columns={['Candidate', 'List', num('Name score'), num('Confidence'), 'Why: shared words, birth date, countries']}
          >
            {candidates.map((r) => {
              const shared = [...words([r.name, ...r.aliases].join(' '))].filter((w) => query.has(w));
              return (
                <tr>
                  <td>
                    <strong>{r.name}</strong>
                    {r.aliases.length > 0 ? <div class="muted">aka {r.aliases.slice(0, 3).join('; ')}</div> : null}
                  </td>
                  <td>
                    {r.listName} <span class="muted">({r.type})</span>
                  </td>
                  <td class="num">{r.searchScore}</td>
                  <td class="num">{r.confidenceScore}</td>
                  <td>
                    words: {shared.join(', ') || 'none exactly (a spelling or sound match)'}; born: {r.birth_date ?? 'unknown'}
                    {birthDate ? (r.birth_date?.includes(birthDate.slice(0, 4)) ? ' (agrees)' : ' (differs or unknown)') : ''}; countries:{' '}
                    {r.countries.join(', ') || 'unknown'}
                    {country ? (r.countries.some((x) => x.toUpperCase() === country) ? ' (agrees)' : ' (differs or unknown)') : ''}
                  </td>
                </tr>
              );
            })}
          </Table>
        ) : null}
        <Table caption="Lists in force" columns={['List', 'Type', 'Version', num('Records'), 'Published', 'Imported']}>
          {lists.map((l) => (
            <tr>
              <td>{l.list}</td>
              <td>{l.type}</td>
              <td>
                <code>{l.version}</code>
              </td>
              <td class="num">{l.records}</td>
              <td>{fmtDate(l.published_at)}</td>
              <td>{fmtDate(l.imported_at)}</td>
            </tr>
          ))}
        </Table>
      </Page>,
    );
  });
}
