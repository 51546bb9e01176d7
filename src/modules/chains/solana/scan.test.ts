import { describe, expect, it } from 'vitest';
import { blockTransfers, type RpcBlock, type RpcBlockTransaction } from './scan.ts';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const OTHER_MINT = 'So11111111111111111111111111111111111111112';
const DEPOSIT = 'Dep1111111111111111111111111111111111111111';
const DEPOSIT2 = 'Dep2222222222222222222222222222222222222222';
const PAYER = 'Pay1111111111111111111111111111111111111111';
const ATA = 'Ata1111111111111111111111111111111111111111';

function tx(
  overrides: Partial<NonNullable<RpcBlockTransaction['meta']>>,
  keys: string[],
  sig = 'sig1',
): RpcBlockTransaction {
  return {
    transaction: { signatures: [sig], message: { accountKeys: keys } },
    meta: {
      err: null,
      preBalances: keys.map(() => 0n),
      postBalances: keys.map(() => 0n),
      preTokenBalances: [],
      postTokenBalances: [],
      ...overrides,
    },
  };
}

const block = (transactions: RpcBlockTransaction[]): RpcBlock => ({
  blockhash: 'h',
  previousBlockhash: 'p',
  parentSlot: 1n,
  blockHeight: 1n,
  blockTime: 1n,
  transactions,
});

const watched = new Set([DEPOSIT, DEPOSIT2]);
const mints = new Set([USDC]);

describe('solana block scan', () => {
  it('reads SOL from the balance delta, exactly beyond 2^53, and ignores decreases', () => {
    const big = 2n ** 60n + 1n;
    const found = blockTransfers(
      block([
        tx({ preBalances: [10n ** 18n, 5n], postBalances: [10n ** 18n - big - 5000n, 5n + big] }, [
          PAYER,
          DEPOSIT,
        ]),
        tx({ preBalances: [100n, 900n], postBalances: [1000n - 5000n, 0n] }, [PAYER, DEPOSIT2], 'sweep'),
      ]),
      watched,
      mints,
    );
    expect(found).toEqual([{ signature: 'sig1', outputIndex: 1, to: DEPOSIT, mint: null, amount: big }]);
  });

  it('refuses a float that lost precision', () => {
    expect(() =>
      blockTransfers(
        block([tx({ preBalances: [0, 0], postBalances: [0, 2 ** 60] }, [PAYER, DEPOSIT])]),
        watched,
        mints,
      ),
    ).toThrow(/beyond 2\^53/);
  });

  it('skips failed transactions and those without meta', () => {
    const failed = tx(
      { err: { InstructionError: [1, { Custom: 1 }] }, preBalances: [0n, 0n], postBalances: [0n, 9n] },
      [PAYER, DEPOSIT],
    );
    const noMeta = { ...tx({}, [PAYER, DEPOSIT]), meta: null };
    expect(blockTransfers(block([failed, noMeta]), watched, mints)).toEqual([]);
  });

  it('reads tokens per token account whose owner is watched: created in the transaction, or topped up', () => {
    const balance = (accountIndex: number, owner: string, amount: string, mint = USDC) => ({
      accountIndex,
      mint,
      owner,
      programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      uiTokenAmount: { amount },
    });
    const created = tx(
      {
        preTokenBalances: [balance(1, PAYER, '100')],
        postTokenBalances: [balance(1, PAYER, '40'), balance(2, DEPOSIT, '60')],
      },
      [PAYER, 'PayerAta', ATA],
    );
    const toppedUp = tx(
      {
        preTokenBalances: [balance(2, DEPOSIT2, '18446744073709551000')],
        postTokenBalances: [
          balance(2, DEPOSIT2, '18446744073709551615'),
          balance(3, DEPOSIT, '5', OTHER_MINT),
        ],
      },
      [PAYER, 'x', 'Ata2', 'OtherMintAccount'],
      'sig2',
    );
    expect(blockTransfers(block([created, toppedUp]), watched, mints)).toEqual([
      { signature: 'sig1', outputIndex: 258, to: DEPOSIT, tokenAccount: ATA, mint: USDC, amount: 60n },
      { signature: 'sig2', outputIndex: 258, to: DEPOSIT2, tokenAccount: 'Ata2', mint: USDC, amount: 615n },
    ]);
  });

  it('reads v0 transactions with their loaded addresses', () => {
    const v0 = tx(
      {
        preBalances: [10n, 0n, 0n],
        postBalances: [5n, 0n, 3n],
        loadedAddresses: { writable: [DEPOSIT], readonly: [] },
      },
      [PAYER, 'Program'],
    );
    expect(blockTransfers(block([v0]), watched, mints)).toEqual([
      { signature: 'sig1', outputIndex: 2, to: DEPOSIT, mint: null, amount: 3n },
    ]);
  });

  it('pays several deposits in one transaction, each once', () => {
    const both = tx({ preBalances: [100n, 0n, 0n], postBalances: [70n, 10n, 20n] }, [
      PAYER,
      DEPOSIT,
      DEPOSIT2,
    ]);
    expect(blockTransfers(block([both]), watched, mints).map((t) => [t.to, t.outputIndex, t.amount])).toEqual(
      [
        [DEPOSIT, 1, 10n],
        [DEPOSIT2, 2, 20n],
      ],
    );
  });
});
