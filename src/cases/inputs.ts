import { ValidationError } from '../errors.js';
import type { CaseActor } from './actors.js';
import {
  CASE_MODULES,
  CASE_PRIORITIES,
  type AttachmentRef,
  type CaseModule,
  type CasePriority,
  type CaseRecord,
  type CaseStatus,
} from './events.js';
import type { Case } from './read-model.js';

// What the case service takes, and the checks it makes of it before any command.

export interface OpeningInput {
  businessId: string;
  module: CaseModule;
  record: CaseRecord;
  title: string;
  description: string;
  priority: CasePriority;
  actor?: Omit<CaseActor, 'businessId'>;
  /**
   * The caller knows the record is brand new (no case can exist for it yet), so the reads are skipped; the
   * record-stream write still expects version 0, so a wrong guess fails the append with a conflict.
   */
  fresh?: boolean;
}

export interface NewCaseInput {
  module: CaseModule;
  record: CaseRecord;
  title: string;
  description: string;
  priority: CasePriority;
  assignedTo?: string;
  dueDate?: string | null;
  tasks?: string[];
}

export interface CaseUpdate {
  status?: CaseStatus;
  priority?: CasePriority;
  assignedTo?: string;
  dueDate?: string | null;
  isEscalated?: boolean;
}

/** Finds a completed upload of the business; undefined for a key never uploaded (or another business's). */
export type AttachmentLookup = (businessId: string, key: string) => Promise<AttachmentRef | undefined>;

/** A listed case with when it is due (its own due date, else by its priority) and whether that is past. */
export type ListedCase = Case & { dueAt: string; isOverdue: boolean };

export function checkOpening(input: OpeningInput): void {
  if (!CASE_MODULES.includes(input.module)) throw new ValidationError(`module must be one of: ${CASE_MODULES.join(', ')}`, 'module');
  if (!CASE_PRIORITIES.includes(input.priority))
    throw new ValidationError(`priority must be one of: ${CASE_PRIORITIES.join(', ')}`, 'priority');
  for (const field of ['id', 'type', 'name'] as const) {
    if (typeof input.record?.[field] !== 'string' || input.record[field].length === 0) {
      throw new ValidationError(`record.${field} is required`, `record.${field}`);
    }
  }
  if (!input.title) throw new ValidationError('title is required', 'title');
}

export const normaliseDate = (value: string | null | undefined, field: string): string | null | undefined => {
  if (value === undefined || value === null) return value;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new ValidationError(`${field} must be an ISO 8601 timestamp`, field);
  return date.toISOString();
};
