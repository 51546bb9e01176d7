import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexAddress, signTransaction, typeUrl } from '../src/modules/chains/tron/tx.ts';
import {
  type FakeTronNode,
  startFakeTronNode,
  testKey,
  USDT_ENERGY_NEW_HOLDER,
} from './support/tron-node.ts';

/** The fake Tron node itself: the documentation's shapes, signatures, balances and resources. */

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./support/tron-fixtures/${name}.json`, import.meta.url), 'utf8'));

/** Every field of `expected` is in `actual` with the same JSON type (arrays: their first elements), recursively. */
function missingFields(expected: unknown, actual: unknown, path = '$'): string[] {
  const type = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
  if (type(expected) !== type(actual)) return [`${path}: ${type(expected)} expected, ${type(actual)} found`];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    return expected.length === 0 ? [] : missingFields(expected[0], actual[0], `${path}[0]`);
  }
  if (type(expected) !== 'object') return [];
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  return Object.keys(e).flatMap((key) =>
    key in a ? missingFields(e[key], a[key], `${path}.${key}`) : [`${path}.${key}: missing`],
  );
}

describe('fake Tron node', () => {
  let node: FakeTronNode;
  const payer = testKey('payer');
  const other = testKey('other');
  const post = async (path: string, body: unknown = {}): Promise<unknown> => {
    const response = await fetch(`${node.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    return response.json();
  };

  beforeAll(async () => {
    node = await startFakeTronNode();
    node.fund(payer.address, 1_000_000_000n, 5_000_000n);
    node.produceBlocks(1);
  });
  afterAll(() => node.close());

  it('answers in the shapes of the documentation', async () => {
    const first = node.sendTrx(payer.key, other.address, 2_000_000n);
    node.sendTrx(payer.key, other.address, 1_000_000n);
    const third = node.sendTrx(payer.key, other.address, 1_000_000n);
    const usdt = node.sendUsdt(payer.key, other.address, 1_000_000n);
    node.produceBlocks(1);
    const block = (await post('/wallet/getnowblock')) as {
      transactions: unknown[];
      block_header: { raw_data: { number: number } };
    };
    expect(missingFields(fixture('getnowblock'), block)).toEqual([]);
    expect(block.transactions).toHaveLength(4);
    expect(
      missingFields(fixture('gettransactionbyid'), await post('/wallet/gettransactionbyid', { value: usdt })),
    ).toEqual([]);
    expect(
      missingFields(
        fixture('gettransactioninfobyid'),
        await post('/wallet/gettransactioninfobyid', { value: usdt }),
      ),
    ).toEqual([]);
    // The third TRX transfer is past the 600 free bandwidth a day: it burns, like the documented one.
    const infos = (await post('/wallet/gettransactioninfobyblocknum', {
      num: block.block_header.raw_data.number,
    })) as Array<{ id: string }>;
    expect(
      missingFields(fixture('gettransactioninfobyblocknum'), [infos.find((i) => i.id === third)]),
    ).toEqual([]);
    expect(infos.map((i) => i.id)).toContain(first);
    const duplicate = (await post(
      '/wallet/broadcasttransaction',
      await post('/wallet/gettransactionbyid', { value: first }),
    )) as { code: string };
    expect(duplicate.code).toBe('DUP_TRANSACTION_ERROR');
    expect(await post('/wallet/getblockbynum', { num: 10_000 })).toEqual({});
    expect(await post('/wallet/gettransactioninfobyid', { value: '00'.repeat(32) })).toEqual({});
  });

  it('refuses a transaction signed by another key than its owner', async () => {
    const head = node.head();
    const raw = {
      contract: [
        {
          type: 'TransferContract' as const,
          parameter: {
            type_url: typeUrl('TransferContract'),
            value: { owner_address: payer.hex, to_address: other.hex, amount: 1 },
          },
        },
      ],
      ref_block_bytes: (head.number & 0xffff).toString(16).padStart(4, '0'),
      ref_block_hash: head.blockID.slice(16, 32),
      expiration: head.timestamp + 60_000,
      timestamp: head.timestamp,
    };
    const forged = signTransaction(raw, other.key);
    const answer = (await post('/wallet/broadcasttransaction', forged)) as {
      result?: boolean;
      code: string;
      message: string;
    };
    expect(answer.code).toBe('SIGERROR');
    expect(Buffer.from(answer.message, 'hex').toString()).toBe('validateSignature error');
    const good = (await post(
      '/wallet/broadcasttransaction',
      signTransaction(raw, payer.key),
    )) as broadcastAnswer;
    expect(good).toMatchObject({ result: true, code: 'SUCCESS' });
    expect(missingFields(fixture('broadcasttransaction'), good)).toEqual([]);
    const stale = (await post(
      '/wallet/broadcasttransaction',
      signTransaction({ ...raw, ref_block_hash: '00'.repeat(8) }, payer.key),
    )) as broadcastAnswer;
    expect(stale.code).toBe('TAPOS_ERROR');
    const expired = (await post(
      '/wallet/broadcasttransaction',
      signTransaction({ ...raw, expiration: head.timestamp }, payer.key),
    )) as broadcastAnswer;
    expect(expired.code).toBe('TRANSACTION_EXPIRATION_ERROR');
    node.produceBlocks(1);
  });

  it('solidifies 19 blocks behind the head', async () => {
    node.produceBlocks(25);
    const head = node.head().number;
    const solid = (await post('/walletsolidity/getnowblock')) as {
      block_header: { raw_data: { number: number } };
    };
    expect(solid.block_header.raw_data.number).toBe(head - 19);
    expect(await post('/walletsolidity/getblockbynum', { num: head })).toEqual({});
  });

  it('charges energy: delegated first, else burnt within fee_limit, else OUT_OF_ENERGY', async () => {
    const resource = testKey('resource');
    const deposit = testKey('deposit-energy');
    const payout = testKey('payout-new');
    node.fund(resource.address, 100_000_000_000n);
    node.stake(resource.address, 'ENERGY', 20_000_000_000n);
    node.fund(deposit.address, 0n, 10_000_000n);
    node.fund(deposit.address, 1_000_000n);
    // Delegate 13,100 TRX of stake = 131,000 energy at the fake's 10 energy a TRX.
    const head = node.head();
    const ref = {
      ref_block_bytes: (head.number & 0xffff).toString(16).padStart(4, '0'),
      ref_block_hash: head.blockID.slice(16, 32),
      expiration: head.timestamp + 60_000,
      timestamp: head.timestamp,
    };
    const delegate = signTransaction(
      {
        ...ref,
        contract: [
          {
            type: 'DelegateResourceContract',
            parameter: {
              type_url: typeUrl('DelegateResourceContract'),
              value: {
                owner_address: resource.hex,
                receiver_address: hexAddress(deposit.address),
                balance: 13_100_000_000,
                resource: 'ENERGY',
              },
            },
          },
        ],
      },
      resource.key,
    );
    expect(node.broadcast(delegate)).toMatchObject({ result: true });
    node.produceBlocks(1);
    // As java-tron: the lent stake leaves frozenV2 for delegated_frozenV2_balance_for_energy, and the delegation reads
    // back from getdelegatedresourcev2 in its documented fields.
    expect(await post('/wallet/getaccount', { address: resource.hex })).toMatchObject({
      frozenV2: [{}, { type: 'ENERGY', amount: 6_900_000_000 }, { type: 'TRON_POWER' }],
      account_resource: { delegated_frozenV2_balance_for_energy: 13_100_000_000 },
    });
    expect(
      await post('/wallet/getdelegatedresourcev2', {
        fromAddress: resource.hex,
        toAddress: hexAddress(deposit.address),
      }),
    ).toEqual({
      delegatedResource: [
        { from: resource.hex, to: hexAddress(deposit.address), frozen_balance_for_energy: 13_100_000_000 },
      ],
    });
    expect(
      await post('/wallet/getdelegatedresourcev2', { fromAddress: resource.hex, toAddress: payout.hex }),
    ).toEqual({});
    const before = node.burnt();
    node.sendUsdt(deposit.key, payout.address, 10_000_000n, { feeLimit: 1 });
    node.produceBlocks(1);
    expect(node.account(payout.address)?.usdt).toBe(10_000_000n);
    expect(node.account(deposit.address)?.energyUsed).toBe(USDT_ENERGY_NEW_HOLDER);
    // Bandwidth came from the free 600: nothing burnt at all.
    expect(node.burnt()).toBe(before);

    const poor = testKey('poor');
    node.fund(poor.address, 2_000_000n, 1_000_000n);
    const id = node.sendUsdt(poor.key, payout.address, 1_000_000n, { feeLimit: 2_000_000 });
    node.produceBlocks(1);
    expect(node.account(poor.address)?.usdt).toBe(1_000_000n);
    expect(node.account(poor.address)?.balance).toBe(0n);
    expect(id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers 503 while down', async () => {
    node.setDown(true);
    const response = await fetch(`${node.url}/wallet/getnowblock`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(503);
    await response.text();
    node.setDown(false);
  });
});

type broadcastAnswer = { result?: boolean; code: string };
