import type { SelectQueryBuilder } from 'kysely';

export interface PageRequest {
  page: number;
  limit: number;
}

/**
 * One page of a read-model listing and the total it was cut from: `rows` is the filtered, ordered query,
 * `base` the same filters unordered (for the count).
 */
export async function readPage<Row>(
  rows: SelectQueryBuilder<any, any, Row>,
  base: SelectQueryBuilder<any, any, any>,
  page: PageRequest,
): Promise<{ rows: Row[]; total: number }> {
  const [list, count] = await Promise.all([
    rows
      .limit(page.limit)
      .offset((page.page - 1) * page.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: list as Row[], total: Number(count.n) };
}
