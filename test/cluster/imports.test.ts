import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { tempDir } from '../helpers.js';
import { describePostgres } from '../postgres.js';
import { caughtUp, testCluster, type TestCluster } from './cluster.js';

const FEED = JSON.stringify({
  link: 'https://news.example/ng/7',
  title: 'Obadiah Fairweather-Nnamdi charged with money laundering',
  body: 'Prosecutors say Obadiah Fairweather-Nnamdi laundered bribes through shell companies.',
});
const SANCTIONS = 'id,name,aliases,birth_date,countries,program\nX9,Theodora Blackwood-Eze,,1971-02-03,NG,TEST-PROGRAM\n';

describePostgres('imported lists and news feeds with two nodes', () => {
  let cluster: TestCluster;
  const dir = tempDir('ce-imports-');
  beforeAll(async () => {
    cluster = await testCluster(2);
    writeFileSync(join(dir.path, 'feed.jsonl'), FEED);
    writeFileSync(join(dir.path, 'sanctions.csv'), SANCTIONS);
  }, 300_000);
  afterAll(async () => {
    await cluster.close();
    dir.remove();
  });

  it('screens on one node against a list and articles imported through the other', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    expect(await b.screening.adverseMedia('Obadiah Fairweather-Nnamdi')).toEqual([]);
    expect((await b.screening.screen({ name: 'Theodora Blackwood-Eze' })).sanction).toEqual([]);
    expect(await a.screening.importArticles(join(dir.path, 'feed.jsonl'))).toMatchObject({ changed: true, articles: 1 });
    expect(await a.screening.importList({ format: 'csv', path: join(dir.path, 'sanctions.csv'), list: 'cluster-sanctions' })).toMatchObject(
      {
        changed: true,
      },
    );
    await caughtUp(b, await a.store.head());
    // Node B's data folder never held these files: it reads them from the database.
    const hits = await b.screening.adverseMedia('Obadiah Fairweather-Nnamdi');
    expect(hits[0]).toMatchObject({ link: 'https://news.example/ng/7' });
    const { sanction } = await b.screening.screen({ name: 'Theodora Blackwood-Eze' });
    expect(sanction[0]).toMatchObject({ name: 'Theodora Blackwood-Eze', listName: 'cluster-sanctions' });
    // Imported again through node B: the same content, recognised by its hash.
    expect(await b.screening.importArticles(join(dir.path, 'feed.jsonl'))).toMatchObject({ changed: false });
  }, 120_000);
});
