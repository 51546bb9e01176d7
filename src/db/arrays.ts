/**
 * A PostgreSQL array literal (`{"a","b"}`) for one bound parameter, to be cast in SQL (`${pgArray(ids)}::uuid[]`).
 * drizzle's `sql` expands a JS array into a list of parameters, which `unnest` and `= any()` cannot take; one text
 * parameter keeps a batch of any size to a single bind value. Null elements become NULL.
 */
export function pgArray(values: ReadonlyArray<string | number | bigint | boolean | null>): string {
  const items = values.map((value) => {
    if (value === null) return 'NULL';
    const text = String(value);
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}
