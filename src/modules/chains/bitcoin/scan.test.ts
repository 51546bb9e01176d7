import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Litecoind,
  litecoindSkipReason,
  runLitecoindTests,
  startLitecoind,
} from '../../../../test/support/litecoind.ts';
import { parseJsonKeepingDecimals } from './json.ts';
import { BITCOIN_NETWORKS, p2wpkhScript, scriptToAddress } from './network.ts';
import { createBitcoinRpc } from './rpc.ts';
import {
  blockTransfers,
  blockTransfersFromText,
  createMempoolWatcher,
  fetchBlockTransfers,
  type RpcBlock,
  type UtxoTransfer,
} from './scan.ts';

const A = `0014${'aa'.repeat(20)}`;
const B = `0014${'bb'.repeat(20)}`;
const C = `0014${'cc'.repeat(20)}`;

/** A block as the node writes it (the JSON text), parsed as callExact does. */
function block(text: string): RpcBlock {
  return parseJsonKeepingDecimals(text) as RpcBlock;
}

describe('blockTransfers', () => {
  const watched = new Set([A, B]);
  const sample = block(`{"hash":"h","height":7,"time":1,"tx":[
    {"txid":"cb","vin":[{"coinbase":"0101"}],"vout":[{"value":50.00000000,"n":0,"scriptPubKey":{"hex":"${A}"}}]},
    {"txid":"t1","vin":[{"txid":"p","vout":0}],"vout":[
      {"value":0.29000000,"n":0,"scriptPubKey":{"hex":"${A}"}},
      {"value":0.57000000,"n":1,"scriptPubKey":{"hex":"${A}"}},
      {"value":1.10000000,"n":2,"scriptPubKey":{"hex":"${C}"}},
      {"value":0.00000001,"n":3,"scriptPubKey":{"hex":"${B}"}}]},
    {"txid":"t2","vin":[{"txid":"q","vout":1}],"vout":[{"value":0.30000000,"n":0,"scriptPubKey":{"hex":"${C}"}}]}
  ]}`);

  it('gives one transfer per output to a watched script, exact amounts, coinbase marked, in block order', () => {
    expect(blockTransfers(sample, watched)).toEqual([
      { txid: 'cb', vout: 0, script: A, value: 5_000_000_000n, coinbase: true },
      // 0.29 * 1e8 is 28999999.999999996 in floats; the exact reading is 29,000,000.
      { txid: 't1', vout: 0, script: A, value: 29_000_000n, coinbase: false },
      { txid: 't1', vout: 1, script: A, value: 57_000_000n, coinbase: false },
      { txid: 't1', vout: 3, script: B, value: 1n, coinbase: false },
    ]);
  });

  it('gives nothing when nothing watched is paid', () => {
    expect(blockTransfers(sample, new Set([`0014${'dd'.repeat(20)}`]))).toEqual([]);
  });
});

describe('blockTransfersFromText (plain parse, exact re-read of the paying transactions only)', () => {
  const watched = new Set([A, B]);
  const out = (value: string, n: number, script: string) =>
    `{"value":${value},"n":${n},"scriptPubKey":{"asm":"0 x","hex":"${script}","type":"witness_v0_keyhash"}}`;
  const tx = (txid: string, vin: string, vout: string[]) =>
    `{"txid":"${txid}","hash":"${txid}","vin":[${vin}],"vout":[${vout.join(',')}],"fee":0.00001410,"hex":"02ab"}`;
  /** As Bitcoin Core writes it: compact, amounts as decimal numbers. */
  const compact = (txs: string[]) =>
    `{"result":{"hash":"h","height":7,"tx":[${txs.join(',')}],"time":1,"difficulty":4.656542373906925e-10},"error":null,"id":1}`;
  const read = (text: string) =>
    blockTransfersFromText((JSON.parse(text) as { result: never }).result, text, watched);
  const exactly = (text: string) =>
    blockTransfers((parseJsonKeepingDecimals(text) as { result: RpcBlock }).result, watched);

  const txs = [
    tx('cb', '{"coinbase":"0101","sequence":4294967295}', [out('50.00000000', 0, A)]),
    tx('t0', '{"txid":"p0","vout":0}', [out('0.10000000', 0, C)]),
    tx('t1', '{"txid":"p","vout":0}', [
      out('0.29000000', 0, A),
      out('0.57000000', 1, A),
      out('1.10000000', 2, C),
      out('0.00000001', 3, B),
    ]),
    // Spends t1 (a block lists a transaction before its spenders) and pays B again.
    tx('t2', '{"txid":"t1","vout":2}', [out('0.30000000', 0, C), out('20999999.99999999', 1, B)]),
  ];

  it('gives the exact reading of the whole block, in block order', () => {
    const text = compact(txs);
    expect(read(text)).toEqual(exactly(text));
    expect(read(text).map((t) => t.value)).toEqual([
      5_000_000_000n,
      29_000_000n,
      57_000_000n,
      1n,
      2_099_999_999_999_999n,
    ]);
  });

  it('falls back to the exact reading of the whole block when a transaction text does not match its outline', () => {
    // An input naming t1 before t1 itself (no valid block does this): the first "{"txid":"t1"" is that input.
    const early = [
      txs[0],
      tx('t0', '{"txid":"t1","vout":5}', [out('0.1', 0, C)]),
      txs[2],
      txs[3],
    ] as string[];
    expect(read(compact(early))).toEqual(exactly(compact(early)));
    expect(read(compact(early))).toHaveLength(5);
    // Written with a space after each colon: no "{"txid":"…" to find.
    const spaced = compact(txs).replace(/":/g, '": ');
    expect(spaced).toContain('{"txid": "t1"');
    expect(read(spaced)).toEqual(exactly(compact(txs)));
  });
});

describe.skipIf(!runLitecoindTests)('scanning litecoind regtest blocks and mempool', () => {
  const network = BITCOIN_NETWORKS['litecoin-regtest'];
  let node: Litecoind;
  let rpc: ReturnType<typeof createBitcoinRpc>;
  beforeAll(async () => {
    node = await startLitecoind();
    rpc = createBitcoinRpc({
      urls: [node.urlWithAuth],
      timeoutMs: 10_000,
      retries: 2,
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await rpc?.close();
    await node?.stop();
  });

  /** A deposit address svc would own: a P2WPKH script of a random key hash (not in the node's wallet). */
  function newDeposit(): { script: string; address: string } {
    const script = p2wpkhScript(randomBytes(20));
    const address = scriptToAddress(network, script);
    if (address === null) throw new Error('no address');
    return { script, address };
  }

  const byOutpoint = (a: UtxoTransfer, b: UtxoTransfer) =>
    a.txid === b.txid ? a.vout - b.vout : a.txid < b.txid ? -1 : 1;

  it('finds payments in the mempool, then the same outpoints with the same amounts in the block', async () => {
    const w = { wallet: node.wallet };
    const [a, b, c, unwatched] = [newDeposit(), newDeposit(), newDeposit(), newDeposit()];
    const watched = new Set([a.script, b.script, c.script]);
    const mempool = createMempoolWatcher(rpc);
    expect(await mempool.poll(watched)).toEqual({ added: [], removed: [] });

    // One transaction paying two watched addresses and an unwatched one.
    const many = await node.rpc<string>(
      'sendmany',
      ['', { [a.address]: '0.12345678', [b.address]: '0.10000001', [unwatched.address]: '0.5' }],
      w,
    );
    // Two outputs to the same address in one transaction: the node refuses duplicate addresses, so the raw
    // transaction pays c and a placeholder of the same script length, whose script is then replaced by c's.
    const placeholder = newDeposit();
    const raw = await node.rpc<string>('createrawtransaction', [
      [],
      [{ [c.address]: '0.00100003' }, { [placeholder.address]: '0.29' }],
    ]);
    const twice = raw.replace(placeholder.script.slice(4), c.script.slice(4));
    expect(twice).not.toBe(raw);
    const funded = await node.rpc<{ hex: string }>('fundrawtransaction', [twice], w);
    const signed = await node.rpc<{ hex: string; complete: boolean }>(
      'signrawtransactionwithwallet',
      [funded.hex],
      w,
    );
    expect(signed.complete).toBe(true);
    const double = await node.rpc<string>('sendrawtransaction', [signed.hex]);
    // And a payment to nobody watched.
    await node.rpc<string>('sendtoaddress', [unwatched.address, '1'], w);

    const seen = await mempool.poll(watched);
    expect(seen.removed).toEqual([]);
    const expected = [
      { txid: many, script: a.script, value: 12_345_678n },
      { txid: many, script: b.script, value: 10_000_001n },
      { txid: double, script: c.script, value: 100_003n },
      { txid: double, script: c.script, value: 29_000_000n },
    ];
    expect(seen.added).toHaveLength(expected.length);
    expect(seen.added).toEqual(
      expect.arrayContaining(expected.map((e) => expect.objectContaining({ ...e, coinbase: false }))),
    );
    // The outpoints are the node's own (its wallet knows which of its outputs went where).
    for (const transfer of seen.added) {
      const out = await node.rpc<{ value: number; scriptPubKey: { hex: string } }>('gettxout', [
        transfer.txid,
        transfer.vout,
        true,
      ]);
      expect(out.scriptPubKey.hex).toBe(transfer.script);
    }
    // A second poll with nothing new decodes nothing and reports nothing.
    expect(await mempool.poll(watched)).toEqual({ added: [], removed: [] });

    const [hash] = await node.mine(1);
    if (hash === undefined) throw new Error('no block');
    const mined = await fetchBlockTransfers(rpc, hash, watched);
    expect([...mined].sort(byOutpoint)).toEqual([...seen.added].sort(byOutpoint));
    expect(mined.every((t) => !t.coinbase)).toBe(true);
    // The same as reading the whole block with exact decimals.
    const whole = await rpc.callExact<RpcBlock>('getblock', [hash, 2]);
    expect(mined).toEqual(blockTransfers(whole, watched));

    // Mined: the transactions left the mempool; nothing is added again.
    const after = await mempool.poll(watched);
    expect(after.added).toEqual([]);
    expect(after.removed).toHaveLength(3);
    expect(after.removed).toEqual(expect.arrayContaining([many, double]));
    expect(mempool.size()).toBe(0);
  });

  it('sees a replacement (BIP125 bumpfee): the original leaves the mempool, the replacement pays the same script', async () => {
    const w = { wallet: node.wallet };
    const deposit = newDeposit();
    const watched = new Set([deposit.script]);
    const mempool = createMempoolWatcher(rpc);
    await mempool.poll(watched);
    // sendtoaddress address amount comment comment_to subtractfeefromamount replaceable
    const original = await node.rpc<string>(
      'sendtoaddress',
      [deposit.address, '0.25', '', '', false, true],
      w,
    );
    const first = await mempool.poll(watched);
    expect(first.added).toEqual([
      expect.objectContaining({ txid: original, script: deposit.script, value: 25_000_000n }),
    ]);

    const { txid: replacement } = await node.rpc<{ txid: string }>('bumpfee', [original], w);
    expect(replacement).not.toBe(original);
    const second = await mempool.poll(watched);
    expect(second.removed).toEqual([original]);
    expect(second.added).toEqual([
      expect.objectContaining({ txid: replacement, script: deposit.script, value: 25_000_000n }),
    ]);
    await node.mine(1);
    expect((await mempool.poll(watched)).removed).toEqual([replacement]);
  });

  it('reads the whole mempool on the first poll (what waited before svc started)', async () => {
    const deposit = newDeposit();
    const txid = await node.rpc<string>('sendtoaddress', [deposit.address, '0.00054321'], {
      wallet: node.wallet,
    });
    const fresh = createMempoolWatcher(rpc);
    const { added } = await fresh.poll(new Set([deposit.script]));
    expect(added).toEqual([expect.objectContaining({ txid, script: deposit.script, value: 54_321n })]);
    await node.mine(1);
  });
});

if (!runLitecoindTests) it.skip(litecoindSkipReason, () => {});
