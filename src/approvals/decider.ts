import { ConflictError, ForbiddenError, ValidationError } from '../errors.js';
import type { Decider } from '../store/decider.js';
import type { ApprovalEvent, Party, RequestedData } from './events.js';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'failed';

export interface ApprovalState {
  request: RequestedData | null;
  status: ApprovalStatus;
}

export type ApprovalCommand =
  | { type: 'Request'; data: RequestedData }
  | { type: 'Decide'; data: { requestId: string; checker: Party; approve: boolean; reason: string } }
  | { type: 'RecordFailure'; data: { requestId: string; error: string } };

function decide(command: ApprovalCommand, state: ApprovalState): ApprovalEvent[] {
  switch (command.type) {
    case 'Request': {
      if (state.request) throw new ConflictError('This approval request exists already');
      return [{ type: 'ApprovalRequested', data: command.data }];
    }
    case 'Decide': {
      const { checker, approve, reason, requestId } = command.data;
      if (!state.request) throw new ConflictError('No such approval request');
      if (state.status !== 'pending') throw new ConflictError(`This request is ${state.status} already`);
      if (checker.kind !== 'user') throw new ForbiddenError('Only a signed-in person approves or rejects a request');
      if (checker.id === state.request.maker.id)
        throw new ForbiddenError('The person who asked cannot approve or reject their own request');
      if (!approve && !reason.trim()) throw new ValidationError('reason is required to reject a request', 'reason');
      return [{ type: approve ? 'ApprovalGranted' : 'ApprovalRejected', data: { requestId, checker, reason: reason.trim() } }];
    }
    case 'RecordFailure':
      if (state.status !== 'approved') throw new ConflictError('Only an approved request can fail');
      return [{ type: 'ApprovalFailed', data: command.data }];
  }
}

function evolve(state: ApprovalState, event: ApprovalEvent): ApprovalState {
  switch (event.type) {
    case 'ApprovalRequested':
      return { request: event.data, status: 'pending' };
    case 'ApprovalGranted':
      return { ...state, status: 'approved' };
    case 'ApprovalRejected':
      return { ...state, status: 'rejected' };
    case 'ApprovalFailed':
      return { ...state, status: 'failed' };
  }
}

export const approvalDecider: Decider<ApprovalState, ApprovalCommand, ApprovalEvent> = {
  initialState: () => ({ request: null, status: 'pending' }),
  decide,
  evolve,
};
