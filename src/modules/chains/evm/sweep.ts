import type { Logger } from 'pino';
import {
  decodeFunctionData,
  encodeFunctionData,
  type Hex,
  keccak256,
  parseAbi,
  parseTransaction,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  type BuiltForward,
  type BuiltRefund,
  type ForwardIntent,
  type ForwardStatus,
  type RefundIntent,
  RefundRefused,
  RefundWalletShort,
} from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { type ChainId, type ChainInfo, contractOf, getAsset } from '../registry.ts';
import { type EvmNode, hex } from './node.ts';
import type { EvmRpc } from './rpc.ts';
import type { RpcReceipt } from './scan.ts';
import type { EvmChainSettings } from './settings.ts';

/**
 * Sweeps of an EVM chain: a forward becomes a bundle of signed EIP-1559 transactions, all signed before anything is
 * sent (each deposit key checked against its deposit address first) and stored by the forwarder in the forward's
 * raw_tx; `broadcast` and `forwardStatus` (re)send exactly those transactions, never re-signed ones.
 */

/** Where the sweeper finds the signed bundles of forwards (the settlement stores them before broadcasting). */
export interface BundleStore {
  /** The raw bundle whose main transaction hash is `txHash`, or null. */
  byHash(txHash: string): Promise<string | null>;
  /** The raw bundles of forwards not yet final. */
  open(): Promise<string[]>;
}

const erc20 = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
]);

const gasPriceOracle = parseAbi(['function getL1Fee(bytes data) view returns (uint256)']);
const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F';
const OP_STACK = new Set<ChainId>(['base', 'optimism']);

interface BundleTx {
  hash: Hex;
  raw: Hex;
  from: string;
  nonce: number;
  /** The top-up this transaction needs mined first (its sender has no gas before it). */
  fundedBy?: Hex;
}

interface Bundle {
  evm: 1;
  chain: ChainId;
  txs: BundleTx[];
}

function parseBundle(raw: string): Bundle {
  const bundle = JSON.parse(raw) as Bundle;
  if (bundle.evm !== 1 || !Array.isArray(bundle.txs)) throw new Error('Not an EVM forward bundle');
  return bundle;
}

function isAlreadyKnown(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error);
  return /already known|known transaction|alreadyknown|already imported|transaction already exists/i.test(
    text,
  );
}

export function createEvmSweeper(deps: {
  rpc: EvmRpc;
  node: EvmNode;
  info: ChainInfo;
  isTest: boolean;
  settings: EvmChainSettings;
  expectedChainId: number | undefined;
  bundles: BundleStore;
  signingKeys: DepositSigningKeys;
  gasKey: Hex;
  /** The refund wallet's key (SVC_CHAIN_<NAME>_REFUND_WALLET on): refunds of swept payments are sent from it. */
  refundKey?: Hex | undefined;
  logger: Logger;
}) {
  const { rpc, node, info, isTest, settings, expectedChainId, bundles, gasKey, refundKey, logger } = deps;
  const chainId: ChainId = info.id;
  const gasAccount = privateKeyToAccount(gasKey);
  const refundAccount = refundKey === undefined ? undefined : privateKeyToAccount(refundKey);
  /** Set while the refund wallet could not pay the last refund asked of it (that refund went to the merchant). */
  let refundShort: string | null = null;
  const receipt = node.receipt;
  const ensureStarted = node.start;
  /** Set while the gas wallet cannot pay the top-ups of token sweeps (they wait, signed, until it is funded). */
  let gasShort: string | null = null;
  const dustLog: Array<{ address: string; asset: string; amount: bigint; at: Date }> = [];
  const recentNonces = new Map<string, { nonce: number; at: number }>();

  async function nonceFor(address: string, taken: Map<string, number>, open: Bundle[]): Promise<number> {
    const key = address.toLowerCase();
    const inBuild = taken.get(key);
    if (inBuild !== undefined) {
      taken.set(key, inBuild + 1);
      return inBuild + 1;
    }
    let nonce = Number(await rpc.request<string>('eth_getTransactionCount', [address, 'pending']));
    for (const bundle of open) {
      for (const tx of bundle.txs)
        if (tx.from.toLowerCase() === key && tx.nonce >= nonce) nonce = tx.nonce + 1;
    }
    const recent = recentNonces.get(key);
    if (recent !== undefined && Date.now() - recent.at < 60_000 && recent.nonce >= nonce)
      nonce = recent.nonce + 1;
    taken.set(key, nonce);
    return nonce;
  }

  async function fees(): Promise<{ baseFee: bigint; tip: bigint; maxFee: bigint }> {
    const latest = await rpc.request<{ baseFeePerGas?: string }>('eth_getBlockByNumber', ['latest', false]);
    const baseFee = BigInt(latest.baseFeePerGas ?? '0x0');
    let tip: bigint;
    try {
      tip = BigInt(await rpc.request<string>('eth_maxPriorityFeePerGas'));
    } catch {
      tip = 1_000_000_000n;
    }
    const wanted = baseFee * 2n + tip;
    if (baseFee + tip > settings.maxFeePerGasWei) {
      throw new Error(
        `network fee ${baseFee + tip} wei/gas is above the cap of ${settings.maxFeePerGasWei} (MAX_FEE_GWEI); sweep waits`,
      );
    }
    const maxFee = wanted < settings.maxFeePerGasWei ? wanted : settings.maxFeePerGasWei;
    return { baseFee, tip: tip < maxFee ? tip : maxFee, maxFee };
  }

  async function sign(
    key: Hex,
    tx: { to: string; value: bigint; gas: bigint; nonce: number; maxFee: bigint; tip: bigint; data?: Hex },
  ): Promise<{ raw: Hex; hash: Hex; from: string }> {
    const account = privateKeyToAccount(key);
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: expectedChainId ?? Number(await rpc.request<string>('eth_chainId')),
      nonce: tx.nonce,
      to: tx.to.toLowerCase() as Hex,
      value: tx.value,
      gas: tx.gas,
      maxFeePerGas: tx.maxFee,
      maxPriorityFeePerGas: tx.tip,
      ...(tx.data === undefined ? {} : { data: tx.data }),
    });
    return { raw, hash: keccak256(raw), from: account.address };
  }

  /** The deposit key of an input; throws SignerMismatchError (no signature) unless it signs for that address. */
  const depositKey = (input: { derivationIndex: number; address: string }): Hex =>
    `0x${Buffer.from(deps.signingKeys.keyFor(chainId, isTest, input.derivationIndex, input.address)).toString('hex')}` as Hex;

  /**
   * The L1 data fee an OP-stack chain (Base, OP Mainnet) charges a transaction on top of its gas, from the
   * GasPriceOracle predeploy; 0 elsewhere (and where the oracle does not answer).
   */
  async function l1DataFee(raw: Hex): Promise<bigint> {
    if (!OP_STACK.has(chainId)) return 0n;
    try {
      const answer = await rpc.request<Hex>('eth_call', [
        {
          to: GAS_PRICE_ORACLE,
          data: encodeFunctionData({ abi: gasPriceOracle, functionName: 'getL1Fee', args: [raw] }),
        },
        'latest',
      ]);
      return answer === '0x' ? 0n : BigInt(answer);
    } catch (error) {
      logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'L1 fee oracle failed');
      return 0n;
    }
  }

  async function send(tx: BundleTx): Promise<void> {
    try {
      await rpc.request('eth_sendRawTransaction', [tx.raw]);
      logger.info({ txHash: tx.hash, from: tx.from, nonce: tx.nonce }, 'sweep transaction sent');
    } catch (error) {
      if (isAlreadyKnown(error)) return;
      // "nonce too low" for a transaction that is already mined is fine; anything else is reported to the caller.
      if ((await receipt(tx.hash)) !== null) return;
      throw error;
    }
  }

  /** Sends every transaction of the bundle the node does not have yet, in order, each after its top-up is mined. */
  async function push(bundle: Bundle): Promise<void> {
    const mined = new Set<string>();
    for (const tx of bundle.txs) {
      if ((await receipt(tx.hash)) !== null) {
        mined.add(tx.hash);
        continue;
      }
      if (tx.fundedBy !== undefined && !mined.has(tx.fundedBy)) return; // its gas is not there yet: next round
      const known = await rpc.request<unknown>('eth_getTransactionByHash', [tx.hash]);
      if (known === null) await send(tx);
    }
  }

  const noteDust = (entry: { address: string; asset: string; amount: bigint }): void => {
    const known = dustLog.find((d) => d.address === entry.address && d.asset === entry.asset);
    if (known !== undefined && known.amount === entry.amount) return;
    if (known !== undefined) dustLog.splice(dustLog.indexOf(known), 1);
    dustLog.push({ ...entry, at: new Date() });
    logger.warn(
      { address: entry.address, asset: entry.asset, amount: entry.amount.toString() },
      'deposit worth less than its sweep fee left on its address (dust)',
    );
  };

  async function openBundles(): Promise<Bundle[]> {
    return (await bundles.open()).flatMap((raw) => {
      try {
        return [parseBundle(raw)];
      } catch {
        return [];
      }
    });
  }

  /**
   * A token transfer from a deposit address, with the gas wallet's top-up first when the address is short of gas
   * (as token sweeps do): the transactions, the fee they pay in ether, and what the top-up takes from the gas wallet.
   */
  async function tokenTransfer(
    input: { address: string; derivationIndex: number },
    contract: Hex,
    to: string,
    value: bigint,
    fee: { tip: bigint; maxFee: bigint },
    taken: Map<string, number>,
    open: Bundle[],
  ): Promise<{ txs: BundleTx[]; fee: bigint; topUp: bigint }> {
    const { tip, maxFee } = fee;
    const data = encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to as Hex, value] });
    let gas: bigint;
    try {
      gas = BigInt(
        await rpc.request<string>('eth_estimateGas', [{ from: input.address, to: contract, data }]),
      );
    } catch {
      gas = 100_000n;
    }
    gas = (gas * 12n) / 10n;
    const l1 = await l1DataFee(
      (await sign(depositKey(input), { to: contract, value: 0n, gas, nonce: 0, maxFee, tip, data })).raw,
    );
    const need = gas * maxFee + 2n * l1;
    const ethBalance = BigInt(await rpc.request<string>('eth_getBalance', [input.address, 'latest']));
    const txs: BundleTx[] = [];
    let paid = need;
    let topUp = 0n;
    let fundedBy: Hex | undefined;
    if (ethBalance < need) {
      const topUpNonce = await nonceFor(gasAccount.address, taken, open);
      const signedTopUp = await sign(gasKey, {
        to: input.address,
        value: need - ethBalance,
        gas: 21_000n,
        nonce: topUpNonce,
        maxFee,
        tip,
      });
      txs.push({ ...signedTopUp, nonce: topUpNonce });
      fundedBy = signedTopUp.hash;
      paid += 21_000n * maxFee;
      topUp = need - ethBalance + 21_000n * maxFee;
    }
    const nonce = await nonceFor(input.address, taken, open);
    const signed = await sign(depositKey(input), { to: contract, value: 0n, gas, nonce, maxFee, tip, data });
    txs.push({ ...signed, nonce, ...(fundedBy === undefined ? {} : { fundedBy }) });
    return { txs, fee: paid, topUp };
  }

  async function tokenBalanceOf(
    contract: string,
    owner: string,
    block: 'latest' | 'pending',
  ): Promise<bigint> {
    const data = await rpc.request<Hex>('eth_call', [
      {
        to: contract,
        data: encodeFunctionData({ abi: erc20, functionName: 'balanceOf', args: [owner as Hex] }),
      },
      block,
    ]);
    return BigInt(data === '0x' ? '0x0' : data);
  }

  /**
   * What the refund wallet's signed transactions that the node does not know yet (signed, stored, not accepted by a
   * broadcast) will take: their ether (value and the most gas they may cost) and their amount of `contract`'s token.
   * The node's `pending` balances already count what it has; these would otherwise be spent twice on paper.
   */
  async function committedByWallet(
    wallet: string,
    open: Bundle[],
    contract: string | null,
  ): Promise<{ ether: bigint; tokens: bigint }> {
    const out = { ether: 0n, tokens: 0n };
    const key = wallet.toLowerCase();
    for (const bundle of open) {
      for (const tx of bundle.txs) {
        if (tx.from.toLowerCase() !== key) continue;
        if ((await rpc.request<unknown>('eth_getTransactionByHash', [tx.hash])) !== null) continue;
        const parsed = parseTransaction(tx.raw);
        out.ether += (parsed.value ?? 0n) + (parsed.gas ?? 0n) * (parsed.maxFeePerGas ?? 0n);
        if (
          contract !== null &&
          parsed.to?.toLowerCase() === contract.toLowerCase() &&
          parsed.data !== undefined
        ) {
          try {
            const call = decodeFunctionData({ abi: erc20, data: parsed.data });
            if (call.functionName === 'transfer') out.tokens += call.args[1];
          } catch {
            // Not a transfer: no tokens committed.
          }
        }
      }
    }
    return out;
  }

  /**
   * A refund from the refund wallet (a swept payment's): ether less its exact fee, as from a deposit address (what the
   * payer was shown), or the token amount with the gas paid by the wallet's own ether. Throws RefundWalletShort when
   * the wallet's pending balances cannot pay it: the sender then asks the merchant instead.
   */
  async function refundFromWallet(
    intent: RefundIntent,
    asset: NonNullable<ReturnType<typeof getAsset>>,
    fee: { tip: bigint; maxFee: bigint },
    taken: Map<string, number>,
    open: Bundle[],
  ): Promise<{ txs: BundleTx[]; sent: bigint; fee: bigint }> {
    if (refundKey === undefined || refundAccount === undefined) {
      throw new Error(`${chainId}: no refund wallet configured (SVC_CHAIN_<NAME>_REFUND_WALLET)`);
    }
    const wallet = refundAccount.address;
    const { tip, maxFee } = fee;
    const contract = asset.isNative ? null : contractOf(asset, isTest);
    const committed = await committedByWallet(wallet, open, contract);
    const ether = BigInt(await rpc.request<string>('eth_getBalance', [wallet, 'pending'])) - committed.ether;
    const short = (what: string): never => {
      refundShort = `refund wallet ${wallet} ${what}`;
      logger.warn({ refund: intent.id, refundWallet: wallet, why: what }, 'refund wallet short');
      throw new RefundWalletShort(refundShort);
    };
    if (asset.isNative) {
      const gas = 21_000n;
      const cost = gas * maxFee;
      const draft = { to: intent.to, value: intent.amount - cost, gas, nonce: 0, maxFee, tip: maxFee };
      const l1 = draft.value > 0n ? await l1DataFee((await sign(refundKey, draft)).raw) : 0n;
      const sent = intent.amount - cost - 2n * l1;
      if (sent <= 0n) {
        throw new RefundRefused(
          `the refund (${intent.amount} wei) is not worth its network fee (${cost + 2n * l1} wei)`,
        );
      }
      if (ether < intent.amount) short(`holds ${ether} wei, the refund needs ${intent.amount}`);
      const nonce = await nonceFor(wallet, taken, open);
      const signed = await sign(refundKey, { ...draft, value: sent, nonce });
      refundShort = null;
      return { txs: [{ ...signed, nonce }], sent, fee: cost + l1 };
    }
    if (contract === null) throw new Error(`${asset.code} has no contract on ${chainId} in this mode`);
    const tokens = (await tokenBalanceOf(contract, wallet, 'pending')) - committed.tokens;
    if (tokens < intent.amount) {
      short(`holds ${tokens} base units of ${asset.code}, the refund needs ${intent.amount}`);
    }
    const data = encodeFunctionData({
      abi: erc20,
      functionName: 'transfer',
      args: [intent.to as Hex, intent.amount],
    });
    let gas: bigint;
    try {
      gas = BigInt(await rpc.request<string>('eth_estimateGas', [{ from: wallet, to: contract, data }]));
    } catch {
      gas = 100_000n;
    }
    gas = (gas * 12n) / 10n;
    const l1 = await l1DataFee(
      (await sign(refundKey, { to: contract, value: 0n, gas, nonce: 0, maxFee, tip, data })).raw,
    );
    const need = gas * maxFee + 2n * l1;
    if (ether < need) short(`holds ${ether} wei, the token refund's gas needs ${need}`);
    const nonce = await nonceFor(wallet, taken, open);
    const signed = await sign(refundKey, { to: contract, value: 0n, gas, nonce, maxFee, tip, data });
    refundShort = null;
    return { txs: [{ ...signed, nonce }], sent: intent.amount, fee: gas * maxFee + l1 };
  }

  return {
    /**
     * A refund from a deposit address: ether less its exact fee (gas × max fee, the priority fee equal to the max fee,
     * as native sweeps), or the token amount with the gas wallet's top-up when the address is short of gas.
     */
    async buildRefund(intent: RefundIntent): Promise<BuiltRefund> {
      await ensureStarted();
      const asset = getAsset(info, intent.asset);
      if (asset === undefined) throw new Error(`${chainId} has no asset ${intent.asset}`);
      const { tip, maxFee } = await fees();
      const open = await openBundles();
      const taken = new Map<string, number>();
      let built: { txs: BundleTx[]; sent: bigint; fee: bigint };
      const from = intent.from;
      if (from === null) {
        built = await refundFromWallet(intent, asset, { tip, maxFee }, taken, open);
      } else if (asset.isNative) {
        const balance = BigInt(await rpc.request<string>('eth_getBalance', [from.address, 'latest']));
        if (balance < intent.amount) {
          throw new Error(
            `deposit address ${from.address} holds ${balance} wei, the refund needs ${intent.amount}`,
          );
        }
        const gas = 21_000n;
        const cost = gas * maxFee;
        const draft = { to: intent.to, value: intent.amount - cost, gas, nonce: 0, maxFee, tip: maxFee };
        const l1 = draft.value > 0n ? await l1DataFee((await sign(depositKey(from), draft)).raw) : 0n;
        const sent = intent.amount - cost - 2n * l1;
        if (sent <= 0n) {
          throw new RefundRefused(
            `the refund (${intent.amount} wei) is not worth its network fee (${cost + 2n * l1} wei)`,
          );
        }
        const nonce = await nonceFor(from.address, taken, open);
        const signed = await sign(depositKey(from), { ...draft, value: sent, nonce });
        built = { txs: [{ ...signed, nonce }], sent, fee: cost + l1 };
      } else {
        const contract = contractOf(asset, isTest);
        if (contract === null) throw new Error(`${asset.code} has no contract on ${chainId} in this mode`);
        const transfer = await tokenTransfer(
          from,
          contract as Hex,
          intent.to,
          intent.amount,
          { tip, maxFee },
          taken,
          open,
        );
        if (transfer.topUp > 0n) {
          const has = BigInt(await rpc.request<string>('eth_getBalance', [gasAccount.address, 'pending']));
          if (has < transfer.topUp) {
            throw new Error(
              `gas wallet ${gasAccount.address} holds ${has} wei, the token refund's top-up needs ${transfer.topUp}`,
            );
          }
        }
        built = { txs: transfer.txs, sent: intent.amount, fee: transfer.fee };
      }
      for (const [address, nonce] of taken) recentNonces.set(address, { nonce, at: Date.now() });
      const last = built.txs.at(-1) as BundleTx;
      const bundle: Bundle = { evm: 1, chain: chainId, txs: built.txs };
      return { txHash: last.hash, rawTx: JSON.stringify(bundle), sent: built.sent, fee: built.fee };
    },

    /** What a refund of `assetCode` pays now: a plain transfer's gas, or a token transfer's (with a top-up). */
    async refundFee(assetCode: string): Promise<bigint> {
      await ensureStarted();
      const asset = getAsset(info, assetCode);
      if (asset === undefined) throw new Error(`${chainId} has no asset ${assetCode}`);
      const { maxFee } = await fees();
      return asset.isNative ? 21_000n * maxFee : ((65_000n * 12n) / 10n) * maxFee + 21_000n * maxFee;
    },

    /** A contract may reject ether or strand tokens: refunds go to plain accounts only. */
    async checkRefundAddress(address: string): Promise<string | null> {
      await ensureStarted();
      const code = await rpc.request<string>('eth_getCode', [address, 'latest']);
      return code !== '0x' && code !== ''
        ? 'is a contract on this chain; refunds go to a wallet address (a contract may reject or strand them)'
        : null;
    },

    async buildForward(intent: ForwardIntent): Promise<BuiltForward> {
      await ensureStarted();
      const asset = getAsset(info, intent.asset);
      if (asset === undefined) throw new Error(`${chainId} has no asset ${intent.asset}`);
      if (intent.to === null) throw new Error(`${chainId}: no payout wallet to forward to`);
      const to = intent.to;
      const { tip, maxFee } = await fees();
      const open = await openBundles();
      const taken = new Map<string, number>();
      const txs: BundleTx[] = [];
      let amount = 0n;
      let fee = 0n;
      let topUps = 0n;
      const left: string[] = [];

      if (asset.isNative) {
        for (const input of intent.inputs) {
          const balance = BigInt(await rpc.request<string>('eth_getBalance', [input.address, 'latest']));
          const available = input.amount < balance ? input.amount : balance;
          let gas = 21_000n;
          try {
            gas = BigInt(
              await rpc.request<string>('eth_estimateGas', [{ from: input.address, to, value: hex(1n) }]),
            );
          } catch {
            gas = 21_000n;
          }
          const cost = gas * maxFee;
          if (available <= cost) {
            noteDust({ address: input.address, asset: asset.code, amount: available });
            left.push(input.address);
            continue;
          }
          const nonce = await nonceFor(input.address, taken, open);
          // Priority fee = max fee: the fee charged is exactly gas × maxFee, so balance − fee leaves nothing behind.
          const key = depositKey(input);
          const draft = { to, value: available - cost, gas, nonce, maxFee, tip: maxFee };
          let signed = await sign(key, draft);
          // OP-stack chains also charge the L1 data fee from the balance: keep twice the oracle's figure back.
          const l1 = await l1DataFee(signed.raw);
          if (l1 > 0n) {
            if (available <= cost + 2n * l1) {
              noteDust({ address: input.address, asset: asset.code, amount: available });
              left.push(input.address);
              continue;
            }
            signed = await sign(key, { ...draft, value: available - cost - 2n * l1 });
          }
          txs.push({ ...signed, nonce });
          amount += available - cost - 2n * l1;
          fee += cost + l1;
        }
      } else {
        const contract = contractOf(asset, isTest);
        if (contract === null) throw new Error(`${asset.code} has no contract on ${chainId} in this mode`);
        for (const input of intent.inputs) {
          const balanceData = await rpc.request<Hex>('eth_call', [
            {
              to: contract,
              data: encodeFunctionData({
                abi: erc20,
                functionName: 'balanceOf',
                args: [input.address as Hex],
              }),
            },
            'latest',
          ]);
          const tokenBalance = BigInt(balanceData === '0x' ? '0x0' : balanceData);
          const value = input.amount < tokenBalance ? input.amount : tokenBalance;
          if (value <= 0n) {
            logger.warn(
              { address: input.address, asset: asset.code },
              'nothing to sweep: token balance is zero',
            );
            left.push(input.address);
            continue;
          }
          const transfer = await tokenTransfer(
            input,
            contract as Hex,
            to,
            value,
            { tip, maxFee },
            taken,
            open,
          );
          txs.push(...transfer.txs);
          fee += transfer.fee;
          topUps += transfer.topUp;
          amount += value;
        }
      }
      if (topUps > 0n) {
        const has = BigInt(await rpc.request<string>('eth_getBalance', [gasAccount.address, 'pending']));
        if (has < topUps) {
          // Logged once per shortage, not once per attempt.
          if (gasShort === null) {
            logger.error(
              { gasWallet: gasAccount.address, has: has.toString(), needs: topUps.toString() },
              'gas wallet short: token sweeps wait, signed, until it is funded',
            );
          }
          gasShort = `gas wallet ${gasAccount.address} holds ${has} wei, token sweeps need ${topUps}`;
        } else {
          gasShort = null;
        }
      }
      const last = txs.at(-1);
      // Every input is dust: amount 0 tells the forwarder to leave the deposits where they are.
      if (last === undefined) return { txHash: '', rawTx: '', amount: 0n, fee: 0n, left };
      for (const [address, nonce] of taken) recentNonces.set(address, { nonce, at: Date.now() });
      const bundle: Bundle = { evm: 1, chain: chainId, txs };
      return {
        txHash: last.hash,
        rawTx: JSON.stringify(bundle),
        amount,
        fee,
        ...(left.length > 0 ? { left } : {}),
      };
    },

    async broadcast(rawTx: string): Promise<void> {
      await push(parseBundle(rawTx));
    },

    async forwardStatus(txHash: string): Promise<ForwardStatus> {
      const raw = await bundles.byHash(txHash);
      if (raw === null) {
        const r = await receipt(txHash);
        return r === null
          ? { state: 'unknown' }
          : { state: 'included', blockNumber: 0, blockHash: r.blockHash };
      }
      const bundle = parseBundle(raw);
      let newest: { blockNumber: number; blockHash: string } | null = null;
      let missing = false;
      const reverted: string[] = [];
      let charged = 0n;
      for (const tx of bundle.txs) {
        const r = await rpc.request<(RpcReceipt & { blockNumber: string; l1Fee?: string }) | null>(
          'eth_getTransactionReceipt',
          [tx.hash],
        );
        if (r === null) {
          missing = true;
          continue;
        }
        // Gas used at the price paid, plus the L1 data fee OP-stack receipts carry.
        charged +=
          BigInt(r.gasUsed ?? '0x0') * BigInt(r.effectiveGasPrice ?? '0x0') + BigInt(r.l1Fee ?? '0x0');
        if (r.status !== '0x1') reverted.push(tx.hash);
        const blockNumber = Number(r.blockNumber);
        if (newest === null || blockNumber > newest.blockNumber)
          newest = { blockNumber, blockHash: r.blockHash };
      }
      if (missing) {
        // Whatever the node dropped or never got (a top-up's follower) is sent again: the same signed bytes.
        await push(bundle).catch((error: unknown) =>
          logger.warn(
            { txHash, error: error instanceof Error ? error.message : String(error) },
            'sweep re-send failed',
          ),
        );
        const anyKnown = await rpc.request<unknown>('eth_getTransactionByHash', [txHash]);
        return anyKnown === null && newest === null ? { state: 'unknown' } : { state: 'pending' };
      }
      if (newest === null) return { state: 'unknown' };
      return reverted.length === 0
        ? { state: 'included', ...newest, fee: charged }
        : { state: 'included', ...newest, reverted: `transaction ${reverted.join(', ')} reverted on chain` };
    },

    /** Dust left behind by sweeps since start: inputs worth less than their fee. */
    dust: () => [...dustLog],
    /** Why the last refund asked of the refund wallet went to the merchant instead, or null. */
    refundShort: () => refundShort,
    /** The refund wallet's address and balances now (ether, and every token of the chain in this mode). */
    async refundWallet(): Promise<{
      address: string;
      balance: bigint | null;
      tokens: Array<{ asset: string; balance: bigint | null }>;
    } | null> {
      if (refundAccount === undefined) return null;
      const address = refundAccount.address;
      const balance = await rpc
        .request<string>('eth_getBalance', [address, 'latest'])
        .then(BigInt)
        .catch(() => null);
      const tokens = await Promise.all(
        info.assets.flatMap((asset) => {
          const contract = asset.isNative ? null : contractOf(asset, isTest);
          return contract === null
            ? []
            : [
                tokenBalanceOf(contract, address, 'latest')
                  .catch(() => null)
                  .then((held) => ({ asset: asset.code, balance: held })),
              ];
        }),
      );
      return { address, balance, tokens };
    },
    /** Why token sweeps wait for the gas wallet, or null while it could pay the last batch's top-ups. */
    gasShort: () => gasShort,
  };
}
