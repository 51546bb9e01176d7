import type { Logger } from 'pino';
import type { BuiltForward, ForwardIntent, ForwardStatus, ResourceStake } from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import type { ChainId } from '../registry.ts';
import { TronApiError, type TronHttp } from './http.ts';
import { sunNumber, units } from './json.ts';
import type { RawBlock } from './scan.ts';
import {
  addressOfKey,
  base58Address,
  blockReference,
  hexAddress,
  type SignedTronTransaction,
  signTransaction,
  type TronContract,
  trc20TransferData,
  typeUrl,
} from './tx.ts';

/**
 * Sweeps on Tron. A forward becomes a bundle of signed transactions, all signed before anything is sent and stored by
 * the forwarder in the forward's raw_tx; a step is pushed once the step it waits for is in a block, and `forwardStatus`
 * re-sends the same signed bytes of a missing step until it expires.
 *
 * - TRX: one TransferContract per deposit address, of what it received less the bandwidth it must burn (none while
 *   its 600 free bandwidth a day cover the ~270 bytes) and, for a payout account that does not exist yet, the 1 TRX
 *   account creation fee. An input worth no more than that is left (dust).
 * - USDT (TRC-20): `transfer(payout, amount)` signed by the deposit key needs ~64,285 energy (~130,285 when the payout
 *   holds no USDT) and ~345 bytes of bandwidth. With a resource wallet (SVC_CHAIN_TRON_RESOURCE_KEY, TRX staked for
 *   energy with Stake 2.0) the bundle is: activate the deposit account if it does not exist (a 1 sun transfer: the
 *   resource wallet pays the creation fee, ~1.1 TRX), DelegateResource of the missing energy (and bandwidth, when the
 *   deposit's free bandwidth is used up) to the deposit address, the transfer, then UnDelegateResource of what was
 *   delegated: no TRX burnt for energy. Without one, or when its stake is short, the fee wallet (the resource wallet,
 *   else a derived gas wallet) tops the deposit up with the TRX the transfer will burn, if that stays within
 *   MAX_BURN_TRX; beyond it the input is left for now (logged) and priced again later.
 * - Expiry: every transaction references the head block and expires `expirationMs` after it (default 1 h, so the
 *   steps of a bundle have time to follow each other). The stored bytes are re-sent until the missing steps provably
 *   cannot land: their expiration is older than the solidified block (every later block is newer) and the solidity API
 *   does not have them. `forwardStatus` then says `expired`, and `bumpForward` signs a new version at once: what
 *   landed is kept; a transfer (with the steps before it) is built again for its deposit address, giving back what the
 *   old version lent that address; an undelegation is signed again for what is still lent (none needed when nothing
 *   is: the sweep is then done). So a stake lent for a sweep always comes back, and the sweep is final only then.
 */

/** A forward's signed transactions. `after`: the txID that must be in a block before this one is pushed. */
interface Step {
  role: 'activate' | 'delegate' | 'transfer' | 'undelegate' | 'topup';
  tx: SignedTronTransaction;
  after?: string;
}

/** Sun of stake the resource wallet lent an address for one resource. */
export interface Delegation {
  address: string;
  resource: 'ENERGY' | 'BANDWIDTH';
  balance: bigint;
}

interface Bundle {
  tron: 1;
  steps: Step[];
  /**
   * Delegations an earlier version of this forward made that landed and were never reclaimed (its transfer expired
   * unsent): this version's undelegations give them back too. Sun as decimal strings.
   */
  carried?: Array<{ address: string; resource: 'ENERGY' | 'BANDWIDTH'; balance: string }>;
  /**
   * A refund's bundle (refund.ts): once its transfer landed it is done, even when an undelegation expired unsent (that
   * stake is logged as still lent: a refund is never signed again after its transfer landed).
   */
  refund?: true;
}

/** Where the sweeper finds the signed bundles (the settlement stores them before broadcasting). */
export interface TronBundleStore {
  /** The raw bundle of the forward whose transaction hash is `txHash`, or null. */
  byHash(txHash: string): Promise<string | null>;
  /** The raw bundle of the forward `forwardId` (its current version), or null. */
  byForward(forwardId: string): Promise<string | null>;
}

function parseBundle(raw: string): Bundle {
  const bundle = JSON.parse(raw) as Bundle;
  if (bundle.tron !== 1 || !Array.isArray(bundle.steps)) throw new Error('Not a Tron forward bundle');
  return bundle;
}

interface AccountResource {
  freeNetUsed?: number;
  freeNetLimit?: number;
  NetUsed?: number;
  NetLimit?: number;
  EnergyUsed?: number;
  EnergyLimit?: number;
  TotalNetLimit?: number;
  TotalNetWeight?: number;
  TotalEnergyLimit?: number;
  TotalEnergyWeight?: number;
}

/** Serialised sizes (bytes, with signature and result) that bandwidth is charged for, rounded up. */
const TRX_TRANSFER_BYTES = 270n;
const USDT_TRANSFER_BYTES = 350n;
const USDT_ENERGY = 64_285n;
const USDT_ENERGY_NEW_HOLDER = 130_285n;
/** Delegated a little above the estimate: energy per staked TRX moves with the network's total stake. */
const ENERGY_MARGIN_PERCENT = 10n;
const ACCOUNT_CREATION_FEE = 1_100_000n;
const MIN_DELEGATION_SUN = 1_000_000n;

/** Math.min for bigint (Math.min does not take them). */
const smaller = (a: bigint, b: bigint): bigint => (a < b ? a : b);

export { parseBundle };

export function createTronSweeper(deps: {
  http: TronHttp;
  chainId: ChainId;
  isTest: boolean;
  native: string;
  usdt: { code: string; contractHex: string } | null;
  bundles: TronBundleStore;
  signingKeys: DepositSigningKeys;
  /** Stake 2.0 wallet delegating energy; undefined: burn fallback only. */
  resourceKey: Uint8Array | undefined;
  /** Pays activations and top-ups when there is no resource wallet. */
  feeKey: Uint8Array;
  maxBurnSun: bigint;
  expirationMs?: number;
  logger: Logger;
  now?: () => number;
}) {
  const { http, logger } = deps;
  const expirationMs = deps.expirationMs ?? 3_600_000;
  const now = deps.now ?? Date.now;
  const resourceAddress = deps.resourceKey === undefined ? null : addressOfKey(deps.resourceKey);
  const feeKey = deps.resourceKey ?? deps.feeKey;
  const feeAddress = addressOfKey(feeKey);
  let stamp = 0;

  async function chainParameter(key: string, fallback: bigint): Promise<bigint> {
    const answer = await http.post<{ chainParameter?: Array<{ key: string; value?: unknown }> }>(
      '/wallet/getchainparameters',
    );
    const found = answer.chainParameter?.find((p) => p.key === key);
    return found === undefined ? fallback : units(found.value);
  }

  const account = (address: string) =>
    http.post<{
      balance?: unknown;
      address?: string;
      /** Stake 2.0: what is staked and not lent out, per resource (no `type`: BANDWIDTH). */
      frozenV2?: Array<{ type?: string; amount?: unknown }>;
      account_resource?: { delegated_frozenV2_balance_for_energy?: unknown };
      delegated_frozenV2_balance_for_bandwidth?: unknown;
    }>('/wallet/getaccount', {
      address: hexAddress(address),
    });
  const resources = (address: string) =>
    http.post<AccountResource>('/wallet/getaccountresource', { address: hexAddress(address) });

  async function usdtBalance(address: string): Promise<bigint> {
    if (deps.usdt === null) return 0n;
    const answer = await http.post<{ constant_result?: string[] }>('/wallet/triggerconstantcontract', {
      owner_address: hexAddress(address),
      contract_address: deps.usdt.contractHex,
      function_selector: 'balanceOf(address)',
      parameter: hexAddress(address).slice(2).padStart(64, '0'),
    });
    const word = answer.constant_result?.[0];
    return word === undefined || word === '' ? 0n : BigInt(`0x${word}`);
  }

  /** raw_data for one contract, referencing `head` and expiring expirationMs after it. */
  function raw(
    head: { number: number; blockID: string; timestamp: number },
    contract: TronContract,
    feeLimit?: bigint,
  ) {
    // Distinct timestamps keep two equal transfers (same amount, same addresses) two transactions.
    stamp = (stamp + 1) % 1000;
    return {
      contract: [contract],
      ...blockReference(head),
      expiration: head.timestamp + expirationMs,
      timestamp: Math.max(now(), head.timestamp) + stamp,
      ...(feeLimit === undefined ? {} : { fee_limit: sunNumber(feeLimit) }),
    };
  }

  const transfer = (from: string, to: string, amount: bigint): TronContract => ({
    type: 'TransferContract',
    parameter: {
      type_url: typeUrl('TransferContract'),
      value: { owner_address: hexAddress(from), to_address: hexAddress(to), amount: sunNumber(amount) },
    },
  });
  const delegation = (
    type: 'DelegateResourceContract' | 'UnDelegateResourceContract',
    receiver: string,
    resource: 'ENERGY' | 'BANDWIDTH',
    balance: bigint,
  ): TronContract => ({
    type,
    parameter: {
      type_url: typeUrl(type),
      value: {
        owner_address: hexAddress(resourceAddress ?? ''),
        receiver_address: hexAddress(receiver),
        balance: sunNumber(balance),
        ...(resource === 'ENERGY' ? { resource } : {}),
      },
    },
  });

  async function currentHead(): Promise<{ number: number; blockID: string; timestamp: number }> {
    const block = await http.post<RawBlock>('/wallet/getnowblock');
    const header = block.block_header?.raw_data;
    if (block.blockID === undefined || header?.number === undefined)
      throw new Error('Tron node has no head block');
    return { number: header.number, blockID: block.blockID, timestamp: header.timestamp ?? now() };
  }

  const depositKey = (input: { derivationIndex: number; address: string }) =>
    deps.signingKeys.keyFor(deps.chainId, deps.isTest, input.derivationIndex, input.address);

  /** Sun of stake that gives `amount` units of a resource, from the network's totals (limit per weight), rounded up. */
  function stakeFor(amount: bigint, totalLimit: number | undefined, totalWeight: number | undefined): bigint {
    const limit = BigInt(totalLimit ?? 0);
    const weight = BigInt(totalWeight ?? 0);
    if (limit <= 0n || weight <= 0n) throw new Error('Tron node gave no network resource totals');
    const trx = (amount * weight + limit - 1n) / limit;
    const sun = ((trx * (100n + ENERGY_MARGIN_PERCENT)) / 100n + 1n) * 1_000_000n;
    return sun < MIN_DELEGATION_SUN ? MIN_DELEGATION_SUN : sun;
  }

  /**
   * The resource wallet's stake (Stake 2.0), sun: per resource, what is free to lend and what is lent out now (java-tron
   * moves a delegated amount out of `frozenV2` into `delegated_frozenV2_balance_for_*`), with the network's totals.
   */
  async function stakeOf(address: string) {
    const wallet = await account(address);
    const totals = await resources(address);
    let energyFree = 0n;
    let bandwidthFree = 0n;
    for (const entry of wallet.frozenV2 ?? []) {
      if (entry.type === 'ENERGY') energyFree += units(entry.amount);
      else if (entry.type === undefined || entry.type === 'BANDWIDTH') bandwidthFree += units(entry.amount);
    }
    return {
      energyFree,
      energyLent: units(wallet.account_resource?.delegated_frozenV2_balance_for_energy),
      bandwidthFree,
      bandwidthLent: units(wallet.delegated_frozenV2_balance_for_bandwidth),
      totals,
    };
  }

  async function buildTrx(intent: ForwardIntent, to: string) {
    const head = await currentHead();
    const txFee = await chainParameter('getTransactionFee', 1000n);
    const payoutExists = (await account(to)).address !== undefined;
    const steps: Step[] = [];
    const left: string[] = [];
    let amount = 0n;
    let fee = 0n;
    for (const input of intent.inputs) {
      const res = await resources(input.address);
      const free = BigInt(
        (res.freeNetLimit ?? 0) - (res.freeNetUsed ?? 0) + (res.NetLimit ?? 0) - (res.NetUsed ?? 0),
      );
      const bandwidth = free >= TRX_TRANSFER_BYTES ? 0n : TRX_TRANSFER_BYTES * txFee;
      const creation = payoutExists || steps.length > 0 ? 0n : ACCOUNT_CREATION_FEE;
      const balance = units((await account(input.address)).balance);
      const send = smaller(input.amount, balance) - bandwidth - creation;
      if (send <= 0n) {
        left.push(input.address);
        logger.warn(
          { address: input.address, amount: input.amount.toString() },
          'TRX deposit worth less than its sweep fee: left',
        );
        continue;
      }
      const tx = signTransaction(raw(head, transfer(input.address, to, send)), depositKey(input));
      steps.push({ role: 'transfer', tx });
      amount += send;
      fee += bandwidth + creation;
    }
    return { steps, amount, fee, left };
  }

  /** Undelegation of `balance` sun of `resource` lent to `receiver`, signed by the resource wallet. */
  const undelegation = (
    head: { number: number; blockID: string; timestamp: number },
    receiver: string,
    resource: 'ENERGY' | 'BANDWIDTH',
    balance: bigint,
  ) =>
    signTransaction(raw(head, delegation('UnDelegateResourceContract', receiver, resource, balance)), feeKey);

  async function buildUsdt(intent: ForwardIntent, to: string, carried: readonly Delegation[]) {
    const usdt = deps.usdt;
    if (usdt === null) throw new Error(`${intent.asset} is not offered on tron in this mode`);
    const head = await currentHead();
    const energyFee = await chainParameter('getEnergyFee', 100n);
    const txFee = await chainParameter('getTransactionFee', 1000n);
    const payoutHolds = (await usdtBalance(to)) > 0n;
    const energyNeeded = payoutHolds ? USDT_ENERGY : USDT_ENERGY_NEW_HOLDER;
    const feeLimit = deps.maxBurnSun > 0n ? deps.maxBurnSun : 1n;
    const steps: Step[] = [];
    const left: string[] = [];
    let amount = 0n;
    let fee = 0n;
    /** What earlier versions lent `address` and nobody gave back yet. */
    const carriedTo = (address: string) => {
      let energy = 0n;
      let bandwidth = 0n;
      for (const lent of carried) {
        if (lent.address !== address) continue;
        if (lent.resource === 'ENERGY') energy += lent.balance;
        else bandwidth += lent.balance;
      }
      return { energy, bandwidth };
    };
    /** An input left for now: what earlier versions lent it is given back at once, not held until it is swept. */
    const reclaimNow = (address: string) => {
      const owed = carriedTo(address);
      if (owed.energy > 0n)
        steps.push({ role: 'undelegate', tx: undelegation(head, address, 'ENERGY', owed.energy) });
      if (owed.bandwidth > 0n)
        steps.push({ role: 'undelegate', tx: undelegation(head, address, 'BANDWIDTH', owed.bandwidth) });
    };
    let resourceFree: { energy: bigint; net: bigint; totals: AccountResource } | null = null;
    let energyShortLogged = false;
    if (resourceAddress !== null) {
      const stake = await stakeOf(resourceAddress);
      resourceFree = { energy: stake.energyFree, net: stake.bandwidthFree, totals: stake.totals };
    }
    for (const input of intent.inputs) {
      const held = await usdtBalance(input.address);
      const send = smaller(input.amount, held);
      if (send <= 0n) {
        left.push(input.address);
        reclaimNow(input.address);
        continue;
      }
      const exists = (await account(input.address)).address !== undefined;
      const res = exists ? await resources(input.address) : ({} as AccountResource);
      const energyHave = BigInt((res.EnergyLimit ?? 0) - (res.EnergyUsed ?? 0));
      const netHave = exists
        ? BigInt((res.freeNetLimit ?? 0) - (res.freeNetUsed ?? 0) + (res.NetLimit ?? 0) - (res.NetUsed ?? 0))
        : 600n; // an account created now starts with the day's free bandwidth
      const energyShort = energyHave >= energyNeeded ? 0n : energyNeeded - energyHave;
      const netShort = netHave >= USDT_TRANSFER_BYTES ? 0n : USDT_TRANSFER_BYTES;
      let previous: string | undefined;
      const push = (role: Step['role'], tx: SignedTronTransaction) => {
        steps.push({ role, tx, ...(previous === undefined ? {} : { after: previous }) });
        previous = tx.txID;
      };
      const energySun =
        resourceFree === null || energyShort === 0n
          ? 0n
          : stakeFor(
              energyShort,
              resourceFree.totals.TotalEnergyLimit,
              resourceFree.totals.TotalEnergyWeight,
            );
      const netSun =
        resourceFree === null || netShort === 0n
          ? 0n
          : stakeFor(netShort, resourceFree.totals.TotalNetLimit, resourceFree.totals.TotalNetWeight);
      const delegates =
        resourceFree !== null && energySun <= resourceFree.energy && netSun <= resourceFree.net;
      /** What this version lends the deposit address, given back after its transfer. */
      let lent = { energy: 0n, bandwidth: 0n };
      if (delegates && resourceFree !== null) {
        if (!exists) {
          push('activate', signTransaction(raw(head, transfer(feeAddress, input.address, 1n)), feeKey));
          fee += ACCOUNT_CREATION_FEE + 1n;
        }
        if (energySun > 0n) {
          push(
            'delegate',
            signTransaction(
              raw(head, delegation('DelegateResourceContract', input.address, 'ENERGY', energySun)),
              feeKey,
            ),
          );
          resourceFree.energy -= energySun;
        }
        if (netSun > 0n) {
          push(
            'delegate',
            signTransaction(
              raw(head, delegation('DelegateResourceContract', input.address, 'BANDWIDTH', netSun)),
              feeKey,
            ),
          );
          resourceFree.net -= netSun;
        }
        push(
          'transfer',
          signTransaction(
            raw(
              head,
              {
                type: 'TriggerSmartContract',
                parameter: {
                  type_url: typeUrl('TriggerSmartContract'),
                  value: {
                    owner_address: hexAddress(input.address),
                    contract_address: usdt.contractHex,
                    data: trc20TransferData(to, send),
                  },
                },
              },
              feeLimit,
            ),
            depositKey(input),
          ),
        );
        lent = { energy: energySun, bandwidth: netSun };
      } else {
        if (resourceFree !== null && !energyShortLogged) {
          // Said once per sweep build, not per input: the stake is short for every remaining input alike.
          energyShortLogged = true;
          logger.warn(
            {
              resourceWallet: resourceAddress,
              freeEnergyStakeSun: resourceFree.energy.toString(),
              neededSun: energySun.toString(),
            },
            'resource wallet energy short: USDT sweeps burn TRX (within MAX_BURN_TRX) until more TRX is staked for energy',
          );
        }
        // Burn fallback: the deposit pays its energy and bandwidth in TRX, topped up by the fee wallet.
        const burn = energyShort * energyFee + netShort * txFee;
        if (burn > deps.maxBurnSun) {
          left.push(input.address);
          reclaimNow(input.address);
          logger.warn(
            { address: input.address, burnSun: burn.toString(), maxBurnSun: deps.maxBurnSun.toString() },
            'USDT sweep would burn more TRX than MAX_BURN_TRX and no delegated energy covers it: it waits',
          );
          continue;
        }
        const balance = exists ? units((await account(input.address)).balance) : 0n;
        if (balance < burn) {
          push(
            'topup',
            signTransaction(raw(head, transfer(feeAddress, input.address, burn - balance)), feeKey),
          );
          // The top-up is what the transfer burns (counted below); creating the account costs the fee wallet more.
          if (!exists) fee += ACCOUNT_CREATION_FEE;
        }
        push(
          'transfer',
          signTransaction(
            raw(
              head,
              {
                type: 'TriggerSmartContract',
                parameter: {
                  type_url: typeUrl('TriggerSmartContract'),
                  value: {
                    owner_address: hexAddress(input.address),
                    contract_address: usdt.contractHex,
                    data: trc20TransferData(to, send),
                  },
                },
              },
              burn > 0n ? burn : feeLimit,
            ),
            depositKey(input),
          ),
        );
        fee += burn;
      }
      // Everything lent to this address comes back once its transfer is in a block.
      const owed = carriedTo(input.address);
      if (lent.energy + owed.energy > 0n)
        push('undelegate', undelegation(head, input.address, 'ENERGY', lent.energy + owed.energy));
      if (lent.bandwidth + owed.bandwidth > 0n)
        push('undelegate', undelegation(head, input.address, 'BANDWIDTH', lent.bandwidth + owed.bandwidth));
      amount += send;
    }
    return { steps, amount, fee, left };
  }

  /** Where each step is: in a block (with its info), or not. */
  async function stepInfo(txID: string, solid = false) {
    const info = await http.post<{
      id?: string;
      blockNumber?: number;
      fee?: unknown;
      receipt?: { result?: string; energy_usage?: unknown; energy_usage_total?: unknown };
    }>(solid ? '/walletsolidity/gettransactioninfobyid' : '/wallet/gettransactioninfobyid', { value: txID });
    return info.id === undefined ? null : info;
  }
  type StepInfo = NonNullable<Awaited<ReturnType<typeof stepInfo>>>;

  /** The bundle's steps in a block of the chain as it is now, with their infos, by txID. */
  async function landedSteps(bundle: Bundle): Promise<Map<string, StepInfo>> {
    const landed = new Map<string, StepInfo>();
    for (const step of bundle.steps) {
      const info = await stepInfo(step.tx.txID);
      if (info !== null) landed.set(step.tx.txID, info);
    }
    return landed;
  }

  /**
   * `missing` (steps in no block) when every one of them provably never will be: each expired before the solidified
   * block's time, and the solidity API does not have it. A block holding one would have a parent older than its
   * expiration, so it would be at or below the solidified block, where the solidity API would show it. Null while any
   * of them may still land.
   */
  async function deadSteps(missing: readonly Step[]): Promise<readonly Step[] | null> {
    if (missing.length === 0) return null;
    const solid = await http.post<RawBlock>('/walletsolidity/getnowblock');
    const solidTime = solid.block_header?.raw_data?.timestamp ?? 0;
    if (missing.some((step) => step.tx.raw_data.expiration >= solidTime)) return null;
    for (const step of missing) if ((await stepInfo(step.tx.txID, true)) !== null) return null;
    return missing;
  }

  /** The delegation a delegate or undelegate step is about. */
  function delegationOf(step: Step): Delegation | null {
    const contract = step.tx.raw_data.contract[0];
    if (contract?.type !== 'DelegateResourceContract' && contract?.type !== 'UnDelegateResourceContract')
      return null;
    const value = contract.parameter.value;
    return {
      address: base58Address(value.receiver_address),
      resource: value.resource ?? 'BANDWIDTH',
      balance: BigInt(value.balance),
    };
  }

  /** The deposit address a step serves: the sender of its transfer, or the receiver of its activation, delegation or top-up. */
  function depositOf(step: Step): string {
    const contract = step.tx.raw_data.contract[0];
    if (contract === undefined) return '';
    if (step.role === 'transfer') return base58Address(contract.parameter.value.owner_address);
    if (contract.type === 'TransferContract') return base58Address(contract.parameter.value.to_address);
    return delegationOf(step)?.address ?? '';
  }

  /** What a transfer step moves to the payout: TRX sun, or the amount of its TRC-20 `transfer` call. */
  function movedBy(step: Step): bigint {
    const contract = step.tx.raw_data.contract[0];
    if (contract?.type === 'TransferContract') return BigInt(contract.parameter.value.amount);
    if (contract?.type === 'TriggerSmartContract')
      return BigInt(`0x${contract.parameter.value.data.slice(72, 136)}`);
    return 0n;
  }

  /** Sun of `resource` the resource wallet lends `receiver` now (getdelegatedresourcev2). */
  async function stillLent(receiver: string, resource: 'ENERGY' | 'BANDWIDTH'): Promise<bigint> {
    if (resourceAddress === null) return 0n;
    const answer = await http.post<{
      delegatedResource?: Array<{
        frozen_balance_for_energy?: unknown;
        frozen_balance_for_bandwidth?: unknown;
      }>;
    }>('/wallet/getdelegatedresourcev2', {
      fromAddress: hexAddress(resourceAddress),
      toAddress: hexAddress(receiver),
    });
    let lent = 0n;
    for (const entry of answer.delegatedResource ?? []) {
      lent += units(
        resource === 'ENERGY' ? entry.frozen_balance_for_energy : entry.frozen_balance_for_bandwidth,
      );
    }
    return lent;
  }

  /**
   * Of undelegations that expired unsent, what each can still give back: its balance, or less when part of it is
   * not lent any more (given back by hand, say). Nothing for a stake no longer lent, which needs no undelegation.
   */
  async function owedBack(undelegations: readonly Step[]): Promise<Delegation[]> {
    const owed: Delegation[] = [];
    for (const step of undelegations) {
      const lent = delegationOf(step);
      if (lent === null) continue;
      const still = smaller(lent.balance, await stillLent(lent.address, lent.resource));
      if (still > 0n) owed.push({ ...lent, balance: still });
    }
    return owed;
  }

  /** Pushes the steps that are ready (their predecessor in a block) and not yet in a block. */
  async function push(bundle: Bundle, landed: ReadonlySet<string>): Promise<void> {
    for (const step of bundle.steps) {
      if (landed.has(step.tx.txID)) continue;
      if (step.after !== undefined && !landed.has(step.after)) continue;
      const answer = await http.post<{ result?: boolean; code?: string; message?: string }>(
        '/wallet/broadcasttransaction',
        step.tx as unknown as Record<string, unknown>,
      );
      if (answer.result !== true && answer.code !== 'DUP_TRANSACTION_ERROR') {
        const message =
          answer.message === undefined ? '' : Buffer.from(answer.message, 'hex').toString('utf8');
        logger.warn(
          { txID: step.tx.txID, role: step.role, code: answer.code, message },
          'Tron sweep step refused by the node',
        );
      }
    }
  }

  async function buildForward(
    intent: ForwardIntent,
    carried: readonly Delegation[] = [],
  ): Promise<BuiltForward> {
    if (intent.to === null) throw new Error('A live Tron sweep needs a payout wallet');
    const built =
      intent.asset === deps.native
        ? await buildTrx(intent, intent.to)
        : await buildUsdt(intent, intent.to, carried);
    const main = built.steps.filter((s) => s.role === 'transfer').at(-1);
    if (main === undefined) return { txHash: '', rawTx: '', amount: 0n, fee: 0n, left: built.left };
    const bundle: Bundle = {
      tron: 1,
      steps: built.steps,
      ...(carried.length === 0
        ? {}
        : {
            carried: carried.map((lent) => ({
              address: lent.address,
              resource: lent.resource,
              balance: lent.balance.toString(),
            })),
          }),
    };
    return {
      txHash: main.tx.txID,
      rawTx: JSON.stringify(bundle),
      amount: built.amount,
      fee: built.fee,
      ...(built.left.length > 0 ? { left: built.left } : {}),
    };
  }

  return {
    buildForward,

    /**
     * The resource wallet's stake and how many USDT sweeps its free energy stake covers now (each borrowing the energy
     * of a transfer to a payout that holds USDT, with the margin the sweeps add); null without a resource wallet.
     */
    async resourceStake(): Promise<ResourceStake | null> {
      if (resourceAddress === null) return null;
      const stake = await stakeOf(resourceAddress);
      const limit = units(stake.totals.TotalEnergyLimit);
      const weight = units(stake.totals.TotalEnergyWeight);
      const perSweep = stakeFor(USDT_ENERGY, stake.totals.TotalEnergyLimit, stake.totals.TotalEnergyWeight);
      const covered = stake.energyFree / perSweep;
      return {
        energyStaked: stake.energyFree + stake.energyLent,
        energyLent: stake.energyLent,
        bandwidthStaked: stake.bandwidthFree + stake.bandwidthLent,
        bandwidthLent: stake.bandwidthLent,
        // Energy per staked TRX is the network's limit over its total stake (weight, in TRX).
        energyAvailable: (stake.energyFree * limit) / (weight * 1_000_000n),
        energyPerSweep: USDT_ENERGY,
        sweepsCovered: covered,
        short: covered < 1n,
      };
    },

    /** The fee wallet's TRX (sun): what pays activations and burn top-ups. */
    async feeBalance(): Promise<bigint> {
      const answer = await account(feeAddress);
      return answer.balance === undefined ? 0n : units(answer.balance);
    },

    async broadcast(rawTx: string): Promise<void> {
      await push(parseBundle(rawTx), new Set());
    },

    async forwardStatus(txHash: string): Promise<ForwardStatus> {
      const raw = await deps.bundles.byHash(txHash);
      if (raw === null) {
        const info = await stepInfo(txHash);
        return info === null ? { state: 'unknown' } : { state: 'pending' };
      }
      const bundle = parseBundle(raw);
      const landed = await landedSteps(bundle);
      const missing = bundle.steps.filter((step) => !landed.has(step.tx.txID));
      if (missing.length > 0) {
        const dead = await deadSteps(missing);
        if (dead === null) {
          // Whatever the node dropped or could not take yet is sent again: the same signed bytes.
          await push(bundle, new Set(landed.keys())).catch((error: unknown) =>
            logger.warn(
              { txHash, error: error instanceof Error ? error.message : String(error) },
              'Tron sweep re-send failed',
            ),
          );
          return { state: 'pending' };
        }
        if (dead.some((step) => step.role !== 'undelegate')) {
          logger.warn(
            { txHash, steps: dead.map((step) => `${step.role} ${step.tx.txID}`) },
            'Tron sweep expired unsent: it provably cannot land; a new version is signed for what it did not do',
          );
          return { state: 'expired' };
        }
        // Only undelegations are missing: the transfer is done, but the stake must come back before the sweep is.
        const owed = await owedBack(dead);
        if (owed.length > 0 && bundle.refund === true) {
          logger.warn(
            {
              txHash,
              owed: owed.map((lent) => `${lent.balance} sun of ${lent.resource} lent to ${lent.address}`),
            },
            'Tron refund: an undelegation expired unsent; the refund is done, the stake stays lent until given back (UnDelegateResource by hand)',
          );
        } else if (owed.length > 0) {
          logger.warn(
            {
              txHash,
              owed: owed.map((lent) => `${lent.balance} sun of ${lent.resource} lent to ${lent.address}`),
            },
            'Tron sweep: an undelegation expired unsent; it is signed again so the stake comes back',
          );
          return { state: 'expired' };
        }
        // Nothing is lent any more (given back by hand, say): nothing left to do.
      }
      let newest = -1;
      let charged = 0n;
      let energyUsed = 0n;
      let energyDelegated = 0n;
      const failed: string[] = [];
      for (const step of bundle.steps) {
        const info = landed.get(step.tx.txID);
        if (info === undefined) continue;
        newest = Math.max(newest, info.blockNumber ?? 0);
        charged += units(info.fee);
        energyUsed += units(info.receipt?.energy_usage_total);
        energyDelegated += units(info.receipt?.energy_usage);
        if (
          step.role === 'transfer' &&
          step.tx.raw_data.contract[0]?.type === 'TriggerSmartContract' &&
          info.receipt?.result !== 'SUCCESS'
        ) {
          failed.push(`${step.tx.txID} (${info.receipt?.result ?? 'FAILED'})`);
        }
      }
      const block = await http.post<RawBlock>('/wallet/getblockbynum', { num: newest });
      if (block.blockID === undefined) return { state: 'pending' };
      return failed.length === 0
        ? {
            state: 'included',
            blockNumber: newest,
            blockHash: block.blockID,
            fee: charged,
            usage: { energyUsed, energyDelegated },
          }
        : {
            state: 'included',
            blockNumber: newest,
            blockHash: block.blockID,
            reverted: `transfer ${failed.join(', ')} failed on chain`,
          };
    },

    /**
     * A new version of a forward whose current one provably cannot land in part (see forwardStatus `expired`); null
     * otherwise (the stored version is re-sent until then). What landed is kept as it is. Transfers that never land,
     * with the steps before them, are built again for their deposit addresses, and what the old version lent those
     * addresses and never got back is given back by the new one. Undelegations that never land are signed again for
     * what is still lent.
     */
    async bumpForward(intent: ForwardIntent, previous: { fee: bigint }): Promise<BuiltForward | null> {
      const raw = await deps.bundles.byForward(intent.id);
      if (raw === null) return null;
      const bundle = parseBundle(raw);
      const landed = await landedSteps(bundle);
      const dead = await deadSteps(bundle.steps.filter((step) => !landed.has(step.tx.txID)));
      if (dead === null) return null;
      const kept = bundle.steps.filter((step) => landed.has(step.tx.txID));
      const redo = new Set(dead.filter((step) => step.role !== 'undelegate').map(depositOf));
      const steps: Step[] = [...kept];
      let amount = kept
        .filter((step) => step.role === 'transfer')
        .reduce((sum, step) => sum + movedBy(step), 0n);
      let carried: Bundle['carried'];
      if (redo.size > 0) {
        const lent: Delegation[] = (bundle.carried ?? [])
          .filter((entry) => redo.has(entry.address))
          .map((entry) => ({ ...entry, balance: BigInt(entry.balance) }));
        for (const step of kept) {
          const delegated = step.role === 'delegate' ? delegationOf(step) : null;
          if (delegated !== null && redo.has(delegated.address)) lent.push(delegated);
        }
        let rebuilt: BuiltForward;
        try {
          rebuilt = await buildForward(
            { ...intent, inputs: intent.inputs.filter((input) => redo.has(input.address)) },
            lent,
          );
        } catch (error) {
          if (error instanceof TronApiError) return null;
          throw error;
        }
        if (rebuilt.txHash === '' || (rebuilt.left?.length ?? 0) > 0) {
          // A version sweeping only part of its deposits would report the rest as swept: it waits, priced again later.
          logger.warn(
            { forward: intent.id, left: rebuilt.left },
            'Tron sweep expired unsent, and cannot be swept again whole now: it waits',
          );
          return null;
        }
        const again = parseBundle(rebuilt.rawTx);
        steps.push(...again.steps);
        carried = again.carried;
        amount += rebuilt.amount;
      }
      const head = await currentHead();
      for (const owed of await owedBack(
        dead.filter((step) => step.role === 'undelegate' && !redo.has(depositOf(step))),
      )) {
        steps.push({ role: 'undelegate', tx: undelegation(head, owed.address, owed.resource, owed.balance) });
      }
      const main = steps.filter((step) => step.role === 'transfer').at(-1);
      if (main === undefined || steps.length === kept.length) return null;
      logger.warn(
        {
          forward: intent.id,
          resigned: steps.slice(kept.length).map((step) => `${step.role} ${step.tx.txID}`),
        },
        'Tron sweep: signing a new version of what provably cannot land; what landed is kept',
      );
      const next: Bundle = { tron: 1, steps, ...(carried === undefined ? {} : { carried }) };
      // The fee is the old estimate until the sweep is final: the receipts then say what it cost.
      return { txHash: main.tx.txID, rawTx: JSON.stringify(next), amount, fee: previous.fee };
    },

    /**
     * What the resource wallet lends `address` now (getdelegatedresourcev2), per resource: a refund built (or built
     * again) for a deposit address gives it back with its own undelegation, so a stake an expired version lent is
     * never left behind. Empty without a resource wallet.
     */
    async lentTo(address: string): Promise<Delegation[]> {
      const lent: Delegation[] = [];
      for (const resource of ['ENERGY', 'BANDWIDTH'] as const) {
        const balance = await stillLent(address, resource);
        if (balance > 0n) lent.push({ address, resource, balance });
      }
      return lent;
    },

    resourceAddress,
    feeAddress,
  };
}
