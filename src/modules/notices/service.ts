import type { Logger } from 'pino';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { fromBaseUnits } from '../../lib/money.ts';
import type { AccountsService } from '../accounts/service.ts';
import type { FeeWallet } from '../chains/adapter.ts';
import { getAsset, getChain } from '../chains/registry.ts';
import type { RefundView } from '../refunds/schemas.ts';
import type { SendMail } from './mailer.ts';
import { mailOutboxRepo as outbox } from './repo.ts';

/** What the payer's receipt says: the payment as it was when it became paid. */
export interface ReceiptInput {
  paymentId: string;
  to: string;
  isTest: boolean;
  amount: string;
  currency: string;
  chain: string;
  /** What was received, as a decimal of `asset`. */
  receivedNative: string;
  asset: string;
  txHash: string | null;
  orderId: string | null;
  /** The payment's checkout page (its receipt). */
  link: string;
  paidAt: Date;
}

/** A payment that just became paid, as the payments' lifecycle hands it over (its row before the change). */
export interface PaidForReceipt {
  row: {
    id: string;
    customerEmail: string | null;
    isTest: boolean;
    amount: string;
    currency: string;
    chain: string;
    asset: string;
    orderId: string | null;
  };
  received: bigint;
  txHash: string | null;
}

/** Attempts of one queued mail before it is given up (logged): about a day with the backoff below. */
const MAX_MAIL_ATTEMPTS = 12;

export interface NoticesDeps {
  /** Undefined without SVC_SMTP_URL: every notice is then skipped (everything else works the same). */
  send: SendMail | undefined;
  accounts: Pick<AccountsService, 'getMerchant'>;
  /** The mail outbox's database: payers' mails are queued in the transaction of their change, then sent. */
  db: Db;
  clock: Clock;
  logger?: Logger | undefined;
}

/**
 * Email notices: to payers (their receipt, their refund link: queued in the mail outbox in the same transaction as the
 * change, sent by the notices worker through `sendQueued`) and to merchants (a payout wallet changed, a webhook endpoint failing
 * for an hour). Each is sent after the change it reports has committed; a mail that cannot be sent is logged, never
 * the cause of a failed request or job, and without SMTP nothing is sent at all.
 */
export function createNotices(deps: NoticesDeps) {
  async function deliver(kind: string, to: string, subject: string, text: string): Promise<void> {
    if (deps.send === undefined) return;
    try {
      await deps.send({ to, subject, text });
    } catch (error) {
      deps.logger?.error({ err: error, kind }, 'notice mail not sent');
    }
  }

  /** Queues the payer's receipt inside `tx` (the transaction in which the payment became paid). */
  async function queueReceipt(tx: Db, input: ReceiptInput): Promise<void> {
    if (deps.send === undefined) return;
    const lines = [
      `Amount: ${input.amount} ${input.currency}`,
      `Paid: ${input.receivedNative} ${input.asset} on ${input.chain}${input.isTest ? ' (test mode: no real funds)' : ''}`,
      ...(input.orderId === null ? [] : [`Order: ${input.orderId}`]),
      `Payment: ${input.paymentId}`,
      ...(input.txHash === null ? [] : [`Transaction: ${input.txHash}`]),
      `Confirmed: ${input.paidAt.toISOString()}`,
    ];
    await outbox.enqueue(tx, {
      id: newId('mail'),
      kind: 'receipt',
      dedupeKey: `receipt:${input.paymentId}`,
      toAddress: input.to,
      subject: `Receipt: your payment of ${input.amount} ${input.currency} is confirmed`,
      body:
        `Your payment of ${input.amount} ${input.currency} is confirmed. Thank you.\n\n${lines.join('\n')}\n\n` +
        `Your receipt stays at ${input.link}\n`,
      createdAt: deps.clock.now(),
    });
  }

  const merchantEmail = async (merchantId: string) => (await deps.accounts.getMerchant(merchantId)).email;

  return {
    /** Whether notices go out at all (SVC_SMTP_URL set). */
    enabled: deps.send !== undefined,

    /**
     * Queues the payer's refund link, to the email they (or the merchant) gave, inside `tx` (the refund's creation):
     * sent once by the worker, whatever happens after the commit. Nothing is queued without SMTP.
     */
    async queueRefundLink(tx: Db, to: string, link: string, refund: RefundView): Promise<void> {
      if (deps.send === undefined) return;
      await outbox.enqueue(tx, {
        id: newId('mail'),
        kind: 'refund_link',
        dedupeKey: `refund_link:${refund.id}`,
        toAddress: to,
        subject: `Your refund of ${refund.amount_native} ${refund.asset}`,
        body:
          `A refund of ${refund.amount_native} ${refund.asset} on ${refund.chain}${refund.is_test ? ' (test mode)' : ''} ` +
          'is waiting for you.\n\n' +
          `Open this link and enter the address of your ${refund.chain} wallet to receive it:\n\n${link}\n\n` +
          'The page shows the network fee before anything is sent. Check the address carefully: a transfer on a ' +
          'blockchain cannot be undone.\n',
        createdAt: deps.clock.now(),
      });
    },

    queueReceipt,

    /**
     * The payments' lifecycle hook (inside the transaction in which they became paid): a receipt for each whose payer
     * gave an email.
     */
    async queueReceipts(tx: Db, paid: PaidForReceipt[], now: Date, publicUrl: string): Promise<void> {
      if (deps.send === undefined) return;
      for (const { row, received, txHash } of paid) {
        if (row.customerEmail === null) continue;
        const chain = getChain(row.chain);
        const decimals = chain === undefined ? 0 : (getAsset(chain, row.asset)?.decimals ?? 0);
        await queueReceipt(tx, {
          paymentId: row.id,
          to: row.customerEmail,
          isTest: row.isTest,
          amount: row.amount,
          currency: row.currency,
          chain: chain?.name ?? row.chain,
          receivedNative: fromBaseUnits(received, decimals),
          asset: row.asset,
          txHash,
          orderId: row.orderId,
          link: `${publicUrl}/pay/${row.id}`,
          paidAt: now,
        });
      }
    },

    /** Retention (with webhook response bodies, SVC_RETENTION_ATTEMPT_BODIES): sent or given-up mails. */
    purgeFinishedMails: (before: Date, limit: number) => outbox.purgeFinished(deps.db, before, limit),

    /**
     * Sends the queued mails that are due (at most `limit`), each claimed first so that no other process sends it;
     * a failure is retried later with backoff (1 min, doubling, up to an hour), then given up and logged.
     */
    async sendQueued(limit = 20): Promise<{ sent: number; failed: number }> {
      const result = { sent: 0, failed: 0 };
      const send = deps.send;
      if (send === undefined) return result;
      const claimed = await outbox.claimDue(deps.db, deps.clock.now(), limit, 5 * 60_000);
      for (const mail of claimed) {
        try {
          await send({
            to: mail.toAddress,
            subject: mail.subject,
            text: mail.body,
            messageId: `<${mail.id}@svc>`,
          });
          await outbox.markSent(deps.db, mail.id, deps.clock.now());
          result.sent += 1;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          const now = deps.clock.now();
          const giveUp = mail.attempts >= MAX_MAIL_ATTEMPTS;
          const delayMs = Math.min(60_000 * 2 ** (mail.attempts - 1), 3600_000);
          await outbox.markFailed(
            deps.db,
            mail.id,
            message,
            now,
            giveUp ? null : new Date(now.getTime() + delayMs),
          );
          deps.logger?.error(
            { kind: mail.kind, mail: mail.id, attempts: mail.attempts, err: message },
            giveUp ? 'mail given up after too many attempts' : 'mail not sent; will retry',
          );
          result.failed += 1;
        }
      }
      return result;
    },

    /** The merchant hears of every change of where their funds go. */
    async payoutWalletChanged(
      merchantId: string,
      input: {
        isTest: boolean;
        changedBy: string;
        ip: string | undefined;
        changes: Array<{ chain: string; old_address: string | null; new_address: string | null }>;
      },
    ): Promise<void> {
      if (deps.send === undefined || input.changes.length === 0) return;
      const lines = input.changes.map(
        (change) =>
          `- ${change.chain}: ${change.old_address ?? '(none)'} -> ${change.new_address ?? '(none)'}`,
      );
      await deliver(
        'payout_wallet_changed',
        await merchantEmail(merchantId),
        `Payout wallets changed (${input.isTest ? 'test' : 'live'} mode)`,
        `The ${input.isTest ? 'test' : 'live'} payout wallets of your account were changed by ${input.changedBy}` +
          `${input.ip === undefined ? '' : ` from ${input.ip}`}:\n\n${lines.join('\n')}\n\n` +
          'Funds received from now on are forwarded to the new addresses. If you did not make this change, sign in, ' +
          'set your wallets back and change your password at once.\n',
      );
    },

    /** Fee, resource or refund wallets that turned too low for what they pay: to the operators, who fund them. */
    async feeWalletsLow(
      to: string[],
      wallets: Array<{ chain: string; isTest: boolean; wallet: FeeWallet }>,
    ): Promise<void> {
      const lines = wallets.map(
        ({ chain, isTest, wallet }) =>
          `- ${chain} (${isTest ? 'test' : 'live'}): ${wallet.address}, which ${wallet.role}; balance ` +
          `${wallet.balance === null ? 'unknown' : `${wallet.balance} base units`}` +
          `${wallet.lowBelow === null ? '' : ` (low below ${wallet.lowBelow})`}`,
      );
      for (const address of to) {
        await deliver(
          'fee_wallet_low',
          address,
          'A fee wallet is running low',
          'These wallets are too low for what they pay: sweeps wait (signed) until their fee wallet is funded, and ' +
            'refunds a refund wallet cannot pay go to the merchant as payment requests:\n\n' +
            `${lines.join('\n')}\n`,
        );
      }
    },

    /** An endpoint has failed every delivery for an hour (its circuit breaker is open). */
    async webhookEndpointFailing(
      merchantId: string,
      input: { url: string; isTest: boolean; failingSince: Date; consecutiveFailures: number },
    ): Promise<void> {
      if (deps.send === undefined) return;
      await deliver(
        'webhook_endpoint_failing',
        await merchantEmail(merchantId),
        `Webhook endpoint failing for an hour: ${input.url}`,
        `Every delivery to your ${input.isTest ? 'test' : 'live'} webhook endpoint ${input.url} has failed since ` +
          `${input.failingSince.toISOString()} (${input.consecutiveFailures} attempts in a row). Its events are kept ` +
          'and will be delivered once it answers again with a 2xx status; check the endpoint and its recent ' +
          'deliveries in the dashboard.\n',
      );
    },
  };
}

export type Notices = ReturnType<typeof createNotices>;
