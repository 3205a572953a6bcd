/** Examples of the screening answers: records as the bundled lists hold them. */

export const pepRecordExample = {
  aliases: ['Bola Tinubu'],
  birth_date: '1952-03-29',
  countries: ['ng'],
  entityType: 'Person',
  gender: 'male',
  photo: 'https://commons.wikimedia.org/wiki/Special:FilePath/Asiwaju%20Bola%20Ahmed%20Tinubu%20(5980497975).jpg',
  deceased: false,
  politicalParty: [],
  positions: [
    {
      title: 'Governor of Lagos State',
      startDate: '1999-05-29',
      endDate: '2007-05-29',
      _id: 'Q3510872:position:0',
    },
  ],
  education: [],
  dataset: [
    {
      name: 'Wikidata: Nigerian office-holders 1999–2022 (CC0)',
      url: 'https://www.wikidata.org/',
    },
  ],
  sanctions: [],
  overview:
    'Politically exposed person (Wikidata Q3510872). Former: Governor of Lagos State (1999-05-29–2007-05-29). Relative or close associate (spouse) of Oluremi Tinubu: member of the Senate of Nigeria (2015–)',
  lastUpdated: null,
  firstSeen: null,
  addresses: [],
  _id: 'pep-nigeria-wikidata:Q3510872',
  externalId: 'Q3510872',
  type: 'pep',
  name: 'Bola Ahmed Tinubu',
  listName: 'pep-nigeria-wikidata',
  listVersion: '51669023542a',
  relatedTo: [
    {
      _id: 'pep-nigeria-wikidata:Q7088857',
      name: 'Oluremi Tinubu',
      relationship: 'spouse',
    },
  ],
  sources: [
    {
      listName: 'pep-nigeria-wikidata',
      listVersion: '51669023542a',
      _id: 'pep-nigeria-wikidata:Q3510872',
      externalId: 'Q3510872',
      name: 'Bola Ahmed Tinubu',
      sanctions: [],
      dataset: [
        {
          name: 'Wikidata: Nigerian office-holders 1999–2022 (CC0)',
          url: 'https://www.wikidata.org/',
        },
      ],
      firstSeen: null,
      lastUpdated: null,
    },
  ],
  searchScore: 100,
  confidenceScore: 100,
  confirmedAt: null,
};

export const sanctionRecordExample = {
  aliases: ['PUTIN, Vladimir', 'Владимир Владимирович Путин'],
  birth_date: '1952-10-07',
  countries: ['ru'],
  entityType: 'Person',
  gender: 'male',
  photo: null,
  deceased: false,
  politicalParty: [],
  positions: [],
  education: [],
  dataset: [
    {
      name: 'OFAC Specially Designated Nationals (SDN) List',
      url: 'https://sanctionslist.ofac.treas.gov/',
    },
    {
      name: 'UK HM Treasury OFSI Consolidated List of Financial Sanctions Targets',
      url: 'https://www.gov.uk/government/publications/financial-sanctions-consolidated-list-of-targets',
    },
  ],
  sanctions: ['RUSSIA-EO14024', 'UK Russia RUS0251'],
  overview:
    'President of the Russian Federation. DOB 07 Oct 1952; POB Leningrad, Russia; nationality Russia; citizen Russia; Gender Male; President of the Russian Federation.\n\nPresident of the Russian Federation.',
  lastUpdated: null,
  firstSeen: null,
  addresses: [
    'Kremlin, Moscow, Russia',
    'Novo-Ogaryevo, Moscow Region, Russia',
    'Bocharov Ruchey, Sochi, Russia',
    'Valdai, Novgorod Region, Russia',
    'Moscow, Russia',
  ],
  _id: 'ofac-sdn:35096',
  externalId: '35096',
  type: 'sanction',
  name: 'PUTIN, Vladimir Vladimirovich',
  listName: 'ofac-sdn',
  listVersion: 'dac71e481b44',
  weakAliases: [],
  relatedTo: [],
  sources: [
    {
      listName: 'ofac-sdn',
      listVersion: 'dac71e481b44',
      _id: 'ofac-sdn:35096',
      externalId: '35096',
      name: 'PUTIN, Vladimir Vladimirovich',
      sanctions: ['RUSSIA-EO14024'],
      dataset: [
        {
          name: 'OFAC Specially Designated Nationals (SDN) List',
          url: 'https://sanctionslist.ofac.treas.gov/',
        },
      ],
      firstSeen: null,
      lastUpdated: null,
    },
    {
      listName: 'uk-ofsi-consolidated',
      listVersion: '050ae1663c3f',
      _id: 'uk-ofsi-consolidated:14196',
      externalId: 'RUS0251',
      name: 'PUTIN, Vladimir Vladimirovich',
      sanctions: ['UK Russia RUS0251'],
      dataset: [
        {
          name: 'UK HM Treasury OFSI Consolidated List of Financial Sanctions Targets',
          url: 'https://www.gov.uk/government/publications/financial-sanctions-consolidated-list-of-targets',
        },
      ],
      firstSeen: '2022-02-25',
      lastUpdated: '2023-03-21',
    },
  ],
  searchScore: 100,
  confidenceScore: 100,
  confirmedAt: null,
};

export const listsExample = [
  {
    list: 'ofac-consolidated',
    type: 'sanction',
    format: 'embedded',
    version: '243d587c0361',
    contentHash: '243d587c0361791b50aa3b610e21f0a4fecf837f3bb00f2767653e3d845ffaca',
    records: 442,
    publishedAt: null,
    importedAt: '2026-11-27T15:38:12.878Z',
  },
  {
    list: 'ofac-sdn',
    type: 'sanction',
    format: 'embedded',
    version: 'dac71e481b44',
    contentHash: 'dac71e481b44611a4c5a435f8feb4497c2e700593eb78490328d1dc728f3e3a5',
    records: 14965,
    publishedAt: null,
    importedAt: '2026-11-27T15:38:12.794Z',
  },
];

export const checkExample = {
  id: '6b09a3f94bce41b57825bca0',
  kind: 'sanction' as const,
  status: 'completed' as const,
  query: 'Vladimir Putin',
  parameters: {
    text: 'Vladimir Putin',
    limit: 5,
    threshold: 85,
    country: 'RU',
  },
  businessProfile: 'biz_6b09a3f760a92ed3bc904b74',
  callbackUrl: null,
  callbackSource: null,
  deliveryId: null,
  listVersions: [
    {
      name: 'ofac-consolidated',
      type: 'sanction' as const,
      version: '243d587c0361',
    },
    {
      name: 'ofac-sdn',
      type: 'sanction' as const,
      version: 'dac71e481b44',
    },
    {
      name: 'uk-ofsi-consolidated',
      type: 'sanction' as const,
      version: '050ae1663c3f',
    },
    {
      name: 'un-sc-consolidated',
      type: 'sanction' as const,
      version: 'a8d58b430f58',
    },
  ],
  result: {
    check_id: '6b09a3f94bce41b57825bca0',
    check_creation_date: '2026-11-27T15:38:33.375Z',
    last_screened_date: '2026-11-27T15:38:33.402Z',
    created_by: 'biz_6b09a3f760a92ed3bc904b74',
    results: [sanctionRecordExample],
    search_keyword: 'Vladimir Putin',
    type: 'sanction',
    country: 'RU',
  },
  error: null,
  createdAt: '2026-11-27T15:38:33.375Z',
  updatedAt: '2026-11-27T15:38:33.402Z',
  completedAt: '2026-11-27T15:38:33.402Z',
};
