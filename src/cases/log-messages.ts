import type { UserRef } from '../users/index.js';
import type { CaseEvent } from './events.js';

const fullName = (u: UserRef) => `${u.firstName} ${u.lastName}`.trim();

/** The sentence an activity-log entry shows for an event: written for the investigator reading the case. */
export function logMessage(event: CaseEvent): string {
  switch (event.type) {
    case 'CaseOpened':
      return 'Case created';
    case 'CaseAlertAdded': {
      const a = event.data.alert;
      const rules = a.rules.length > 0 ? a.rules.join(', ') : 'none';
      return `Alert: transaction ${a.reference} ${a.action}, score ${a.score}, ${a.priority} priority; rules fired: ${rules}`;
    }
    case 'CaseOccurrenceLogged':
      return `New occurrence on ${event.data.priority} priority: ${event.data.title}${event.data.description ? ` (${event.data.description})` : ''}`;
    case 'CaseStatusChanged':
      return `Status changed from ${event.data.from} to ${event.data.to}`;
    case 'CasePriorityChanged':
      return `Priority changed from ${event.data.from} to ${event.data.to}`;
    case 'CaseAssigned':
      return `Assigned to ${fullName(event.data.assignee)}`;
    case 'CaseDueDateChanged':
      return event.data.dueDate ? `Due date set to ${event.data.dueDate}` : 'Due date removed';
    case 'CaseEscalationChanged':
      return event.data.isEscalated ? 'Case escalated' : 'Escalation withdrawn';
    case 'CaseCommentAdded': {
      const files = event.data.attachments.length;
      return files > 0 ? `Comment added with ${files} attachment(s)` : 'Comment added';
    }
    case 'CaseTaskAdded':
      return `Task added: ${event.data.text}`;
    case 'CaseTaskStatusChanged':
      return `Task ${event.data.status ? 'completed' : 'reopened'}: ${event.data.text}`;
    case 'CaseAttachmentAdded':
      return `File attached: ${event.data.attachment.key}`;
    case 'CaseClosureRequested':
      return `Closure as ${event.data.disposition} requested by ${fullName(event.data.by)}, awaiting a second person's approval`;
    case 'CaseClosureRejected':
      return `Closure as ${event.data.disposition} requested by ${fullName(event.data.requestedBy)} rejected by ${fullName(event.data.by)}`;
    // Worded as the event was: an entry written when `reported` was `reported to FIU` keeps its words on replay.
    case 'CaseDispositionSet':
      return event.data.requestedBy._id === event.data.by._id
        ? `Disposition: ${event.data.disposition}, by ${fullName(event.data.by)}`
        : `Disposition: ${event.data.disposition}, requested by ${fullName(event.data.requestedBy)} and approved by ${fullName(event.data.by)}`;
  }
}
