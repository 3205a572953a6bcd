import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import type { Decider } from '../store/index.js';
import type { Draft, ReportEvent, ReportStatus } from './events.js';

export interface ReportState {
  status: ReportStatus | null;
  draft: Draft | null;
  approvedBy: string | null;
  submitted: { by: string; via: 'download' | 'sent' } | null;
  fiuReference: string | null;
  rejection: string | null;
}

type Data<T extends ReportEvent['type']> = Extract<ReportEvent, { type: T }>['data'];

export type ReportCommand =
  | { type: 'DraftReport'; data: Draft }
  | { type: 'Redraft'; data: Draft }
  | { type: 'ApproveReport'; data: Data<'ReportApproved'> & { fourEyes: boolean } }
  | { type: 'SubmitReport'; data: Data<'ReportSubmitted'> }
  | { type: 'AcknowledgeReport'; data: Data<'ReportAcknowledged'> }
  | { type: 'RejectReport'; data: Data<'ReportRejected'> };

/** The status each command needs: a report moves draft → approved → submitted → acknowledged or rejected. */
const NEEDS: Record<Exclude<ReportCommand['type'], 'DraftReport'>, ReportStatus> = {
  Redraft: 'draft',
  ApproveReport: 'draft',
  SubmitReport: 'approved',
  AcknowledgeReport: 'submitted',
  RejectReport: 'submitted',
};

const initialState = (): ReportState => ({
  status: null,
  draft: null,
  approvedBy: null,
  submitted: null,
  fiuReference: null,
  rejection: null,
});

export const reportDecider: Decider<ReportState, ReportCommand, ReportEvent> = {
  initialState,
  decide(command, state) {
    if (command.type === 'DraftReport') {
      if (state.status !== null) throw new ConflictError(`Report ${command.data.reportId} already exists`);
      return [{ type: 'ReportDrafted', data: command.data }];
    }
    if (state.status === null) throw new NotFoundError('Report not found');
    const needed = NEEDS[command.type];
    if (state.status !== needed)
      throw new ConflictError(`A report that is ${state.status} cannot be ${verb[command.type]}: it must be ${needed}`);
    switch (command.type) {
      case 'Redraft':
        return [{ type: 'ReportDrafted', data: command.data }];
      case 'ApproveReport': {
        const missing = state.draft!.missing;
        if (missing.length > 0) {
          throw new ValidationError(
            `The report lacks mandatory data: ${missing.map((m) => `${m.field} (${m.message})`).join('; ')}`,
            missing[0]!.field,
          );
        }
        const { fourEyes, ...data } = command.data;
        if (fourEyes && state.draft!.by === data.by) throw new ForbiddenError('The report must be approved by a second person');
        return [{ type: 'ReportApproved', data }];
      }
      case 'SubmitReport':
        return [{ type: 'ReportSubmitted', data: command.data }];
      case 'AcknowledgeReport':
        return [{ type: 'ReportAcknowledged', data: command.data }];
      case 'RejectReport':
        return [{ type: 'ReportRejected', data: command.data }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ReportDrafted':
        return { ...initialState(), status: 'draft', draft: event.data };
      case 'ReportApproved':
        return { ...state, status: 'approved', approvedBy: event.data.by };
      case 'ReportSubmitted':
        return { ...state, status: 'submitted', submitted: { by: event.data.by, via: event.data.via } };
      case 'ReportAcknowledged':
        return { ...state, status: 'acknowledged', fiuReference: event.data.fiuReference };
      case 'ReportRejected':
        return { ...state, status: 'rejected', rejection: event.data.reason, fiuReference: event.data.fiuReference };
    }
  },
};

const verb: Record<keyof typeof NEEDS, string> = {
  Redraft: 'drafted again',
  ApproveReport: 'approved',
  SubmitReport: 'submitted',
  AcknowledgeReport: 'acknowledged',
  RejectReport: 'rejected',
};
