import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { getChain } from '../chains/registry.ts';
import type { AddressPool, PooledAddress } from './address-pool.ts';
import type { Pricing } from './pricing.ts';
import { isPicked, type PaymentsRepo, type StoredPaymentRow } from './repo.ts';

export interface PaymentSelectionDeps {
  db: Db;
  repo: PaymentsRepo;
  clock: Clock;
  addresses: AddressPool;
  pricing: Pricing;
}

/**
 * How long the rate locked at the payer's pick holds (never past the payment's window). A payment seen on chain in
 * that time keeps it; one still waiting after it gets a new quote when the payer asks (the checkout offers it).
 */
const QUOTE_WINDOW_MS = 15 * 60 * 1000;

const alreadyPicked = (row: StoredPaymentRow) =>
  new AppError(
    'invalid_state',
    `This payment is to be paid in ${row.asset} on ${getChain(row.chain ?? '')?.name ?? row.chain}; the choice is final ` +
      'once made (funds may already be on their way to its address). Ask the shop for a new payment to pay otherwise.',
    { param: 'chain' },
  );

/**
 * The payer's pick of a chain and asset for a payment created without one: its deposit address is taken from the
 * same pool (and so through the same second derivation) as at creation, and its rate locked for QUOTE_WINDOW_MS.
 */
export function createPaymentSelection(deps: PaymentSelectionDeps) {
  const { db, repo, clock, addresses, pricing } = deps;

  function checkOpen(row: StoredPaymentRow, now: Date): void {
    if (row.status !== 'pending' || now.getTime() >= row.expiresAt.getTime()) {
      throw new AppError(
        'invalid_state',
        `The payment is ${now.getTime() >= row.expiresAt.getTime() && row.status === 'pending' ? 'past its window' : row.status}; a chain can be picked only while it awaits payment.`,
        { param: 'chain' },
      );
    }
  }

  /** Rate and expected amount for `row`'s amount in the pair, and when that quote lapses. */
  async function quoteFor(row: StoredPaymentRow, pair: ReturnType<Pricing['resolvePair']>, now: Date) {
    const quote = await pricing.quote(pair.asset, row.currency, row.amount, row.isTest);
    const quoteExpiresAt = new Date(Math.min(row.expiresAt.getTime(), now.getTime() + QUOTE_WINDOW_MS));
    return {
      expectedBaseUnits: quote.expected.toString(),
      rate: quote.rate.rate,
      rateSource: quote.rate.source,
      quoteExpiresAt,
    };
  }

  return {
    /**
     * Public (the checkout, no key): picks `chain`/`asset` for payment `id`, or renews the quote of the same pick once it
     * lapsed while nothing was seen. Repeating a pick whose quote holds changes nothing.
     */
    async select(id: string, choice: { chain: string; asset: string }): Promise<void> {
      const found = await repo.findPublic(id);
      if (found === undefined) throw new AppError('not_found', 'No such payment.', { param: 'payment_id' });
      const options = found.paymentOptions;
      if (options === null) {
        throw new AppError(
          'invalid_state',
          "The shop chose this payment's chain; there is nothing to pick.",
          {
            param: 'chain',
          },
        );
      }
      const pair = pricing.resolvePair(choice.chain, choice.asset, found.isTest);
      if (!options.some((option) => option.chain === pair.chain.id && option.asset === pair.asset.code)) {
        throw new AppError(
          'parameter_invalid',
          `${pair.asset.code} on ${pair.chain.name} is not one of this payment's options.`,
          { param: 'chain' },
        );
      }
      const now = clock.now();
      checkOpen(found, now);

      if (isPicked(found)) {
        if (found.chain !== pair.chain.id || found.asset !== pair.asset.code) throw alreadyPicked(found);
        if (found.quoteExpiresAt !== null && found.quoteExpiresAt.getTime() > now.getTime()) return;
        // The quote lapsed with nothing seen (the payment is still pending): price it again at the same address.
        const quote = await quoteFor(found, pair, now);
        await db.transaction(async (tx) => {
          const [row] = await repo.lockForSettlement(tx, [id]);
          if (row === undefined || !isPicked(row)) return;
          checkOpen(row, now);
          if (row.quoteExpiresAt !== null && row.quoteExpiresAt.getTime() > now.getTime()) return;
          await repo.applyPick(tx, id, {
            chain: row.chain,
            asset: row.asset,
            address: row.address,
            derivationIndex: row.derivationIndex,
            selectedAt: row.selectedAt,
            ...quote,
            updatedAt: now,
          });
        });
        return;
      }

      await pricing.checkUsable(found.merchantId, found.isTest, pair.chain);
      const quote = await quoteFor(found, pair, now);
      // Taken before the transaction (a refill queries the database), given back if another pick won meanwhile.
      const deposit: PooledAddress = await addresses.take(pair.chain.id, found.isTest);
      const outcome = await db.transaction(async (tx) => {
        const [row] = await repo.lockForSettlement(tx, [id]);
        if (row === undefined) return 'gone' as const;
        if (isPicked(row)) return row;
        if (row.status !== 'pending' || now.getTime() >= row.expiresAt.getTime()) return 'closed' as const;
        await repo.applyPick(tx, id, {
          chain: pair.chain.id,
          asset: pair.asset.code,
          address: deposit.address,
          derivationIndex: deposit.index,
          selectedAt: now,
          ...quote,
          updatedAt: now,
        });
        return 'picked' as const;
      });
      if (outcome === 'picked') return;
      addresses.giveBack(pair.chain.id, found.isTest, deposit);
      if (outcome === 'closed') {
        throw new AppError('invalid_state', 'The payment no longer awaits payment; nothing was picked.', {
          param: 'chain',
        });
      }
      if (outcome !== 'gone' && (outcome.chain !== pair.chain.id || outcome.asset !== pair.asset.code)) {
        throw alreadyPicked(outcome);
      }
    },
  };
}
