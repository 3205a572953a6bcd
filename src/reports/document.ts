// The goAML <report> of an STR or a threshold batch: the reporting entity, the reason and action, the transactions.
import type { MissingField, ReportingSettings } from './events.js';
import type { Fiu } from './fiu.js';
import { Gaps, goamlName, localSqlDate } from './parties.js';
import type { ReportedTransaction } from './ports.js';
import { type Parties, transactionNode } from './transactions.js';
import { leaf, maybe, node, type XmlNode } from './xml.js';

export interface DocumentInput {
  reportId: string;
  reportCode: string;
  indicators: readonly string[];
  /** When the report is drafted (ISO timestamp). */
  reportDate: string;
  reason: string | null;
  action: string | null;
  /** The FIU's reference of the rejected report this one corrects. */
  previousRejected: string | null;
  transactions: { tx: ReportedTransaction; parties: Parties }[];
}

/** The fired rules of the transactions, in words, each rule once: what made them suspicious. */
export function firedRulesInWords(transactions: readonly ReportedTransaction[]): string {
  const seen = new Map<string, string>();
  for (const tx of transactions) {
    for (const r of tx.ruleResult ?? []) if (!seen.has(r.id)) seen.set(r.id, `${r.title} (${r.id}): ${r.reason.message}`);
  }
  return seen.size === 0 ? 'No rule fired.' : `Rules fired: ${[...seen.values()].join('; ')}.`;
}

export function reportDocument(
  input: DocumentInput,
  settings: ReportingSettings,
  fiu: Fiu,
): { document: XmlNode; missing: MissingField[] } {
  const gaps = new Gaps('report');
  const p = settings.reportingPerson;
  const transactions = input.transactions.map(({ tx, parties }, i) =>
    transactionNode(tx, parties, settings, fiu, gaps.at(`transaction[${i}]`)),
  );
  if (transactions.length === 0) gaps.need('transaction', undefined, 'the report has no transactions');
  const document = node('report', [
    leaf('rentity_id', String(settings.rentityId)),
    maybe('rentity_branch', settings.branch),
    leaf('submission_code', 'E'),
    leaf('report_code', input.reportCode),
    leaf('entity_reference', input.reportId),
    maybe('prev_rejected_ref_number', input.previousRejected),
    leaf('report_date', localSqlDate(input.reportDate, settings.utcOffsetMinutes)!),
    leaf('currency_code_local', settings.currency),
    node('reporting_person', [
      leaf('first_name', goamlName(p.firstName) ?? ''),
      leaf('last_name', goamlName(p.lastName) ?? ''),
      p.phone
        ? node('phones', [
            node('phone', [leaf('tph_contact_type', 'BU'), leaf('tph_communication_type', 'L'), leaf('tph_number', p.phone)]),
          ])
        : undefined,
      maybe('email', p.email),
      maybe('occupation', p.occupation),
    ]),
    maybe('reason', input.reason?.slice(0, 8000)),
    maybe('action', input.action?.slice(0, 8000)),
    ...transactions,
    node(
      'report_indicators',
      input.indicators.map((i) => leaf('indicator', i)),
    ),
  ]);
  return { document, missing: gaps.missing };
}
