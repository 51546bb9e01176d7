// The start-up baseline: plain Node opening PGlite in the directory given and answering `select 1`, nothing else.
// Prints "ready" the moment the query has answered, then closes the database and exits.
import { PGlite } from '@electric-sql/pglite';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: bare-pglite.mjs <data dir>');
const db = await PGlite.create(dir);
await db.query('select 1');
process.stdout.write('ready\n');
await db.close();
