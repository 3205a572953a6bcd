import { describe, expect, it } from 'vitest';
import { parseOfacCsv } from '../../src/name-matching/sources/ofac-csv.js';
import { parseUnXml } from '../../src/name-matching/sources/un-xml.js';
import { parseFtmJson } from '../../src/name-matching/sources/ftm-json.js';
import { parseNameCsv } from '../../src/name-matching/sources/csv.js';
import { parseEveryPolitician } from '../../src/name-matching/sources/everypolitician.js';
import { readCsv } from '../../src/name-matching/sources/csv-reader.js';

describe('readCsv', () => {
  it('reads quotes, doubled quotes, embedded newlines and CRLF', () => {
    expect(readCsv('a,"b ""q"", c","multi\nline"\r\n1, 2 ,3\n')).toEqual([
      ['a', 'b "q", c', 'multi\nline'],
      ['1', '2', '3'],
    ]);
  });
});

describe('parseOfacCsv', () => {
  const primary = [
    '306,"BANCO NACIONAL DE CUBA",-0- ,"CUBA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"a.k.a. \'BNC\'."',
    '2674,"ABU ABBAS","individual","SDGT","Secretary General",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 10 Dec 1948; POB Safad, Israel; nationality Iraq; Gender Male; a.k.a. \'ABBAS, Abu\'; alt. DO"',
    '15036,"ALPHA STAR",vessel,"IRAN",-0- ,-0- ,"Crude Oil Tanker",-0- ,-0- ,"Panama",-0- ,"Vessel Registration Identification IMO 9999999."',
    '\u001a',
  ].join('\r\n');
  const alt = '306,220,"aka","NATIONAL BANK OF CUBA",-0- \r\n2674,1,"aka","ZAYDAN, Muhammad",-0- \r\n';
  const add = '306,199,"Zweierstrasse 35","Zurich CH-8022","Switzerland",-0- \r\n';
  const comments = '2674,"B 1950."\r\n';

  const list = parseOfacCsv({ primary, alt, add, comments }, { listName: 'ofac-sdn' });

  it('joins aliases, addresses and comments by ent_num', () => {
    expect(list.entries).toHaveLength(3);
    const bank = list.entries[0]!;
    expect(bank).toMatchObject({
      _id: 'ofac-sdn:306',
      externalId: '306',
      type: 'sanction',
      entityType: 'Organization',
      aliases: ['NATIONAL BANK OF CUBA', 'BNC'],
      addresses: ['Zweierstrasse 35, Zurich CH-8022, Switzerland'],
      countries: ['ch'],
      sanctions: ['CUBA'],
      listName: 'ofac-sdn',
      listVersion: list.version,
    });
  });

  it('reads DOB, nationality, gender and inline aliases from remarks', () => {
    const person = list.entries[1]!;
    expect(person.entityType).toBe('Person');
    expect(person.birth_date).toBe('1948-12-10;1950');
    expect(person.countries).toEqual(['iq']);
    expect(person.gender).toBe('male');
    expect(person.aliases).toEqual(['ZAYDAN, Muhammad', 'ABBAS, Abu']);
    expect(person.overview).toContain('Secretary General');
  });

  it('maps vessels and their flag', () => {
    expect(list.entries[2]).toMatchObject({ entityType: 'Vessel', countries: ['pa'] });
  });

  it('hashes content: same input → same version, changed input → new version', () => {
    expect(parseOfacCsv({ primary, alt, add, comments }, { listName: 'ofac-sdn' }).contentHash).toBe(list.contentHash);
    expect(parseOfacCsv({ primary, alt }, { listName: 'ofac-sdn' }).version).not.toBe(list.version);
    expect(list.version).toBe(list.contentHash.slice(0, 12));
  });
});

describe('parseUnXml', () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<CONSOLIDATED_LIST dateGenerated="2026-02-27T00:00:09.554Z">
  <INDIVIDUALS><INDIVIDUAL>
    <DATAID>6908555</DATAID><FIRST_NAME>AYMAN</FIRST_NAME><SECOND_NAME>MUHAMMED RABI</SECOND_NAME><THIRD_NAME>AL-ZAWAHIRI</THIRD_NAME>
    <UN_LIST_TYPE>Al-Qaida</UN_LIST_TYPE><REFERENCE_NUMBER>QDi.006</REFERENCE_NUMBER><LISTED_ON>2001-01-25</LISTED_ON>
    <GENDER>Male</GENDER><COMMENTS1>Leader of Al-Qaida &amp; associates.</COMMENTS1>
    <DESIGNATION><VALUE>Operational and military leader</VALUE></DESIGNATION>
    <NATIONALITY><VALUE>Egypt</VALUE></NATIONALITY>
    <LAST_DAY_UPDATED><VALUE>2009-07-27</VALUE><VALUE>2011-06-20</VALUE></LAST_DAY_UPDATED>
    <INDIVIDUAL_ALIAS><QUALITY>Good</QUALITY><ALIAS_NAME>Ayman Al-Zawahari</ALIAS_NAME></INDIVIDUAL_ALIAS>
    <INDIVIDUAL_ALIAS><QUALITY>Low</QUALITY><ALIAS_NAME>Abu Mohammed</ALIAS_NAME></INDIVIDUAL_ALIAS>
    <INDIVIDUAL_ADDRESS><COUNTRY>Afghanistan</COUNTRY><NOTE>Possible location</NOTE></INDIVIDUAL_ADDRESS>
    <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>EXACT</TYPE_OF_DATE><DATE>1951-06-19</DATE></INDIVIDUAL_DATE_OF_BIRTH>
    <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>BETWEEN</TYPE_OF_DATE><FROM_YEAR>1952</FROM_YEAR><TO_YEAR>1953</TO_YEAR></INDIVIDUAL_DATE_OF_BIRTH>
  </INDIVIDUAL></INDIVIDUALS>
  <ENTITIES><ENTITY>
    <DATAID>6908402</DATAID><FIRST_NAME>ADF</FIRST_NAME><UN_LIST_TYPE>DRC</UN_LIST_TYPE><REFERENCE_NUMBER>CDe.001</REFERENCE_NUMBER>
    <ENTITY_ALIAS><QUALITY>a.k.a.</QUALITY><ALIAS_NAME>Allied Democratic Forces</ALIAS_NAME></ENTITY_ALIAS>
    <ENTITY_ADDRESS><STATE_PROVINCE>North Kivu</STATE_PROVINCE><COUNTRY>Democratic Republic of the Congo</COUNTRY></ENTITY_ADDRESS>
  </ENTITY></ENTITIES>
</CONSOLIDATED_LIST>`;
  const list = parseUnXml(xml, { listName: 'un' });

  it('maps individuals, keeping low-quality aliases marked as weak', () => {
    expect(list.publishedAt).toBe('2026-02-27T00:00:09.554Z');
    expect(list.entries[0]).toMatchObject({
      _id: 'un:6908555',
      externalId: 'QDi.006',
      name: 'AYMAN MUHAMMED RABI AL-ZAWAHIRI',
      aliases: ['Ayman Al-Zawahari', 'Abu Mohammed'],
      weakAliases: ['Abu Mohammed'],
      birth_date: '1951-06-19;1952;1953',
      countries: ['eg', 'af'],
      gender: 'male',
      entityType: 'Person',
      firstSeen: '2001-01-25',
      lastUpdated: '2011-06-20',
      sanctions: ['UN Al-Qaida QDi.006'],
    });
    expect(list.entries[0]!.overview).toContain('Al-Qaida & associates');
  });

  it('maps entities', () => {
    expect(list.entries[1]).toMatchObject({
      name: 'ADF',
      entityType: 'Organization',
      aliases: ['Allied Democratic Forces'],
      countries: ['cd'],
    });
  });

  it('rejects other XML', () => {
    expect(() => parseUnXml('<foo/>', { listName: 'un' })).toThrow(/CONSOLIDATED_LIST/);
  });
});

describe('parseFtmJson', () => {
  const lines = [
    JSON.stringify({
      id: 'Q7747',
      schema: 'Person',
      caption: 'Vladimir Putin',
      properties: {
        name: ['Vladimir Putin'],
        alias: ['Владимир Путин'],
        birthDate: ['1952-10-07'],
        nationality: ['ru'],
        gender: ['male'],
        position: ['President of Russia'],
        topics: ['role.pep', 'sanction'],
      },
      datasets: ['eu_fsf'],
      first_seen: '2022-02-25T00:00:00',
      last_change: '2024-01-01T00:00:00',
    }),
    JSON.stringify({ id: 'addr-1', schema: 'Address', properties: { full: ['Moscow'] } }),
    '',
  ].join('\n');

  it('keeps screening subjects and maps their properties', () => {
    const list = parseFtmJson(lines, { listName: 'opensanctions-pep' });
    expect(list.type).toBe('pep');
    expect(list.entries).toHaveLength(1);
    expect(list.entries[0]).toMatchObject({
      _id: 'opensanctions-pep:Q7747',
      name: 'Vladimir Putin',
      aliases: ['Владимир Путин'],
      birth_date: '1952-10-07',
      countries: ['ru'],
      gender: 'male',
      entityType: 'Person',
      positions: [{ title: 'President of Russia', startDate: null, endDate: null, _id: 'Q7747:position:0' }],
      dataset: [{ name: 'eu_fsf', url: 'https://www.opensanctions.org/datasets/eu_fsf/' }],
      sanctions: ['sanction'],
    });
  });

  it('names the line of a malformed entity', () => {
    expect(() => parseFtmJson('{"id": 1}\n', { listName: 'x' })).toThrow(/line 1/);
  });
});

describe('parseNameCsv', () => {
  it('reads a generic name list', () => {
    const csv =
      'id,name,aliases,dob,country,gender,positions,political_party,deceased\n' +
      'p1,Bola Tinubu,Asiwaju;Jagaban,1952-03-29,Nigeria,M,President of Nigeria,All Progressives Congress,false\n';
    const list = parseNameCsv(csv, { listName: 'pep' });
    expect(list.type).toBe('pep');
    expect(list.entries[0]).toMatchObject({
      _id: 'pep:p1',
      name: 'Bola Tinubu',
      aliases: ['Asiwaju', 'Jagaban'],
      birth_date: '1952-03-29',
      countries: ['ng'],
      gender: 'male',
      politicalParty: ['All Progressives Congress'],
      positions: [{ title: 'President of Nigeria' }],
      deceased: false,
    });
    expect(parseNameCsv(csv, { listName: 'local-blocklist' }).type).toBe('sanction');
  });
});

describe('parseEveryPolitician', () => {
  const header =
    'id,name,sort_name,email,twitter,facebook,group,group_id,area_id,area,chamber,term,start_date,end_date,image,gender,wikidata,wikidata_group,wikidata_area';
  const senate = `${header}\nc8b7,(Deceased) MALAM WAKILI,(Deceased) MALAM WAKILI,someone@example.com,,,All Progressives Congress,APC,x,"Bauchi South, Bauchi State",Senate,8,,,https://example.org/822.jpg,male,Q1,Q2,\n`;
  const reps = `${header}\nc8b7,MALAM WAKILI,WAKILI MALAM,,,,All Progressives Congress,APC,y,"Bauchi, Bauchi State",House of Representatives,8,2015-06-09,,,male,Q1,Q2,\n`;
  const list = parseEveryPolitician([senate, reps], { listName: 'pep-ng' });

  it('maps legislators to PEP records, merging a person across chambers', () => {
    expect(list.entries).toHaveLength(1);
    const e = list.entries[0]!;
    expect(e).toMatchObject({
      type: 'pep',
      name: 'MALAM WAKILI',
      deceased: true,
      countries: ['ng'],
      gender: 'male',
      politicalParty: ['All Progressives Congress'],
      photo: 'https://example.org/822.jpg',
      aliases: ['WAKILI MALAM'],
    });
    expect(e.positions.map((p) => p.title)).toEqual([
      'Senator, Bauchi South, Bauchi State (Nigerian National Assembly, term 8)',
      'Member, House of Representatives, Bauchi, Bauchi State (Nigerian National Assembly, term 8)',
    ]);
    expect(e.positions[1]!.startDate).toBe('2015-06-09');
  });

  it('never carries the email column', () => {
    expect(JSON.stringify(list)).not.toContain('example.com');
  });
});
