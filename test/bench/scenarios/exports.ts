import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { testMnemonic } from '../../support/harness.ts';
import { freePort } from '../../support/net.ts';
import { startServe, stopProgram } from '../../support/program.ts';
import { freshPostgres } from '../lib/databases.ts';
import { defineScenario, measurement } from '../lib/scenario.ts';

/**
 * `GET /v1/exports/payments` (CSV) of 1,000,000 payments (BENCH_SCALE scales it, at least 100,000) from the running
 * program on PostgreSQL: rows per second against a bare client reading the same rows by the same keyset pages of 250
 * (no formatting, no HTTP), and the program's resident memory (its process group's) while it streams, sampled from /proc every 100 ms,
 * against the 50 MB the export may grow by. Goals: rows/s >= 0.25 of the bare read; RSS growth <= the budget.
 */

const RSS_BUDGET_MB = 50;
const PAGE = 250;

/** Resident memory of the program's process group (tsx's launcher and the node process that runs svc), in MB. */
function rssMb(group: number): number {
  let kb = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 5 (after the parenthesised name) is the process group.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== group) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1] ?? '0');
    } catch {
      // the process ended meanwhile
    }
  }
  return kb / 1024;
}

export default defineScenario({
  name: 'exports',
  description:
    'CSV export of 1,000,000 payments streamed by the program vs a bare keyset read; its RSS growth',
  async run({ log, scale }) {
    const rows = Math.max(100_000, Math.round(1_000_000 * scale));
    const database = await freshPostgres();
    if (database === undefined || database.kind !== 'postgres') {
      throw new Error('needs a PostgreSQL server (127.0.0.1:5432 or BENCH_DATABASE_URL)');
    }
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const program = await startServe({
      port,
      dataDirPrefix: 'svc-bench-exports-',
      env: {
        DATABASE_URL: database.url,
        SVC_SIGNUP: 'open',
        SVC_TEST_MNEMONIC: testMnemonic,
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'warn',
      },
    });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const signup = (await (
        await fetch(`${base}/v1/auth/signup`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            email: 'bench-exports@example.com',
            password: 'bench horse battery staple',
          }),
        })
      ).json()) as { token: string; merchant: { id: string } };
      const pair = (await (
        await fetch(`${base}/v1/keypairs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${signup.token}` },
        })
      ).json()) as { test: { full_key: string } };
      log(`inserting ${rows.toLocaleString('en-US')} payments`);
      for (let start = 1; start <= rows; start += 100_000) {
        const end = Math.min(rows, start + 99_999);
        await client.query(
          `insert into payments (id, merchant_id, is_test, status, amount, currency, chain, asset, address,
                                 derivation_index, expected_base_units, received_base_units, rate, rate_source,
                                 forwarded_at, forward_tx_hash, forward_fee_base_units, order_id, expires_at,
                                 created_at, updated_at)
           select gen_random_uuid(), $1, true, 'completed', '19.99', 'USD', 'ethereum', 'ETH',
                  '0xbe' || lpad(to_hex(i), 38, '0'), i, 6663333333333333, 6663333333333333, '3000.12', 'bench',
                  now(), '0x' || md5(i::text) || md5(i::text), 21000000000000, 'order-' || i,
                  now(), now(), now()
           from generate_series($2::int, $3::int) as i`,
          [signup.merchant.id, start, end],
        );
      }
      await client.query('analyze payments');

      // The bare baseline: the same rows, the same keyset pages, read and dropped.
      log('bare keyset read');
      let bareRows = 0;
      const bareStarted = performance.now();
      let after: string | null = null;
      for (;;) {
        const page: { rows: Array<{ id: string }> } = await client.query(
          `select * from payments where merchant_id = $1 and is_test = true ${after === null ? '' : 'and id > $2'}
           order by id limit ${PAGE}`,
          after === null ? [signup.merchant.id] : [signup.merchant.id, after],
        );
        bareRows += page.rows.length;
        if (page.rows.length < PAGE) break;
        after = page.rows.at(-1)?.id ?? null;
      }
      const bareSeconds = (performance.now() - bareStarted) / 1000;

      log('export through the program');
      // A first, empty export loads the export's code (csv-stringify, …): the growth measured is the stream's own.
      await (
        await fetch(`${base}/v1/exports/payments?status=expired`, {
          headers: { 'x-api-key': pair.test.full_key },
        })
      ).text();
      const pid = program.process.pid ?? 0;
      const before = rssMb(pid);
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMb(pid));
      }, 100);
      const started = performance.now();
      const response = await fetch(`${base}/v1/exports/payments?format=csv`, {
        headers: { 'x-api-key': pair.test.full_key },
      });
      if (response.status !== 200 || response.body === null) throw new Error(`export: ${response.status}`);
      let newlines = 0;
      let bytes = 0;
      for await (const chunk of response.body) {
        bytes += chunk.length;
        for (const byte of chunk) if (byte === 10) newlines += 1;
      }
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      peak = Math.max(peak, rssMb(pid));
      const exported = newlines - 1; // the header
      if (exported !== rows || bareRows !== rows) {
        throw new Error(`exported ${exported} rows and read ${bareRows}, expected ${rows}`);
      }
      log(
        `${rows} rows: export ${seconds.toFixed(1)} s (${Math.round(rows / seconds)} rows/s, ${Math.round(bytes / 1e6)} MB), ` +
          `bare ${bareSeconds.toFixed(1)} s; RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MB`,
      );
      return [
        measurement({
          name: `CSV export of ${rows.toLocaleString('en-US')} payments [postgres] rows/s vs bare keyset read`,
          unit: 'rows/s',
          ours: rows / seconds,
          baseline: bareRows / bareSeconds,
          better: 'higher',
          goal: { atLeast: 0.25 },
          details: { rows, bytes, seconds, bareSeconds },
        }),
        measurement({
          name: `program RSS growth while exporting ${rows.toLocaleString('en-US')} payments vs the ${RSS_BUDGET_MB} MB budget`,
          unit: 'MB',
          ours: peak - before,
          baseline: RSS_BUDGET_MB,
          better: 'lower',
          goal: { atMost: 1 },
          details: { rssBeforeMb: before, rssPeakMb: peak },
        }),
      ];
    } finally {
      await client.end();
      await stopProgram(program.process, 2000);
      await database.dispose();
    }
  },
});
