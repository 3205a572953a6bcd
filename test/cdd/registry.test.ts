import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryImport } from '../../src/cli/registry.js';
import { createEngine } from '../../src/engine.js';
import { parseCompanyExtract, parseIdentityExtract, syntheticIdentities } from '../../src/registry/index.js';
import { screeningCacheDir, silentLogger, tempDir } from '../helpers.js';

const dir = tempDir();
const saved = process.env.DATA_DIR;
beforeAll(() => {
  process.env.DATA_DIR = dir.path;
});
afterAll(() => {
  process.env.DATA_DIR = saved;
  dir.remove();
});

describe('registry', () => {
  it('generates the same synthetic sample every time', () => {
    expect(syntheticIdentities().slice(0, 5)).toEqual(syntheticIdentities().slice(0, 5));
  });

  it('imports identity (CSV) and company (JSONL) extracts through the CLI, replacing sample rows', async () => {
    const csv = join(dir.path, 'ids.csv');
    writeFileSync(csv, 'kind,number,firstName,lastName,dob,gender\nbvn,22999999999,Ada,Obi,1990-01-02,female\n');
    const jsonl = join(dir.path, 'companies.jsonl');
    writeFileSync(
      jsonl,
      `${JSON.stringify({ companyType: 'BN', registrationNumber: 'BN 778', businessName: 'ADA STORES', status: 'ACTIVE', registrationDate: '2019-05-01', state: 'LAGOS', city: 'IKEJA', lga: 'IKEJA' })}\n`,
    );
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) };
    expect(await registryImport(['--kind', 'identity', csv], io)).toBe(0);
    expect(await registryImport(['--kind', 'company', jsonl], io)).toBe(0);
    expect(JSON.parse(out[0]!)).toMatchObject({ kind: 'identity', imported: 1 });
    expect(await registryImport(['--kind', 'x'], io)).toBe(2);
    const engine = await createEngine({ dataDir: dir.path, logger: silentLogger, tailIntervalMs: 0, screeningCacheDir });
    try {
      expect(await engine.registry.identity('bvn', '22999999999')).toMatchObject({ firstName: 'Ada', lastName: 'Obi', dob: '1990-01-02' });
      expect(await engine.registry.company('BN', '778')).toMatchObject({ businessName: 'ADA STORES', affiliates: 0, affiliatesData: [] });
      expect(await engine.registry.company('RC', '778')).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('refuses a bad extract naming the record and field', () => {
    expect(() => parseIdentityExtract('kind,number\npassport_x,1\n', 'csv')).toThrow(/record 1: kind/);
    expect(() => parseCompanyExtract('{"companyType":"RC"}\n', 'jsonl')).toThrow(/record 1: registrationNumber/);
  });
});
