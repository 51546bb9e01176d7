import { fromBaseUnits, ratioFromDecimal } from '../../lib/money.ts';
import { type ChainInfo, getAsset, getChain } from '../chains/registry.ts';
import type { Tolerances } from '../settings/service.ts';
import type { PaymentEventSnapshot } from '../webhooks/events/service.ts';
import { isPicked, type PaymentRow, type StoredPaymentRow } from './repo.ts';
import { toleranceUnits } from './state-machine.ts';

/** Pure helpers over a stored payment that the create, views and lifecycle parts share. */

/** Base units of `asset` worth `amount` of the payment's currency at its locked rate, rounded down. */
export function currencyToBaseUnits(amount: string, rate: string, decimals: number): bigint {
  const a = ratioFromDecimal(amount);
  const r = ratioFromDecimal(rate);
  if (a.num === 0n || r.num === 0n) return 0n;
  return (a.num * r.den * 10n ** BigInt(decimals)) / (a.den * r.num);
}

function chainOf(row: Pick<PaymentRow, 'chain'>): ChainInfo {
  const chain = getChain(row.chain);
  if (chain === undefined) throw new Error(`payment on unknown chain ${row.chain}`);
  return chain;
}

/** A payment's chain, asset and amounts in base units. */
export function amounts(
  row: Pick<PaymentRow, 'chain' | 'asset' | 'expectedBaseUnits' | 'receivedBaseUnits'>,
) {
  const chain = chainOf(row);
  const asset = getAsset(chain, row.asset);
  if (asset === undefined) throw new Error(`payment in unknown asset ${row.asset} on ${row.chain}`);
  const expected = BigInt(row.expectedBaseUnits);
  const received = BigInt(row.receivedBaseUnits);
  const remaining = expected > received ? expected - received : 0n;
  return { chain, asset, expected, received, remaining };
}

/**
 * What an event says about the payment (the payload's `data`). Before the payer picks a chain (only its expiry can
 * happen then) `chain` is "" and both amounts are "0": the seed's strings, saying that nothing was asked in any coin.
 */
export function snapshot(
  stored: StoredPaymentRow,
  status: string,
  received: bigint,
  txHash: string | null,
): PaymentEventSnapshot {
  if (!isPicked(stored)) {
    return {
      payment_id: stored.id,
      status,
      amount: stored.amount,
      currency: stored.currency,
      chain: '',
      tx_hash: txHash,
      received_amount_native: '0',
      expected_amount_native: '0',
      is_test: stored.isTest,
    };
  }
  const row = stored;
  const { asset, expected } = amounts(row);
  return {
    payment_id: row.id,
    status,
    amount: row.amount,
    currency: row.currency,
    chain: row.chain,
    tx_hash: txHash,
    received_amount_native: fromBaseUnits(received, asset.decimals),
    expected_amount_native: fromBaseUnits(expected, asset.decimals),
    is_test: row.isTest,
  };
}

/** A payment's tolerances in base units of its asset. */
export function toleranceOf(row: PaymentRow, tolerances: Tolerances, expected: bigint, decimals: number) {
  return {
    under: toleranceUnits(
      expected,
      tolerances.underPercent,
      currencyToBaseUnits(tolerances.underAmount, row.rate, decimals),
    ),
    over: toleranceUnits(
      expected,
      tolerances.overPercent,
      currencyToBaseUnits(tolerances.overAmount, row.rate, decimals),
    ),
  };
}
