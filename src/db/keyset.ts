import { type AnyColumn, and, type SQL, sql } from 'drizzle-orm';

/**
 * The condition of one keyset page, oldest first, of rows ordered by (`time`, `id`): `time` in [from, to) (each bound
 * optional) and (`time`, `id`) after the last row of the page before (`after`, none for the first page). Undefined
 * when there is nothing to filter on.
 */
export function timeKeysetPage(
  time: AnyColumn,
  id: AnyColumn,
  window: { from?: Date | undefined; to?: Date | undefined },
  after: { time: Date; id: string } | undefined,
): SQL | undefined {
  return and(
    window.from === undefined ? undefined : sql`${time} >= ${window.from.toISOString()}::timestamptz`,
    window.to === undefined ? undefined : sql`${time} < ${window.to.toISOString()}::timestamptz`,
    after === undefined
      ? undefined
      : sql`(${time}, ${id}) > (${after.time.toISOString()}::timestamptz, ${after.id})`,
  );
}
