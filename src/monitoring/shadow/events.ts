// A business's shadow rulesets: a candidate evaluated on every live decision, recorded compactly (hourly
// aggregates and the decisions it would change), never acting. One stream per business; one shadow at a time.

/** Why a shadow stopped. */
export type ShadowStopReason = 'time limit' | 'decision limit' | 'stopped' | 'published';

/** Hits of each rule in the deciding ruleset and in the candidate, over one hour's decisions. */
export interface ShadowHour {
  /** UTC hour of the decisions, `2026-03-02T10`. */
  hour: string;
  decisions: number;
  changed: number;
  /** Rule id → [deciding ruleset's hits, candidate's hits]. */
  hits: Record<string, [number, number]>;
}

export interface ShadowChange {
  position: number;
  transactionId: string;
  reference: string;
  /** The paying user (anonymizedUserData.uniqueId), else the sender account; null when the request named neither. */
  customer: string | null;
  decidedAt: string;
  from: string;
  to: string;
  decidingFired: string[];
  candidateFired: string[];
  candidateRiskScore: string;
}

export type ShadowEvent =
  | {
      type: 'ShadowStarted';
      data: {
        shadowId: string;
        candidateVersion: string;
        /** The candidate's files, rules and lists, by name: what it would publish. */
        files: Record<string, string>;
        startedAt: string;
        /** Decisions after this log position are evaluated; those up to it only build the candidate's state. */
        afterPosition: number;
        until: string;
        maxDecisions: number;
        by: string;
      };
    }
  /** What the shadow evaluated since its last record, through a log position: by hour, and the changed pairs. */
  | {
      type: 'ShadowWindowRecorded';
      data: {
        shadowId: string;
        throughPosition: number;
        /** When the first and the last decision of the window were made. */
        firstDecidedAt: string;
        lastDecidedAt: string;
        hours: ShadowHour[];
        transitions: Record<string, number>;
        /** Decisions the candidate could not evaluate as they were (a screening or IP read they never made). */
        unreproducible: number;
      };
    }
  | { type: 'ShadowDecisionsChanged'; data: { shadowId: string; changes: ShadowChange[] } }
  | { type: 'ShadowStopped'; data: { shadowId: string; reason: ShadowStopReason; stoppedAt: string; by: string } };

export const SHADOW_EVENT_TYPES = [
  'ShadowStarted',
  'ShadowWindowRecorded',
  'ShadowDecisionsChanged',
  'ShadowStopped',
] as const satisfies readonly ShadowEvent['type'][];

export const shadowStream = (businessId: string) => `shadow-${businessId}`;
