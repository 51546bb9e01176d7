import {
  type BuiltForward,
  type BuiltRefund,
  type ForwardIntent,
  type RefundIntent,
  RefundRefused,
} from '../adapter.ts';
import type { TronHttp } from './http.ts';
import { units } from './json.ts';
import { type Delegation, parseBundle } from './sweep.ts';
import { hexAddress } from './tx.ts';

/**
 * Refunds on Tron from a deposit address: a sweep of that one deposit to the payer (sweep.ts), so they handle energy
 * and bandwidth exactly as sweeps do, and are signed, stored before broadcast (by the refund sender, in the refunds
 * table, where the adapter's bundle store finds them by hash) and followed step by step like a sweep's bundle.
 * - TRX: one TransferContract signed by the deposit key, of the refund less what the transfer burns (bandwidth beyond
 *   the address's free 600 a day, and the 1.1 TRX account creation fee when the payer's account does not exist yet):
 *   the fee comes out of the refund. Refused (RefundRefused) when nothing would be left.
 * - USDT (TRC-20): `transfer(payer, amount)` signed by the deposit key, its energy delegated by the resource wallet
 *   (activation, DelegateResource, the transfer, UnDelegateResource), or burnt within MAX_BURN_TRX with the fee
 *   wallet topping the deposit up: the payer gets the whole amount, the operator's wallets pay. Beyond MAX_BURN_TRX
 *   it waits (a plain error: tried again later), as a sweep does.
 * A refund's bundle is marked (`refund`): once its transfer landed it is done, never signed again.
 * Stake left lent: a USDT refund whose delegation landed but whose transfer expired is signed again (the refund
 * sender's `expired` step) from scratch; what the resource wallet lends the deposit address at that moment (the old
 * version's delegation) is carried into the new version, whose undelegation gives it back with its own.
 */

/** Serialised bytes of a TRX transfer that bandwidth is charged for (sweep.ts). */
const TRX_TRANSFER_BYTES = 270n;
const USDT_TRANSFER_BYTES = 350n;
const USDT_ENERGY_NEW_HOLDER = 130_285n;

export function createTronRefunds(deps: {
  http: TronHttp;
  native: string;
  usdt: { code: string; contractHex: string } | null;
  /**
   * The sweeper's builder: a refund is a one-deposit sweep to the payer. `carried`: stake lent to the deposit address
   * before, that the refund's undelegation gives back too.
   */
  buildForward: (intent: ForwardIntent, carried?: readonly Delegation[]) => Promise<BuiltForward>;
  /** What the resource wallet lends an address now (nothing without one). */
  lentTo: (address: string) => Promise<Delegation[]>;
}) {
  const { http } = deps;

  async function chainParameter(key: string, fallback: bigint): Promise<bigint> {
    const answer = await http.post<{ chainParameter?: Array<{ key: string; value?: unknown }> }>(
      '/wallet/getchainparameters',
    );
    const found = answer.chainParameter?.find((p) => p.key === key);
    return found === undefined ? fallback : units(found.value);
  }

  async function trxBalance(address: string): Promise<bigint> {
    const answer = await http.post<{ balance?: unknown }>('/wallet/getaccount', {
      address: hexAddress(address),
    });
    return answer.balance === undefined ? 0n : units(answer.balance);
  }

  return {
    async buildRefund(intent: RefundIntent): Promise<BuiltRefund> {
      const from = intent.from;
      if (from === null) throw new Error('tron: refunds are sent from deposit addresses only');
      const native = intent.asset === deps.native;
      if (!native && (deps.usdt === null || intent.asset !== deps.usdt.code)) {
        throw new RefundRefused(`${intent.asset} is not offered on tron in this mode`);
      }
      if (native) {
        const held = await trxBalance(from.address);
        if (held < intent.amount) {
          throw new Error(
            `deposit address ${from.address} holds ${held} sun, the refund needs ${intent.amount}`,
          );
        }
      }
      // A USDT refund signed again after its transfer expired may leave the stake its first version lent the deposit
      // address (the delegation landed, the undelegation after the transfer never could): whatever the resource
      // wallet lends the address now is given back by this version's undelegation, with what it lends itself.
      const carried = native ? [] : await deps.lentTo(from.address);
      const built = await deps.buildForward(
        {
          id: intent.id,
          asset: intent.asset,
          inputs: [{ address: from.address, derivationIndex: from.derivationIndex, amount: intent.amount }],
          to: intent.to,
        },
        carried,
      );
      if (built.txHash === '') {
        if (native) {
          throw new RefundRefused(
            `the refund (${intent.amount} sun) is not worth what its transfer burns (bandwidth, and the account creation fee for a new account)`,
          );
        }
        throw new Error(
          'the USDT refund waits: the deposit does not hold it yet, or its energy would burn more than MAX_BURN_TRX',
        );
      }
      const sent = built.amount;
      if ((native && sent + built.fee !== intent.amount) || (!native && sent !== intent.amount)) {
        throw new Error(`tron refund ${intent.id}: built for ${sent} (fee ${built.fee}) of ${intent.amount}`);
      }
      const bundle = { ...parseBundle(built.rawTx), refund: true as const };
      return { txHash: built.txHash, rawTx: JSON.stringify(bundle), sent, fee: built.fee };
    },

    /** A contract may reject or strand what it is sent: refunds go to plain accounts only. */
    async checkRefundAddress(address: string): Promise<string | null> {
      const answer = await http.post<{ type?: string }>('/wallet/getaccount', {
        address: hexAddress(address),
      });
      return answer.type === 'Contract'
        ? 'is a contract on Tron; refunds go to a wallet address (a contract may reject or strand them)'
        : null;
    },

    /**
     * What a refund may burn now: a TRX transfer's bandwidth; a USDT transfer's energy to a new holder and its
     * bandwidth when no stake is lent for it (an upper bound: with the resource wallet's energy, much less).
     */
    async refundFee(asset: string): Promise<bigint> {
      const txFee = await chainParameter('getTransactionFee', 1000n);
      if (asset === deps.native) return TRX_TRANSFER_BYTES * txFee;
      const energyFee = await chainParameter('getEnergyFee', 100n);
      return USDT_ENERGY_NEW_HOLDER * energyFee + USDT_TRANSFER_BYTES * txFee;
    },
  };
}
