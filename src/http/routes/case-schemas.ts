import { z } from '@hono/zod-openapi';
import { BULK_LIMIT, CASE_DISPOSITIONS, CASE_GROUPINGS, CASE_MODULES, CASE_PRIORITIES, CASE_STATUSES } from '../../cases/index.js';
import { pagingQuery } from '../paging.js';

/** The Case resource as the interface shows it, and the bodies of the case-management writes. */
const UserRef = z.object({ _id: z.string(), firstName: z.string(), lastName: z.string() }).openapi('UserRef');
const Attachment = z.object({ key: z.string(), contentType: z.string(), size: z.number().int(), sha256: z.string() });

export const Case = z
  .object({
    _id: z.string(),
    businessProfile: z.string(),
    module: z.enum(CASE_MODULES),
    record: z.object({ id: z.string(), type: z.string(), name: z.string() }),
    title: z.string(),
    description: z.string(),
    priority: z.enum(CASE_PRIORITIES),
    status: z.enum(CASE_STATUSES),
    assignedTo: UserRef.nullable(),
    assignedBy: UserRef.nullable(),
    dueDate: z.string().nullable(),
    tasks: z.array(z.object({ _id: z.string(), text: z.string(), status: z.boolean() })),
    comments: z.array(
      z.object({
        _id: z.string(),
        text: z.string(),
        user: UserRef,
        attachments: z.array(Attachment),
        taggedUsers: z.array(UserRef),
        date: z.string(),
      }),
    ),
    attachments: z.array(Attachment.extend({ _id: z.string(), user: UserRef, date: z.string() })),
    isEscalated: z.boolean(),
    log: z.array(z.object({ _id: z.string(), status: z.enum(CASE_STATUSES), message: z.string(), user: UserRef, date: z.string() })),
    createdAt: z.string(),
    updatedAt: z.string(),
    subject: z
      .string()
      .openapi({ description: 'Grouping key: `user:ID` or `account:ID` for a case alerts joined, else the record as `TYPE:ID`' }),
    disposition: z.enum(CASE_DISPOSITIONS).nullable(),
    alerts: z
      .array(
        z.object({
          _id: z.string(),
          transactionId: z.string(),
          reference: z.string(),
          action: z.string(),
          score: z.string(),
          priority: z.enum(CASE_PRIORITIES),
          rules: z.array(z.string()),
          decidedAt: z.string(),
          reason: z.string(),
          date: z.string(),
        }),
      )
      .openapi({ description: 'The decisions that were not approved, in the order they joined' }),
    counts: z
      .object({ alerts: z.number(), comments: z.number(), attachments: z.number(), tasks: z.number(), log: z.number() })
      .openapi({ description: 'Sizes of the lists; a listed case carries only the latest 3 entries of each' }),
  })
  .openapi('Case');

const apiKeyActor = { _id: 'apikey:ck_Bw6q9DXDDu7VZBgZID5BkIPt', firstName: 'API key', lastName: 'acme' };

/** One case as the examples of the case answers show it. */
export const caseExample: z.input<typeof Case> = {
  _id: '6b09a3f8f77bd077fca3f7b1',
  businessProfile: 'biz_6b09a3f760a92ed3bc904b74',
  module: 'transaction-monitoring',
  record: { id: '6b096e0d-99859ac9c0846c36', type: 'transaction', name: 'NIP-000123' },
  title: 'Transfer to a blacklisted account',
  description: 'Rejected by the blacklist rule; confirm with the customer before release.',
  priority: 'critical',
  status: 'in progress',
  assignedTo: null,
  assignedBy: null,
  dueDate: '2026-02-01T00:00:00.000Z',
  tasks: [{ _id: '6b09a3f89808d16200f5c4fa', text: 'Call the customer', status: false }],
  comments: [
    {
      _id: '6b09a3f88af2237bf4302a4a',
      text: 'Customer confirmed the transfer by phone.',
      user: apiKeyActor,
      attachments: [],
      taggedUsers: [],
      date: '2026-11-27T15:38:32.455Z',
    },
  ],
  attachments: [],
  isEscalated: true,
  log: [
    {
      _id: '01a21da8-81fa-76c0-8085-bbb59be93dbf',
      status: 'open',
      message: 'Case created',
      user: apiKeyActor,
      date: '2026-11-27T15:38:32.314Z',
    },
    {
      _id: '01a21da8-8203-7e51-b1d4-59a9a1f0c4e2',
      status: 'in progress',
      message: 'Status changed from open to in progress',
      user: apiKeyActor,
      date: '2026-11-27T15:38:32.409Z',
    },
  ],
  createdAt: '2026-11-27T15:38:32.314Z',
  updatedAt: '2026-11-27T15:38:32.525Z',
  subject: 'transaction:6b096e0d-99859ac9c0846c36',
  disposition: null,
  alerts: [],
  counts: { alerts: 0, comments: 0, attachments: 0, tasks: 0, log: 1 },
};

export const ListedCase = Case.extend({
  dueAt: z.string().openapi({
    description: "When the case is due: its own dueDate, else its opening plus its priority's hours (settings dueHours)",
  }),
  isOverdue: z.boolean().openapi({ description: 'dueAt past while not resolved or closed, as of the request' }),
}).openapi('ListedCase');

const text = z.string().trim().min(1).max(10_000);
const dueDate = z.iso.datetime({ offset: true }).openapi({ example: '2026-02-01T00:00:00.000Z' });

export const CreateCase = z.strictObject({
  module: z.enum(CASE_MODULES),
  record: z.strictObject({ id: z.string().trim().min(1), type: z.string().trim().min(1), name: z.string().trim().min(1) }),
  title: z.string().trim().min(1).max(500),
  description: z.string().max(10_000).default(''),
  priority: z.enum(CASE_PRIORITIES),
  assignedTo: z.string().min(1).optional().openapi({ description: 'Id of a user of the business' }),
  dueDate: dueDate.optional(),
  tasks: z.array(text).max(100).default([]),
});

export const UpdateCase = z
  .strictObject({
    status: z.enum(CASE_STATUSES).optional(),
    priority: z.enum(CASE_PRIORITIES).optional(),
    assignedTo: z.string().min(1).optional(),
    dueDate: dueDate.nullable().optional().openapi({ description: 'null removes the due date' }),
    isEscalated: z.boolean().optional(),
    disposition: z.enum(CASE_DISPOSITIONS).optional().openapi({ description: 'With `status: closed` only, which requires it' }),
    note: text.optional().openapi({ description: 'With `status: closed` only: why, logged as a comment with the closure' }),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'set at least one of status, priority, assignedTo, dueDate, isEscalated',
    // Only when the fields themselves are valid, so that a misspelt field gets one clear message.
    when: (payload) => payload.issues.length === 0,
  })
  .refine((body) => (body.status === 'closed') === (body.disposition !== undefined), {
    message: 'a disposition is given exactly when status is closed',
    path: ['disposition'],
    when: (payload) => payload.issues.length === 0,
  })
  .refine((body) => body.note === undefined || body.status === 'closed', {
    message: 'a note is given only with status closed',
    path: ['note'],
    when: (payload) => payload.issues.length === 0,
  });

export const AddComment = z.strictObject({
  text,
  attachments: z.array(z.string().min(1)).max(20).default([]).openapi({ description: 'Keys of completed uploads' }),
  taggedUsers: z.array(z.string().min(1)).max(50).default([]).openapi({ description: 'Ids of users of the business' }),
});

export const AddTask = z.strictObject({ text });
export const SetTaskStatus = z.strictObject({ status: z.boolean() });
export const AddAttachment = z.strictObject({ key: z.string().min(1).openapi({ description: 'Key of a completed upload' }) });

const caseFilters = {
  status: z.enum(CASE_STATUSES).optional(),
  module: z.enum(CASE_MODULES).optional(),
  priority: z.enum(CASE_PRIORITIES).optional(),
  assignedTo: z.string().min(1).optional(),
  recordId: z.string().min(1).optional(),
  subject: z.string().min(1).optional().openapi({ description: '`user:ID`, `account:ID`, or a record as `TYPE:ID`' }),
  disposition: z.enum(CASE_DISPOSITIONS).optional(),
  openedAfter: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Opened at or after this instant' }),
  openedBefore: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Opened at or before this instant' }),
};

export const CaseListQuery = pagingQuery.extend({
  ...caseFilters,
  minAlerts: z.coerce.number().int().min(0).optional().openapi({ description: 'At least this many alerts' }),
});

export const BulkCases = z
  .strictObject({
    caseIds: z.array(z.string().min(1)).min(1).max(BULK_LIMIT).optional(),
    filters: z
      .strictObject({ ...caseFilters, minAlerts: z.number().int().min(0).optional() })
      .optional()
      .openapi({ description: `The listing's filters; at most ${BULK_LIMIT} cases may match` }),
    action: z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('assign'), assignedTo: z.string().min(1).openapi({ description: 'Id of a user of the business' }) }),
      z.strictObject({
        type: z.literal('status'),
        status: z.enum(CASE_STATUSES).exclude(['closed']).openapi({ description: 'Closing is the close action, with a disposition' }),
      }),
      z.strictObject({ type: z.literal('priority'), priority: z.enum(CASE_PRIORITIES) }),
      z.strictObject({ type: z.literal('close'), disposition: z.enum(CASE_DISPOSITIONS), note: text.optional() }),
    ]),
  })
  .refine((body) => (body.caseIds === undefined) !== (body.filters === undefined), {
    message: 'give exactly one of caseIds, filters',
    path: ['caseIds'],
    when: (payload) => payload.issues.length === 0,
  });

export const BulkOutcome = z
  .object({
    results: z.array(
      z.object({
        caseId: z.string(),
        ok: z.boolean(),
        requestId: z.string().optional().openapi({ description: 'The closure waits for a second person as this approval request' }),
        error: z.string().optional().openapi({ description: 'conflict, not_found, forbidden' }),
        message: z.string().optional(),
      }),
    ),
    succeeded: z.number().openapi({ description: 'Cases changed' }),
    waiting: z.number().openapi({ description: 'Closures recorded as requests for a second person' }),
    failed: z.number(),
  })
  .openapi('BulkOutcome');

export const CaseSettingsBody = z
  .strictObject({
    fourEyes: z.boolean().optional(),
    groupBy: z
      .enum(CASE_GROUPINGS)
      .optional()
      .openapi({ description: 'customer: the user, else the sending account; account: the sending account, else the user' }),
    freshCaseAfterHours: z
      .number()
      .positive()
      .max(24 * 366)
      .nullable()
      .optional()
      .openapi({
        description: "An open case older than this takes no more alerts; the subject's next alert opens a fresh case. null: never",
      }),
    timeZone: z
      .string()
      .max(64)
      .optional()
      .openapi({ description: 'The IANA time zone the console shows times in', example: 'Europe/London' }),
    dueHours: z
      .strictObject(
        Object.fromEntries(
          CASE_PRIORITIES.map((p) => [
            p,
            z
              .number()
              .positive()
              .max(24 * 366)
              .optional(),
          ]),
        ),
      )
      .optional()
      .openapi({ description: 'Hours from opening to the due date of a case without one of its own, by priority' }),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'set at least one of fourEyes, groupBy, freshCaseAfterHours, timeZone, dueHours',
    when: (payload) => payload.issues.length === 0,
  });

export const CaseSettings = z
  .object({
    fourEyes: z.boolean(),
    groupBy: z.enum(CASE_GROUPINGS),
    freshCaseAfterHours: z.number().nullable(),
    timeZone: z.string(),
    dueHours: z.record(z.enum(CASE_PRIORITIES), z.number()),
  })
  .openapi('CaseSettings');
