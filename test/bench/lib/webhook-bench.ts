import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../../src/db/client.ts';
import { events, webhookDeliveries } from '../../../src/db/schema/index.ts';
import { newId } from '../../../src/lib/ids.ts';
import { type PaymentEventSnapshot, paymentEventBody } from '../../../src/modules/webhooks/events/payload.ts';
import { DELIVERY_CHANNEL, newDeliveryRow } from '../../../src/modules/webhooks/events/repo.ts';
import type { Services } from '../../../src/services.ts';
import type { ReceiverCommand, ReceiverMessage } from '../servers/webhook-receiver.ts';
import { type Child, ipcAsker } from './child.ts';

/** What the webhook scenarios share: the worker's environment, event snapshots and the receiver's protocol. */

const testMnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** The environment of a `svc worker` (and of the bench's own services) on `databaseUrl`, plus the scenario's own. */
export function workerEnv(databaseUrl: string, extra: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: '20',
    SVC_DATA_DIR: tmpdir(),
    SVC_MASTER_KEY: randomBytes(32).toString('base64'),
    SVC_JWT_SECRET: randomBytes(32).toString('hex'),
    SVC_TEST_MNEMONIC: testMnemonic,
    SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    // The bench's merchants are the operator's own: their test endpoints reach the local receiver.
    SVC_OPERATOR_EMAILS: '@example.com',
    // Sign-up is closed by default on a server database; the bench signs its merchants up.
    SVC_SIGNUP: 'open',
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

/** A payment event's snapshot, distinct for every `index`. */
export function eventSnapshot(index: number): PaymentEventSnapshot {
  return {
    payment_id: `00000000-0000-7000-8000-${index.toString().padStart(12, '0')}`,
    status: 'completed',
    amount: '19.99',
    currency: 'USD',
    chain: 'ethereum',
    tx_hash: `0x${index.toString(16).padStart(64, '0')}`,
    received_amount_native: '0.006301',
    expected_amount_native: '0.006301',
    is_test: true,
  };
}

/** Sends `command` to the receiver process and waits for its `answer` (servers/webhook-receiver.ts). */
export function receiverAsker(receiver: Child<unknown>) {
  return ipcAsker<ReceiverCommand, ReceiverMessage>(receiver, 'receiver');
}

/** A merchant of the bench with its one test endpoint. */
export interface BenchEndpointOwner {
  merchantId: string;
  endpointId: string;
}

/** `count` merchants signed up through the services, each with a test endpoint at `${base}/m<index>` on the receiver. */
export async function benchEndpoints(
  services: Pick<Services, 'accounts' | 'webhookEndpoints'>,
  base: string,
  count: number,
): Promise<{ endpoints: Record<string, { url: string; secret: string }>; merchants: BenchEndpointOwner[] }> {
  const endpoints: Record<string, { url: string; secret: string }> = {};
  const merchants: BenchEndpointOwner[] = [];
  for (let index = 0; index < count; index += 1) {
    const session = await services.accounts.signup(
      `bench-${randomBytes(6).toString('hex')}@example.com`,
      'bench horse battery staple',
    );
    const merchantId = session.merchant.id;
    const url = `${base}/m${index}`;
    const endpoint = await services.webhookEndpoints.create(
      { via: 'jwt', merchantId, isTest: undefined },
      { url, is_test: true },
    );
    endpoints[endpoint.id] = { url, secret: endpoint.signing_secret };
    merchants.push({ merchantId, endpointId: endpoint.id });
  }
  return { endpoints, merchants };
}

/**
 * Stages committed events with their deliveries, spread over `merchants`, held an hour ahead so that a run starts
 * when releaseHeldDeliveries releases them. Every event gets a snapshot of its own (nextSerial).
 */
export function deliveryStaging(db: Db, merchants: readonly BenchEndpointOwner[]) {
  let serial = 0;
  const nextSerial = () => {
    serial += 1;
    return serial;
  };
  async function stage(count: number): Promise<void> {
    const now = new Date();
    const held = new Date(now.getTime() + 3_600_000);
    for (let start = 0; start < count; start += 1000) {
      const eventRows: Array<typeof events.$inferInsert> = [];
      const deliveryRows: Array<typeof webhookDeliveries.$inferInsert> = [];
      for (let index = start; index < Math.min(count, start + 1000); index += 1) {
        const snapshot = eventSnapshot(nextSerial());
        const owner = merchants[index % merchants.length]!;
        const id = newId('evt');
        eventRows.push({
          id,
          merchantId: owner.merchantId,
          isTest: true,
          type: 'payment.confirmed',
          paymentId: snapshot.payment_id,
          body: paymentEventBody('payment.confirmed', snapshot, now),
          sample: false,
          occurredAt: now,
          createdAt: now,
        });
        deliveryRows.push({
          ...newDeliveryRow({
            id: newId('del'),
            eventId: id,
            endpointId: owner.endpointId,
            merchantId: owner.merchantId,
            isTest: true,
            now,
          }),
          nextAttemptAt: held,
        });
      }
      await db.transaction(async (tx) => {
        await tx.insert(events).values(eventRows);
        await tx.insert(webhookDeliveries).values(deliveryRows);
      });
    }
  }
  return { stage, nextSerial };
}

/** Makes every held delivery due now and wakes the workers, as a commit of new events would. */
async function releaseHeldDeliveries(db: Db): Promise<void> {
  await db.execute(sql`update webhook_deliveries set next_attempt_at = now() where status = 'pending'`);
  await db.execute(sql`select pg_notify(${DELIVERY_CHANNEL}, '')`);
}

/** Waits until every delivery of the database is marked succeeded; fails naming `label` after `timeoutMs`. */
export async function deliveriesMarked(db: Db, label: string, timeoutMs: number): Promise<void> {
  for (let waited = 0; ; waited += 20) {
    const [row] = await queryRows<{ count: string | number }>(
      db,
      sql`select count(*) as count from webhook_deliveries where status <> 'succeeded'`,
    );
    if (Number(row?.count ?? 0) === 0) return;
    if (waited > timeoutMs) throw new Error(`${label}: deliveries not marked within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Releases the `count` staged (held) deliveries at once to whichever workers run, and waits for all of them at the
 * receiver and then marked: the seconds from the release to the last arrival, and how many arrived (duplicates too).
 */
export async function drainHeldDeliveries(
  db: Db,
  receiver: Child<unknown>,
  count: number,
  label: string,
  timeoutMs: number,
): Promise<{ seconds: number; received: number }> {
  receiver.process.send({ type: 'reset' } satisfies ReceiverCommand);
  const arrived = receiverAsker(receiver)({ type: 'expect', count }, 'arrived', timeoutMs);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  await releaseHeldDeliveries(db);
  const { received } = await arrived;
  const seconds = (performance.now() - started) / 1000;
  await deliveriesMarked(db, label, timeoutMs);
  return { seconds, received };
}
