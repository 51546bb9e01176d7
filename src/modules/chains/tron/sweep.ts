import type { Logger } from 'pino';
import type { BuiltForward, ForwardIntent, ForwardStatus } from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import type { ChainId } from '../registry.ts';
import { TronApiError, type TronHttp } from './http.ts';
import { sunNumber, units } from './json.ts';
import type { RawBlock } from './scan.ts';
import {
  addressOfKey,
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
 *   steps of a bundle have time to follow each other). `bumpForward` signs a new version only once the current one
 *   provably cannot land: a missing step's expiration is older than the solidified block (every later block is newer)
 *   and the solidity API does not have it. Until then it answers null and the stored bytes are re-sent.
 */

/** A forward's signed transactions. `after`: the txID that must be in a block before this one is pushed. */
interface Step {
  role: 'activate' | 'delegate' | 'transfer' | 'undelegate' | 'topup';
  tx: SignedTronTransaction;
  after?: string;
}

interface Bundle {
  tron: 1;
  steps: Step[];
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
    http.post<{ balance?: unknown; address?: string }>('/wallet/getaccount', {
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

  async function buildUsdt(intent: ForwardIntent, to: string) {
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
    let resourceFree: { energy: bigint; net: bigint; totals: AccountResource } | null = null;
    let energyShortLogged = false;
    if (resourceAddress !== null) {
      const res = await resources(resourceAddress);
      const frozen = (await account(resourceAddress)) as {
        frozenV2?: Array<{ type?: string; amount?: unknown }>;
      };
      let energySun = 0n;
      let netSun = 0n;
      for (const entry of frozen.frozenV2 ?? []) {
        if (entry.type === 'ENERGY') energySun += units(entry.amount);
        else if (entry.type === undefined) netSun += units(entry.amount);
      }
      const delegated = (await account(resourceAddress)) as {
        account_resource?: { delegated_frozenV2_balance_for_energy?: unknown };
        delegated_frozenV2_balance_for_bandwidth?: unknown;
      };
      resourceFree = {
        energy: energySun - units(delegated.account_resource?.delegated_frozenV2_balance_for_energy),
        net: netSun - units(delegated.delegated_frozenV2_balance_for_bandwidth),
        totals: res,
      };
    }
    for (const input of intent.inputs) {
      const held = await usdtBalance(input.address);
      const send = smaller(input.amount, held);
      if (send <= 0n) {
        left.push(input.address);
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
        if (energySun > 0n)
          push(
            'undelegate',
            signTransaction(
              raw(head, delegation('UnDelegateResourceContract', input.address, 'ENERGY', energySun)),
              feeKey,
            ),
          );
        if (netSun > 0n)
          push(
            'undelegate',
            signTransaction(
              raw(head, delegation('UnDelegateResourceContract', input.address, 'BANDWIDTH', netSun)),
              feeKey,
            ),
          );
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
      receipt?: { result?: string };
    }>(solid ? '/walletsolidity/gettransactioninfobyid' : '/wallet/gettransactioninfobyid', { value: txID });
    return info.id === undefined ? null : info;
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

  async function buildForward(intent: ForwardIntent): Promise<BuiltForward> {
    if (intent.to === null) throw new Error('A live Tron sweep needs a payout wallet');
    const built =
      intent.asset === deps.native ? await buildTrx(intent, intent.to) : await buildUsdt(intent, intent.to);
    const main = built.steps.filter((s) => s.role === 'transfer').at(-1);
    if (main === undefined) return { txHash: '', rawTx: '', amount: 0n, fee: 0n, left: built.left };
    const bundle: Bundle = { tron: 1, steps: built.steps };
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
      const landed = new Set<string>();
      let newest = -1;
      let charged = 0n;
      const failed: string[] = [];
      for (const step of bundle.steps) {
        const info = await stepInfo(step.tx.txID);
        if (info === null) continue;
        landed.add(step.tx.txID);
        newest = Math.max(newest, info.blockNumber ?? 0);
        charged += units(info.fee);
        if (
          step.role === 'transfer' &&
          step.tx.raw_data.contract[0]?.type === 'TriggerSmartContract' &&
          info.receipt?.result !== 'SUCCESS'
        ) {
          failed.push(`${step.tx.txID} (${info.receipt?.result ?? 'FAILED'})`);
        }
      }
      // Reclaiming the delegation is housekeeping: an undelegation that expired unsent does not hold the forward open
      // (a transfer always does); the stake then stays delegated to that address until reclaimed by hand, and the log
      // says so.
      let headTime: number | null = null;
      let missing = false;
      for (const step of bundle.steps) {
        if (landed.has(step.tx.txID)) continue;
        if (step.role === 'undelegate') {
          headTime ??= (await currentHead()).timestamp;
          if (step.tx.raw_data.expiration < headTime) {
            const value = step.tx.raw_data.contract[0]?.parameter.value;
            logger.warn(
              {
                txID: step.tx.txID,
                receiver:
                  value !== undefined && 'receiver_address' in value ? value.receiver_address : undefined,
              },
              'Tron sweep: the undelegation expired unsent; the stake stays delegated to the deposit address until reclaimed by hand (UnDelegateResource)',
            );
            continue;
          }
        }
        missing = true;
      }
      if (missing) {
        // Whatever the node dropped or could not take yet is sent again: the same signed bytes.
        await push(bundle, landed).catch((error: unknown) =>
          logger.warn(
            { txHash, error: error instanceof Error ? error.message : String(error) },
            'Tron sweep re-send failed',
          ),
        );
        return { state: 'pending' };
      }
      const block = await http.post<RawBlock>('/wallet/getblockbynum', { num: newest });
      if (block.blockID === undefined) return { state: 'pending' };
      return failed.length === 0
        ? { state: 'included', blockNumber: newest, blockHash: block.blockID, fee: charged }
        : {
            state: 'included',
            blockNumber: newest,
            blockHash: block.blockID,
            reverted: `transfer ${failed.join(', ')} failed on chain`,
          };
    },

    /**
     * A new version of a forward whose current one provably cannot land: a step not in any block has expired before
     * the solidified block's time. Null otherwise (the stored version is re-sent until then).
     */
    async bumpForward(intent: ForwardIntent): Promise<BuiltForward | null> {
      const raw = await deps.bundles.byForward(intent.id);
      if (raw === null) return null;
      const bundle = parseBundle(raw);
      const solid = await http.post<RawBlock>('/walletsolidity/getnowblock');
      const solidTime = solid.block_header?.raw_data?.timestamp ?? 0;
      let dead = false;
      for (const step of bundle.steps) {
        if ((await stepInfo(step.tx.txID, true)) !== null) continue;
        if (step.tx.raw_data.expiration >= solidTime) return null; // may still land
        if (step.role === 'transfer') dead = true;
      }
      if (!dead) return null;
      logger.warn({ forward: intent.id }, 'Tron sweep expired without landing: signing a new version');
      try {
        return await buildForward(intent);
      } catch (error) {
        if (error instanceof TronApiError) return null;
        throw error;
      }
    },

    resourceAddress,
    feeAddress,
  };
}
