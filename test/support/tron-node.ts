import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  addressOfKey,
  base58Address,
  blockReference,
  encodeRawData,
  hexAddress,
  recoverSigner,
  type SignedTronTransaction,
  signTransaction,
  type TronContract,
  type TronRawData,
  trc20TransferData,
  typeUrl,
} from '../../src/modules/chains/tron/tx.ts';

/**
 * A FAKE Tron full node for tests. No Tron node runs on these machines (java-tron needs a JVM and a network of super
 * representatives; there is no regtest), so this stands in, speaking the shapes of java-tron's HTTP API as TRON's
 * documentation gives them (test/support/tron-fixtures/ keeps responses from the documentation; tron-node.test.ts
 * checks that every field of those is here with the same type). It is a model, not a chain:
 *
 * - Blocks only when a test asks (`produceBlocks`), 3 s of block time apart; blockID = 8 bytes of number ‖ 24 bytes of
 *   hash, as on Tron. A block is solidified `solidLag` (19) blocks behind the head: the `/walletsolidity/*` endpoints
 *   only see up to there. `fork(depth)` replaces the newest unsolidified blocks with others (state rolled back).
 * - Broadcast checks what a node checks before pooling: raw_data re-serialised (protobuf) to its txID, the signature
 *   recovered to the owner address (a wrong key is SIGERROR), the reference block on this chain (TAPOS_ERROR), the
 *   expiration against the head block's time (TRANSACTION_EXPIRATION_ERROR), duplicates, and balances.
 * - Accounts hold TRX (sun), USDT (the one TRC-20 it knows, at `usdtHex`), TRX staked for energy and bandwidth
 *   (Stake 2.0; as java-tron, `frozenV2` shows what is not lent out), resources delegated in and out, and what they
 *   used. A transaction pays bandwidth from staked or
 *   delegated bandwidth, else from the 600 free a day, else burns 1,000 sun a byte; a USDT transfer needs 64,285 energy
 *   (130,285 when the recipient holds no USDT), taken from staked and delegated energy first, the rest burnt at
 *   `energyFee` sun a unit within fee_limit (beyond it: OUT_OF_ENERGY, fee_limit burnt, nothing moved). A TRX transfer
 *   to an account that does not exist creates it and burns 1.1 TRX. These are the documented rules in simplified form:
 *   resource usage never recovers over time (tests are shorter than the 24 h window).
 */

const FAKE_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const BLOCK_MS = 3000;
const FREE_BANDWIDTH = 600n;
const SUN_PER_BYTE = 1000n;
const NEW_ACCOUNT_FEE = 1_100_000n;
const USDT_ENERGY_HOLDER = 64_285n;
export const USDT_ENERGY_NEW_HOLDER = 130_285n;

interface Account {
  /** False for an address that only received TRC-20 tokens: not an account on chain until TRX or CreateAccount. */
  activated: boolean;
  balance: bigint;
  usdt: bigint;
  createdAt: number;
  /** Sun staked (Stake 2.0) for each resource, delegated-out included. */
  frozenEnergy: bigint;
  frozenBandwidth: bigint;
  /** Sun of stake delegated to others, by receiver hex address. */
  delegatedOutEnergy: Map<string, bigint>;
  delegatedOutBandwidth: Map<string, bigint>;
  /** Sun of stake others delegated to this account. */
  delegatedInEnergy: bigint;
  delegatedInBandwidth: bigint;
  energyUsed: bigint;
  netUsed: bigint;
  freeNetUsed: bigint;
}

type Result = 'SUCCESS' | 'REVERT' | 'OUT_OF_ENERGY';

interface TxRecord {
  tx: SignedTronTransaction;
  ret: Result;
  info: Record<string, unknown>;
}

interface Block {
  blockID: string;
  number: number;
  parentHash: string;
  timestamp: number;
  txs: TxRecord[];
  /** Account state after this block (for fork roll-backs). */
  state: Map<string, Account>;
  witness: string;
}

export interface FakeTronNode {
  url: string;
  /** The USDT contract (base58 and hex). */
  usdt: string;
  usdtHex: string;
  solidLag: number;
  /** Sun burnt per energy unit (the getEnergyFee chain parameter). */
  energyFee: bigint;
  /** Energy units per TRX staked (what Stake 2.0's share of the network's energy limit gives). */
  energyPerTrx: bigint;
  bandwidthPerTrx: bigint;
  head(): { number: number; blockID: string; timestamp: number };
  solidNumber(): number;
  /** Produces `count` blocks holding the pooled transactions (the first block takes them all). */
  produceBlocks(count?: number): void;
  /** Replaces the newest `depth` blocks (not solidified) with as many empty ones; their transactions go back to the pool unless `drop`. */
  fork(depth: number, options?: { drop?: boolean }): void;
  /** Credits an account out of thin air (genesis allocation); creates it. */
  fund(address: string, sun: bigint, usdt?: bigint): void;
  stake(address: string, resource: 'ENERGY' | 'BANDWIDTH', sun: bigint): void;
  /** Takes back all of `resource` that `owner` lends `receiver`, as an UnDelegateResource sent by hand would. */
  reclaim(owner: string, receiver: string, resource: 'ENERGY' | 'BANDWIDTH'): void;
  account(address: string): Readonly<Account> | undefined;
  /** Sun burnt by all transactions so far (fees). */
  burnt(): bigint;
  /** Signs and pools a TRX transfer; returns the txID. */
  sendTrx(fromKey: Uint8Array, to: string, sun: bigint): string;
  /** Signs and pools a USDT transfer; `revert` makes the contract revert it (a failed transfer still in a block). */
  sendUsdt(
    fromKey: Uint8Array,
    to: string,
    amount: bigint,
    options?: { revert?: boolean; feeLimit?: number },
  ): string;
  /** Pools a signed transaction as /wallet/broadcasttransaction does; returns the node's answer. */
  broadcast(tx: SignedTronTransaction): { result?: boolean; code?: string; txid: string; message?: string };
  pool(): string[];
  /** Forgets every pooled transaction (a node restarted, or the transactions were never relayed). */
  dropPool(): void;
  /**
   * While set, /wallet/broadcasttransaction answers SUCCESS and forgets the transaction (a node that loses it); a
   * function loses only the transactions it picks.
   */
  setLoseBroadcasts(lose: boolean | ((tx: SignedTronTransaction) => boolean)): void;
  /** While down, every request gets HTTP 503 (a node gone: failover and readiness). */
  setDown(down: boolean): void;
  requests(): string[];
  /** Transactions sent to /wallet/broadcasttransaction, in order: txID and owner (base58). */
  broadcasts(): Array<{ txid: string; owner: string }>;
  close(): Promise<void>;
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
/** JSON with bigints written as integers (java-tron writes int64 as JSON numbers). */
const toJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `#BIG#${v}#` : v)).replace(
    /"#BIG#(-?\d+)#"/g,
    '$1',
  );

function newAccount(createdAt: number): Account {
  return {
    activated: true,
    balance: 0n,
    usdt: 0n,
    createdAt,
    frozenEnergy: 0n,
    frozenBandwidth: 0n,
    delegatedOutEnergy: new Map(),
    delegatedOutBandwidth: new Map(),
    delegatedInEnergy: 0n,
    delegatedInBandwidth: 0n,
    energyUsed: 0n,
    netUsed: 0n,
    freeNetUsed: 0n,
  };
}

function cloneState(state: Map<string, Account>): Map<string, Account> {
  const out = new Map<string, Account>();
  for (const [key, a] of state) {
    out.set(key, {
      ...a,
      delegatedOutEnergy: new Map(a.delegatedOutEnergy),
      delegatedOutBandwidth: new Map(a.delegatedOutBandwidth),
    });
  }
  return out;
}

const sumValues = (map: Map<string, bigint>): bigint => [...map.values()].reduce((a, b) => a + b, 0n);

export async function startFakeTronNode(
  options: {
    solidLag?: number;
    energyFee?: bigint;
    /**
     * Block times from the wall clock (at least 1 ms apart) instead of exactly 3 s apart: for tests that produce blocks
     * faster than Tron does while the program compares block times with its own clock (payment windows).
     */
    wallClock?: boolean;
  } = {},
): Promise<FakeTronNode> {
  const usdtHex = hexAddress(FAKE_USDT);
  const energyPerTrx = 10n;
  const bandwidthPerTrx = 1n;
  let state = new Map<string, Account>();
  let forks = 0;
  const genesis: Block = {
    blockID: `${'0'.repeat(16)}${sha('genesis').slice(16)}`,
    number: 0,
    parentHash: '0'.repeat(64),
    timestamp: Date.now() - (options.wallClock === true ? 1000 : 60_000),
    txs: [],
    state: cloneState(state),
    witness: `41${'11'.repeat(20)}`,
  };
  const blocks: Block[] = [genesis];
  const pool = new Map<string, SignedTronTransaction>();
  const seen = new Set<string>();
  const log: string[] = [];
  let down = false;
  let lose: boolean | ((tx: SignedTronTransaction) => boolean) = false;
  const broadcastLog: Array<{ txid: string; owner: string }> = [];
  let burntTotal = 0n;
  let nonce = 0;

  const node: FakeTronNode = {
    url: '',
    usdt: FAKE_USDT,
    usdtHex,
    solidLag: options.solidLag ?? 19,
    energyFee: options.energyFee ?? 100n,
    energyPerTrx,
    bandwidthPerTrx,
    head: () => {
      const b = blocks[blocks.length - 1] as Block;
      return { number: b.number, blockID: b.blockID, timestamp: b.timestamp };
    },
    solidNumber: () => Math.max(0, blocks.length - 1 - node.solidLag),
    produceBlocks(count = 1) {
      for (let i = 0; i < count; i++) produceBlock();
    },
    fork(depth, forkOptions = {}) {
      if (depth >= blocks.length - node.solidNumber()) throw new Error('cannot fork a solidified block');
      const removed = blocks.splice(blocks.length - depth, depth);
      state = cloneState((blocks[blocks.length - 1] as Block).state);
      forks += 1;
      for (const block of removed) {
        for (const record of block.txs) {
          seen.delete(record.tx.txID);
          if (forkOptions.drop !== true) pool.set(record.tx.txID, record.tx);
        }
      }
      for (let i = 0; i < depth; i++) produceBlock(i > 0 || forkOptions.drop === true);
    },
    fund(address, sun, usdt = 0n) {
      const a = ensure(hexAddress(address));
      a.balance += sun;
      a.usdt += usdt;
    },
    stake(address, resource, sun) {
      const a = ensure(hexAddress(address));
      if (a.balance < sun) throw new Error('stake: balance is not sufficient');
      a.balance -= sun;
      if (resource === 'ENERGY') a.frozenEnergy += sun;
      else a.frozenBandwidth += sun;
    },
    reclaim(owner, receiver, resource) {
      const from = ensure(hexAddress(owner));
      const to = ensure(hexAddress(receiver));
      const map = resource === 'ENERGY' ? from.delegatedOutEnergy : from.delegatedOutBandwidth;
      const lent = map.get(hexAddress(receiver)) ?? 0n;
      map.set(hexAddress(receiver), 0n);
      if (resource === 'ENERGY') to.delegatedInEnergy -= lent;
      else to.delegatedInBandwidth -= lent;
    },
    account: (address) => state.get(hexAddress(address)),
    burnt: () => burntTotal,
    sendTrx(fromKey, to, sun) {
      const owner = hexAddress(addressOfKey(fromKey));
      const tx = signTransaction(
        rawData({
          type: 'TransferContract',
          parameter: {
            type_url: typeUrl('TransferContract'),
            value: { owner_address: owner, to_address: hexAddress(to), amount: Number(sun) },
          },
        }),
        fromKey,
      );
      const answer = node.broadcast(tx);
      if (answer.result !== true) throw new Error(`sendTrx: ${answer.code} ${answer.message ?? ''}`);
      return tx.txID;
    },
    sendUsdt(fromKey, to, amount, sendOptions = {}) {
      const owner = hexAddress(addressOfKey(fromKey));
      let data = trc20TransferData(to, amount);
      // A marker the fake's USDT contract reverts on (a real token reverts on, e.g., a blacklisted sender).
      if (sendOptions.revert === true) data += 'dead';
      const tx = signTransaction(
        rawData(
          {
            type: 'TriggerSmartContract',
            parameter: {
              type_url: typeUrl('TriggerSmartContract'),
              value: { owner_address: owner, contract_address: usdtHex, data },
            },
          },
          sendOptions.feeLimit ?? 100_000_000,
        ),
        fromKey,
      );
      const answer = node.broadcast(tx);
      if (answer.result !== true) throw new Error(`sendUsdt: ${answer.code} ${answer.message ?? ''}`);
      return tx.txID;
    },
    broadcast(tx) {
      const txid = tx.txID;
      const refuse = (code: string, message: string) => ({ result: false, code, txid, message });
      let bytes: Uint8Array;
      try {
        bytes = encodeRawData(tx.raw_data);
      } catch (error) {
        return refuse('CONTRACT_VALIDATE_ERROR', (error as Error).message);
      }
      const id = createHash('sha256').update(bytes).digest('hex');
      if (tx.txID !== undefined && tx.txID !== id)
        return refuse('SIGERROR', 'txID is not sha256 of raw_data');
      const contract = tx.raw_data.contract[0];
      if (contract === undefined || tx.raw_data.contract.length !== 1)
        return refuse('CONTRACT_VALIDATE_ERROR', 'No contract!');
      const signer = recoverSigner(id, tx.signature?.[0] ?? '');
      if (signer === null || hexAddress(signer) !== contract.parameter.value.owner_address) {
        return refuse('SIGERROR', 'validateSignature error');
      }
      const headBlock = blocks[blocks.length - 1] as Block;
      if (tx.raw_data.expiration <= headBlock.timestamp)
        return refuse('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
      const tapos = blocks.some((b) => {
        const ref = blockReference(b);
        return (
          ref.ref_block_bytes === tx.raw_data.ref_block_bytes &&
          ref.ref_block_hash === tx.raw_data.ref_block_hash
        );
      });
      if (!tapos) return refuse('TAPOS_ERROR', 'Tapos failed');
      if (seen.has(id) || pool.has(id)) return refuse('DUP_TRANSACTION_ERROR', 'Dup transaction.');
      const owner = state.get(contract.parameter.value.owner_address);
      if (owner === undefined || !owner.activated)
        return refuse('CONTRACT_VALIDATE_ERROR', 'Validate TransferContract error, no OwnerAccount.');
      const problem = validate(contract, owner);
      if (problem !== null) return refuse('CONTRACT_VALIDATE_ERROR', problem);
      pool.set(id, { ...tx, txID: id, raw_data_hex: hex(bytes) });
      return { result: true, code: 'SUCCESS', txid: id };
    },
    pool: () => [...pool.keys()],
    dropPool() {
      pool.clear();
    },
    setDown(value) {
      down = value;
    },
    setLoseBroadcasts(value) {
      lose = value;
    },
    requests: () => log,
    broadcasts: () => broadcastLog,
    close: async () => {},
  };

  /** The account at `address`, made if missing; `activate` false for a TRC-20 credit (it does not activate). */
  function ensure(address: string, activate = true): Account {
    let a = state.get(address);
    if (a === undefined) {
      a = { ...newAccount(node.head().timestamp), activated: activate };
      state.set(address, a);
    } else if (activate && !a.activated) {
      a.activated = true;
      a.createdAt = node.head().timestamp;
    }
    return a;
  }

  const isActive = (address: string): boolean => state.get(address)?.activated === true;

  function rawData(contract: TronContract, feeLimit?: number): TronRawData {
    const head = node.head();
    const ref = blockReference({ number: head.number, blockID: head.blockID });
    return {
      contract: [contract],
      ...ref,
      expiration: head.timestamp + 60_000,
      // Wallets write the wall-clock millisecond here; a counter keeps two equal payments two transactions.
      timestamp: head.timestamp + (++nonce % 1000),
      ...(feeLimit === undefined ? {} : { fee_limit: feeLimit }),
    };
  }

  function energyLimit(a: Account): bigint {
    return (
      ((a.frozenEnergy - sumValues(a.delegatedOutEnergy) + a.delegatedInEnergy) / 1_000_000n) * energyPerTrx
    );
  }
  function netLimit(a: Account): bigint {
    return (
      ((a.frozenBandwidth - sumValues(a.delegatedOutBandwidth) + a.delegatedInBandwidth) / 1_000_000n) *
      bandwidthPerTrx
    );
  }

  function validate(contract: TronContract, owner: Account): string | null {
    switch (contract.type) {
      case 'TransferContract': {
        const v = contract.parameter.value;
        if (v.amount <= 0) return 'Amount must be greater than 0.';
        if (v.to_address === v.owner_address) return 'Cannot transfer TRX to yourself.';
        const fee = isActive(v.to_address) ? 0n : NEW_ACCOUNT_FEE;
        if (owner.balance < BigInt(v.amount) + fee)
          return 'Validate TransferContract error, balance is not sufficient.';
        return null;
      }
      case 'TriggerSmartContract':
        if (contract.parameter.value.contract_address !== usdtHex)
          return 'No contract or not a smart contract';
        return null;
      case 'DelegateResourceContract': {
        const v = contract.parameter.value;
        if (!isActive(v.receiver_address)) return 'Account does not exist';
        const frozen = v.resource === 'ENERGY' ? owner.frozenEnergy : owner.frozenBandwidth;
        const out = sumValues(
          v.resource === 'ENERGY' ? owner.delegatedOutEnergy : owner.delegatedOutBandwidth,
        );
        if (v.balance < 1_000_000 || frozen - out < BigInt(v.balance))
          return 'delegateBalance must be less than or equal to available FreezeV2 balance';
        return null;
      }
      case 'UnDelegateResourceContract': {
        const v = contract.parameter.value;
        const map = v.resource === 'ENERGY' ? owner.delegatedOutEnergy : owner.delegatedOutBandwidth;
        if ((map.get(v.receiver_address) ?? 0n) < BigInt(v.balance))
          return 'insufficient delegatedFrozenBalance';
        return null;
      }
    }
  }

  /** Bandwidth: staked/delegated first, then the free 600 a day, else burn the whole size at 1,000 sun a byte. */
  function chargeBandwidth(owner: Account, size: bigint): { netUsage: bigint; netFee: bigint } {
    if (netLimit(owner) - owner.netUsed >= size) {
      owner.netUsed += size;
      return { netUsage: size, netFee: 0n };
    }
    if (FREE_BANDWIDTH - owner.freeNetUsed >= size) {
      owner.freeNetUsed += size;
      return { netUsage: size, netFee: 0n };
    }
    const fee = size * SUN_PER_BYTE;
    owner.balance -= fee;
    burntTotal += fee;
    return { netUsage: 0n, netFee: fee };
  }

  function execute(tx: SignedTronTransaction, blockNumber: number, timestamp: number): TxRecord | null {
    const contract = tx.raw_data.contract[0] as TronContract;
    const ownerHex = contract.parameter.value.owner_address;
    const owner = state.get(ownerHex);
    if (owner === undefined || validate(contract, owner) !== null) return null; // dropped as a node would at block time
    const size = BigInt(tx.raw_data_hex.length / 2 + 65 * tx.signature.length + 64);
    const info: Record<string, unknown> = {
      id: tx.txID,
      blockNumber,
      blockTimeStamp: timestamp,
      contractResult: [''],
    };
    let ret: Result = 'SUCCESS';
    let fee = 0n;
    const receipt: Record<string, unknown> = {};
    if (contract.type === 'TransferContract') {
      const v = contract.parameter.value;
      const created = !isActive(v.to_address);
      const { netUsage, netFee } = chargeBandwidth(owner, size);
      fee += netFee;
      if (created) {
        owner.balance -= NEW_ACCOUNT_FEE;
        burntTotal += NEW_ACCOUNT_FEE;
        fee += NEW_ACCOUNT_FEE;
      }
      owner.balance -= BigInt(v.amount);
      ensure(v.to_address).balance += BigInt(v.amount);
      if (netUsage > 0n) receipt.net_usage = netUsage;
      if (netFee > 0n) receipt.net_fee = netFee;
    } else if (contract.type === 'TriggerSmartContract') {
      const v = contract.parameter.value;
      const { netUsage, netFee } = chargeBandwidth(owner, size);
      fee += netFee;
      if (netUsage > 0n) receipt.net_usage = netUsage;
      if (netFee > 0n) receipt.net_fee = netFee;
      const data = v.data;
      const to = `41${data.slice(32, 72)}`;
      const amount = BigInt(`0x${data.slice(72, 136)}`);
      const forcedRevert = data.length > 136;
      const needed = (state.get(to)?.usdt ?? 0n) > 0n ? USDT_ENERGY_HOLDER : USDT_ENERGY_NEW_HOLDER;
      // A reverted call still spends the energy up to the revert; the fake charges a fixed part.
      const spend = forcedRevert || owner.usdt < amount ? 20_000n : needed;
      const own = energyLimit(owner) - owner.energyUsed;
      const fromStake = own > 0n ? (own >= spend ? spend : own) : 0n;
      const burnUnits = spend - fromStake;
      const feeLimit = BigInt(tx.raw_data.fee_limit ?? 0);
      const burn = burnUnits * node.energyFee;
      owner.energyUsed += fromStake;
      if (fromStake > 0n) receipt.energy_usage = fromStake;
      if (burn > feeLimit || burn > owner.balance) {
        ret = 'OUT_OF_ENERGY';
        const charged = feeLimit < owner.balance ? feeLimit : owner.balance;
        owner.balance -= charged;
        burntTotal += charged;
        fee += charged;
        receipt.energy_fee = charged;
      } else {
        owner.balance -= burn;
        burntTotal += burn;
        fee += burn;
        if (burn > 0n) receipt.energy_fee = burn;
        if (forcedRevert || owner.usdt < amount) {
          ret = 'REVERT';
        } else {
          owner.usdt -= amount;
          ensure(to, false).usdt += amount;
          info.log = [
            {
              address: usdtHex.slice(2),
              topics: [TRANSFER_TOPIC, ownerHex.slice(2).padStart(64, '0'), to.slice(2).padStart(64, '0')],
              data: amount.toString(16).padStart(64, '0'),
            },
          ];
        }
      }
      receipt.energy_usage_total = spend;
      receipt.result = ret;
      info.contract_address = usdtHex;
      if (ret !== 'SUCCESS') info.result = 'FAILED';
    } else {
      const v = contract.parameter.value;
      const { netUsage, netFee } = chargeBandwidth(owner, size);
      fee += netFee;
      if (netUsage > 0n) receipt.net_usage = netUsage;
      if (netFee > 0n) receipt.net_fee = netFee;
      const receiver = ensure(v.receiver_address);
      const energy = v.resource === 'ENERGY';
      const map = energy ? owner.delegatedOutEnergy : owner.delegatedOutBandwidth;
      const delta = contract.type === 'DelegateResourceContract' ? BigInt(v.balance) : -BigInt(v.balance);
      map.set(v.receiver_address, (map.get(v.receiver_address) ?? 0n) + delta);
      if (energy) receiver.delegatedInEnergy += delta;
      else receiver.delegatedInBandwidth += delta;
    }
    if (fee > 0n) info.fee = fee;
    info.receipt = receipt;
    return { tx, ret, info };
  }

  function produceBlock(empty = false): void {
    const parent = blocks[blocks.length - 1] as Block;
    const number = parent.number + 1;
    const timestamp =
      options.wallClock === true ? Math.max(Date.now(), parent.timestamp + 1) : parent.timestamp + BLOCK_MS;
    const txs: TxRecord[] = [];
    if (!empty) {
      for (const [id, tx] of pool) {
        pool.delete(id);
        if (tx.raw_data.expiration <= timestamp) continue; // expired in the pool: never lands
        const record = execute(tx, number, timestamp);
        if (record === null) continue;
        seen.add(id);
        txs.push(record);
      }
    }
    const blockID = `${number.toString(16).padStart(16, '0')}${sha(`${parent.blockID}:${forks}:${txs.map((t) => t.tx.txID).join()}`).slice(16)}`;
    blocks.push({
      blockID,
      number,
      parentHash: parent.blockID,
      timestamp,
      txs,
      state: cloneState(state),
      witness: `41${'22'.repeat(20)}`,
    });
  }

  function blockJson(block: Block): Record<string, unknown> {
    const out: Record<string, unknown> = {
      blockID: block.blockID,
      block_header: {
        raw_data: {
          number: block.number,
          txTrieRoot: sha(`trie:${block.blockID}`),
          witness_address: block.witness,
          parentHash: block.parentHash,
          version: 34,
          timestamp: block.timestamp,
        },
        witness_signature: `${sha(`w1:${block.blockID}`)}${sha(`w2:${block.blockID}`)}00`,
      },
    };
    // java-tron omits an empty repeated field: a block without transactions has no `transactions`.
    if (block.txs.length > 0) out.transactions = block.txs.map(txJson);
    return out;
  }

  function txJson(record: TxRecord): Record<string, unknown> {
    return {
      ret: [{ contractRet: record.ret }],
      signature: record.tx.signature,
      txID: record.tx.txID,
      raw_data: record.tx.raw_data,
      raw_data_hex: record.tx.raw_data_hex,
    };
  }

  function findTx(id: string, solid: boolean): { block: Block; record: TxRecord } | undefined {
    const limit = solid ? node.solidNumber() : Number.POSITIVE_INFINITY;
    for (const block of blocks) {
      if (block.number > limit) break;
      const record = block.txs.find((t) => t.tx.txID === id);
      if (record !== undefined) return { block, record };
    }
    return undefined;
  }

  function accountJson(address: string): Record<string, unknown> {
    // The USDT contract's own account, as java-tron writes a contract account (AccountType Contract).
    if (address === usdtHex) return { address, type: 'Contract', create_time: genesis.timestamp };
    const a = state.get(address);
    if (a === undefined || !a.activated) return {};
    const out: Record<string, unknown> = { address, create_time: a.createdAt };
    if (a.balance > 0n) out.balance = a.balance;
    // As java-tron: a delegation moves its amount out of frozenV2 into delegated_frozenV2_balance_for_*.
    const outEnergy = sumValues(a.delegatedOutEnergy);
    const outBandwidth = sumValues(a.delegatedOutBandwidth);
    const frozenV2: Array<Record<string, unknown>> = [{}, { type: 'ENERGY' }, { type: 'TRON_POWER' }];
    if (a.frozenBandwidth - outBandwidth > 0n)
      (frozenV2[0] as Record<string, unknown>).amount = a.frozenBandwidth - outBandwidth;
    if (a.frozenEnergy - outEnergy > 0n)
      (frozenV2[1] as Record<string, unknown>).amount = a.frozenEnergy - outEnergy;
    out.frozenV2 = frozenV2;
    if (outEnergy > 0n) out.account_resource = { delegated_frozenV2_balance_for_energy: outEnergy };
    if (a.delegatedInEnergy > 0n) {
      out.account_resource = {
        ...(out.account_resource as object),
        acquired_delegated_frozenV2_balance_for_energy: a.delegatedInEnergy,
      };
    }
    if (outBandwidth > 0n) out.delegated_frozenV2_balance_for_bandwidth = outBandwidth;
    if (a.delegatedInBandwidth > 0n)
      out.acquired_delegated_frozenV2_balance_for_bandwidth = a.delegatedInBandwidth;
    if (a.usdt > 0n) out.trc20 = [{ [FAKE_USDT]: a.usdt.toString() }];
    return out;
  }

  function resourceJson(address: string): Record<string, unknown> {
    const a = state.get(address);
    if (a === undefined || !a.activated) return {};
    // Network totals: limit per weight (TRX staked network-wide) is what one staked TRX gives.
    const out: Record<string, unknown> = {
      freeNetLimit: FREE_BANDWIDTH,
      TotalNetLimit: 43_200_000_000,
      TotalNetWeight: 43_200_000_000n / bandwidthPerTrx,
      TotalEnergyLimit: 180_000_000_000,
      TotalEnergyWeight: 180_000_000_000n / energyPerTrx,
    };
    if (a.freeNetUsed > 0n) out.freeNetUsed = a.freeNetUsed;
    if (a.netUsed > 0n) out.NetUsed = a.netUsed;
    const net = netLimit(a);
    if (net > 0n) out.NetLimit = net;
    const energy = energyLimit(a);
    if (energy > 0n) out.EnergyLimit = energy;
    if (a.energyUsed > 0n) out.EnergyUsed = a.energyUsed;
    return out;
  }

  const readBody = (request: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      request.on('error', reject);
    });

  function route(path: string, body: Record<string, unknown>): unknown {
    const solid = path.startsWith('/walletsolidity/');
    const method = path.replace(/^\/wallet(solidity)?\//, '');
    const visibleHead = solid ? (blocks[node.solidNumber()] as Block) : (blocks[blocks.length - 1] as Block);
    const byNum = (num: unknown): Block | undefined => {
      const n = Number(num ?? 0);
      return n <= visibleHead.number ? blocks[n] : undefined;
    };
    switch (method) {
      case 'getnowblock':
        return blockJson(visibleHead);
      case 'getblockbynum': {
        const block = byNum(body.num);
        return block === undefined ? {} : blockJson(block);
      }
      case 'getblockbyid': {
        const block = blocks.find((b) => b.blockID === body.value && b.number <= visibleHead.number);
        return block === undefined ? {} : blockJson(block);
      }
      case 'gettransactioninfobyblocknum': {
        if (Number(body.num ?? 0) <= 0) return {};
        const block = byNum(body.num);
        return block === undefined ? [] : block.txs.map((t) => t.info);
      }
      case 'gettransactionbyid': {
        const found = findTx(String(body.value), solid);
        if (found !== undefined) return txJson(found.record);
        const pooled = solid ? undefined : pool.get(String(body.value));
        return pooled === undefined ? {} : { ...pooled, ret: undefined };
      }
      case 'gettransactioninfobyid': {
        const found = findTx(String(body.value), solid);
        return found === undefined ? {} : found.record.info;
      }
      case 'broadcasttransaction': {
        const tx = body as unknown as SignedTronTransaction;
        if (typeof tx.raw_data !== 'object' || !Array.isArray(tx.signature)) {
          return { Error: 'class java.lang.NullPointerException : null' };
        }
        const answer = node.broadcast(tx);
        const owner = tx.raw_data.contract[0]?.parameter.value.owner_address;
        broadcastLog.push({ txid: answer.txid, owner: owner === undefined ? '' : base58Address(owner) });
        if (answer.result === true && (lose === true || (typeof lose === 'function' && lose(tx))))
          pool.delete(answer.txid);
        return answer.message === undefined
          ? answer
          : { ...answer, message: hex(new TextEncoder().encode(answer.message)) };
      }
      case 'getaccount':
        return accountJson(hexAddress(String(body.address)));
      case 'getaccountresource':
        return resourceJson(hexAddress(String(body.address)));
      case 'getdelegatedresourcev2': {
        // Stake 2.0 delegations from one account to another (unlocked ones: no expire_time_*).
        const from = hexAddress(String(body.fromAddress));
        const to = hexAddress(String(body.toAddress));
        const owner = state.get(from);
        const energy = owner?.delegatedOutEnergy.get(to) ?? 0n;
        const bandwidth = owner?.delegatedOutBandwidth.get(to) ?? 0n;
        if (energy === 0n && bandwidth === 0n) return {};
        const entry: Record<string, unknown> = { from, to };
        if (bandwidth > 0n) entry.frozen_balance_for_bandwidth = bandwidth;
        if (energy > 0n) entry.frozen_balance_for_energy = energy;
        return { delegatedResource: [entry] };
      }
      case 'getchainparameters':
        return {
          chainParameter: [
            { key: 'getTransactionFee', value: Number(SUN_PER_BYTE) },
            { key: 'getEnergyFee', value: Number(node.energyFee) },
            { key: 'getCreateAccountFee', value: 100_000 },
            { key: 'getCreateNewAccountFeeInSystemContract', value: 1_000_000 },
            { key: 'getFreeNetLimit', value: Number(FREE_BANDWIDTH) },
          ],
        };
      case 'triggerconstantcontract': {
        if (body.contract_address !== usdtHex || body.function_selector !== 'balanceOf(address)') {
          return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: '' } };
        }
        const holder = `41${String(body.parameter).slice(24, 64)}`;
        const balance = state.get(holder)?.usdt ?? 0n;
        return {
          result: { result: true },
          energy_used: 935,
          constant_result: [balance.toString(16).padStart(64, '0')],
        };
      }
      default:
        return { Error: `fake Tron node: ${path} is not modelled` };
    }
  }

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const text = await readBody(request);
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      log.push(path);
      if (down) {
        response.writeHead(503, { 'content-type': 'text/plain' });
        response.end('Service Unavailable');
        return;
      }
      let body: Record<string, unknown> = {};
      try {
        body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(toJson({ Error: 'class org.tron.json.JSONException : bad json' }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(toJson(route(path, body)));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return node;
}

/** A fresh random-free test key (deterministic from a label) and its address. */
export function testKey(label: string): { key: Uint8Array; address: string; hex: string } {
  const key = Uint8Array.from(createHash('sha256').update(`tron-test-key:${label}`).digest());
  const address = addressOfKey(key);
  return { key, address, hex: hexAddress(address) };
}
