// The docs runner's own parts (test/support/doc-blocks.ts): which blocks run, what stands for a documented answer, and
// that an answer which drifts is caught while ids and times that vary are not.
import { expect, it } from 'vitest';
import { blocksOf, compareAnswer, kindOf, substitute, withAnswers } from './support/doc-blocks.js';

const page = [
  '```sh',
  "curl -s http://localhost:8080/a -d '{",
  '  "x": 1}\'',
  '```',
  'The answer:',
  '```json',
  '{"id":"6b096d216c7f2f38cee271ac","at":"2026-11-27T11:44:33.833Z","status":"open"}',
  '```',
  '',
  '<!-- illustration -->',
  '```sh',
  'npm start',
  '```',
  '```ts',
  'const x: number = 1;',
  '```',
].join('\n');

it('reads a curl block with its answer, a marked illustration, and an unmarked TypeScript block', () => {
  const [curl, start, ts] = blocksOf('page.md', page);
  expect(kindOf(curl!)).toBe('curl');
  expect(curl!.answer?.code).toContain('"status":"open"');
  expect(start).toMatchObject({ illustration: true });
  expect(kindOf(start!)).toBe('shell');
  expect(ts).toMatchObject({ illustration: false, lang: 'ts' });
});

it('fails a drifted answer, masks what varies, and binds a shown id to the printed one', () => {
  const [curl] = blocksOf('page.md', page);
  const bindings = new Map<string, string>();
  const same = '{"id":"6b0b29bfebeeb01e1627cc3a","at":"2026-11-28T19:21:35.652Z","status":"open"}';
  expect(compareAnswer(curl!.answer!.code, same, bindings)).toBeUndefined();
  expect(substitute('curl …/case/6b096d216c7f2f38cee271ac', bindings)).toBe('curl …/case/6b0b29bfebeeb01e1627cc3a');
  expect(compareAnswer(curl!.answer!.code, same.replace('open', 'closed'), new Map())).toMatch(/^printed /);
  expect(compareAnswer(curl!.answer!.code, '{"id":"6b0b29bfebeeb01e1627cc3a","status":"open"}', new Map())).toMatch(/^printed /);
  expect(
    withAnswers(page, [{ block: curl!.answer!, text: '{}' }])
      .split('\n')
      .slice(5, 8),
  ).toEqual(['```json', '{}', '```']);
});
