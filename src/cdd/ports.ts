// What due diligence needs from the other components, declared here so that this module depends on the shape,
// not on the construction: the engine passes the screening service and case management in.
import type { AdverseMediaResult } from '../name-matching/adverse-media/search.js';
import type { ScreenResult } from '../name-matching/matcher.js';
import type { StreamWrite } from '../store/index.js';

export interface ScreeningPort {
  screen(query: {
    name: string;
    threshold?: number;
    limit?: number;
    lists?: string[];
    country?: string;
    birthDate?: string;
    gender?: string;
  }): Promise<ScreenResult>;
  adverseMedia(query: string, limit: number): Promise<AdverseMediaResult[]>;
}

export interface CaseOpening {
  businessId: string;
  module: 'cdd';
  record: { id: string; type: 'customer'; name: string };
  title: string;
  description: string;
  priority: 'low' | 'medium' | 'high';
  /** Who caused the opening (the reviewer), logged as the author: a user, or a key bound to none, by its name. */
  actor?: { userId?: string; apiKey?: string; keyName?: string };
}

export interface CasesPort {
  /** The events that open (or reuse) a case, to append atomically with the caller's own. */
  openingWrites(input: CaseOpening): Promise<{ caseId: string; reused: boolean; writes: StreamWrite[] }>;
}
