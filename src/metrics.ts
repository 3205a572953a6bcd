import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SignedTreeHead } from './audit/index.js';
import type { DecisionObserver, RulesObserver, RulesStatus } from './monitoring/pipeline.js';
import type { StateObserver } from './monitoring/snapshots.js';
import type pg from 'pg';
import type { AppendObserver } from './store/index.js';
import type { TailObserver } from './store/log-tail.js';

/** One registry per engine, so that several engines in one process (tests, embedding) keep separate counts. */
export class Metrics implements AppendObserver, StateObserver, DecisionObserver, TailObserver, RulesObserver {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly eventsAppended = new Counter({
    name: 'events_appended_total',
    help: 'Events appended to the log',
    registers: [this.registry],
  });
  readonly eventCommits = new Counter({
    name: 'event_commits_total',
    help: 'Transactions that appended events; events_appended_total over this is the events per group commit',
    registers: [this.registry],
  });
  readonly appendDuration = new Histogram({
    name: 'event_append_duration_seconds',
    help: 'Time from append request to durable commit (includes waiting for the group commit)',
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [this.registry],
  });

  readonly decisions = new Counter({
    name: 'monitoring_decisions_total',
    help: 'Instant transaction decisions committed, by action result (an idempotent resubmission is not counted again)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  /** The counter's child per result, looked up once: labels() hashes its arguments on every call. */
  readonly #decisionsBy = new Map<string, Counter.Internal>();

  readonly stateRebuild = new Gauge({
    name: 'monitoring_state_rebuild_seconds',
    help: 'How long the last start took to rebuild the transaction-monitoring state, from a snapshot (1) or the whole log (0)',
    labelNames: ['from_snapshot'] as const,
    registers: [this.registry],
  });
  readonly snapshotPosition = new Gauge({
    name: 'monitoring_state_snapshot_position',
    help: 'Log position of the last state snapshot written; a start replays the events after it',
    registers: [this.registry],
  });
  readonly snapshotBytes = new Gauge({
    name: 'monitoring_state_snapshot_bytes',
    help: 'Size of the last state snapshot written',
    registers: [this.registry],
  });
  readonly snapshotDuration = new Histogram({
    name: 'monitoring_state_snapshot_duration_seconds',
    help: 'Time to write a state snapshot, by the snapshot thread (thread) or from the live state at close (here)',
    labelNames: ['where'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100],
    registers: [this.registry],
  });
  readonly snapshotFailures = new Counter({
    name: 'monitoring_state_snapshot_failures_total',
    help: 'State snapshots that failed',
    registers: [this.registry],
  });

  readonly tailLagSeconds = new Histogram({
    name: 'log_tail_lag_seconds',
    help: "Time from another node's commit (its clock) until this node's in-memory state and workers have its events",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  tailLag(seconds: number): void {
    this.tailLagSeconds.observe(seconds);
  }

  /** PostgreSQL's connection pool: connections open, idle, and callers waiting for one. */
  watchPool(pool: pg.Pool): void {
    new Gauge({
      name: 'db_pool_connections',
      help: 'Connections of the PostgreSQL pool by state (total, idle), and callers waiting for one (waiting)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }

  /** How far the read models kept off the commit path (the decisions index) trail what this node has seen. */
  watchDeferred(lag: () => number): void {
    new Gauge({
      name: 'deferred_read_model_lag_events',
      help: 'Events this node has seen that the deferred read models (the decisions index) do not hold yet',
      registers: [this.registry],
      collect() {
        this.set(lag());
      },
    });
  }

  /** This node's leased partitions (docs/postgres.md#partition-ownership). */
  watchPartitions(owned: () => number): void {
    new Gauge({
      name: 'partitions_owned',
      help: 'Partitions, over all businesses, this node holds a live lease of and is forwarded the decisions of',
      registers: [this.registry],
      collect() {
        this.set(owned());
      },
    });
  }

  readonly decisionsForwarded = new Counter({
    name: 'decisions_forwarded_total',
    help: "Instant decisions sent on to their partition's owner: answered by it, or decided here since it could not be reached",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly auditTreeSize = new Gauge({
    name: 'audit_tree_size',
    help: 'Events covered by the last signed tree head of the audit log',
    registers: [this.registry],
  });
  readonly auditCosignatures = new Gauge({
    name: 'audit_checkpoint_cosignatures',
    help: "Witnesses' cosignatures on the last audit checkpoint; below audit_witness_quorum only the operator vouches for the history",
    registers: [this.registry],
  });
  readonly auditWitnessQuorum = new Gauge({
    name: 'audit_witness_quorum',
    help: 'Cosignatures an audit checkpoint needs (AUDIT_WITNESS_QUORUM)',
    registers: [this.registry],
  });
  readonly auditTreeHead = new Gauge({
    name: 'audit_tree_head_info',
    help: 'The last signed tree head (value: its tree size); an auditor can keep root_hash and check it with audit verify',
    labelNames: ['root_hash', 'key_id', 'timestamp', 'signature'] as const,
    registers: [this.registry],
  });

  readonly ruleset = new Gauge({
    name: 'rules_ruleset_info',
    help: 'The ruleset deciding now (value 1), by version, and when it was loaded',
    labelNames: ['version', 'loaded_at'] as const,
    registers: [this.registry],
  });
  readonly rulesReloadError = new Gauge({
    name: 'rules_last_reload_error_info',
    help: 'The last refused change to the rules directory (value: when, in Unix seconds), until a reload succeeds; absent when none',
    labelNames: ['error'] as const,
    registers: [this.registry],
  });

  rulesChanged(status: RulesStatus): void {
    this.ruleset.reset();
    this.ruleset.set({ version: status.version, loaded_at: status.loadedAt }, 1);
    this.rulesReloadError.reset();
    const failed = status.lastReloadError;
    if (failed) this.rulesReloadError.set({ error: failed.errors.join('; ').slice(0, 1000) }, Date.parse(failed.at) / 1000);
  }

  treeHeadSigned(head: SignedTreeHead, witnessing: { cosignatures: number; quorum: number }): void {
    this.auditTreeSize.set(head.treeSize);
    this.auditCosignatures.set(witnessing.cosignatures);
    this.auditWitnessQuorum.set(witnessing.quorum);
    this.auditTreeHead.reset();
    this.auditTreeHead.set(
      { root_hash: head.rootHash, key_id: head.keyId, timestamp: head.timestamp, signature: head.signature },
      head.treeSize,
    );
  }

  stateRebuilt(info: { fromSnapshot: boolean; seconds: number }): void {
    this.stateRebuild.reset();
    this.stateRebuild.set({ from_snapshot: info.fromSnapshot ? '1' : '0' }, info.seconds);
  }

  snapshotWritten(info: { position: number; bytes: number; where: 'thread' | 'here'; seconds: number }): void {
    this.snapshotPosition.set(info.position);
    this.snapshotBytes.set(info.bytes);
    this.snapshotDuration.observe({ where: info.where }, info.seconds);
  }

  snapshotFailed(): void {
    this.snapshotFailures.inc();
  }

  decided(result: string): void {
    let child = this.#decisionsBy.get(result);
    if (child === undefined) this.#decisionsBy.set(result, (child = this.decisions.labels({ result })));
    child.inc();
  }

  committed(eventCount: number, appendSeconds: readonly number[], sharedCommit: boolean): void {
    // A batch that only caught up with other processes' events committed nothing of its own.
    if (eventCount > 0 && !sharedCommit) this.eventCommits.inc();
    this.eventsAppended.inc(eventCount);
    for (const s of appendSeconds) this.appendDuration.observe(s);
  }
}
