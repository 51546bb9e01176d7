import { like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createTestApp, type TestApp } from '../../../test/support/harness.ts';
import { forwards } from '../../db/schema/index.ts';
import { chains } from './registry.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { SVC_CONFIRMATIONS: 'ethereum=6,bitcoin=1' } });
});
afterAll(() => t.close());

describe('GET /v1/chains', () => {
  it('lists the registry without a key, with the confirmations in effect', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/chains' });
    expect(response.statusCode).toBe(200);
    const { data } = response.json() as { data: Array<Record<string, unknown>> };
    expect(data.map((c) => c.id)).toEqual(chains.map((c) => c.id));
    const ethereum = data.find((c) => c.id === 'ethereum');
    expect(ethereum).toEqual({
      id: 'ethereum',
      name: 'Ethereum',
      family: 'evm',
      mainnet: {
        name: 'Ethereum Mainnet',
        evm_chain_id: 1,
        explorer_tx_url: 'https://etherscan.io/tx/{tx}',
        explorer_address_url: 'https://etherscan.io/address/{address}',
      },
      testnet: {
        name: 'Sepolia',
        evm_chain_id: 11155111,
        explorer_tx_url: 'https://sepolia.etherscan.io/tx/{tx}',
        explorer_address_url: 'https://sepolia.etherscan.io/address/{address}',
      },
      native_asset: 'ETH',
      assets: [
        { code: 'ETH', name: 'Ether', decimals: 18, is_native: true, contract: null, pegged_to: null },
        {
          code: 'USDC',
          name: 'USD Coin',
          decimals: 6,
          is_native: false,
          contract: {
            mainnet: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
            testnet: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
          },
          pegged_to: 'USD',
        },
        {
          code: 'USDT',
          name: 'Tether USD',
          decimals: 6,
          is_native: false,
          contract: {
            mainnet: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
            testnet: '0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0',
          },
          pegged_to: 'USD',
        },
      ],
      confirmations: 6,
      default_confirmations: 12,
      block_time_seconds: 12,
    });
    const byId = Object.fromEntries(data.map((c) => [c.id, c]));
    expect(byId.bitcoin).toMatchObject({ confirmations: 1, default_confirmations: 2, native_asset: 'BTC' });
    expect(byId.solana).toMatchObject({ confirmations: 32, mainnet: { evm_chain_id: null } });
    expect(byId.bsc).toMatchObject({
      assets: [{ code: 'BNB' }, { code: 'USDC', decimals: 18 }, { code: 'USDT', decimals: 18 }],
    });
    expect(byId.polygon).toMatchObject({ assets: [{}, {}, { code: 'USDT', contract: { testnet: null } }] });
  });

  it('is public even with a bad key, and documented in the OpenAPI', async () => {
    const withJunkKey = await t.app.inject({
      method: 'GET',
      url: '/v1/chains',
      headers: { 'x-api-key': 'nope' },
    });
    expect(withJunkKey.statusCode).toBe(200);
    const openapi = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(openapi.paths['/chains']?.get?.security).toEqual([]);
    expect(openapi.paths['/chains']?.get?.summary).toMatch(/no key/);
  });
});

describe('GET /v1/operator/fee-wallets', () => {
  it("shows the instance's fee wallets to its operators' sessions only", async () => {
    // The harness names operators by domain (SVC_OPERATOR_EMAILS=@example.com); another domain is a stranger.
    const operator = await createMerchant(t.app);
    const stranger = await createMerchant(t.app, `stranger-${Date.now()}@example.org`);
    const asOperator = await t.app.inject({
      method: 'GET',
      url: '/v1/operator/fee-wallets',
      headers: { authorization: `Bearer ${operator.token}` },
    });
    expect(asOperator.statusCode).toBe(200);
    // Only simulated chains here: no wallet pays real fees (the live families show theirs: test/solana-live.test.ts).
    expect(asOperator.json()).toEqual({ data: [] });
    expect(asOperator.headers['cache-control']).toBe('no-store');

    const asStranger = await t.app.inject({
      method: 'GET',
      url: '/v1/operator/fee-wallets',
      headers: { authorization: `Bearer ${stranger.token}` },
    });
    expect(asStranger.statusCode).toBe(403);
    expect(asStranger.json()).toMatchObject({ error: { code: 'forbidden' } });
    // A session, not a key: an API key of the operator's is refused too.
    const withKey = await t.app.inject({
      method: 'GET',
      url: '/v1/operator/fee-wallets',
      headers: { 'x-api-key': operator.liveKey },
    });
    expect(withKey.statusCode).toBe(401);
  });
});

describe('GET /v1/operator/sweep-costs', () => {
  it("sums the month's final sweeps per chain and mode exactly, for operators' sessions only", async () => {
    const operator = await createMerchant(t.app);
    const stranger = await createMerchant(t.app, `stranger-${Date.now()}@example.org`);
    // A month no other test sweeps in (the database may be shared on PostgreSQL).
    let serial = 0;
    const forward = (values: {
      chain: string;
      isTest?: boolean;
      state?: string;
      fee: string;
      finalAt: string;
      energyUsed?: string;
      energyDelegated?: string;
    }) => {
      serial += 1;
      const at = new Date(values.finalAt);
      return {
        id: `fwd_costs_${Date.now()}_${serial}`,
        merchantId: operator.merchantId,
        chain: values.chain,
        isTest: values.isTest ?? false,
        asset: 'X',
        state: values.state ?? 'final',
        paymentIds: [],
        amount: '1',
        fee: values.fee,
        energyUsed: values.energyUsed ?? null,
        energyDelegated: values.energyDelegated ?? null,
        toAddress: null,
        rawTx: '',
        txHash: `costs-${serial}`,
        blockNumber: 1,
        createdAt: at,
        broadcastAt: at,
        finalAt: at,
        updatedAt: at,
      };
    };
    // This test's own rows from an earlier run on the same database go first.
    await t.database.db.delete(forwards).where(like(forwards.id, 'fwd_costs_%'));
    await t.database.db.insert(forwards).values([
      // Tron live: one sweep with delegated energy (1.1 TRX activation burnt), one burning 6.4285 TRX for energy.
      forward({
        chain: 'tron',
        fee: '1100000',
        finalAt: '2031-02-01T00:00:00Z',
        energyUsed: '130285',
        energyDelegated: '130285',
      }),
      forward({
        chain: 'tron',
        fee: '6428500',
        finalAt: '2031-02-28T23:59:59.999Z',
        energyUsed: '64285',
        energyDelegated: '0',
      }),
      // Outside the month, or not final: not counted.
      forward({
        chain: 'tron',
        fee: '1',
        finalAt: '2031-01-31T23:59:59.999Z',
        energyUsed: '1',
        energyDelegated: '1',
      }),
      forward({
        chain: 'tron',
        fee: '1',
        finalAt: '2031-03-01T00:00:00Z',
        energyUsed: '1',
        energyDelegated: '1',
      }),
      forward({ chain: 'tron', state: 'broadcast', fee: '1', finalAt: '2031-02-10T00:00:00Z' }),
      // No energy on Bitcoin; a fee far beyond 2^53 stays exact.
      forward({ chain: 'bitcoin', fee: '123456789012345678901234567890', finalAt: '2031-02-10T00:00:00Z' }),
      forward({ chain: 'bitcoin', fee: '10', finalAt: '2031-02-11T00:00:00Z' }),
      // Test mode on the simulated chain (no test network here) moves nothing real: left out.
      forward({ chain: 'ethereum', isTest: true, fee: '5', finalAt: '2031-02-10T00:00:00Z' }),
    ]);
    const get = (url: string, headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url, headers });
    const asOperator = await get('/v1/operator/sweep-costs?month=2031-02', {
      authorization: `Bearer ${operator.token}`,
    });
    expect(asOperator.statusCode).toBe(200);
    expect(asOperator.headers['cache-control']).toBe('no-store');
    expect(asOperator.json()).toEqual({
      month: '2031-02',
      data: [
        {
          chain: 'bitcoin',
          is_test: false,
          asset: 'BTC',
          sweeps: 2,
          // 123456789012345678901234567890 + 10 satoshis.
          fee_native: '1234567890123456789012.345679',
          energy_used: null,
          energy_delegated: null,
        },
        {
          chain: 'tron',
          is_test: false,
          asset: 'TRX',
          sweeps: 2,
          fee_native: '7.5285',
          energy_used: '194570',
          energy_delegated: '130285',
        },
      ],
    });
    // Without `month`: the current one.
    const current = await get('/v1/operator/sweep-costs', { authorization: `Bearer ${operator.token}` });
    const now = new Date();
    expect(current.json()).toMatchObject({
      month: `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`,
    });
    expect(
      (
        await get('/v1/operator/sweep-costs?month=2031-13', { authorization: `Bearer ${operator.token}` })
      ).json(),
    ).toMatchObject({ error: { code: 'parameter_invalid', param: 'month' } });

    const asStranger = await get('/v1/operator/sweep-costs', { authorization: `Bearer ${stranger.token}` });
    expect(asStranger.statusCode).toBe(403);
    expect(asStranger.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect((await get('/v1/operator/sweep-costs', { 'x-api-key': operator.liveKey })).statusCode).toBe(401);
  });
});
