/** The bodies bench/cluster.ts sends: switch transactions, each with its partition, so a node gets its own subjects. */
import { DEFAULT_PARTITIONS, decisionSubject, partitionOf, type SubjectFields } from '../src/partitions/index.js';
import { SWITCH_POPULATION, transactionSource } from './fixtures/transactions.js';

export interface Template {
  parts: [string, string];
  partition: number;
}

export function templates(): Template[] {
  const source = transactionSource(SWITCH_POPULATION, Date.now() % 1e6);
  return Array.from({ length: 65_536 }, () => {
    const tx = source();
    const partition = partitionOf(decisionSubject(tx as unknown as SubjectFields), DEFAULT_PARTITIONS);
    (tx.transactionData as { reference: string }).reference = '@REF@';
    return { parts: JSON.stringify(tx).split('"@REF@"') as [string, string], partition };
  });
}

/** Bodies of the templates whose partition is in `partitions` (all: every template), each with a fresh reference. */
export function bodies(all: readonly Template[], partitions?: ReadonlySet<number>): () => string {
  const mine = partitions ? all.filter((t) => partitions.has(t.partition)) : all;
  const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  let n = 0;
  return () => {
    const [a, b] = mine[n % mine.length]!.parts;
    return `${a}"C-${run}-${n++}"${b}`;
  };
}
