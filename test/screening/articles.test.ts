import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempDir, testEngine, type TestEngine } from '../helpers.js';

let dir: ReturnType<typeof tempDir>;
let server: TestEngine;

const FEED = [
  {
    link: 'https://news.example/ng/1',
    title: 'Zebulon Quartermaine charged with money laundering',
    origin: 'news.example',
    publishedAt: '2026-10-01',
    body: 'Prosecutors say Zebulon Quartermaine laundered bribes through shell companies and embezzled public funds.',
  },
  { link: 'https://news.example/ng/2', title: 'Local football club wins cup', body: 'The club celebrated its first trophy in a decade.' },
]
  .map((a) => JSON.stringify(a))
  .join('\n');

beforeAll(async () => {
  dir = tempDir();
  writeFileSync(join(dir.path, 'feed.jsonl'), FEED);
  writeFileSync(join(dir.path, 'feed.txt'), FEED);
  server = await testEngine({ dataDir: dir.path });
}, 60_000);

afterAll(async () => {
  await server.engine.close();
  dir.remove();
});

it('imports a news feed as an event that a running engine picks up; the same file again is a no-op', async () => {
  expect(await server.engine.screening.adverseMedia('Zebulon Quartermaine')).toEqual([]);
  const first = await runCli(dir.path, 'screening', 'import-articles', join(dir.path, 'feed.jsonl'));
  expect(first.code).toBe(0);
  expect(JSON.parse(first.stdout)).toMatchObject({ changed: true, articles: 2 });
  expect((await runCli(dir.path, 'screening', 'import-articles', join(dir.path, 'feed.jsonl'))).stdout).toContain('"changed":false');

  await server.engine.store.catchUp();
  const hits = await server.engine.screening.adverseMedia('Zebulon Quartermaine');
  expect(hits[0]).toMatchObject({ title: 'Zebulon Quartermaine charged with money laundering', link: 'https://news.example/ng/1' });
  expect(hits[0]!.adverseInformation.map((i) => i.keyword)).toEqual(expect.arrayContaining(['money laundering', 'bribery']));
});

it('keeps imported articles across a restart, and refuses a file that is not .csv or .jsonl', async () => {
  const reopened = await testEngine({ dataDir: dir.path });
  try {
    expect((await reopened.engine.screening.adverseMedia('Zebulon Quartermaine')).length).toBe(1);
    await expect(reopened.engine.screening.importArticles(join(dir.path, 'feed.txt'))).rejects.toThrow(/must be a \.csv or \.jsonl file/);
  } finally {
    await reopened.engine.close();
  }
});
