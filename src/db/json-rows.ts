import {
  type Column,
  getTableColumns,
  getTableName,
  type SQL,
  type SQLWrapper,
  sql,
  type Table,
} from 'drizzle-orm';

/**
 * One module's share of a statement another module composes: an SQL expression (correlated to the composing
 * statement's row through the references that module was given) and how to read the value it yields. A read that
 * spans several modules' tables this way is one statement, so one round trip and one snapshot, while each module
 * still writes the SQL of its own tables.
 */
export interface ReadPart<T> {
  sql: SQL;
  read(value: unknown): T;
}

/** What a part refers to of the composing statement's row: a column (or expression) per name. */
export type RowRefs<Name extends string> = Record<Name, SQLWrapper>;

/** A JSON value as the driver hands it over: already parsed (pg, PGlite), or its text. */
export function jsonValue(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/**
 * Column types whose JSON form is what the driver would have handed drizzle's column mapping. Every other type goes
 * through JSON as its text (the text PostgreSQL sends on the wire): a numeric or bigint as a JSON number would pass
 * through a float, and the driver reads timestamps as text too.
 */
const asJson = new Set([
  'PgText',
  'PgUUID',
  'PgVarchar',
  'PgChar',
  'PgBoolean',
  'PgInteger',
  'PgSmallInt',
  'PgJsonb',
]);

/**
 * The rows of `table` that `where` selects (ordered, at most `limit`) as one JSON array of rows, each as `jsonRowOf`
 * writes it: a scalar subquery to put in another statement. `where` and `orderBy` (the same terms a plain select of
 * those rows orders by) refer to the table by its own name. Read the value back with `rowsFromJson`.
 */
export function jsonRowsOf(
  table: Table,
  query: { where: SQL; orderBy: SQL[]; limit?: number | undefined },
): SQL {
  const name = sql.identifier(getTableName(table));
  const order = sql.join(query.orderBy, sql`, `);
  const limit = query.limit === undefined ? sql`` : sql` limit ${sql.raw(String(query.limit))}`;
  return sql`(select coalesce(json_agg(${jsonRowOf(table)} order by ${order}), '[]'::json)
    from (select * from ${name} where ${query.where} order by ${order}${limit}) as ${name})`;
}

/** Each column of `table` as its JSON cell, in the table's order. */
function cellsOf(table: Table): SQL[] {
  return Object.values(getTableColumns(table)).map((column) =>
    asJson.has(column.columnType) ? sql`${column}` : sql`${column}::text`,
  );
}

/**
 * The row of `table` that the composing statement reads, as one JSON array (columns in the table's order): one
 * value for the driver to describe and parse instead of one per column, which for a wide table (payments) cost more
 * than the rest of reading it. Read it back with `rowFromJson`. At most 100 columns (json_build_array's arguments).
 */
export function jsonRowOf(table: Table): SQL {
  return sql`json_build_array(${sql.join(cellsOf(table), sql`, `)})`;
}

function mapCells<T extends Table>(columns: Array<[string, Column]>, cells: unknown[]): T['$inferSelect'] {
  const row: Record<string, unknown> = {};
  columns.forEach(([field, column], index) => {
    const cell = cells[index];
    row[field] = cell === null || cell === undefined ? null : column.mapFromDriverValue(cell);
  });
  return row as T['$inferSelect'];
}

/** The row `jsonRowOf` put in JSON, mapped by its table's columns as drizzle maps what the driver reads. */
export function rowFromJson<T extends Table>(table: T, value: unknown): T['$inferSelect'] {
  const cells = jsonValue(value);
  if (!Array.isArray(cells)) throw new Error(`rowFromJson(${getTableName(table)}): not a JSON array`);
  return mapCells<T>(Object.entries(getTableColumns(table)), cells);
}

/** The rows `jsonRowsOf` put in JSON, each mapped by its table's columns as drizzle maps what the driver reads. */
export function rowsFromJson<T extends Table>(table: T, value: unknown): Array<T['$inferSelect']> {
  const rows = jsonValue(value);
  if (!Array.isArray(rows)) throw new Error(`rowsFromJson(${getTableName(table)}): not a JSON array`);
  const columns = Object.entries(getTableColumns(table));
  return rows.map((cells: unknown[]) => mapCells<T>(columns, cells));
}
