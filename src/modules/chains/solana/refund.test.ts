import { base64 } from '@scure/base';
import { generateKeyPairSigner, getTransactionDecoder } from '@solana/kit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ata,
  balance,
  createAta,
  installMint,
  mintTo,
  newWallet,
  send,
  solTransfer,
  TEST_USDC_MINT,
  type TestWallet,
  tokenBalance,
  tokenTransfer,
} from '../../../../test/support/solana.ts';
import { solanaTestKeys, solanaTestSettings } from '../../../../test/support/solana-adapter.ts';
import { type SolanaTestRpc, startSolanaTestRpc } from '../../../../test/support/solana-rpc.ts';
import { RefundRefused } from '../adapter.ts';
import { createSolanaAdapter, type SolanaAdapter } from './adapter.ts';

/**
 * Solana refunds (refund.ts) against the real SVM: a SOL refund signed by the deposit address alone, its fee out of
 * the refund and exactly the rest left; the refusals (not worth the fee, a rest under the rent-exempt minimum, a new
 * account it could not create); a USDC refund with the fee payer paying the fee and the payer's new token account;
 * and the refund address check (wallets yes, token accounts no).
 */

const { deriver, signingKeys, feePayerSeed, feePayer } = solanaTestKeys();
const deposit = (index: number) => ({
  address: deriver.deriveAddress('solana', true, index),
  derivationIndex: index,
});
const SOL = 1_000_000_000n;

describe('solana refunds against LiteSVM', () => {
  let node: SolanaTestRpc;
  let adapter: SolanaAdapter;
  let payer: TestWallet;

  beforeAll(async () => {
    node = await startSolanaTestRpc({ finalizedLag: 1, blockhashLifetime: 20, prioritizationFees: [0] });
    adapter = createSolanaAdapter({
      settings: solanaTestSettings(node, feePayerSeed, { confirmations: 1, maxPriorityFee: 0n }),
      requiredConfirmations: 1,
      signingKeys,
      logger: pino({ level: 'silent' }),
    });
    await adapter.start();
    payer = await newWallet(node);
    node.airdrop(feePayer as never, 10n * SOL);
    installMint(node, TEST_USDC_MINT, 6, payer.address);
    await send(node, payer.signer, [
      await createAta(payer.signer, payer.address, TEST_USDC_MINT),
      await mintTo(payer.signer, payer.address, TEST_USDC_MINT, 1_000_000_000n),
    ]);
    node.tick();
  });

  afterAll(async () => {
    await node?.close();
  });

  const fresh = async () => (await generateKeyPairSigner()).address;
  const signersOf = (rawTx: string) =>
    Object.keys(getTransactionDecoder().decode(base64.decode(rawTx)).signatures);

  async function land(rawTx: string): Promise<void> {
    await adapter.broadcast(rawTx);
    node.tick();
  }

  it('sends SOL from the deposit address, signed by it alone, the fee out of the refund', async () => {
    const from = deposit(11);
    await send(node, payer.signer, [solTransfer(payer.signer, from.address, SOL / 2n)]);
    node.tick();
    const to = await fresh();
    const built = await adapter.buildRefund({ id: 'rf_1', asset: 'SOL', amount: SOL / 5n, to, from });
    expect(built.fee).toBe(5000n);
    expect(built.sent).toBe(SOL / 5n - 5000n);
    expect(signersOf(built.rawTx)).toEqual([from.address]);
    await land(built.rawTx);
    expect(balance(node, to)).toBe(SOL / 5n - 5000n);
    expect(balance(node, from.address)).toBe((SOL * 3n) / 10n); // exactly what the refund did not take
    expect((await adapter.forwardStatus(built.txHash)).state).not.toBe('unknown');
    // The whole rest: the account is emptied, nothing stranded.
    const all = await adapter.buildRefund({ id: 'rf_2', asset: 'SOL', amount: (SOL * 3n) / 10n, to, from });
    await land(all.rawTx);
    expect(balance(node, from.address)).toBe(0n);
  });

  it('refuses SOL refunds that cannot be sent as asked, and retries those whose funds are not there', async () => {
    const from = deposit(12);
    await send(node, payer.signer, [solTransfer(payer.signer, from.address, SOL / 100n)]);
    node.tick();
    const to = await fresh();
    const intent = { id: 'rf_3', asset: 'SOL', to, from };
    await expect(adapter.buildRefund({ ...intent, amount: 5000n })).rejects.toBeInstanceOf(RefundRefused);
    // 0.01 SOL less 0.0099999 leaves 100 lamports: under the rent-exempt minimum.
    await expect(adapter.buildRefund({ ...intent, amount: SOL / 100n - 100n })).rejects.toThrow(
      /rent-exempt/,
    );
    // 0.0005 SOL cannot create the payer's account.
    await expect(adapter.buildRefund({ ...intent, amount: SOL / 2000n })).rejects.toBeInstanceOf(
      RefundRefused,
    );
    // More than the address holds: not refused (a plain error, tried again later).
    const more = adapter.buildRefund({ ...intent, amount: SOL });
    await expect(more).rejects.toThrow(/holds/);
    await expect(more).rejects.not.toBeInstanceOf(RefundRefused);
  });

  it('sends USDC as a one-deposit sweep: the fee payer pays the fee and the payer’s new token account', async () => {
    const from = deposit(13);
    await send(node, payer.signer, [
      await createAta(payer.signer, from.address, TEST_USDC_MINT),
      await tokenTransfer(payer.signer, from.address, TEST_USDC_MINT, 4_000_000n),
    ]);
    node.tick();
    const to = await fresh();
    const before = balance(node, feePayer);
    const built = await adapter.buildRefund({ id: 'rf_4', asset: 'USDC', amount: 1_500_000n, to, from });
    expect(built.sent).toBe(1_500_000n);
    expect(new Set(signersOf(built.rawTx))).toEqual(new Set([feePayer, from.address]));
    await land(built.rawTx);
    expect(await tokenBalance(node, to, TEST_USDC_MINT)).toBe(1_500_000n);
    expect(await tokenBalance(node, from.address, TEST_USDC_MINT)).toBe(2_500_000n);
    expect(before - balance(node, feePayer)).toBe(built.fee + 2_039_280n);
    expect(balance(node, from.address)).toBe(0n);
  });

  it('takes wallets (existing or not) as refund addresses, not token accounts', async () => {
    expect(await adapter.checkRefundAddress(payer.address)).toBeNull();
    expect(await adapter.checkRefundAddress(await fresh())).toBeNull();
    const tokenAccount = await ata(payer.address, TEST_USDC_MINT);
    expect(await adapter.checkRefundAddress(tokenAccount)).toMatch(/not a wallet/);
    expect(await adapter.checkRefundAddress('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')).toMatch(
      /program/,
    );
  });
});
