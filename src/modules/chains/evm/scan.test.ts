import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import {
  addressTopic,
  bloomMayContain,
  type CallFrame,
  inBlockOrder,
  internalFromCallTrace,
  internalFromParityTraces,
  nativeCandidates,
  type ParityTrace,
  type RpcBlock,
  type RpcLog,
  sameHex,
  TRANSFER_TOPIC,
  tokenTransfers,
} from './scan.ts';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const C = '0x00000000000000000000000000000000000000cc';
const TOKEN = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const watched = new Set([A, B]);

describe('nativeCandidates', () => {
  it('takes transactions paying a watched address something, whatever the case of the address', () => {
    const block = {
      transactions: [
        {
          hash: '0x1',
          from: C,
          to: A.toUpperCase().replace('0X', '0x'),
          value: '0x10',
          transactionIndex: '0x0',
        },
        { hash: '0x2', from: C, to: B, value: '0x0', transactionIndex: '0x1' },
        { hash: '0x3', from: C, to: C, value: '0x5', transactionIndex: '0x2' },
        { hash: '0x4', from: C, to: null, value: '0x5', transactionIndex: '0x3' },
      ],
    } as unknown as RpcBlock;
    expect(nativeCandidates(block, watched, 'ETH')).toEqual([
      expect.objectContaining({ txHash: '0x1', outputIndex: -1, amount: 16n, txIndex: 0 }),
    ]);
  });
});

describe('internal transfers from a callTracer trace', () => {
  it('counts value calls to watched addresses, not under a reverted frame, with stable positions', () => {
    const root: CallFrame = {
      type: 'CALL',
      from: C,
      to: C,
      value: '0x64',
      calls: [
        { type: 'CALL', from: C, to: A, value: '0x1' },
        {
          type: 'CALL',
          from: C,
          to: C,
          error: 'execution reverted',
          calls: [{ type: 'CALL', from: C, to: B, value: '0x2' }],
        },
        { type: 'DELEGATECALL', from: C, to: A, value: '0x3' },
        { type: 'STATICCALL', from: C, to: B },
        {
          type: 'CALL',
          from: C,
          to: B,
          value: '0x4',
          calls: [{ type: 'SELFDESTRUCT', from: C, to: A, value: '0x5' }],
        },
      ],
    };
    expect(internalFromCallTrace(root, '0xt', 3, watched, 'ETH')).toEqual([
      { txHash: '0xt', outputIndex: -2, to: A, asset: 'ETH', amount: 1n, txIndex: 3 },
      { txHash: '0xt', outputIndex: -7, to: B, asset: 'ETH', amount: 4n, txIndex: 3 },
      { txHash: '0xt', outputIndex: -8, to: A, asset: 'ETH', amount: 5n, txIndex: 3 },
    ]);
  });

  it('counts nothing when the transaction itself failed', () => {
    const root: CallFrame = {
      type: 'CALL',
      from: C,
      to: C,
      error: 'out of gas',
      calls: [{ type: 'CALL', from: C, to: A, value: '0x1' }],
    };
    expect(internalFromCallTrace(root, '0xt', 0, watched, 'ETH')).toEqual([]);
  });
});

describe('internal transfers from Parity traces', () => {
  const trace = (traceAddress: number[], action: ParityTrace['action'], extra: Partial<ParityTrace> = {}) =>
    ({
      type: 'call',
      action,
      traceAddress,
      transactionHash: '0xt',
      transactionPosition: 2,
      blockHash: '0xb',
      ...extra,
    }) as ParityTrace;

  it('matches the callTracer positions and skips what a failed parent undid', () => {
    const traces = [
      trace([], { callType: 'call', to: C, value: '0x64' }),
      trace([0], { callType: 'call', to: A, value: '0x1' }),
      trace([1], { callType: 'call', to: C, value: '0x0' }, { error: 'Reverted' }),
      trace([1, 0], { callType: 'call', to: B, value: '0x2' }),
      trace([2], { callType: 'delegatecall', to: A, value: '0x3' }),
      trace([3], { callType: 'staticcall', to: B, value: '0x0' }),
      trace([4], { callType: 'call', to: B, value: '0x4' }),
      trace([4, 0], { refundAddress: A, balance: '0x5' }, { type: 'suicide' }),
      { ...trace([], {}), transactionHash: null, transactionPosition: null, type: 'reward' },
    ];
    expect(internalFromParityTraces(traces, watched, 'ETH')).toEqual([
      { txHash: '0xt', outputIndex: -2, to: A, asset: 'ETH', amount: 1n, txIndex: 2 },
      { txHash: '0xt', outputIndex: -7, to: B, asset: 'ETH', amount: 4n, txIndex: 2 },
      { txHash: '0xt', outputIndex: -8, to: A, asset: 'ETH', amount: 5n, txIndex: 2 },
    ]);
  });
});

describe('tokenTransfers', () => {
  const log = (over: Partial<RpcLog>): RpcLog => ({
    address: TOKEN,
    topics: [TRANSFER_TOPIC, addressTopic(C), addressTopic(A)],
    data: `0x${(1_500_000).toString(16).padStart(64, '0')}`,
    blockHash: '0xb',
    transactionHash: '0xt',
    transactionIndex: '0x1',
    logIndex: '0x4',
    ...over,
  });
  const assets = new Map([[TOKEN, 'USDC']]);

  it('credits the logged amount to a watched recipient of a registry token, from this block only', () => {
    expect(
      tokenTransfers(
        [
          log({}),
          log({ blockHash: '0xother' }),
          log({ address: C }),
          log({ removed: true }),
          log({ topics: [TRANSFER_TOPIC, addressTopic(C), addressTopic(C)] }),
          // ERC-721 Transfer: same signature, 4 topics (the token id is indexed).
          log({ topics: [TRANSFER_TOPIC, addressTopic(C), addressTopic(A), addressTopic(B)] }),
        ],
        '0xB',
        watched,
        assets,
      ),
    ).toEqual([{ txHash: '0xt', outputIndex: 4, to: A, asset: 'USDC', amount: 1_500_000n, txIndex: 1 }]);
  });
});

describe('inBlockOrder', () => {
  it('orders by transaction, then its own transfer, internal calls, logs', () => {
    const f = (txIndex: number, outputIndex: number) => ({
      txHash: `0x${txIndex}`,
      outputIndex,
      to: A,
      asset: 'ETH',
      amount: 1n,
      txIndex,
    });
    const sorted = inBlockOrder([f(2, 0), f(1, 7), f(1, -3), f(1, -1), f(0, 5), f(1, -2)]);
    expect(sorted.map((x) => [x.txIndex, x.outputIndex])).toEqual([
      [0, 5],
      [1, -1],
      [1, -2],
      [1, -3],
      [1, 7],
      [2, 0],
    ]);
  });
});

describe('bloomMayContain', () => {
  it('is false only when an item is certainly absent', () => {
    const item = keccak_256(Buffer.from(TRANSFER_TOPIC.slice(2), 'hex'));
    const bloom = Buffer.alloc(256);
    for (let i = 0; i < 6; i += 2) {
      const bit = (((item[i] ?? 0) << 8) | (item[i + 1] ?? 0)) & 2047;
      const index = 255 - Math.floor(bit / 8);
      bloom[index] = (bloom[index] ?? 0) | (1 << (bit % 8));
    }
    const hex = `0x${bloom.toString('hex')}`;
    expect(bloomMayContain(hex, [item])).toBe(true);
    expect(bloomMayContain(`0x${'00'.repeat(256)}`, [item])).toBe(false);
    expect(bloomMayContain('0x', [item])).toBe(true);
  });
});

describe('tokenTransfers matching', () => {
  it('takes logs whatever the case of their block hash, topic and contract, and only of that block', () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const log = (overrides: Partial<RpcLog>): RpcLog => ({
      address: TOKEN,
      topics: [TRANSFER_TOPIC, addressTopic(C), addressTopic(A)],
      data: `0x${7n.toString(16).padStart(64, '0')}`,
      blockHash: hash,
      transactionHash: '0xt',
      transactionIndex: '0x1',
      logIndex: '0x0',
      ...overrides,
    });
    const logs = [
      log({ blockHash: hash.toUpperCase().replace('0X', '0x'), logIndex: '0x1' }),
      log({
        topics: [TRANSFER_TOPIC.toUpperCase().replace('0X', '0x'), addressTopic(C), addressTopic(A)],
        logIndex: '0x2',
      }),
      log({ address: TOKEN.toUpperCase().replace('0X', '0x'), logIndex: '0x3' }),
      log({ blockHash: `0x${'cd'.repeat(32)}`, logIndex: '0x4' }),
    ];
    const found = tokenTransfers(logs, hash, watched, new Map([[TOKEN, 'USDC']]));
    expect(found.map((f) => f.outputIndex)).toEqual([1, 2, 3]);
    expect(found.every((f) => f.amount === 7n && f.to === A)).toBe(true);
  });
});

describe('sameHex', () => {
  it('compares hex strings whatever their case, and only their digits', () => {
    expect(sameHex('0xabcDEF', '0xABCdef')).toBe(true);
    expect(sameHex('0xabc', '0xabc')).toBe(true);
    expect(sameHex('0xabc', '0xabd')).toBe(false);
    expect(sameHex('0xabc', '0xabc0')).toBe(false);
  });
});
