import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeTronNode, startFakeTronNode, testKey } from '../../../../test/support/tron-node.ts';
import { createTronHttp, type TronHttp } from './http.ts';
import { parseJsonExactIntegers } from './json.ts';
import { createTronReadiness } from './node.ts';
import { blockTransfers, createTronScanner, type RawBlock, type RawTransactionInfo } from './scan.ts';
import { hexAddress } from './tx.ts';
import { createTronAddressKeys } from './watched.ts';

const logger = pino({ level: 'silent' });
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const assets = { native: 'TRX', usdt: { code: 'USDT', contractHex: hexAddress(USDT) } };

describe('blockTransfers', () => {
  const a = testKey('watched-a');
  const b = testKey('watched-b');
  const stranger = testKey('stranger');
  const keys = createTronAddressKeys();
  const watched = new Set([a.address, b.address].map(keys.keyOf));
  const transfer = (txID: string, to: string, amount: number | string, ret = 'SUCCESS') => ({
    txID,
    ret: [{ contractRet: ret }],
    raw_data: {
      contract: [
        {
          type: 'TransferContract',
          parameter: { value: { owner_address: stranger.hex, to_address: to, amount } },
        },
      ],
    },
  });
  const call = (txID: string, ret = 'SUCCESS') => ({
    txID,
    ret: [{ contractRet: ret }],
    raw_data: {
      contract: [
        { type: 'TriggerSmartContract', parameter: { value: { contract_address: assets.usdt.contractHex } } },
      ],
    },
  });
  const log = (to: string, amount: bigint, address = assets.usdt.contractHex.slice(2)) => ({
    address,
    topics: [
      'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
      stranger.hex.slice(2).padStart(64, '0'),
      to.slice(2).padStart(64, '0'),
    ],
    data: amount.toString(16).padStart(64, '0'),
  });

  it('finds TRX and USDT payments to watched addresses, only successful ones, each once in block order', () => {
    const block: RawBlock = {
      blockID: 'x',
      transactions: [
        transfer('t1', a.hex, 1_500_000),
        transfer('t2', stranger.hex, 9),
        transfer('t3', b.hex, 7, 'REVERT'),
        call('c1'),
        call('c2', 'REVERT'),
        transfer('t4', a.hex, '90071992547409930'),
      ],
    };
    const infos: RawTransactionInfo[] = [
      // One call paying both watched addresses and a stranger, plus a log of another token to a watched address.
      {
        id: 'c1',
        receipt: { result: 'SUCCESS' },
        log: [log(a.hex, 5n), log(stranger.hex, 1n), log(b.hex, 6n), log(a.hex, 99n, '11'.repeat(20))],
        internal_transactions: [
          { transferTo_address: b.hex, callValueInfo: [{ callValue: 3 }] },
          { transferTo_address: b.hex, callValueInfo: [{ callValue: 4 }], rejected: true },
          { transferTo_address: a.hex, callValueInfo: [{}] },
          { transferTo_address: a.hex, callValueInfo: [{ callValue: 8, tokenId: '1002000' }] },
        ],
      },
      { id: 'c2', receipt: { result: 'REVERT' }, log: [log(a.hex, 1000n)] },
    ];
    expect(blockTransfers(block, infos, watched, assets)).toEqual([
      { txHash: 't1', outputIndex: 0, to: a.address, asset: 'TRX', amount: 1_500_000n },
      { txHash: 'c1', outputIndex: 1000, to: a.address, asset: 'USDT', amount: 5n },
      { txHash: 'c1', outputIndex: 1002, to: b.address, asset: 'USDT', amount: 6n },
      { txHash: 'c1', outputIndex: 2000, to: b.address, asset: 'TRX', amount: 3n },
      { txHash: 't4', outputIndex: 0, to: a.address, asset: 'TRX', amount: 90_071_992_547_409_930n },
    ]);
  });

  it("ignores svc's own wallets' TRX transfers (sweep activations and top-ups)", () => {
    const block: RawBlock = { blockID: 'x', transactions: [transfer('t1', a.hex, 1)] };
    expect(blockTransfers(block, null, watched, assets, new Set([stranger.hex]))).toEqual([]);
    expect(blockTransfers(block, null, watched, assets, new Set([a.hex]))).toHaveLength(1);
  });

  it('ignores logs without infos, an empty block, and USDT when the mode has no USDT contract', () => {
    expect(blockTransfers({ blockID: 'x' }, null, watched, assets)).toEqual([]);
    expect(
      blockTransfers(
        { blockID: 'x', transactions: [call('c1')] },
        [{ id: 'c1', receipt: { result: 'SUCCESS' }, log: [log(a.hex, 5n)] }],
        watched,
        {
          native: 'TRX',
          usdt: null,
        },
      ),
    ).toEqual([]);
  });
});

describe('createTronScanner reading blocks with plain JSON.parse', () => {
  const a = testKey('plain-a');
  const stranger = testKey('plain-stranger');
  const keys = createTronAddressKeys();
  const watched = new Set([a.address].map(keys.keyOf));
  const id = (n: number) => n.toString(16).padStart(64, '0');
  const transfer = (txID: string, to: string, amount: string) =>
    `{"ret":[{"contractRet":"SUCCESS"}],"txID":"${txID}","raw_data":{"contract":[{"type":"TransferContract",` +
    `"parameter":{"value":{"owner_address":"${stranger.hex}","to_address":"${to}","amount":${amount}}}}]}}`;
  const blockText = (...transactions: string[]) =>
    `{"blockID":"${id(7)}","block_header":{"raw_data":{"number":7,"parentHash":"${id(6)}","timestamp":1}},` +
    `"transactions":[${transactions.join(',')}]}`;

  /** A node answering one block (by number) from its text, parsed as the real client parses it; records each read. */
  function serving(text: string, infos = '[]') {
    const reads: string[] = [];
    const http: TronHttp = {
      async post<T>(path: string, _body?: Record<string, unknown>, read: 'exact' | 'plain' = 'exact') {
        reads.push(`${path} ${read}`);
        const answer = path === '/wallet/getblockbynum' ? text : infos;
        return (read === 'exact' ? parseJsonExactIntegers(answer) : JSON.parse(answer)) as T;
      },
      health: () => ({ down: null, url: '' }),
      close: async () => {},
    };
    return {
      reads,
      scan: createTronScanner({ http, native: 'TRX', usdt: null, requiredConfirmations: 19, logger }),
    };
  }

  it('reads a block again exactly when, and only when, it pays a watched address more than JSON.parse keeps exact', async () => {
    // The stranger always gets 2^53 + 1 sun (JSON.parse would read 2^53): never read, so never a reason to read again.
    for (const [paid, reads] of [
      ['9007199254740993', ['/wallet/getblockbynum plain', '/wallet/getblockbynum exact']],
      ['9007199254740991', ['/wallet/getblockbynum plain']],
    ] as const) {
      const served = serving(
        blockText(transfer(id(1), stranger.hex, '9007199254740993'), transfer(id(2), a.hex, paid)),
      );
      const ref = await served.scan.block(7);
      expect(await served.scan.transfers(ref as NonNullable<typeof ref>, watched)).toEqual([
        { txHash: id(2), outputIndex: 0, to: a.address, asset: 'TRX', amount: BigInt(paid) },
      ]);
      expect(served.reads).toEqual(reads);
    }
  });

  it("takes infos in any order, and refuses infos of another block's transactions", async () => {
    const call = (txID: string) =>
      `{"ret":[{"contractRet":"SUCCESS"}],"txID":"${txID}","raw_data":{"contract":[{"type":"TriggerSmartContract"}]}}`;
    const internal = (txID: string, amount: number) =>
      `{"id":"${txID}","receipt":{"result":"SUCCESS"},"internal_transactions":[{"transferTo_address":"${a.hex}",` +
      `"callValueInfo":[{"callValue":${amount}}]}]}`;
    const text = blockText(call(id(1)), call(id(2)));
    const shuffled = serving(text, `[${internal(id(2), 5)},${internal(id(1), 4)}]`);
    const ref = await shuffled.scan.block(7);
    expect(
      (await shuffled.scan.transfers(ref as NonNullable<typeof ref>, watched)).map((t) => [
        t.txHash,
        t.amount,
      ]),
    ).toEqual([
      [id(1), 4n],
      [id(2), 5n],
    ]);
    const other = serving(text, `[${internal(id(1), 4)},${internal(id(3), 5)}]`);
    await other.scan.block(7);
    await expect(other.scan.transfers(ref as NonNullable<typeof ref>, watched)).rejects.toThrow(
      'Tron block 7 changed while its transaction infos were read',
    );
  });
});

describe('createTronScanner against the fake node', () => {
  let node: FakeTronNode;
  const payer = testKey('scan-payer');
  const deposit = testKey('scan-deposit');
  const second = testKey('scan-deposit-2');
  const keys = createTronAddressKeys();
  const watched = new Set([deposit.address, second.address].map(keys.keyOf));

  beforeAll(async () => {
    node = await startFakeTronNode();
    node.fund(payer.address, 1_000_000_000n, 100_000_000n);
    node.produceBlocks(30);
  });
  afterAll(() => node.close());

  const scanner = () => {
    const http = createTronHttp({
      urls: [node.url],
      timeoutMs: 2000,
      retries: 1,
      logger,
      sleep: async () => {},
    });
    return {
      http,
      scan: createTronScanner({
        http,
        native: 'TRX',
        usdt: { code: 'USDT', contractHex: node.usdtHex },
        requiredConfirmations: 19,
        logger,
      }),
    };
  };

  it('reads the head, follows the solidified block as the confirmation count, and finds TRX and USDT payments', async () => {
    const { http, scan } = scanner();
    const trx = node.sendTrx(payer.key, deposit.address, 2_000_000n);
    const usdt1 = node.sendUsdt(payer.key, deposit.address, 1_250_000n);
    const usdt2 = node.sendUsdt(payer.key, second.address, 3n);
    const failed = node.sendUsdt(payer.key, second.address, 5n, { revert: true });
    node.produceBlocks(1);
    const head = await scan.head();
    expect(head?.number).toBe(node.head().number);
    expect(scan.confirmations()).toBe(20);
    const ref = await scan.block(node.head().number);
    expect(ref).toEqual(head);
    const found = await scan.transfers(ref as NonNullable<typeof ref>, watched);
    expect(found).toEqual([
      { txHash: trx, outputIndex: 0, to: deposit.address, asset: 'TRX', amount: 2_000_000n },
      { txHash: usdt1, outputIndex: 1000, to: deposit.address, asset: 'USDT', amount: 1_250_000n },
      { txHash: usdt2, outputIndex: 1000, to: second.address, asset: 'USDT', amount: 3n },
    ]);
    expect(found.map((t) => t.txHash)).not.toContain(failed);
    expect(await scan.block(node.head().number + 1)).toBeNull();

    // Not solidified yet: recheck withholds; 19 blocks later it stands.
    const seen = found.map((t) => ({
      txHash: t.txHash,
      blockNumber: ref?.number ?? 0,
      blockHash: ref?.hash ?? '',
    }));
    expect((await scan.recheck(seen)).size).toBe(0);
    node.produceBlocks(19);
    expect([...(await scan.recheck(seen))].sort()).toEqual([trx, usdt1, usdt2].sort());
    expect((await scan.recheck([{ ...seen[0], blockHash: 'ff'.repeat(32) } as (typeof seen)[0]])).size).toBe(
      0,
    );
    await http.close();
  });

  it('does not credit a deposit whose block was replaced', async () => {
    const { http, scan } = scanner();
    const id = node.sendTrx(payer.key, deposit.address, 1_000_000n);
    node.produceBlocks(1);
    const ref = await scan.head();
    expect((await scan.transfers(ref as NonNullable<typeof ref>, watched)).map((t) => t.txHash)).toEqual([
      id,
    ]);
    node.fork(1, { drop: true });
    node.produceBlocks(20);
    const standing = await scan.recheck([
      { txHash: id, blockNumber: ref?.number ?? 0, blockHash: ref?.hash ?? '' },
    ]);
    expect(standing.size).toBe(0);
    // A scanner that no longer holds the block reads it again by number and refuses the other block's payments.
    const fresh = scanner();
    expect(await fresh.scan.transfers(ref as NonNullable<typeof ref>, watched)).toEqual([]);
    await fresh.http.close();
    await http.close();
  });

  it('readiness: ready, down, lagging', async () => {
    const { http, scan } = scanner();
    let now = Date.now();
    const readiness = createTronReadiness({
      http,
      name: 'tron (live)',
      maxHeadAgeSeconds: 60,
      lastHead: () => {
        const last = scan.lastHead();
        return last === null ? null : { ...last, readAt: new Date(now) };
      },
    });
    await scan.head();
    now = node.head().timestamp + 1000;
    expect(await readiness()).toBeNull();
    now = node.head().timestamp + 120_000;
    expect(await readiness()).toMatch(/^tron \(live\): node lagging: head block \d+ is 120 s old$/);
    node.setDown(true);
    await expect(scan.head()).rejects.toThrow(/HTTP 503/);
    expect(await readiness()).toMatch(/^tron \(live\): node unreachable: HTTP 503/);
    node.setDown(false);
    await scan.head();
    now = node.head().timestamp;
    expect(await readiness()).toBeNull();
    await http.close();
  });
});
