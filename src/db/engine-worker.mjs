// The embedded engine's own thread (see engine-thread.ts for the other side and the reasons): it opens PGlite and
// answers the queries, transactions and LISTENs that the program's thread sends it as messages.
//
// Plain JavaScript, so that Node loads it as it is, beside the bundle or from the sources: a thread that had to load
// a TypeScript loader first would spend on that the head start it exists for.
import fs from 'node:fs';
import v8 from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

// The engine's files are its user's alone (0600, directories 0700). The process umask (077, see db/data-dir.ts) covers
// the files PGlite creates, but its file system layer then sets each new file's mode explicitly to what PostgreSQL
// asked of its in-memory one (0666, as if no umask applied): so on this thread, which runs nothing but the engine, a
// mode set never grants group or other bits. PGlite reaches the module through require('node:fs'): this very object.
const { chmodSync, fchmodSync } = fs;
const privateMode = (mode) => (typeof mode === 'number' ? mode & 0o700 : mode);
fs.chmodSync = (path, mode) => chmodSync(path, privateMode(mode));
fs.fchmodSync = (fd, mode) => fchmodSync(fd, privateMode(mode));

// V8 moves a WebAssembly function from its baseline code to optimized code once it has run for a budget (roughly,
// bytes executed). Node 20's V8 (11) spends 1.8 million, the later ones (Node 22 and 24) 13 million. Opening PGlite runs
// much of PostgreSQL's code a few times over: with the smaller budget many of its functions went to the optimizing
// compiler during the open, some 100-200 ms of CPU on V8's background threads beside the program's own start-up, for
// code that mostly never runs again; what stays hot is optimized either way. So Node 20 gets the later budget too (the
// flag is the process's, set before PGlite compiles anything, and the later versions have it already).
if (Number(process.versions.v8.split('.')[0]) < 12) v8.setFlagsFromString('--wasm-tiering-budget=13000000');

const port = parentPort;
if (port === null) throw new Error('engine-worker.mjs runs as a worker thread only');

/** @type {{ dataDir: string, extraStartParams: string[], keepAsText: number[] }} */
const { dataDir, extraStartParams, keepAsText } = workerData;

/** PostgreSQL errors carry their fields (code, detail, constraint, …) as properties; a plain copy crosses threads. */
function serializeError(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields = {};
  for (const [name, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number') fields[name] = value;
  }
  return { ...fields, name: error.name, message: error.message };
}

const opening = PGlite.create(dataDir, {
  startParams: [...PGlite.defaultStartParams, ...extraStartParams],
}).then((db) => {
  // The types the program reads as text (see client.ts): parsed here, since functions cannot cross threads.
  for (const oid of keepAsText) db.parsers[oid] = (value) => value;
  return db;
});
opening.then(
  () => port.postMessage({ ready: true }),
  (error) => port.postMessage({ failed: serializeError(error) }),
);

/** Open transactions by id: the handle to query on and the settlement of the callback PGlite is waiting on. */
const transactions = new Map();
/** LISTENs by channel: how to stop each. */
const listening = new Map();

class Rollback extends Error {}

async function perform(db, message) {
  switch (message.op) {
    case 'query': {
      const target = message.tx === undefined ? db : transactions.get(message.tx)?.handle;
      if (target === undefined) throw new Error(`transaction ${message.tx} is not open`);
      const result = await target.query(message.text, message.params, { rowMode: message.rowMode });
      return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
    }
    case 'begin':
      return new Promise((opened, failedToOpen) => {
        const settled = db.transaction(
          (handle) =>
            new Promise((commit, rollback) => {
              transactions.set(message.id, { handle, commit, rollback, settled });
              opened(message.id);
            }),
        );
        // A failed BEGIN settles before the callback runs; after that, `end` reports how it settled.
        settled.catch(failedToOpen);
      });
    case 'end': {
      const transaction = transactions.get(message.tx);
      if (transaction === undefined) throw new Error(`transaction ${message.tx} is not open`);
      if (message.commit) transaction.commit();
      else transaction.rollback(new Rollback());
      try {
        await transaction.settled;
      } catch (error) {
        if (!(error instanceof Rollback)) throw error;
      } finally {
        transactions.delete(message.tx);
      }
      return null;
    }
    case 'listen':
      if (!listening.has(message.channel)) {
        const channel = message.channel;
        listening.set(channel, await db.listen(channel, (payload) => port.postMessage({ channel, payload })));
      }
      return null;
    case 'unlisten': {
      const stop = listening.get(message.channel);
      listening.delete(message.channel);
      await stop?.();
      return null;
    }
    case 'close':
      await db.close();
      return null;
    default:
      throw new Error(`unknown operation ${message.op}`);
  }
}

port.on('message', async (message) => {
  try {
    const db = await opening;
    port.postMessage({ id: message.id, result: await perform(db, message) });
  } catch (error) {
    port.postMessage({ id: message.id, error: serializeError(error) });
  }
});
