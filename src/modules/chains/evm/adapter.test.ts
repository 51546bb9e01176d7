import { pino } from 'pino';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, startAnvil } from '../../../../test/support/anvil.ts';
import { compileContracts } from '../../../../test/support/contracts.ts';
import { type EvmTestChain, setUpEvmChain } from '../../../../test/support/evm.ts';
import { testMnemonic } from '../../../../test/support/harness.ts';
import { LAST_DEPOSIT_INDEX } from '../../../db/schema/deposit-indices.ts';
import { RefundWalletShort } from '../adapter.ts';
import { createAddressDeriver } from '../derivation.ts';
import { createDepositSigningKeys, createDerivationCheck } from '../derivation-check.ts';
import { type BundleStore, createEvmAdapter, EVM_REFUND_WALLET_INDEX, type EvmAdapter } from './adapter.ts';
import { reconcileIndex } from './reconcile.ts';
import { createEvmRpc } from './rpc.ts';
import type { EvmChainSettings, EvmSettings } from './settings.ts';

/**
 * The EVM adapter against a real node (anvil from npm): what it finds in blocks, and the sweeps it signs, sent and
 * checked on chain. The whole program runs against anvil in test/evm-live.test.ts.
 */

const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: testMnemonic });
const signingKeys = createDepositSigningKeys(
  deriver,
  createDerivationCheck({ testMnemonic, liveMnemonic: testMnemonic }),
);
const logger = pino({ level: 'silent' });
const shared: EvmSettings = {
  chains: [],
  logsBlockRange: 1000,
  logsAddressLimit: 1000,
  rpcTimeoutMs: 2000,
  rpcRetries: 2,
  maxHeadAgeSeconds: 0,
  reconcileEveryBlocks: 20,
};

function settings(url: string, overrides: Partial<EvmChainSettings> = {}): EvmChainSettings {
  return {
    chain: 'ethereum',
    isTest: false,
    rpcUrls: [url],
    gasKey: undefined,
    refundWallet: false,
    refundKey: undefined,
    chainId: 31337,
    maxFeePerGasWei: 500_000_000_000n,
    finality: 'confirmations',
    trace: 'auto',
    pollIntervalMs: undefined,
    ...overrides,
  };
}

/** In-memory stand-in for the forwards table. */
function memoryBundles(): BundleStore & { put(txHash: string, raw: string): void } {
  const rows = new Map<string, string>();
  return {
    put: (txHash, raw) => rows.set(txHash, raw),
    byHash: async (txHash) => rows.get(txHash) ?? null,
    open: async () => [...rows.values()],
  };
}

const address = (index: number) => deriver.deriveAddress('ethereum', false, index);

describe('EVM adapter against anvil', () => {
  let anvil: Anvil;
  let chain: EvmTestChain;
  let adapter: EvmAdapter;
  const bundles = memoryBundles();

  beforeAll(async () => {
    anvil = await startAnvil();
    chain = await setUpEvmChain(anvil);
    adapter = createEvmAdapter({
      settings: settings(anvil.url),
      shared,
      requiredConfirmations: 2,
      deriver,
      signingKeys,
      logger,
      bundles,
    });
    await adapter.start();
  }, 60_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  async function transfersOf(txHash: Hex, watched: string[]) {
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: txHash, pollingInterval: 20 });
    const block = await adapter.block(Number(receipt.blockNumber));
    if (block === null) throw new Error('block missing');
    return adapter.transfers(block, new Set(watched.map((a) => a.toLowerCase())));
  }

  it('finds ether paid directly, by a contract, and tokens, and nothing for unwatched addresses', async () => {
    const [a, b, c] = [address(1), address(2), address(3)];
    const direct = await chain.sendEth(a, 10n ** 17n);
    expect(await transfersOf(direct, [a, b])).toEqual([
      { txHash: direct, outputIndex: -1, to: a, asset: 'ETH', amount: 10n ** 17n },
    ]);
    const internal = await chain.forwardEth(b, 12345n);
    expect(await transfersOf(internal, [a, b])).toEqual([
      { txHash: internal, outputIndex: -2, to: b, asset: 'ETH', amount: 12345n },
    ]);
    const token = await chain.sendToken(c, 2_500_000n);
    const found = await transfersOf(token, [c]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ txHash: token, to: c, asset: 'USDC', amount: 2_500_000n });
    expect(await transfersOf(token, [a])).toEqual([]);
    expect(await transfersOf(direct, [c])).toEqual([]);
  });

  it('counts nothing from a transaction that reverted', async () => {
    const target = address(4);
    const hash = await chain.wallet(1).writeContract({
      address: chain.forwarder,
      abi: [
        {
          type: 'function',
          name: 'split',
          stateMutability: 'payable',
          inputs: [
            { name: 'to', type: 'address[]' },
            { name: 'amounts', type: 'uint256[]' },
          ],
          outputs: [],
        },
      ],
      functionName: 'split',
      // The second call goes to the token contract, which takes no ether: the whole transaction reverts.
      args: [
        [target as Hex, chain.token],
        [5n, 5n],
      ],
      value: 10n,
      gas: 200_000n,
      account: chain.wallet(1).account ?? null,
      chain: null,
    });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('reverted');
    expect(await transfersOf(hash, [target])).toEqual([]);
  });

  it('re-checks deposits before they are credited: a transaction reorganised away no longer stands', async () => {
    const target = address(5);
    const kept = await chain.sendEth(target, 1000n);
    const keptAt = await chain.publicClient.waitForTransactionReceipt({ hash: kept, pollingInterval: 20 });
    const dropped = await chain.sendEth(target, 2000n);
    const droppedAt = await chain.publicClient.waitForTransactionReceipt({
      hash: dropped,
      pollingInterval: 20,
    });
    const seen = (receipt: typeof keptAt) => ({
      txHash: receipt.transactionHash,
      blockNumber: Number(receipt.blockNumber),
      blockHash: receipt.blockHash,
    });
    const reconciled = {
      txHash: keptAt.blockHash,
      blockNumber: Number(keptAt.blockNumber),
      blockHash: keptAt.blockHash,
    };
    expect(await adapter.recheck([seen(keptAt), seen(droppedAt), reconciled])).toEqual(
      new Set([kept, dropped, keptAt.blockHash]),
    );
    // Seen in another block than the one it is in now: withheld.
    expect(await adapter.recheck([{ ...seen(keptAt), blockHash: droppedAt.blockHash }])).toEqual(new Set());

    // The block holding `dropped` is replaced by an empty one.
    await anvil.rpc('anvil_reorg', [1, []]);
    await anvil.rpc('anvil_dropAllTransactions', []);
    const replaced = {
      ...reconciled,
      blockNumber: Number(droppedAt.blockNumber),
      blockHash: droppedAt.blockHash,
    };
    expect(
      await adapter.recheck([seen(keptAt), seen(droppedAt), { ...replaced, txHash: droppedAt.blockHash }]),
    ).toEqual(new Set([kept]));
  });

  it('finds the same internal transfer with Parity trace_block', async () => {
    const viaTrace = createEvmAdapter({
      settings: settings(anvil.url, { trace: 'trace' }),
      shared,
      requiredConfirmations: 2,
      deriver,
      signingKeys,
      logger,
      bundles,
    });
    const target = address(5);
    const hash = await chain.forwardEth(target, 777n);
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    const block = await viaTrace.block(Number(receipt.blockNumber));
    if (block === null) throw new Error('block missing');
    expect(await viaTrace.transfers(block, new Set([target.toLowerCase()]))).toEqual([
      { txHash: hash, outputIndex: -2, to: target, asset: 'ETH', amount: 777n },
    ]);
  });

  it('without trace APIs, finds a contract payment by balance reconciliation, and counts a direct one once', async () => {
    const reconciling = createEvmAdapter({
      settings: settings(anvil.url, { trace: 'reconcile' }),
      shared: { ...shared, reconcileEveryBlocks: 1 },
      requiredConfirmations: 2,
      deriver,
      signingKeys,
      logger,
      bundles,
    });
    const target = address(20);
    const watched = new Set([target.toLowerCase()]);
    const head = await reconciling.head();
    if (head === null) throw new Error('no head');
    expect(await reconciling.transfers(head, watched)).toEqual([]);
    const internal = await chain.forwardEth(target, 555n);
    const direct = await chain.sendEth(target, 1000n);
    await chain.mined(direct);
    const latest = Number(await anvil.rpc<string>('eth_blockNumber'));
    const found = [];
    for (let n = head.number + 1; n <= latest; n++) {
      const block = await reconciling.block(n);
      if (block === null) throw new Error('block missing');
      found.push(...(await reconciling.transfers(block, watched)).map((t) => ({ ...t, block: block.hash })));
    }
    const internalReceipt = await chain.publicClient.getTransactionReceipt({ hash: internal });
    expect(found).toEqual([
      {
        txHash: internalReceipt.blockHash,
        outputIndex: reconcileIndex(target.toLowerCase()),
        to: target,
        asset: 'ETH',
        amount: 555n,
        block: internalReceipt.blockHash,
      },
      expect.objectContaining({ txHash: direct, outputIndex: -1, amount: 1000n }),
    ]);
  });

  it('catching up on deep blocks, reads token logs by ranges and address lists and finds the same', async () => {
    const inner = createEvmRpc({ urls: [anvil.url], timeoutMs: 2000, retries: 1, logger });
    const ranged: unknown[] = [];
    const catchingUp = createEvmAdapter({
      settings: settings(anvil.url),
      shared: { ...shared, logsAddressLimit: 2 },
      requiredConfirmations: 2,
      deriver,
      signingKeys,
      logger,
      bundles,
      rpc: {
        request: <T>(method: string, params?: readonly unknown[]) => {
          const filter = params?.[0] as { fromBlock?: string; topics?: unknown[] } | undefined;
          if (method === 'eth_getLogs' && filter?.fromBlock !== undefined) ranged.push(filter.topics?.[2]);
          return inner.request<T>(method, params);
        },
        health: () => inner.health(),
      },
    });
    const targets = [address(30), address(31), address(32)];
    const watched = new Set(targets.map((a) => a.toLowerCase()));
    const first = Number(await anvil.rpc<string>('eth_blockNumber')) + 1;
    const hashes: Hex[] = [];
    for (const [i, target] of targets.entries())
      hashes.push(await chain.sendToken(target, 1_000n + BigInt(i)));
    await chain.mined(hashes.at(-1) as Hex);
    await chain.mine(20);
    await catchingUp.head();
    const found = [];
    for (let n = first; n < first + targets.length; n++) {
      const block = await catchingUp.block(n);
      if (block === null) throw new Error('block missing');
      found.push(...(await catchingUp.transfers(block, watched)));
    }
    // One range, in two address lists (at most 2 addresses each).
    expect(ranged.map((list) => (list as string[]).length)).toEqual([2, 1]);
    expect(found.map((t) => [t.txHash, t.to, t.amount])).toEqual(
      targets.map((target, i) => [hashes[i], target, 1_000n + BigInt(i)]),
    );
  });

  it('sweeps ether: balance less the exact fee, the address left empty; re-broadcast pays nothing twice', async () => {
    const from = address(10);
    const payout = '0x000000000000000000000000000000000000bEEF';
    await chain.mined(chain.sendEth(from, 10n ** 16n));
    const built = await adapter.buildForward({
      id: 'fwd_native',
      asset: 'ETH',
      inputs: [{ address: from, derivationIndex: 10, amount: 10n ** 16n }],
      to: payout,
    });
    bundles.put(built.txHash, built.rawTx);
    expect(built.amount + built.fee).toBe(10n ** 16n);
    await adapter.broadcast(built.rawTx);
    await adapter.broadcast(built.rawTx);
    await chain.mined(built.txHash as Hex);
    const status = await adapter.forwardStatus(built.txHash);
    // Priority fee = max fee: the chain takes exactly the fee that was kept back.
    expect(status).toMatchObject({ state: 'included', fee: built.fee });
    expect(await chain.ethBalance(payout)).toBe(built.amount);
    expect(await chain.ethBalance(from)).toBe(0n);
    await adapter.broadcast(built.rawTx);
    expect(await chain.ethBalance(payout)).toBe(built.amount);
  });

  it('sends refunds of swept payments from the refund wallet when it is on, and says when it is too poor', async () => {
    expect(adapter.refundWallet).toBeUndefined();
    expect(await adapter.refundWalletView?.()).toBeNull();
    const intent = { id: 'rf_wallet', asset: 'ETH', amount: 10n ** 16n, to: address(30), from: null };
    await expect(adapter.buildRefund?.(intent)).rejects.toThrow(/no refund wallet/);

    const withWallet = createEvmAdapter({
      settings: settings(anvil.url, { refundWallet: true }),
      shared,
      requiredConfirmations: 2,
      deriver,
      signingKeys,
      logger,
      bundles,
    });
    await withWallet.start();
    expect(withWallet.refundWallet).toBe(true);
    // Its key is never a deposit address's: deposit indices stop below it.
    expect(EVM_REFUND_WALLET_INDEX).toBeGreaterThan(LAST_DEPOSIT_INDEX);
    const wallet = deriver.deriveAddress('ethereum', false, EVM_REFUND_WALLET_INDEX);
    expect(await withWallet.refundWalletView?.()).toMatchObject({
      address: wallet,
      balance: 0n,
      low: false,
      tokens: expect.arrayContaining([{ asset: 'USDC', balance: 0n }]),
    });
    // Empty: nothing is signed, the caller hands the refund to the merchant, and the wallet shows as low.
    await expect(withWallet.buildRefund?.(intent)).rejects.toBeInstanceOf(RefundWalletShort);
    expect(await withWallet.refundWalletView?.()).toMatchObject({ low: true });

    await chain.mined(chain.sendEth(wallet, 10n ** 17n));
    const built = await withWallet.buildRefund?.(intent);
    if (built === undefined) throw new Error('no refund built');
    expect(built.sent + built.fee).toBe(10n ** 16n);
    bundles.put(built.txHash, built.rawTx);
    await withWallet.broadcast(built.rawTx);
    // Automine can answer the send before its block is stored (CI's PGlite run once read it pending).
    await chain.mined(built.txHash as Hex);
    expect(await withWallet.forwardStatus(built.txHash)).toMatchObject({ state: 'included', fee: built.fee });
    expect(await chain.ethBalance(address(30))).toBe(built.sent);
    expect(await chain.ethBalance(wallet)).toBe(10n ** 17n - 10n ** 16n);
    expect(await withWallet.refundWalletView?.()).toMatchObject({
      low: false,
      balance: 10n ** 17n - 10n ** 16n,
    });

    // A refund signed and stored but not yet accepted by the node still counts against the wallet: a second one
    // that only the balance without it could pay is refused, not signed on money already promised.
    const half = { ...intent, amount: 5n * 10n ** 16n };
    const first = await withWallet.buildRefund?.({ ...half, id: 'rf_first' });
    if (first === undefined) throw new Error('no refund built');
    bundles.put(first.txHash, first.rawTx);
    await expect(withWallet.buildRefund?.({ ...half, id: 'rf_second' })).rejects.toBeInstanceOf(
      RefundWalletShort,
    );
    await withWallet.broadcast(first.rawTx);
    await chain.mined(first.txHash as Hex);
    expect(await withWallet.forwardStatus(first.txHash)).toMatchObject({ state: 'included' });
    expect(await chain.ethBalance(wallet)).toBe(4n * 10n ** 16n);
  });

  it('a sweep to a payout contract that rejects ether is reported reverted, never as swept', async () => {
    const from = address(14);
    await chain.mined(chain.sendEth(from, 10n ** 16n));
    // The forwarder contract has no receive function: ether sent to it reverts.
    const built = await adapter.buildForward({
      id: 'fwd_rejected',
      asset: 'ETH',
      inputs: [{ address: from, derivationIndex: 14, amount: 10n ** 16n }],
      to: chain.forwarder,
    });
    bundles.put(built.txHash, built.rawTx);
    await adapter.broadcast(built.rawTx);
    await chain.mine(1);
    const status = await adapter.forwardStatus(built.txHash);
    expect(status).toMatchObject({ state: 'included', reverted: expect.stringContaining(built.txHash) });
    expect(await chain.ethBalance(chain.forwarder)).toBe(0n);
  });

  it('sweeps tokens after a gas top-up from the gas wallet', async () => {
    const from = address(11);
    const payout = '0x000000000000000000000000000000000000cafE';
    await chain.mined(chain.sendEth(adapter.gasWallet, 10n ** 18n));
    await chain.mined(chain.sendToken(from, 7_000_000n));
    const gasBefore = await chain.ethBalance(adapter.gasWallet);
    const built = await adapter.buildForward({
      id: 'fwd_token',
      asset: 'USDC',
      inputs: [{ address: from, derivationIndex: 11, amount: 7_000_000n }],
      to: payout,
    });
    bundles.put(built.txHash, built.rawTx);
    expect(built.amount).toBe(7_000_000n);
    expect(JSON.parse(built.rawTx).txs).toHaveLength(2);
    await adapter.broadcast(built.rawTx);
    // With automine the top-up is mined at once; a second pass sends the transfer if the first stopped after it.
    let status = await adapter.forwardStatus(built.txHash);
    for (let i = 0; i < 5 && status.state !== 'included'; i++)
      status = await adapter.forwardStatus(built.txHash);
    expect(status.state).toBe('included');
    expect(await chain.tokenBalance(payout)).toBe(7_000_000n);
    expect(await chain.tokenBalance(from)).toBe(0n);
    const gasAfter = await chain.ethBalance(adapter.gasWallet);
    expect(gasAfter).toBeLessThan(gasBefore);
    // The fee reported is what the chain took (both transactions' gas at the price paid), not the signed maximum:
    // the gas wallet's spending less what the top-up left on the deposit address.
    const fee = status.state === 'included' ? status.fee : undefined;
    expect(fee).toBe(gasBefore - gasAfter - (await chain.ethBalance(from)));
    expect(fee).toBeLessThan(built.fee);
  });

  it('on an OP-stack chain, keeps the L1 data fee back from a native sweep', async () => {
    const { L1FeeOracle } = compileContracts();
    const deployHash = await chain.wallet(0).deployContract({
      abi: L1FeeOracle.abi,
      bytecode: L1FeeOracle.bytecode,
      account: chain.wallet(0).account ?? null,
      chain: null,
    });
    const deployed = await chain.publicClient.waitForTransactionReceipt({ hash: deployHash });
    const code = await chain.publicClient.getCode({ address: deployed.contractAddress as Hex });
    await anvil.rpc('anvil_setCode', ['0x420000000000000000000000000000000000000F', code]);
    const onBase = createEvmAdapter({
      settings: settings(anvil.url, { chain: 'base' }),
      shared,
      requiredConfirmations: 2,
      deriver,
      signingKeys,
      logger,
      bundles,
    });
    const from = address(40);
    const payout = '0x000000000000000000000000000000000000ba5e';
    await chain.mined(chain.sendEth(from, 10n ** 16n));
    const built = await onBase.buildForward({
      id: 'fwd_base',
      asset: 'ETH',
      inputs: [{ address: from, derivationIndex: 40, amount: 10n ** 16n }],
      to: payout,
    });
    bundles.put(built.txHash, built.rawTx);
    await onBase.broadcast(built.rawTx);
    // Automine can answer the send before the block is stored; a block mined here makes the receipt certain.
    await chain.mine(1);
    expect((await onBase.forwardStatus(built.txHash)).state).toBe('included');
    const l1 = 10n ** 12n;
    expect(await chain.ethBalance(payout)).toBe(built.amount);
    // Gas as signed, plus the L1 fee; twice the oracle's figure was held back (anvil charges no L1 fee).
    expect(built.amount + built.fee + l1).toBe(10n ** 16n);
    expect(await chain.ethBalance(from)).toBe(2n * l1);
  });

  it('leaves dust worth less than the fee and says so', async () => {
    const from = address(12);
    await chain.mined(chain.sendEth(from, 1000n));
    const built = await adapter.buildForward({
      id: 'fwd_dust',
      asset: 'ETH',
      inputs: [{ address: from, derivationIndex: 12, amount: 1000n }],
      to: '0x000000000000000000000000000000000000dEaD',
    });
    expect(built.amount).toBe(0n);
    expect(built.left).toEqual([from]);
    expect(await chain.ethBalance(from)).toBe(1000n);
    expect(adapter.dust().some((d) => d.address === from && d.amount === 1000n)).toBe(true);

    // Beside an input worth sweeping: the transaction moves that one and names the other as left.
    const rich = address(13);
    await chain.mined(chain.sendEth(rich, 10n ** 16n));
    const mixed = await adapter.buildForward({
      id: 'fwd_dust_mixed',
      asset: 'ETH',
      inputs: [
        { address: from, derivationIndex: 12, amount: 1000n },
        { address: rich, derivationIndex: 13, amount: 10n ** 16n },
      ],
      to: '0x000000000000000000000000000000000000dEaD',
    });
    expect(mixed.amount).toBe(10n ** 16n - mixed.fee);
    expect(mixed.left).toEqual([from]);
  });

  it('fails over to the next URL and reports a node that is down', async () => {
    const dead = 'http://127.0.0.1:9';
    const failover = createEvmAdapter({
      settings: settings(dead, { rpcUrls: [dead, anvil.url] }),
      shared: { ...shared, rpcTimeoutMs: 1000 },
      requiredConfirmations: 2,
      deriver,
      signingKeys,
      logger,
      bundles,
    });
    expect(await failover.head()).not.toBeNull();
    expect(await failover.readiness()).toBeNull();
    const down = createEvmAdapter({
      settings: settings(dead),
      shared: { ...shared, rpcTimeoutMs: 500, rpcRetries: 1 },
      requiredConfirmations: 2,
      deriver,
      signingKeys,
      logger,
      bundles,
    });
    await expect(down.head()).rejects.toThrow();
    expect(await down.readiness()).toMatch(/ethereum \(live\): node unreachable/);
  });

  it('refuses a node on another chain', async () => {
    const wrong = createEvmAdapter({
      settings: settings(anvil.url, { chainId: 1 }),
      shared,
      requiredConfirmations: 2,
      deriver,
      signingKeys,
      logger,
      bundles,
    });
    await expect(wrong.head()).rejects.toThrow(/chain id 31337, expected 1/);
    expect(await wrong.readiness()).toMatch(/expected 1/);
  });
});
