import { isActive } from './decider.js';
import type { CasePriority, CaseStatus } from './events.js';

export type DueHours = Record<CasePriority, number>;

interface Dated {
  dueDate: string | null;
  createdAt: string;
  priority: CasePriority;
  status: CaseStatus;
}

const HOUR_MS = 3_600_000;

/** When a case is due: its own due date, else its opening plus its priority's hours (the business's settings). */
export const dueAt = (k: Dated, hours: DueHours): string =>
  k.dueDate ?? new Date(Date.parse(k.createdAt) + hours[k.priority] * HOUR_MS).toISOString();

/** Overdue is a reading of the clock, not a stored fact: the due time past on an active case. */
export const isOverdue = (k: Dated, hours: DueHours, now: string): boolean => isActive(k.status) && dueAt(k, hours) < now;

/** For each priority, the opening time before which a case without a due date of its own is overdue at `now`. */
export function openedBeforeDue(hours: DueHours, now: string): Record<CasePriority, string> {
  const at = (h: number) => new Date(Date.parse(now) - h * HOUR_MS).toISOString();
  return { critical: at(hours.critical), high: at(hours.high), medium: at(hours.medium), low: at(hours.low) };
}
