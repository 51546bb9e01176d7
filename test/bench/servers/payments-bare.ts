/**
 * Child process of the `payments` scenario: the bare baselines, in their own process so that a CPU profile of either
 * side (BENCH_PROFILE) shows that side alone. A Fastify app with two routes on its own pool of the same size as the
 * real app's, on the same database: one INSERT (the baseline of POST /v1/payments) and one primary-key SELECT of a
 * payment (the baseline of the public checkout read). No auth, no validation, no logging; one statement each.
 */
import Fastify from 'fastify';
import pg from 'pg';
import { uuidv7 } from '../../../src/lib/ids.ts';
import { exitWithParent } from '../lib/bench-app.ts';
import { reportError, reportReady, serveCpuUsage } from '../lib/child.ts';

export interface PaymentsBareReady {
  insertUrl: string;
  /** GET `${selectBase}/<payment id>`. */
  selectBase: string;
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL_TARGET;
  if (databaseUrl === undefined) throw new Error('BENCH_DATABASE_URL_TARGET is required');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.BENCH_POOL_SIZE ?? 20) });
  pool.on('error', () => {});
  await pool.query(
    'create table if not exists bench_bare_inserts (id uuid primary key, amount text not null, currency text not null, chain text not null, created_at timestamptz not null)',
  );
  const bare = Fastify({ logger: false });
  bare.post<{ Body: { amount: string; currency: string; chain: string } }>(
    '/bare/insert',
    async (request, reply) => {
      const { rows } = await pool.query(
        'insert into bench_bare_inserts (id, amount, currency, chain, created_at) values ($1, $2, $3, $4, now()) returning *',
        [uuidv7(), request.body.amount, request.body.currency, request.body.chain],
      );
      return reply.status(201).send(rows[0]);
    },
  );
  bare.get<{ Params: { id: string } }>('/bare/payments/:id', async (request, reply) => {
    const { rows } = await pool.query('select * from payments where id = $1', [request.params.id]);
    if (rows.length === 0) return reply.status(404).send({ error: 'not found' });
    return rows[0];
  });
  const base = await bare.listen({ host: '127.0.0.1', port: 0 });
  serveCpuUsage();
  exitWithParent([() => bare.close(), () => pool.end()]);
  reportReady<PaymentsBareReady>({ insertUrl: `${base}/bare/insert`, selectBase: `${base}/bare/payments` });
}

main().catch((error: unknown) => {
  reportError(error);
  process.exit(1);
});
