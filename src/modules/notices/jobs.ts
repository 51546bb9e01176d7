import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';
import type { FeeWallet } from '../chains/adapter.ts';
import type { Notices } from './service.ts';

const HOUR_MS = 3600_000;

export interface NoticesJobDeps {
  clock: Clock;
  notices: Notices;
  /** Endpoints failing for `forMs`, each once per trip of its breaker (webhooks' endpoints service). */
  claimFailingEndpoints(
    now: Date,
    forMs: number,
  ): Promise<
    Array<{
      merchantId: string;
      url: string;
      isTest: boolean;
      trippedAt: Date | null;
      consecutiveFailures: number;
    }>
  >;
  /** The fee and resource wallets of the connected chains, their balances read now. */
  feeWallets(): Promise<Array<{ chain: string; isTest: boolean; wallet: FeeWallet }>>;
  /** The operators' emails: they fund the fee wallets. */
  operatorEmails(): Promise<string[]>;
  intervalMs?: number;
  /** How often the mail outbox (payers' receipts and refund links) is polled; default 1 s. */
  outboxIntervalMs?: number;
  logger?: Logger | undefined;
}

/**
 * The notices that come from watching rather than from a request: a webhook endpoint failing for an hour (its
 * merchant, once per trip of its breaker) and a fee or resource wallet running low (the operators, once each time it
 * turns low, as this process sees it). A round that fails is logged and tried again at the next interval. Beside them,
 * the mail outbox: payers' receipts and refund links queued by the transactions that caused them, sent within a
 * second or so (notices.sendQueued, claimed row by row so that several processes never send one twice).
 */
export function createNoticesJob(deps: NoticesJobDeps) {
  const intervalMs = deps.intervalMs ?? 60_000;
  const outboxIntervalMs = deps.outboxIntervalMs ?? 1_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let mailTimer: NodeJS.Timeout | undefined;
  let mailing: Promise<void> | undefined;

  async function drainOutbox(): Promise<void> {
    // A full batch: there may be more waiting, go on at once.
    while ((await deps.notices.sendQueued(20)).sent === 20) {
      if (mailTimer === undefined) return;
    }
  }

  const mailTick = (): void => {
    mailing = drainOutbox()
      .catch((error: unknown) => deps.logger?.error({ err: error }, 'mail outbox round failed; retrying'))
      .finally(() => {
        mailing = undefined;
        if (mailTimer !== undefined) mailTimer = setTimeout(mailTick, outboxIntervalMs);
      });
  };
  /** Wallets (chain:mode:address) known low: mailed when they turned low, forgotten once funded. */
  const low = new Set<string>();

  async function round(): Promise<void> {
    const now = deps.clock.now();
    for (const endpoint of await deps.claimFailingEndpoints(now, HOUR_MS)) {
      await deps.notices.webhookEndpointFailing(endpoint.merchantId, {
        url: endpoint.url,
        isTest: endpoint.isTest,
        failingSince: endpoint.trippedAt ?? now,
        consecutiveFailures: endpoint.consecutiveFailures,
      });
    }
    const wallets = await deps.feeWallets();
    const newlyLow = wallets.filter((entry) => {
      const key = `${entry.chain}:${entry.isTest}:${entry.wallet.address}`;
      if (!entry.wallet.low) {
        low.delete(key);
        return false;
      }
      if (low.has(key)) return false;
      low.add(key);
      return true;
    });
    if (newlyLow.length > 0) await deps.notices.feeWalletsLow(await deps.operatorEmails(), newlyLow);
  }

  const tick = (): void => {
    running = round()
      .catch((error: unknown) => deps.logger?.error({ err: error }, 'notices round failed; retrying'))
      .finally(() => {
        running = undefined;
        if (timer !== undefined) timer = setTimeout(tick, intervalMs);
      });
  };

  return {
    start(): void {
      if (!deps.notices.enabled) return; // nothing to send without SMTP
      timer = setTimeout(tick, Math.min(intervalMs, 5_000));
      mailTimer = setTimeout(mailTick, 0);
    },
    async stop(): Promise<void> {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (mailTimer !== undefined) clearTimeout(mailTimer);
      mailTimer = undefined;
      await running;
      await mailing;
    },
  };
}
