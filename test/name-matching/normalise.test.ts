import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normaliseKey, normaliseName } from '../../src/name-matching/normalise.js';
import { foldText } from '../../src/name-matching/fold.js';

describe('foldText', () => {
  it.each([
    ['José MÜLLER', 'jose muller'],
    ["O'Brien", 'obrien'],
    ['Jama’are', 'jamaare'],
    ['P.L.C.', 'plc'],
    ['Co.,Ltd', 'co ltd'],
    ['Сергей Лавров', 'sergei lavrov'],
    ['Straße Øresund', 'strasse oresund'],
  ])('%s → %s', (input, expected) => expect(foldText(input)).toBe(expected));

  it.each([
    // Khmer vowels after second-series consonants (ហ៊ុន: triisap makes ហ second-series); any-ascii gave "hon".
    ['ហ៊ុន សែន', 'hun saen'],
    ['វ៉្លាឌីមៀរ ពូទីន', 'vladimier putin'],
    // Burmese by syllable rhymes; any-ascii gave "mn'eanlhiun", "tnu".
    ['မင်းအောင်လှိုင်', 'minaunghlaing'],
    ['သန်းရွှေ', 'thanshwe'],
    ['ခင်ညွန့်', 'khinnyunt'],
    ['ထွန်းထွန်း', 'htunhtun'],
    // Katakana with its small kana; any-ascii gave "jiyoji", "matkasa", "tei".
    ['ジョージ・ブッシュ', 'joji busshu'],
    ['マッカーサー', 'makkasa'],
    ['ティム', 'timu'],
  ])('reads %s letter groups as one sound: %s', (input, expected) => expect(foldText(input)).toBe(expected));

  it.each([
    ['블라디미르 푸틴', 'vladimir putin'],
    ['ဗလာဒီမီယာ ပူတင်', 'vladimiya putin'],
    ['Βλαντίμιρ Βλαντίμιροβιτς Πούτιν', 'vladimir vladimirovich putin'],
    ['ウラジーミル・プーチン', 'vradimir putin'],
    ['ウラジーミロヴィチ', 'vradimirovich'],
  ])('reads %s as a foreign name: %s', (input, expected) => expect(foldText(input, true)).toBe(expected));
});

describe('normaliseName', () => {
  const cases: [string, string, string][] = [
    ['generic titles', 'Dr. Mrs. Jane Doe', 'jane doe'],
    ['West African honorific', 'Alhaji Aliko Dangote', 'aliko dangote'],
    ['West African honorific (female)', 'Alhaja Kuburat Bello', 'kuburat bello'],
    ['Hausa honorific', 'Hajiya Binta Musa', 'binta musa'],
    ['chieftaincy title', 'Chief Olu Falae', 'olu falae'],
    ['Yoruba title', 'Otunba Gbenga Daniel', 'gbenga daniel'],
    ['royal title', 'Oba Sikiru Adetona', 'sikiru adetona'],
    ['scholar title', 'Mallam Nuhu Ribadu', 'nuhu ribadu'],
    ['professional title', 'Engr. Musa Bello', 'musa bello'],
    ['stacked titles', 'Chief (Dr.) Mrs. Folake Adeyemi', 'folake adeyemi'],
    ['Arabic title', 'Sheikh Ahmed Yassin', 'ahmed yassin'],
    ['legal form Ltd', 'Dangote Cement Ltd', 'dangote cement'],
    ['legal forms Nig Ltd', 'Dangote Cement Nig. Ltd.', 'dangote cement'],
    ['legal form Plc', 'Zenith Bank Plc', 'zenith bank'],
    ['legal form Enterprises Limited', 'XYZ Enterprises Limited', 'xyz'],
    ['multi-word legal form', 'Banco Nacional S.A. de C.V.', 'banco nacional'],
    ['leading legal form', 'OOO Romashka', 'romashka'],
    ['article al-', 'Ayman al-Zawahiri', 'ayman zawahiri'],
    ['article el-', 'Abdel Fattah el-Sisi', 'abd fattah sisi'],
    ['bin', 'Osama bin Laden', 'osama laden'],
    ['ibn', 'Ahmad ibn Hanbal', 'ahmad hanbal'],
    ['abd al', 'Abd al-Rahman', 'abd rahman'],
    ['abdul split', 'Abdul Rahman', 'abd rahman'],
    ['abdul glued', 'Abdulrahman', 'abd rahman'],
    ['abdur glued', 'Abdurrahman', 'abd rahman'],
    ['abdel glued', 'Abdelkader', 'abd kader'],
    ['abdullah spellings', 'Abd Allah', 'abdullah'],
    ['abdallah', 'Abdallah', 'abdullah'],
    ['abou', 'Abou Bakr', 'abu bakr'],
  ];
  it.each(cases)('%s: %s', (_, input, expected) => expect(normaliseKey(input)).toBe(expected));

  it('keeps a name made only of a title or legal form', () => {
    expect(normaliseName('Chief')).toEqual(['chief']);
    expect(normaliseName('Limited')).toEqual(['limited']);
  });

  it('does not strip name words that are also titles in other positions', () => {
    expect(normaliseKey('Peter Obi')).toBe('peter obi');
    expect(normaliseKey('Emeka Eze')).toBe('emeka eze');
  });

  it('glued and split forms agree', () => {
    expect(normaliseKey('Abdulrahman Ali')).toBe(normaliseKey('Abdul Rahman Ali'));
    expect(normaliseKey('ABD-AL-RAHMAN')).toBe(normaliseKey('abdul rahman'));
  });

  it('is idempotent', () => {
    const nameLike = fc.array(
      fc.oneof(
        fc.constantFrom('Alhaji', 'Dr.', 'al-', 'Abdul', 'bin', 'Ltd', 'Plc', 'S.A.', 'el', 'Chief', "O'", 'Müller', 'Сергей'),
        fc.stringMatching(/^[A-Za-zÀ-ÿ' .-]{1,10}$/),
      ),
      { minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(nameLike, (parts) => {
        const once = normaliseKey(parts.join(' '));
        expect(normaliseKey(once)).toBe(once);
      }),
      // Two articles after the prefix: a pass that skipped one left the other to the next pass.
      { numRuns: 500, examples: [[['Abdul', 'el', 'iL', 'a.']]] },
    );
  });
});
