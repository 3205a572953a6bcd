/**
 * The UK OFSI consolidated list and the Nigerian PEPs from Wikidata, as bundled: parsed, versioned and found.
 */
import { embeddedFixture, LOAD_TIMEOUT } from './embedded-matcher.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Matcher } from '../../src/name-matching/matcher.js';
import type { ScreeningList } from '../../src/name-matching/records.js';
import { ukDate } from '../../src/name-matching/sources/ofsi-xlsx.js';
import { parseWikidataPep } from '../../src/name-matching/sources/wikidata-pep.js';

let lists: ScreeningList[];
let matcher: Matcher;

beforeAll(async () => {
  ({ lists, matcher } = await embeddedFixture());
}, LOAD_TIMEOUT);

const list = (name: string) => lists.find((l) => l.name === name)!;

describe('UK OFSI consolidated list (XLSX)', () => {
  it('groups the 18,798 name rows into the 4,688 designations, versioned by content', () => {
    const uk = list('uk-ofsi-consolidated');
    expect(uk.type).toBe('sanction');
    expect(uk.entries).toHaveLength(4688);
    expect(uk.publishedAt).toBe('2025-04-14');
    expect(uk.version).toMatch(/^[0-9a-f]{12}$/);
    expect(uk.entries.filter((e) => e.entityType === 'Person')).toHaveLength(3663);
    expect(uk.entries.filter((e) => e.entityType === 'Vessel')).toHaveLength(15);
  });

  it("maps Shekau's designation: names, UK reference, regime, birth year, nationality", () => {
    const shekau = list('uk-ofsi-consolidated').entries.find((e) => e._id === 'uk-ofsi-consolidated:13006')!;
    expect(shekau).toMatchObject({ externalId: 'AQD0118', birth_date: '1969', countries: ['ng'], entityType: 'Person' });
    expect(shekau.name).toMatch(/SHEKAU/);
    expect(shekau.sanctions[0]).toMatch(/^UK .*AQD0118$/);
  });

  it('reads dd/mm/yyyy dates with unknown parts as 00', () => {
    expect(ukDate('14/04/2025')).toBe('2025-04-14');
    expect(ukDate('00/05/1960')).toBe('1960-05');
    expect(ukDate('00/00/1960')).toBe('1960');
    expect(ukDate('circa 1960')).toBeNull();
  });

  it('gives one match for Shekau, who is on the OFAC, UN and UK lists', () => {
    const hits = matcher.screen({ name: 'Abubakar Shekau' }).sanction.filter((r) => /SHEKAU/.test(r.name));
    expect(hits).toHaveLength(1);
    expect(hits[0]!.sources.map((s) => s.listName).sort()).toEqual(['ofac-sdn', 'uk-ofsi-consolidated', 'un-sc-consolidated']);
  });
});

describe('Nigerian PEPs from Wikidata', () => {
  it('finds Bola Ahmed Tinubu as the former Governor of Lagos State', () => {
    const [hit] = matcher.screen({ name: 'Bola Ahmed Tinubu' }).pep;
    expect(hit).toMatchObject({ name: 'Bola Ahmed Tinubu', type: 'pep', birth_date: '1952-03-29', listName: 'pep-nigeria-wikidata' });
    expect(hit!.positions).toContainEqual(
      expect.objectContaining({ title: 'Governor of Lagos State', startDate: '1999-05-29', endDate: '2007-05-29' }),
    );
    expect(hit!.overview).toMatch(/Former: Governor of Lagos State \(1999-05-29–2007-05-29\)/);
  });

  it('keeps every office of a PEP, past ones included', () => {
    const yaradua = list('pep-nigeria-wikidata').entries.find((e) => e.name === "Umaru Musa Yar'Adua")!;
    expect(yaradua.positions.map((p) => p.title)).toEqual(expect.arrayContaining(['President', 'Governor of Katsina State']));
    expect(yaradua.deceased).toBe(true);
  });

  it('matches a relative as such, labelled with the PEP', () => {
    const hit = matcher.screen({ name: "Musa Yar'Adua" }).pep.find((r) => r.name === "Musa Yar'Adua")!;
    expect(hit.relatedTo).toEqual([{ _id: expect.stringMatching(/Q104705$/), name: "Umaru Musa Yar'Adua", relationship: 'father' }]);
    expect(hit.positions).toEqual([]);
    expect(hit.overview).toMatch(/^Relative or close associate \(father\) of Umaru Musa Yar'Adua: President/);
  });

  it('adds the relation to a relative who is a PEP in her own right, and merges her entries across PEP lists', () => {
    const hits = matcher.screen({ name: 'Oluremi Tinubu' }).pep;
    expect(hits).toHaveLength(1);
    expect(hits[0]!.relatedTo).toContainEqual(expect.objectContaining({ name: 'Bola Ahmed Tinubu', relationship: 'spouse' }));
    expect(hits[0]!.sources.map((s) => s.listName).sort()).toEqual(['pep-nigeria-nass', 'pep-nigeria-wikidata']);
  });

  it('parses a minimal export', () => {
    const header = 'position,person,personID,start,end,gender,DOB,DOD,image,enwiki\n';
    const parsed = parseWikidataPep(
      {
        holders: `${header}Minister of Finance,Ada Obi,Q1,2015-11-11,2019-05-29,female,1960-01-02,,,Ada Obi\n`,
        legislators: `${header}member of the Senate of Nigeria,Ada Obi,Q1,2019,,female,1960-01-02,,,Ada Obi\n`,
        family: 'id,name,relationship,relative,relativename\nQ1,Ada Obi,child,Q2,Chidi Obi\nQ9,Nobody,child,Q3,Orphan Row\n',
      },
      { listName: 'pep-x' },
    );
    expect(parsed.entries.map((e) => [e.name, e.positions.length, e.relatedTo?.length ?? 0])).toEqual([
      ['Ada Obi', 2, 0],
      ['Chidi Obi', 0, 1],
    ]);
  });
});
