import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { fromBaseUnits, MoneyFormatError, toBaseUnits } from '../../lib/money.ts';
import type { ChainAdapters } from '../chains/families.ts';
import { depositLedger } from '../chains/ledger.ts';
import { getAsset, getChain } from '../chains/registry.ts';
import type {
  CheckoutSimulateInput,
  CheckoutSimulateResultView,
  SimulatePaymentInput,
  SimulateResultView,
} from '../payments/schemas.ts';
import type { PaymentRow, PaymentsService } from '../payments/service.ts';
import type { Principal } from '../tenancy/caller.ts';

export interface SimulatorDeps {
  db: Db;
  clock: Clock;
  payments: Pick<
    PaymentsService,
    | 'findRow'
    | 'findPublicRow'
    | 'endWindow'
    | 'toView'
    | 'tolerancesOf'
    | 'checkoutView'
    | 'claimCheckoutSimulation'
  >;
  adapters: ChainAdapters;
}

type SimulatedDeposit = SimulateResultView['deposit'];

/** Test mode's simulated payer: deposits sent on the simulated chains, or a window ended, on request. */
export function createSimulatorService({ db, clock, payments, adapters }: SimulatorDeps) {
  /**
   * TEST MODE ONLY. Sends a simulated deposit to a test payment's address (it lands in the next simulated block and
   * then walks through confirmations), or ends its window (`expired`). Returns the simulated transfer (null for
   * `expired`). Defaults: `paid` sends what is still due, `underpaid` half of what would count as paid, `overpaid`
   * what is due plus the overpayment tolerance plus 10 %.
   */
  async function simulateRow(
    row: PaymentRow,
    input: SimulatePaymentInput,
    param: string,
    /** Runs once the request is found valid, right before the simulation acts; throws to stop it. */
    beforeActing: () => Promise<void> = async () => {},
  ): Promise<SimulatedDeposit> {
    if (!row.isTest) {
      throw new AppError(
        'not_test_mode',
        'Only test-mode payments can be simulated; this payment is live and needs a real on-chain transfer.',
        { param },
      );
    }
    const chain = getChain(row.chain);
    const asset = chain === undefined ? undefined : getAsset(chain, row.asset);
    const sim = adapters.simulated(row.chain);
    if (chain === undefined || asset === undefined || sim === undefined) {
      throw new AppError('unsupported_chain', `No simulated chain for ${row.chain}.`, { param });
    }

    if (input.outcome === 'expired') {
      if (!['pending', 'underpaid', 'confirming'].includes(row.status)) {
        throw new AppError(
          'invalid_state',
          `The payment is ${row.status}; only an open payment's window can end.`,
          {
            param: 'outcome',
          },
        );
      }
      if (input.amount_native !== undefined) {
        throw new AppError('parameter_invalid', 'amount_native does not apply to the expired outcome.', {
          param: 'amount_native',
        });
      }
      await beforeActing();
      await payments.endWindow(row, clock.now());
      return null;
    }

    if (adapters.get(row.chain, true)?.simulated === false) {
      // The simulator's blocks are not watched on this chain: a simulated deposit would never be seen.
      throw new AppError(
        'chain_unavailable',
        `Test payments on ${row.chain} run on a real test network here: pay with a real transfer on that ` +
          'network (only the expired outcome can be simulated).',
        { param: 'outcome' },
      );
    }
    let amount: bigint;
    if (input.amount_native !== undefined) {
      try {
        amount = toBaseUnits(input.amount_native, asset.decimals);
      } catch (error) {
        if (!(error instanceof MoneyFormatError)) throw error;
        throw new AppError(
          'parameter_invalid',
          `amount_native must be a positive decimal string with at most ${asset.decimals} decimals.`,
          { param: 'amount_native' },
        );
      }
      if (amount <= 0n) {
        throw new AppError('parameter_invalid', 'amount_native must be positive.', {
          param: 'amount_native',
        });
      }
    } else {
      const expected = BigInt(row.expectedBaseUnits);
      const sent = (await depositLedger.depositsOfPayment(db, row.id))
        .filter((deposit) => deposit.state !== 'reverted' && deposit.asset === row.asset)
        .reduce((sum, deposit) => sum + BigInt(deposit.amount), 0n);
      const due = expected > sent ? expected - sent : 0n;
      const tolerance = await payments.tolerancesOf(row);
      const atLeast1 = (value: bigint) => (value > 0n ? value : 1n);
      if (input.outcome === 'paid') {
        amount = due > 0n ? due : expected;
      } else if (input.outcome === 'underpaid') {
        amount = atLeast1((due > tolerance.under ? due - tolerance.under : 0n) / 2n);
      } else {
        amount = due + tolerance.over + atLeast1(expected / 10n);
      }
    }
    await beforeActing();
    const sent = await sim.sendDeposit({ to: row.address, asset: row.asset, amount });
    return {
      tx_hash: sent.txHash,
      output_index: sent.outputIndex,
      address: row.address,
      asset: row.asset,
      amount_native: fromBaseUnits(amount, asset.decimals),
    };
  }

  return {
    /** TEST MODE ONLY: `simulateRow` for a payment of the principal (the API's `POST /payments/{id}/simulate`). */
    async simulate(
      principal: Principal,
      id: string,
      input: SimulatePaymentInput,
    ): Promise<SimulateResultView> {
      const row = await payments.findRow(principal, id);
      const deposit = await simulateRow(row, input, 'id');
      const after = deposit === null ? await payments.findRow(principal, id) : row;
      return { outcome: input.outcome, deposit, payment: payments.toView(after) };
    },

    /**
     * TEST MODE ONLY, no key: the hosted checkout's test banner. Answers with the public checkout view only, so no
     * merchant data (order id, metadata) leaves through it. A live payment is refused with `not_test_mode`. Anyone
     * with the link may call it, so it simulates one payer per payment: a second simulation is refused with
     * `checkout_already_simulated` (the merchant's keyed simulate has no such limit).
     */
    async simulateCheckout(
      paymentId: string,
      input: CheckoutSimulateInput,
    ): Promise<CheckoutSimulateResultView> {
      const row = await payments.findPublicRow(paymentId);
      const deposit = await simulateRow(row, { outcome: input.outcome }, 'payment_id', async () => {
        if (!(await payments.claimCheckoutSimulation(row, clock.now()))) {
          throw new AppError(
            'checkout_already_simulated',
            'This test payment was already simulated from its checkout; the merchant can simulate more with its ' +
              'API key (POST /v1/payments/{id}/simulate).',
            { param: 'payment_id' },
          );
        }
      });
      return {
        outcome: input.outcome,
        deposit,
        checkout: await payments.checkoutView(paymentId),
      };
    },
  };
}
