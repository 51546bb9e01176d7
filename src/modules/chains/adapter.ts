import { type ChainId, getChain } from './registry.ts';

/**
 * What the settlement engine needs from one chain in one mode. The watcher, the confirmations pass and the forwarder
 * are generic: everything chain-specific (RPC, block format, signing) lives behind this interface. The built-in
 * simulated chain (`simulated/`) implements it for test mode; real chains implement it over their nodes.
 */

export interface BlockRef {
  number: number;
  hash: string;
  parentHash: string;
  /** The block's own timestamp. */
  timestamp: Date;
}

/** One payment into an address: a transaction output (UTXO chains) or a transfer log/instruction (account chains). */
export interface Transfer {
  txHash: string;
  /** vout on UTXO chains, log or instruction index on account chains: unique within the transaction. */
  outputIndex: number;
  /** The receiving address exactly as the chain reports it. */
  to: string;
  /** Asset code from the registry (ETH, USDC, …). */
  asset: string;
  /** Base units of `asset`. */
  amount: bigint;
}

/** What a forwarding transaction must do; built into a signed transaction before anything is broadcast. */
export interface ForwardIntent {
  /** The forward's id: building the same intent twice gives the same transaction. */
  id: string;
  asset: string;
  /** The deposit addresses swept (with their derivation index, for signing) and what each holds. */
  inputs: Array<{
    address: string;
    derivationIndex: number;
    amount: bigint;
    /** The deposits behind `amount` (UTXO chains spend these outputs): transaction, output index and amount. */
    outputs?: Array<{ txHash: string; outputIndex: number; amount: bigint }>;
  }>;
  /** The payout wallet; null in test mode without one (the simulator's sink). */
  to: string | null;
}

export interface BuiltForward {
  /** The hash the transaction will have on chain, known before it is broadcast. */
  txHash: string;
  /** The signed transaction, serialised: broadcasting it again is harmless (same hash). */
  rawTx: string;
  /** Base units of `asset` that reach the payout wallet. */
  amount: bigint;
  /** Base units of the chain's native coin paid as the network fee. */
  fee: bigint;
  /**
   * Input addresses the transaction does not sweep (worth less than their fee, or holding nothing): their deposits
   * stay unswept, never reported as forwarded.
   */
  left?: string[];
}

/** What a refund transaction must do; built into a signed transaction before anything is broadcast. */
export interface RefundIntent {
  /** The refund's id: building the same intent twice gives the same transaction where the chain allows it. */
  id: string;
  asset: string;
  /**
   * Base units of `asset` taken from the sending address. A native-coin refund pays its network fee out of this
   * (the payer receives amount − fee); a token refund pays the fee in the native coin (the gas wallet tops the
   * address up, as for sweeps).
   */
  amount: bigint;
  /** The payer's address, already checked with `validateAddress` and `checkRefundAddress`. */
  to: string;
  /**
   * The deposit address that holds the funds, with its derivation index (the key is checked against it); null: the
   * chain's refund wallet (`refundWallet`), after the funds were swept.
   */
  from: {
    address: string;
    derivationIndex: number;
    /**
     * UTXO chains: the outputs of the deposits held for the refund that it spends, whole (transaction, output index
     * and amount), in the order they are taken.
     */
    outputs?: Array<{ txHash: string; outputIndex: number; amount: bigint }>;
  } | null;
  /**
   * UTXO chains: where the part of the spent outputs that the refund does not take goes (the merchant's payout
   * wallet); null when none is set.
   */
  change?: string | null;
}

export interface BuiltRefund {
  txHash: string;
  /** The signed transaction, serialised like a forward's: `broadcast` and `forwardStatus` take it as they are. */
  rawTx: string;
  /** Base units of `asset` that reach the payer. */
  sent: bigint;
  /** Base units of the chain's native coin paid as the network fee. */
  fee: bigint;
  /** UTXO chains: base units of the spent outputs sent to `change` (the payout wallet); 0 or absent: none. */
  change?: bigint;
}

/**
 * The signed outgoing transactions recorded outside the forwards table (refunds), by chain and mode: an adapter that
 * manages nonces or re-sends what it signed (EVM) reads them beside the forwards.
 */
export interface OutgoingTransactions {
  /** The raw transaction whose hash is `txHash`, or null. */
  byHash(chain: string, isTest: boolean, txHash: string): Promise<string | null>;
  /** Raw transactions not yet final (their nonces are taken). */
  open(chain: string, isTest: boolean): Promise<string[]>;
}

/** Thrown by `buildRefund` when the refund cannot be sent as asked (worth less than its fee): never retried. */
export class RefundRefused extends Error {}

/**
 * Thrown by `buildRefund` for a refund from the chain's refund wallet (`from: null`) when that wallet, as the node
 * sees it now, cannot pay it (too little of the asset, or of the native coin for its fee): the refund becomes a
 * payment request the merchant pays instead, rather than waiting unseen for the operator to fund the wallet.
 */
export class RefundWalletShort extends Error {}

/** Where a deposit was seen: checked again just before it is credited. */
export interface SeenDeposit {
  txHash: string;
  blockNumber: number;
  blockHash: string;
}

/** What a mempool poll found (UTXO chains): see ChainAdapter.mempool. */
export interface MempoolChanges {
  /** Transfers to watched addresses in transactions waiting in the node's mempool, not yet in a block. */
  transfers: Transfer[];
  /**
   * Of the `recorded` outputs, those that no longer stand: their transaction left the mempool without reaching a block
   * (replaced by fee, conflicted by a double spend, evicted). They stop counting at once.
   */
  gone: Array<{ txHash: string; outputIndex: number }>;
}

export type ForwardStatus =
  | { state: 'unknown' }
  | { state: 'pending' }
  /**
   * Provably never to land (Solana: absent at `finalized` with its blockhash past its life; Tron: a transaction of the
   * sweep absent from the solidity API with its expiration older than the solidified block): a new version is signed
   * through `bumpForward` at once. Never answered while the transaction could still be included.
   */
  | { state: 'expired' }
  | {
      state: 'included';
      blockNumber: number;
      blockHash: string;
      /** Set when a transaction of the forward reverted on chain: it moved nothing, it must not count as swept. */
      reverted?: string;
      /** The network fee actually charged (receipts), where it can be below the signed maximum. */
      fee?: bigint;
      /** What the sweep used of the chain's resources (receipts), on chains that charge energy (Tron). */
      usage?: ForwardUsage;
    };

/** What a sweep used of the chain's resources, read from its receipts: recorded with the sweep when it is final. */
export interface ForwardUsage {
  /** Energy units its transactions used in all. */
  energyUsed: bigint;
  /** Of those, the units paid by staked TRX lent to the deposit address (delegated), not by burning TRX. */
  energyDelegated: bigint;
}

/**
 * A wallet of the operator's that pays the network fees of sweeps on one chain (Solana's fee payer, an EVM chain's gas
 * wallet): operators see it with its balance, and a warning when it is too low.
 */
export interface FeeWallet {
  /** What it pays for, in a few words. */
  role: string;
  address: string;
  /** Its balance in the chain's native coin, base units; null when the node could not be asked. */
  balance: bigint | null;
  /** The balance under which it counts as low (null: no fixed floor; `low` says when sweeps wait for it). */
  lowBelow: bigint | null;
  /** Too low now: sweeps wait, or will fail, until it is funded. */
  low: boolean;
  /** A Tron resource wallet's stake lending energy to sweeps (Stake 2.0); absent for other wallets. */
  stake?: ResourceStake | null;
  /** A refund wallet's token balances (base units; null when the node could not be asked); absent for others. */
  tokens?: Array<{ asset: string; balance: bigint | null }>;
}

/**
 * A Tron resource wallet's stake (Stake 2.0): sun staked for energy and for bandwidth, of which some is lent to deposit
 * addresses for the sweeps under way, and what the rest covers.
 */
export interface ResourceStake {
  /** Sun staked for energy, what is lent out included. */
  energyStaked: bigint;
  /** Of it, sun lent to deposit addresses now. */
  energyLent: bigint;
  bandwidthStaked: bigint;
  bandwidthLent: bigint;
  /** Energy units the stake not lent out gives, at the network's current energy per staked TRX. */
  energyAvailable: bigint;
  /** Energy units one USDT sweep borrows (to a payout that holds USDT). */
  energyPerSweep: bigint;
  /** USDT sweeps the stake not lent out covers now. */
  sweepsCovered: bigint;
  /** Too little for the next sweep: USDT sweeps burn TRX instead (within MAX_BURN_TRX) until more is staked. */
  short: boolean;
}

export interface ChainAdapter {
  readonly chain: ChainId;
  readonly isTest: boolean;
  /** True for the built-in simulated chain (no real funds, no explorer). */
  readonly simulated: boolean;
  /** Blocks on top of a transaction's block (its own block counts as 1) before it is final. */
  readonly requiredConfirmations: number;
  /**
   * How often the settlement loop polls this chain (ms); unset: half the chain's block time, 1 to 15 s. Read before
   * each wait, so an adapter may change it (a Bitcoin node's ZMQ connected: a slower safety net).
   */
  readonly pollIntervalMs?: number;
  /**
   * Push notifications from the node (a Bitcoin node's ZMQ): `wake` cuts the loop's current wait short so it polls
   * now. Wake-ups are hints, never the source of truth: what a poll reads decides. Several while a poll runs give one
   * more poll after it. The loop subscribes while it leads the chain and calls the returned function to leave.
   * Optional: without it the loop only polls.
   */
  onActivity?(wake: () => void): () => void;
  /** The newest block, or null before the chain has any. */
  head(): Promise<BlockRef | null>;
  /** The block at this height on the chain as it is now, or null above the head. */
  block(number: number): Promise<BlockRef | null>;
  /**
   * The transfers in `block` paid to any address in `watched` (keys from `addressKey`), in the block's order. Only
   * called for a block just returned by `block`, so an adapter may keep what it fetched.
   */
  transfers(block: BlockRef, watched: ReadonlySet<string>): Promise<Transfer[]>;
  /**
   * Checked just before deposits become final (credited): the transaction hashes among `deposits` that still stand
   * where they were seen, succeeded in that very block on the chain as it is now. A deposit left out is not credited
   * in this round. Optional: the simulated chain's deposits cannot move under it.
   */
  recheck?(deposits: readonly SeenDeposit[]): Promise<ReadonlySet<string>>;
  /**
   * UTXO chains: the transfers waiting in the node's mempool (so a payment shows `confirming` within seconds of its
   * broadcast), and which of the mempool deposits recorded so far (`recorded`) are gone without a block. Called each
   * poll after the new blocks were scanned. Optional: account chains report transfers in blocks only.
   */
  mempool?(
    watched: ReadonlySet<string>,
    recorded: ReadonlyArray<{ txHash: string; outputIndex: number }>,
  ): Promise<MempoolChanges>;
  /**
   * When a batch of final deposits is worth a sweep: at least `minDeposits` of them, or the oldest has waited
   * `maxWaitMs` (UTXO chains, where one transaction spending many outputs costs far less than many). Unset: at once.
   */
  readonly sweepPolicy?: { minDeposits: number; maxWaitMs: number };
  /** How this chain compares addresses (EVM addresses are case-insensitive, base58 ones are not). */
  addressKey(address: string): string;
  /** Builds and signs the forwarding transaction of an intent. Pure with respect to the chain: nothing is sent. */
  buildForward(intent: ForwardIntent): Promise<BuiltForward>;
  /**
   * A higher-fee replacement (BIP125) of a forward stuck unconfirmed: the SAME inputs (the intent rebuilt from the
   * forward's deposits), a fee above `previous.fee` by at least what the chain's relay rules ask. Null when it cannot be
   * raised within the chain's fee cap (the stuck version keeps waiting). Solana: a new version (new blockhash) of a
   * forward whose status is `expired`, checked again from `previous.txHash`; null when it is not. Tron: a new version of
   * the parts of a forward that provably cannot land (status `expired`), what landed kept. Optional.
   */
  bumpForward?(
    intent: ForwardIntent,
    previous: { fee: bigint; txHash?: string },
  ): Promise<BuiltForward | null>;
  /** Deposit addresses one forwarding transaction sweeps at most (a transaction's size limit); unset: the forwarder's batch. */
  readonly maxForwardInputs?: number;
  /** How long a forward's (UTXO chains: and a refund's) current version may wait unconfirmed before `bumpForward` (`bumpRefund`) is asked (ms). */
  readonly bumpAfterMs?: number;
  /** Sends a built transaction. Idempotent: sending the same raw transaction again changes nothing. */
  broadcast(rawTx: string): Promise<void>;
  /** Where a broadcast transaction is now. */
  forwardStatus(txHash: string): Promise<ForwardStatus>;
  /**
   * /readyz detail: null while the node answers and keeps up, else what is wrong (down, syncing, behind). Optional:
   * the simulated chain has no node.
   */
  readiness?(): Promise<string | null>;
  /** The wallet that pays this chain's sweep fees, when the family has one; its balance read now. */
  feeWallet?(): Promise<FeeWallet | null>;
  /**
   * Refunds from a deposit address: builds and signs the transaction of `intent` (pure with respect to the chain:
   * nothing is sent; `broadcast` and `forwardStatus` then handle it as they do a forward). A chain without it takes no
   * refunds (the API refuses them with `refunds_unsupported`). Throws RefundRefused when it cannot be sent as asked.
   */
  buildRefund?(intent: RefundIntent): Promise<BuiltRefund>;
  /**
   * UTXO chains: a higher-fee replacement (BIP125) of a refund from a deposit address whose current version has waited
   * in the mempool for `bumpAfterMs`: the SAME inputs (`intent.from.outputs`), the same change, a fee above
   * `previous.fee` by at least what the chain's relay rules ask, paid out of what the payer gets. Null when it cannot
   * be raised within the chain's fee cap, or when what the payer would get is dust (the stuck version keeps waiting).
   */
  bumpRefund?(intent: RefundIntent, previous: { fee: bigint }): Promise<BuiltRefund | null>;
  /**
   * Whether refunds of swept payments can be sent from a wallet of the chain's own (`from: null`): the simulated chain
   * pays them from its simulated wallet, an EVM chain from its refund wallet when configured
   * (SVC_CHAIN_<NAME>_REFUND_WALLET). Unset: they become payment requests the merchant pays.
   */
  readonly refundWallet?: boolean;
  /**
   * UTXO chains: a refund from a deposit address spends its deposits' outputs whole (`from.outputs`), the rest going
   * to `change`; once sent, those deposits are closed (never swept: their outputs are spent).
   */
  readonly refundSpendsOutputs?: boolean;
  /** The refund wallet (when `refundWallet` is on and the family has a real one): address and balances read now. */
  refundWalletView?(): Promise<FeeWallet | null>;
  /** The network fee a refund of `asset` would pay now, in base units of the native coin, as shown before sending. */
  refundFee?(asset: string): Promise<bigint>;
  /**
   * Whether the chain takes `address` as a refund's destination beyond its format (null) or why not (an EVM contract
   * may reject or strand what it is sent). Optional: format checks (`validateAddress`) are enough.
   */
  checkRefundAddress?(address: string): Promise<string | null>;
}

/**
 * The form in which a chain compares addresses: EVM addresses and bech32 ones are case-insensitive (lower-cased
 * here); base58 addresses (Solana, Tron, legacy Bitcoin) are case-sensitive and kept as they are.
 */
export function addressKey(chain: ChainId, address: string): string {
  const family = getChain(chain)?.family;
  if (family === 'evm') return address.toLowerCase();
  if (family === 'bitcoin' && /^(bc|tb|bcrt|ltc|tltc|rltc)1/i.test(address)) return address.toLowerCase();
  return address;
}
