import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import type { PaymentEventSnapshot } from '../../../src/modules/webhooks/events/payload.ts';
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
