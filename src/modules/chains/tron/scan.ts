import type { Logger } from 'pino';
import type { BlockRef, SeenDeposit, Transfer } from '../adapter.ts';
import type { TronHttp } from './http.ts';
import { InexactAmountError, units } from './json.ts';
import { base58Address } from './tx.ts';
import { createTronAddressKeys } from './watched.ts';

/**
 * Detection on Tron, block by block (one every 3 s), from java-tron's HTTP API (addresses in hex, `visible: false`):
 * - TRX: each `TransferContract` of the block whose result (`ret[].contractRet`) is SUCCESS, to a watched address;
 * - USDT (TRC-20): the block's transaction infos (`/wallet/gettransactioninfobyblocknum`, asked only when the block has
 *   a contract call) carry each call's event logs; a `Transfer(from, to, value)` log of the registry's contract, in a
 *   call whose receipt is SUCCESS, to a watched address. A REVERT or OUT_OF_ENERGY call moved nothing: its logs are
 *   never read;
 * - TRX sent by contracts (`internal_transactions` of successful calls, not rejected) to a watched address.
 * Each transfer is credited once, by (txID, outputIndex): the contract's index for a TransferContract (0 today: one
 * contract per transaction), 1000 + the log's index for a Transfer event, 2000 + the internal transaction's index, so
 * several payments in one transaction or block are distinct and a rescan finds the same keys.
 *
 * Finality: the node's solidity API (`/walletsolidity/*`) answers up to the solidified block (confirmed by 19 of the
 * 27 super representatives, about a minute behind). The scanner reports to the generic watcher a confirmation count
 * that follows it (head − solidified + 1, never below the configured count), so a deposit seen at the head is
 * `confirming` and becomes final once its block is solidified; `recheck` then reads that block from the solidity API
 * and credits the deposit only if the block there has the hash where it was seen and its transaction succeeded.
 */

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const LOG_INDEX_BASE = 1000;
const INTERNAL_INDEX_BASE = 2000;

interface RawContract {
  type?: string;
  parameter?: { value?: Record<string, unknown> };
}

interface RawTransaction {
  txID: string;
  ret?: Array<{ contractRet?: string }>;
  raw_data?: { contract?: RawContract[] };
}

export interface RawBlock {
  blockID?: string;
  block_header?: { raw_data?: { number?: number; parentHash?: string; timestamp?: number } };
  transactions?: RawTransaction[];
}

export interface RawTransactionInfo {
  id: string;
  receipt?: { result?: string };
  log?: Array<{ address?: string; topics?: string[]; data?: string }>;
  internal_transactions?: Array<{
    transferTo_address?: string;
    rejected?: boolean;
    callValueInfo?: Array<{ callValue?: unknown; tokenId?: string }>;
  }>;
}

/** A block as BlockRef, or null for java-tron's `{}` (no such block). */
function blockRefOf(block: RawBlock): BlockRef | null {
  const header = block.block_header?.raw_data;
  if (block.blockID === undefined || header?.number === undefined) return null;
  return {
    number: header.number,
    hash: block.blockID,
    parentHash: header.parentHash ?? '0'.repeat(64),
    timestamp: new Date(header.timestamp ?? 0),
  };
}

/** Whether any transaction of the block calls a contract (only then are its transaction infos worth a request). */
function hasContractCalls(block: RawBlock): boolean {
  for (const tx of block.transactions ?? []) {
    for (const contract of tx.raw_data?.contract ?? [])
      if (contract.type === 'TriggerSmartContract') return true;
  }
  return false;
}

/** `ret[0].contractRet` is SUCCESS (java-tron writes it for every transaction in a block). */
const succeeded = (tx: RawTransaction): boolean => tx.ret?.[0]?.contractRet === 'SUCCESS';

/**
 * The watched-set key of a hex address as a block writes it (41 ‖ 20 bytes, or the bare 20 bytes of a log), or null
 * when it is not one of those lengths. Only a key found in the watched set is known to be a real address.
 */
function keyOf(hex: unknown): string | null {
  if (typeof hex !== 'string') return null;
  if (hex.length === 42) return hex.startsWith('41') ? hex.slice(2).toLowerCase() : null;
  return hex.length === 40 ? hex.toLowerCase() : null;
}

/**
 * The info of a transaction by its id. java-tron lists a block's infos in the order of its transactions, so each is
 * looked for at the next place first; an info elsewhere is found through a map of them all, made then.
 */
function infoFinder(infos: readonly RawTransactionInfo[]): (txID: string) => RawTransactionInfo | undefined {
  let next = 0;
  let byId: Map<string, RawTransactionInfo> | undefined;
  return (txID) => {
    if (byId === undefined) {
      const info = infos[next];
      if (info?.id === txID) {
        next += 1;
        return info;
      }
      byId = new Map(infos.map((each) => [each.id, each]));
    }
    return byId.get(txID);
  };
}

/** Whether every info is of one of the block's transactions (checked in order first, as java-tron lists them). */
function infosBelong(block: RawBlock, infos: readonly RawTransactionInfo[]): boolean {
  const transactions = block.transactions ?? [];
  let next = 0;
  for (const tx of transactions) if (infos[next]?.id === tx.txID) next += 1;
  if (next === infos.length) return true;
  const ids = new Set(transactions.map((tx) => tx.txID));
  return infos.every((info) => ids.has(info.id));
}

/**
 * The block's payments to watched addresses, in the block's order: TRX TransferContracts, and from `infos` (the
 * block's transaction infos, when read) USDT Transfer logs of `usdtContract` (hex, 41…) and contracts' TRX.
 * `watched` holds keys (watched.ts: the 20 account bytes in lower-case hex); `spell` gives a watched key's base58
 * address, which the transfer reports.
 */
export function blockTransfers(
  block: RawBlock,
  infos: readonly RawTransactionInfo[] | null,
  watched: ReadonlySet<string>,
  assets: { native: string; usdt: { code: string; contractHex: string } | null },
  /** svc's own wallets (hex, 41…): their TRX transfers are activations and top-ups of sweeps, not payments. */
  own: ReadonlySet<string> = new Set(),
  spell: (key: string) => string = base58Address,
): Transfer[] {
  const out: Transfer[] = [];
  const infoOf = infoFinder(infos ?? []);
  const usdtLogAddress = assets.usdt?.contractHex.slice(2).toLowerCase();
  for (const tx of block.transactions ?? []) {
    if (!succeeded(tx)) continue;
    const contracts = tx.raw_data?.contract ?? [];
    for (let index = 0; index < contracts.length; index++) {
      const contract = contracts[index];
      if (contract?.type !== 'TransferContract') continue;
      const value = contract.parameter?.value;
      const to = keyOf(value?.to_address);
      if (to === null || !watched.has(to)) continue;
      const from = value?.owner_address;
      if (typeof from === 'string' && own.has(from.toLowerCase())) continue;
      out.push({
        txHash: tx.txID,
        outputIndex: index,
        to: spell(to),
        asset: assets.native,
        amount: units(value?.amount),
      });
    }
    const info = infoOf(tx.txID);
    // Logs and internal transfers only count in a call that succeeded (a reverted call's logs are void).
    if (info === undefined || info.receipt?.result !== 'SUCCESS') continue;
    const logs = info.log ?? [];
    for (let index = 0; assets.usdt !== null && index < logs.length; index++) {
      const log = logs[index];
      const topics = log?.topics;
      if (log === undefined || topics?.length !== 3) continue;
      const to = keyOf(topics[2]?.slice(24));
      if (to === null || !watched.has(to)) continue;
      if (log.address?.toLowerCase() !== usdtLogAddress || topics[0]?.toLowerCase() !== TRANSFER_TOPIC)
        continue;
      const data = log.data ?? '';
      if (!/^[0-9a-fA-F]{64}$/.test(data)) continue;
      out.push({
        txHash: tx.txID,
        outputIndex: LOG_INDEX_BASE + index,
        to: spell(to),
        asset: assets.usdt.code,
        amount: BigInt(`0x${data}`),
      });
    }
    const internals = info.internal_transactions ?? [];
    for (let index = 0; index < internals.length; index++) {
      const internal = internals[index];
      if (internal === undefined || internal.rejected === true) continue;
      const to = keyOf(internal.transferTo_address);
      if (to === null || !watched.has(to)) continue;
      // TRX only: entries with a tokenId are TRC-10 tokens, which svc does not accept.
      let amount = 0n;
      for (const value of internal.callValueInfo ?? [])
        if (value.tokenId === undefined) amount += units(value.callValue);
      if (amount > 0n) {
        out.push({
          txHash: tx.txID,
          outputIndex: INTERNAL_INDEX_BASE + index,
          to: spell(to),
          asset: assets.native,
          amount,
        });
      }
    }
  }
  return out;
}

/** The scanning side of the tron adapter. */
export function createTronScanner(deps: {
  http: TronHttp;
  native: string;
  usdt: { code: string; contractHex: string } | null;
  /** The configured confirmations: the least the watcher is told, whatever the solidity API says. */
  requiredConfirmations: number;
  /** svc's fee and resource wallets (hex): what they send to deposit addresses is sweep housekeeping. */
  own?: ReadonlySet<string>;
  logger: Logger;
}) {
  const { http } = deps;
  const keys = createTronAddressKeys();
  /** Blocks just read, by id: `transfers` is only called for a block `block` or `head` just returned. */
  const recent = new Map<string, RawBlock>();
  let confirmations = deps.requiredConfirmations;
  let lastHead: { number: number; timestamp: Date; solid: number; readAt: Date } | null = null;

  function keep(block: RawBlock): BlockRef | null {
    const ref = blockRefOf(block);
    if (ref === null) return null;
    if (recent.size >= 64) {
      const oldest = recent.keys().next().value;
      if (oldest !== undefined) recent.delete(oldest);
    }
    recent.set(ref.hash, block);
    return ref;
  }

  async function head(): Promise<BlockRef | null> {
    const [now, solid] = await Promise.all([
      http.post<RawBlock>('/wallet/getnowblock'),
      http.post<RawBlock>('/walletsolidity/getnowblock'),
    ]);
    const ref = keep(now);
    const solidRef = blockRefOf(solid);
    if (ref !== null) {
      const solidNumber = solidRef?.number ?? 0;
      confirmations = Math.max(deps.requiredConfirmations, ref.number - solidNumber + 1);
      lastHead = { number: ref.number, timestamp: ref.timestamp, solid: solidNumber, readAt: new Date() };
    }
    return ref;
  }

  async function block(number: number): Promise<BlockRef | null> {
    // Read with plain JSON.parse: only the amounts paid to watched addresses are ever read, each checked by `units`.
    return keep(await http.post<RawBlock>('/wallet/getblockbynum', { num: number }, 'plain'));
  }

  /** The block at `ref` and its transaction infos (when it calls contracts), read `read`; null: another block is there now. */
  async function contents(
    ref: BlockRef,
    read: 'exact' | 'plain',
  ): Promise<{ raw: RawBlock; infos: RawTransactionInfo[] | null } | null> {
    let raw = read === 'plain' ? recent.get(ref.hash) : undefined;
    if (raw === undefined) {
      raw = await http.post<RawBlock>('/wallet/getblockbynum', { num: ref.number }, read);
      if (raw.blockID !== ref.hash) {
        // The chain moved under us: the watcher's parent-hash check will walk back; report nothing from another block.
        deps.logger.warn(
          { block: ref.number, expected: ref.hash, found: raw.blockID },
          'Tron block changed while scanning',
        );
        return null;
      }
    }
    if (!hasContractCalls(raw)) return { raw, infos: null };
    const answer = await http.post<RawTransactionInfo[] | Record<string, never>>(
      '/wallet/gettransactioninfobyblocknum',
      { num: ref.number },
      read,
    );
    const infos = Array.isArray(answer) ? answer : [];
    // The infos are read by number: make sure they belong to this block's transactions, not a replacement's.
    if (!infosBelong(raw, infos)) {
      throw new Error(`Tron block ${ref.number} changed while its transaction infos were read`);
    }
    return { raw, infos };
  }

  async function transfers(ref: BlockRef, watched: ReadonlySet<string>): Promise<Transfer[]> {
    if (watched.size === 0) return [];
    const assets = { native: deps.native, usdt: deps.usdt };
    const plain = await contents(ref, 'plain');
    if (plain === null || (plain.raw.transactions ?? []).length === 0) return [];
    try {
      return blockTransfers(plain.raw, plain.infos, watched, assets, deps.own, keys.addressOf);
    } catch (error) {
      if (!(error instanceof InexactAmountError)) throw error;
    }
    // An amount paid to a watched address is beyond what JSON.parse keeps exact (above 2^53): this block, and only
    // this one, is read again with its integers exact.
    const exact = await contents(ref, 'exact');
    if (exact === null) return [];
    return blockTransfers(exact.raw, exact.infos, watched, assets, deps.own, keys.addressOf);
  }

  /** Deposits whose block is solidified with the same hash and whose transaction succeeded there. */
  async function recheck(deposits: readonly SeenDeposit[]): Promise<ReadonlySet<string>> {
    const standing = new Set<string>();
    const solid = blockRefOf(await http.post<RawBlock>('/walletsolidity/getnowblock'));
    if (solid === null) return standing;
    const byBlock = new Map<number, SeenDeposit[]>();
    for (const deposit of deposits) {
      if (deposit.blockNumber > solid.number) continue; // not solidified yet: not credited this round
      byBlock.set(deposit.blockNumber, [...(byBlock.get(deposit.blockNumber) ?? []), deposit]);
    }
    for (const [number, seen] of byBlock) {
      const raw = await http.post<RawBlock>('/walletsolidity/getblockbynum', { num: number });
      const ok = new Set((raw.transactions ?? []).filter(succeeded).map((tx) => tx.txID));
      for (const deposit of seen) {
        if (raw.blockID === deposit.blockHash && ok.has(deposit.txHash)) standing.add(deposit.txHash);
      }
    }
    return standing;
  }

  return {
    /** The watched-set key of an address (watched.ts): `transfers` takes a set of these. */
    addressKey: keys.keyOf,
    head,
    block,
    transfers,
    recheck,
    /** Head − solidified + 1, at least the configured count (see above). */
    confirmations: () => confirmations,
    lastHead: () => lastHead,
  };
}
