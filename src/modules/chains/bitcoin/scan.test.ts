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
import { BitcoinRpcError, BitcoinRpcTransportError, createBitcoinRpc } from './rpc.ts';
import {
  blockTransfers,
  blockTransfersFromAnswer,
  createMempoolWatcher,
  fetchBlockTransfers,
  type RpcBlock,
  type UtxoTransfer,
  walkBlockAnswer,
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

describe('blockTransfersFromAnswer (the answer text walked, exact amounts of the watched outputs)', () => {
  const watched = new Set([A, B]);
  const out = (value: string, n: number, script: string) =>
    `{"value":${value},"n":${n},"scriptPubKey":{"asm":"0 x","hex":"${script}","type":"witness_v0_keyhash"}}`;
  const tx = (txid: string, vin: string, vout: string[]) =>
    `{"txid":"${txid}","hash":"${txid}","vin":[${vin}],"vout":[${vout.join(',')}],"fee":0.00001410,"hex":"02ab"}`;
  /** As Bitcoin Core writes it: compact, amounts as decimal numbers. */
  const compact = (txs: string[]) =>
    `{"result":{"hash":"h","height":7,"tx":[${txs.join(',')}],"time":1,"difficulty":4.656542373906925e-10},"error":null,"id":1}`;
  const read = (text: string) => blockTransfersFromAnswer(text, watched);
  /** The general reading: the whole answer parsed with exact decimals. */
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
    tx('t2', '{"txid":"t1","vout":2}', [out('0.30000000', 0, C), out('20999999.99999999', 1, B)]),
  ];

  it('gives the exact reading of the whole block, in block order, coinbase marked', () => {
    const text = compact(txs);
    expect(read(text)).toEqual(exactly(text));
    expect(read(text)).toEqual([
      { txid: 'cb', vout: 0, script: A, value: 5_000_000_000n, coinbase: true },
      { txid: 't1', vout: 0, script: A, value: 29_000_000n, coinbase: false },
      { txid: 't1', vout: 1, script: A, value: 57_000_000n, coinbase: false },
      { txid: 't1', vout: 3, script: B, value: 1n, coinbase: false },
      { txid: 't2', vout: 1, script: B, value: 2_099_999_999_999_999n, coinbase: false },
    ]);
    expect(read(compact([]))).toEqual([]);
    expect(read(compact(txs))).toEqual(read(compact(txs)));
  });

  it('reads amounts exactly: exponents, negatives, 8 decimals, beyond 2^53, integers', () => {
    const amounts = ['1e-8', '1.5E+2', '-0.5', '0.12345678', '92233720.36854775', '21000000', '0', '1E2'];
    const text = compact([
      tx(
        'x',
        '{"txid":"p","vout":0}',
        amounts.map((value, n) => out(value, n, A)),
      ),
    ]);
    expect(read(text).map((t) => t.value)).toEqual([
      1n,
      15_000_000_000n,
      -50_000_000n,
      12_345_678n,
      // 2^53 is 9,007,199,254,740,992: a float could not hold this one.
      9_223_372_036_854_775n,
      2_100_000_000_000_000n,
      0n,
      10_000_000_000n,
    ]);
    // More than 8 decimals is refused, never rounded.
    expect(() => read(compact([tx('x', '{"txid":"p","vout":0}', [out('0.000000001', 0, A)])]))).toThrow(
      /decimals/,
    );
  });

  it('is not misled by strings holding digits, brackets, keys or escaped quotes', () => {
    // With escaped quotes (a backslash in the text: the general reading), strings that look like fields.
    const tricky = compact([
      `{"txid":"t9","hash":"1.5e3,]}{[","vin":[{"txid":"p","vout":0,"note":"\\"vout\\":[{"}],` +
        `"vout":[{"value":0.25000000,"n":0,"scriptPubKey":{"asm":"0 {\\"hex\\":\\"${A}\\"}",` +
        `"hex":"${C}"}},{"n":1,"scriptPubKey":{"hex":"${A}","asm":"\\"value\\":9"},"value":0.75}]}`,
    ]);
    expect(tricky).toContain('\\"');
    expect(read(tricky)).toEqual(exactly(tricky));
    expect(read(tricky)).toEqual([{ txid: 't9', vout: 1, script: A, value: 75_000_000n, coinbase: false }]);
    // Without a backslash (the walk): digits, exponents and JSON punctuation inside strings.
    const plain = compact([
      `{"txid":"t8","hash":"1.5e3,]}{[ 'vout':[{","vin":[{"txid":"p","vout":0,"x":"{'value':9,'n':0}"}],` +
        `"vout":[{"value":0.5,"n":0,"scriptPubKey":{"asm":"0 ${A} -2.5E-3","hex":"${B}"}}]}`,
    ]);
    expect(plain).not.toContain('\\');
    expect(read(plain)).toEqual(exactly(plain));
    expect(read(plain)).toEqual([{ txid: 't8', vout: 0, script: B, value: 50_000_000n, coinbase: false }]);
  });

  it('reads other layouts the same: whitespace, fields in another order, repeated fields, odd shapes', () => {
    const text = compact(txs);
    expect(
      read(JSON.stringify(JSON.parse(text), null, 2).replace(/"value": (\S+?),/g, '"value": $1,')),
    ).toEqual(
      // Pretty-printed by JSON.stringify: the amounts are floats there, so compare the scripts and outpoints only.
      exactly(JSON.stringify(JSON.parse(text), null, 2)),
    );
    const spaced = text.replace(/":/g, '" : ').replace(/,"/g, ' ,\n "');
    expect(read(spaced)).toEqual(exactly(text));
    // Output fields after the script, the txid after the outputs, the envelope's error before its result.
    const reordered = `{"error":null,"id":1,"result":{"tx":[{"vout":[{"scriptPubKey":{"hex":"${B}"},"n":4,"value":0.00000002}],"vin":[{"coinbase":"00"},{"txid":"q","vout":1}],"txid":"r"}]}}`;
    expect(read(reordered)).toEqual([{ txid: 'r', vout: 4, script: B, value: 2n, coinbase: false }]);
    expect(read(reordered)).toEqual(exactly(reordered));
    // A repeated field: JSON.parse keeps the last one, and so does the reading.
    const repeated = compact([
      `{"txid":"a","txid":"b","vin":[],"vout":[{"value":1,"value":2,"n":0,"scriptPubKey":{"hex":"${C}","hex":"${A}"}}]}`,
    ]);
    expect(read(repeated)).toEqual([{ txid: 'b', vout: 0, script: A, value: 200_000_000n, coinbase: false }]);
    // An index or amount written otherwise (a fraction, a string) is read as the general reading reads it.
    const odd = compact([
      `{"txid":"o","vin":[],"vout":[{"value":"0.1","n":0,"scriptPubKey":{"hex":"${A}"}},{"value":0.2,"n":1.0,"scriptPubKey":{"hex":"${B}"}}]}`,
    ]);
    expect(read(odd)).toEqual(exactly(odd));
    expect(read(odd).map((t) => t.value)).toEqual([10_000_000n, 20_000_000n]);
  });

  it("throws the node's error, and refuses what is not JSON", () => {
    expect(() => read('{"result":{"tx":[]},"error":{"code":-5,"message":"Block not found"},"id":1}')).toThrow(
      BitcoinRpcError,
    );
    expect(() => read('{"result":null,"error":null,"id":1}')).toThrow(/no block/);
    for (const broken of [
      compact(txs).slice(0, -1),
      compact(txs).replace('"n":1', '"n":01'),
      compact(txs).replace('"n":1', '"n":1.'),
      compact(txs).replace('"value":0.57000000', '"value":.57'),
      compact(txs).replace('"value":0.57000000', '"value":0.57e'),
      compact(txs).replace('"value":0.57000000', '"value":+0.57'),
      compact(txs).replace('"fee":', '"fee"'),
      compact(txs).replace(',"hex":"02ab"', '"hex":"02ab"'),
      compact(txs).replace('"error":null', '"error":nul'),
      compact(txs).replace('"height":7', '"height":tru'),
      `${compact(txs)} x`,
      compact(txs).replace('"time":1', '"time":1,'),
      compact(txs).replace('"asm":"0 x"', '"asm":"0 x'),
    ]) {
      expect(() => JSON.parse(broken)).toThrow(SyntaxError);
      expect(() => read(broken)).toThrow(BitcoinRpcTransportError);
      expect(() => read(broken)).toThrow(/not JSON/);
    }
  });
});

describe('walkBlockAnswer (the walk itself: null where the general reading must decide)', () => {
  const watched = new Set([A]);
  /** A block answer with `value` where the walk only checks and passes over it. */
  const around = (value: string) => `{"result":{"height":7,"x":${value},"tx":[]},"error":null,"id":1}`;

  it('passes over any JSON value: strings with digits and brackets, exponents, negatives, big numbers, nesting', () => {
    const values = [
      '"0014ab"',
      '"1.5e3,]}{[:"',
      '1e-8',
      '-0.5',
      '0.12345678',
      '9007199254740993',
      '-0',
      '1.5E+2',
      '2e-0',
      '{"a":[1,{},[]],"b":{"c":null}}',
      '[]',
      '{}',
      'true',
      'false',
      'null',
      ' [ 1 , "x" , { "k" : [ ] } ] ',
    ];
    for (const value of values) {
      expect(() => JSON.parse(around(value)), value).not.toThrow();
      expect(walkBlockAnswer(around(value), watched), value).toEqual([]);
    }
  });

  it('refuses what JSON.parse refuses (numbers, literals, commas, colons, brackets, trailing text)', () => {
    const bad = [
      '01',
      '1.',
      '.5',
      '-',
      '1e',
      '+1',
      '1e+',
      '1.5.5',
      'tru',
      'nul',
      '[1,]',
      '[,1]',
      '[1 2]',
      '{"a" 1}',
      '{"a":1,}',
      '{a:1}',
      '[1}',
      '{"a":1]',
      '"open',
      '',
    ];
    for (const value of bad) {
      expect(() => JSON.parse(around(value)), value).toThrow(SyntaxError);
      expect(walkBlockAnswer(around(value), watched), value).toBeNull();
    }
    for (const text of [
      `${around('1')} x`,
      around('1').slice(0, -1),
      '',
      around('1').replace('{"result"', '{result'),
    ]) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      expect(walkBlockAnswer(text, watched), text).toBeNull();
    }
  });

  it('leaves other shapes to the general reading: an error, no block, repeated fields, other types', () => {
    const out = `{"value":0.1,"n":0,"scriptPubKey":{"hex":"${A}"}}`;
    const tx = (body: string) => `{"result":{"tx":[${body}]},"error":null}`;
    for (const text of [
      '{"result":null,"error":{"code":-5,"message":"Block not found"},"id":1}',
      '{"result":{"tx":[]},"error":{"code":-5}}',
      '{"result":{"tx":[]},"error":null,"error":null}',
      '{"result":{"tx":[]},"result":{"tx":[]}}',
      '{"result":{"height":1}}',
      '{"error":null}',
      '[{"result":{"tx":[]}}]',
      '[]',
      '"x"',
      '{"result":{"tx":[],"tx":[]}}',
      tx('"t"'),
      tx(`{"vin":[],"vout":[${out}]}`),
      tx(`{"txid":"t","vout":[${out}]}`),
      tx('{"txid":"t","vin":[]}'),
      tx(`{"txid":"t","txid":"u","vin":[],"vout":[${out}]}`),
      tx(`{"txid":"t","vin":[],"vin":[],"vout":[${out}]}`),
      tx(`{"txid":1,"vin":[],"vout":[${out}]}`),
      tx(`{"txid":"t","vin":["x"],"vout":[${out}]}`),
      tx(`{"txid":"t","vin":[{"coinbase":"00","coinbase":"00"}],"vout":[${out}]}`),
      tx(`{"txid":"t","vin":[],"vout":[${out}],"vout":[]}`),
      tx(`{"txid":"t","vin":[],"vout":[1]}`),
      tx(`{"txid":"t","vin":[],"vout":[{"value":"0.1","n":0,"scriptPubKey":{"hex":"${A}"}}]}`),
      tx(`{"txid":"t","vin":[],"vout":[{"value":0.1,"n":0.0,"scriptPubKey":{"hex":"${A}"}}]}`),
      tx(`{"txid":"t","vin":[],"vout":[{"value":0.1,"n":-1,"scriptPubKey":{"hex":"${A}"}}]}`),
      tx(`{"txid":"t","vin":[],"vout":[{"value":0.1,"n":1234567890,"scriptPubKey":{"hex":"${A}"}}]}`),
      tx(`{"txid":"t","vin":[],"vout":[{"value":0.1,"value":0.1,"n":0,"scriptPubKey":{"hex":"${A}"}}]}`),
      tx(`{"txid":"t","vin":[],"vout":[{"value":0.1,"scriptPubKey":{"hex":"${A}"}}]}`),
      tx(`{"txid":"t","vin":[],"vout":[{"value":0.1,"n":0,"scriptPubKey":{"asm":""}}]}`),
      tx(`{"txid":"t","vin":[],"vout":[{"value":0.1,"n":0,"scriptPubKey":{"hex":"${A}","hex":"${A}"}}]}`),
      tx(`{"txid":"t","vin":[],"vout":[{"value":0.1,"n":0,"scriptPubKey":"${A}"}]}`),
      tx(`{"txid":"t\u0001","vin":[],"vout":[${out}]}`),
    ]) {
      expect(walkBlockAnswer(text, watched), text).toBeNull();
    }
    // Nesting deeper than any block: left to JSON.parse.
    expect(walkBlockAnswer(around(`${'['.repeat(100)}${']'.repeat(100)}`), watched)).toBeNull();
  });

  it('reads the node shape: coinbase only for a lone input with a coinbase field, any field order', () => {
    const out = (n: number) => `{"value":0.1,"n":${n},"scriptPubKey":{"hex":"${A}"}}`;
    const text = `{"result":{"tx":[
      {"txid":"cb","vin":[{"coinbase":"03"}],"vout":[${out(0)}]},
      {"txid":"two","vin":[{"coinbase":"03"},{"txid":"p","vout":0}],"vout":[${out(1)}]},
      {"vout":[${out(2)}],"vin":[{"txid":"p","vout":0,"coinbase":null}],"txid":"late"},
      {"txid":"none","vin":[],"vout":[]}
    ]},"error":null}`;
    expect(walkBlockAnswer(text, watched)).toEqual([
      { txid: 'cb', vout: 0, script: A, value: 10_000_000n, coinbase: true },
      { txid: 'two', vout: 1, script: A, value: 10_000_000n, coinbase: false },
      { txid: 'late', vout: 2, script: A, value: 10_000_000n, coinbase: true },
    ]);
    expect(walkBlockAnswer(text, watched)).toEqual(
      blockTransfers((parseJsonKeepingDecimals(text) as { result: RpcBlock }).result, watched),
    );
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
