import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import type { Decider } from '../store/index.js';
import type { UserRef } from '../users/index.js';
import {
  CASE_PRIORITIES,
  dispositionOf,
  type AttachmentRef,
  type CaseDisposition,
  type CaseEvent,
  type CasePriority,
  type CaseStatus,
} from './events.js';

/**
 * Where a case may go next. An investigator picks a case up (`in progress`), may hand it for a second pair of
 * eyes (`pending review`, which can send it back), resolves it, and a resolved case is closed for good. An open
 * case can be closed straight away (a false positive dismissed without work). `closed` is final: a closed case
 * takes no further change of any kind.
 */
export const CASE_TRANSITIONS: Readonly<Record<CaseStatus, readonly CaseStatus[]>> = {
  open: ['in progress', 'closed'],
  'in progress': ['pending review', 'resolved'],
  'pending review': ['in progress', 'resolved'],
  resolved: ['closed'],
  closed: [],
};

/** A case stops collecting new occurrences of its record once it is resolved or closed. */
export const isActive = (status: CaseStatus) => status !== 'resolved' && status !== 'closed';

/** The higher of two priorities: a case's priority is the highest among its alerts. */
export const higherPriority = (a: CasePriority, b: CasePriority): CasePriority =>
  CASE_PRIORITIES.indexOf(a) >= CASE_PRIORITIES.indexOf(b) ? a : b;

export interface CaseState {
  exists: boolean;
  status: CaseStatus;
  priority: CasePriority;
  assigneeId: string | null;
  dueDate: string | null;
  isEscalated: boolean;
  tasks: Record<string, { text: string; status: boolean }>;
  /** A closure asked for under the case settings' old `fourEyes`, waiting for a second person. */
  pendingClosure: { disposition: CaseDisposition; requestedBy: UserRef } | null;
  disposition: CaseDisposition | null;
}

type Data<T extends CaseEvent['type']> = Extract<CaseEvent, { type: T }>['data'];

export interface CaseChanges {
  status?: CaseStatus;
  priority?: CasePriority;
  assignedTo?: UserRef;
  dueDate?: string | null;
  isEscalated?: boolean;
}

export type CaseCommand =
  | { type: 'OpenCase'; data: Data<'CaseOpened'> }
  | { type: 'LogOccurrence'; data: Data<'CaseOccurrenceLogged'> }
  | { type: 'AddAlert'; data: Data<'CaseAlertAdded'> }
  | { type: 'UpdateCase'; data: { caseId: string; by: UserRef; changes: CaseChanges } }
  | { type: 'AddComment'; data: Data<'CaseCommentAdded'> }
  | { type: 'AddTask'; data: Data<'CaseTaskAdded'> }
  | { type: 'SetTaskStatus'; data: { caseId: string; by: UserRef; taskId: string; status: boolean } }
  | { type: 'AddAttachment'; data: { caseId: string; by: UserRef; attachmentId: string; attachment: AttachmentRef } }
  | {
      type: 'CloseWithDisposition';
      data: {
        caseId: string;
        by: UserRef;
        disposition: CaseDisposition;
        /** Logged as a comment with the closure. */
        note?: { commentId: string; text: string };
      };
    }
  | { type: 'DecideClosure'; data: { caseId: string; by: UserRef; approve: boolean } }
  /** "Next case": `by` takes an active case nobody holds; refused once someone does, so two people never take one. */
  | { type: 'TakeCase'; data: { caseId: string; by: UserRef } };

const initialState = (): CaseState => ({
  exists: false,
  status: 'open',
  priority: 'low',
  assigneeId: null,
  dueDate: null,
  isEscalated: false,
  tasks: {},
  pendingClosure: null,
  disposition: null,
});

/** The field changes of an update, in log order; the status change comes last so the other entries show the state they were made in. */
function updateEvents(state: CaseState, { caseId, by, changes }: { caseId: string; by: UserRef; changes: CaseChanges }): CaseEvent[] {
  const events: CaseEvent[] = [];
  if (changes.priority !== undefined && changes.priority !== state.priority) {
    events.push({ type: 'CasePriorityChanged', data: { caseId, by, from: state.priority, to: changes.priority } });
  }
  if (changes.assignedTo !== undefined && changes.assignedTo._id !== state.assigneeId) {
    events.push({ type: 'CaseAssigned', data: { caseId, by, assignee: changes.assignedTo } });
  }
  if (changes.dueDate !== undefined && changes.dueDate !== state.dueDate) {
    events.push({ type: 'CaseDueDateChanged', data: { caseId, by, dueDate: changes.dueDate } });
  }
  if (changes.isEscalated !== undefined && changes.isEscalated !== state.isEscalated) {
    events.push({ type: 'CaseEscalationChanged', data: { caseId, by, isEscalated: changes.isEscalated } });
  }
  if (changes.status !== undefined && changes.status !== state.status) {
    if (state.pendingClosure) throw new ConflictError('A closure awaits a second person: approve or reject it first');
    if (!CASE_TRANSITIONS[state.status].includes(changes.status)) {
      throw new ConflictError(`Case status cannot change from ${state.status} to ${changes.status}`);
    }
    events.push({ type: 'CaseStatusChanged', data: { caseId, by, from: state.status, to: changes.status } });
  }
  return events;
}

function decideOnExisting(command: Exclude<CaseCommand, { type: 'OpenCase' }>, state: CaseState): CaseEvent[] {
  switch (command.type) {
    case 'LogOccurrence':
      if (!isActive(state.status)) throw new ConflictError(`Case is ${state.status}`);
      return [{ type: 'CaseOccurrenceLogged', data: command.data }];
    case 'AddAlert':
      if (!isActive(state.status)) throw new ConflictError(`Case is ${state.status}`);
      return [{ type: 'CaseAlertAdded', data: command.data }];
    case 'UpdateCase':
      return updateEvents(state, command.data);
    case 'TakeCase': {
      const { caseId, by } = command.data;
      if (!isActive(state.status)) throw new ConflictError(`Case is ${state.status}`);
      if (state.assigneeId !== null) throw new ConflictError('Case is assigned already');
      return [{ type: 'CaseAssigned', data: { caseId, by, assignee: by } }];
    }
    case 'AddComment':
      return [{ type: 'CaseCommentAdded', data: command.data }];
    case 'AddTask':
      return [{ type: 'CaseTaskAdded', data: command.data }];
    case 'SetTaskStatus': {
      // Task ids come from the URL: only the case's own tasks count, never inherited object keys.
      const task = Object.hasOwn(state.tasks, command.data.taskId) ? state.tasks[command.data.taskId] : undefined;
      if (!task) throw new NotFoundError('Task not found');
      if (task.status === command.data.status) return [];
      return [{ type: 'CaseTaskStatusChanged', data: { ...command.data, text: task.text } }];
    }
    case 'AddAttachment':
      return [{ type: 'CaseAttachmentAdded', data: command.data }];
    case 'CloseWithDisposition':
      return closeEvents(state, command.data);
    case 'DecideClosure':
      return closureDecision(state, command.data);
  }
}

function closeEvents(
  state: CaseState,
  { caseId, by, disposition, note }: Extract<CaseCommand, { type: 'CloseWithDisposition' }>['data'],
): CaseEvent[] {
  if (state.pendingClosure) throw new ConflictError('A closure already awaits a second person');
  if (state.status === 'closed') throw new ConflictError('Case is closed');
  if (!CASE_TRANSITIONS[state.status].includes('closed'))
    throw new ConflictError(`Case status cannot change from ${state.status} to closed`);
  const comment: CaseEvent[] = note
    ? [{ type: 'CaseCommentAdded', data: { caseId, by, commentId: note.commentId, text: note.text, attachments: [], taggedUsers: [] } }]
    : [];
  return [
    ...comment,
    { type: 'CaseDispositionSet', data: { caseId, by, disposition, requestedBy: by } },
    { type: 'CaseStatusChanged', data: { caseId, by, from: state.status, to: 'closed' } },
  ];
}

/** The second person's answer to a closure asked for under the old `fourEyes`: never the one who asked. */
function closureDecision(state: CaseState, { caseId, by, approve }: Extract<CaseCommand, { type: 'DecideClosure' }>['data']): CaseEvent[] {
  const pending = state.pendingClosure;
  if (!pending) throw new ConflictError('No closure awaits approval');
  if (pending.requestedBy._id === by._id) throw new ForbiddenError('The closure must be approved or rejected by a second person');
  const { disposition, requestedBy } = pending;
  if (!approve) return [{ type: 'CaseClosureRejected', data: { caseId, by, disposition, requestedBy } }];
  return [
    { type: 'CaseDispositionSet', data: { caseId, by, disposition, requestedBy } },
    { type: 'CaseStatusChanged', data: { caseId, by, from: state.status, to: 'closed' } },
  ];
}

export const caseDecider: Decider<CaseState, CaseCommand, CaseEvent> = {
  initialState,
  decide(command, state) {
    if (command.type === 'OpenCase') {
      if (state.exists) throw new ConflictError(`Case ${command.data.caseId} already exists`);
      return [{ type: 'CaseOpened', data: command.data }];
    }
    if (!state.exists) throw new NotFoundError('Case not found');
    const events = decideOnExisting(command, state);
    // A closed case is the investigator's final record: nothing may be added to it, but a no-op is not an error.
    if (events.length > 0 && state.status === 'closed') throw new ConflictError('Case is closed');
    return events;
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CaseOpened': {
        const d = event.data;
        const tasks = Object.fromEntries(d.tasks.map((t) => [t._id, { text: t.text, status: false }]));
        return { ...initialState(), exists: true, priority: d.priority, assigneeId: d.assignedTo?._id ?? null, dueDate: d.dueDate, tasks };
      }
      case 'CaseStatusChanged':
        return { ...state, status: event.data.to };
      case 'CasePriorityChanged':
        return { ...state, priority: event.data.to };
      case 'CaseAlertAdded':
        return { ...state, priority: higherPriority(state.priority, event.data.alert.priority) };
      case 'CaseAssigned':
        return { ...state, assigneeId: event.data.assignee._id };
      case 'CaseDueDateChanged':
        return { ...state, dueDate: event.data.dueDate };
      case 'CaseEscalationChanged':
        return { ...state, isEscalated: event.data.isEscalated };
      case 'CaseTaskAdded':
        return { ...state, tasks: { ...state.tasks, [event.data.taskId]: { text: event.data.text, status: false } } };
      case 'CaseTaskStatusChanged': {
        const task = state.tasks[event.data.taskId]!;
        return { ...state, tasks: { ...state.tasks, [event.data.taskId]: { ...task, status: event.data.status } } };
      }
      case 'CaseClosureRequested':
        return { ...state, pendingClosure: { disposition: dispositionOf(event.data.disposition), requestedBy: event.data.by } };
      case 'CaseClosureRejected':
        return { ...state, pendingClosure: null };
      case 'CaseDispositionSet':
        return { ...state, pendingClosure: null, disposition: dispositionOf(event.data.disposition) };
      case 'CaseOccurrenceLogged':
      case 'CaseCommentAdded':
      case 'CaseAttachmentAdded':
        return state;
    }
  },
};
