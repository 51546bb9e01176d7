import type { Logger } from 'pino';
import type { AccountsService } from '../accounts/service.ts';
import type { FeeWallet } from '../chains/adapter.ts';
import type { RefundView } from '../refunds/schemas.ts';
import type { SendMail } from './mailer.ts';

export interface NoticesDeps {
  /** Undefined without SVC_SMTP_URL: every notice is then skipped (everything else works the same). */
  send: SendMail | undefined;
  accounts: Pick<AccountsService, 'getMerchant'>;
  logger?: Logger | undefined;
}

/**
 * Email notices: to payers (their refund link) and to merchants (a payout wallet changed, a webhook endpoint failing
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

  const merchantEmail = async (merchantId: string) => (await deps.accounts.getMerchant(merchantId)).email;

  return {
    /** Whether notices go out at all (SVC_SMTP_URL set). */
    enabled: deps.send !== undefined,

    /** The payer's refund link, to the email they (or the merchant) gave. */
    refundLink(to: string, link: string, refund: RefundView): Promise<void> {
      return deliver(
        'refund_link',
        to,
        `Your refund of ${refund.amount_native} ${refund.asset}`,
        `A refund of ${refund.amount_native} ${refund.asset} on ${refund.chain}${refund.is_test ? ' (test mode)' : ''} ` +
          'is waiting for you.\n\n' +
          `Open this link and enter the address of your ${refund.chain} wallet to receive it:\n\n${link}\n\n` +
          'The page shows the network fee before anything is sent. Check the address carefully: a transfer on a ' +
          'blockchain cannot be undone.\n',
      );
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

    /** Fee or resource wallets that turned too low to pay for sweeps: to the operators, who fund them. */
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
          `These wallets are too low to pay for the next sweeps; sweeps wait (signed) until they are funded:\n\n` +
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
