import { describe, expect, it } from 'vitest';
import { CODE_LISTS, type CodeList, type Fiu } from '../../src/reports/fiu.js';
import { loadFius } from '../../src/reports/index.js';
import { shippedSchema } from '../../src/reports/schema.js';

/** The values the shipped schema enumerates for a code list. */
function schemaValues(type: CodeList): string[] {
  const xsd = shippedSchema();
  const start = xsd.indexOf(`<xs:simpleType name="${type}">`);
  const block = xsd.slice(start, xsd.indexOf('</xs:simpleType>', start));
  return [...block.matchAll(/<xs:enumeration value="([^"]*)"/g)].map((m) => m[1]!);
}

const listOf = (fiu: Fiu, type: CodeList) => fiu.codeLists[type] ?? schemaValues(type);

describe.each([...loadFius().values()].map((fiu) => [fiu.id, fiu] as const))('FIU configuration %s', (_, fiu) => {
  it('gives only codes its own lists (or the schema, for a list it leaves out) allow', () => {
    const mappings = [
      [fiu.fundsTypes, 'funds_type'],
      [fiu.conductionTypes, 'conduction_type'],
      [fiu.accountTypes, 'account_type'],
      [fiu.identifierTypes, 'identifier_type'],
    ] as const;
    for (const [mapping, type] of mappings) expect(listOf(fiu, type)).toEqual(expect.arrayContaining(Object.values(mapping)));
    expect(listOf(fiu, 'report_type')).toEqual(expect.arrayContaining(Object.values(fiu.reportCodes)));
    expect(listOf(fiu, 'report_indicator_type')).toEqual(expect.arrayContaining([...fiu.indicators.str, ...fiu.indicators.threshold]));
  });
});

it("keeps the NFIU's lists within the schema's but for its own report code CTR, so its STRs validate against the schema as shipped", () => {
  const nfiu = loadFius().get('nfiu')!;
  for (const type of CODE_LISTS) {
    const own = (nfiu.codeLists[type] ?? []).filter((v) => !(type === 'report_type' && v === 'CTR'));
    expect(schemaValues(type)).toEqual(expect.arrayContaining(own));
  }
  // The schema's values annotated as the UAE central bank's internal ones, or as Emirati and GCC documents, are not the NFIU's.
  expect(nfiu.codeLists.funds_type).not.toContain('POS');
  expect(nfiu.codeLists.identifier_type).not.toContain('EID');
});
