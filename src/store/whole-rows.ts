/**
 * What the readers of a node need whole of the rows other processes append that carry a partition: each names the
 * partitions it needs, or 'every' partition. While no reader has said, every row comes whole. A row of a partition
 * no reader needs reaches subscribers as its header: its metadata is its business and partition, and reading its
 * data throws (isHeaderOnly). The partitions are numbers alone, the same for every business: a row of any business
 * whose partition number a reader needs comes whole.
 */
export class WholeRows {
  readonly #needs = new Map<string, ReadonlySet<number> | 'every'>();
  #partitions: number[] | undefined;

  /** What `reader` needs; undefined withdraws it. */
  need(reader: string, partitions: ReadonlySet<number> | 'every' | undefined): void {
    if (partitions === undefined) this.#needs.delete(reader);
    else this.#needs.set(reader, partitions);
    const needs = [...this.#needs.values()];
    this.#partitions =
      needs.length === 0 || needs.includes('every')
        ? undefined
        : [...new Set(needs.flatMap((n) => [...(n as ReadonlySet<number>)]))].sort((a, b) => a - b);
  }

  /** The union, as the catch-up sends it (BatchRequest.whole); undefined: every row whole. */
  get partitions(): number[] | undefined {
    return this.#partitions;
  }
}
