/**
 * The instant path's performance budget (issue #4), printed at the end of a bench run beside what the run measured,
 * so a run answers "is it met?" without the reader looking the targets up.
 */
export type Target = { atLeast: number } | { atMost: number } | 'reported';

export interface BudgetLine {
  what: string;
  measured: number;
  unit: string;
  target: Target;
}

/** The budget's numbers. The p99 target holds at 2,000 requests/s offered over HTTP. */
export const BUDGET = {
  inProcessPerSecond: { atLeast: 30_000 },
  httpPerSecond: { atLeast: 5_000 },
  httpP99Ms: { atMost: 10 },
  httpP99AtRate: 2_000,
} as const;

const number = (n: number): string => (Number.isInteger(n) || n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));

function verdict(line: BudgetLine): string {
  const { target, measured } = line;
  if (target === 'reported') return 'reported';
  return ('atLeast' in target ? measured >= target.atLeast : measured <= target.atMost) ? 'met' : 'NOT MET';
}

function targetText(line: BudgetLine): string {
  const { target } = line;
  if (target === 'reported') return '';
  return 'atLeast' in target ? `≥ ${number(target.atLeast)} ${line.unit}` : `≤ ${number(target.atMost)} ${line.unit}`;
}

export function printBudget(lines: readonly BudgetLine[]): void {
  console.log('\nagainst the budget (issue #4, this run):');
  for (const line of lines) {
    console.log(
      `  ${line.what.padEnd(64)} ${`${number(line.measured)} ${line.unit}`.padStart(20)}  ${targetText(line).padEnd(22)}  ${verdict(line)}`,
    );
  }
}
