import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createTestApp, type TestApp } from '../../../test/support/harness.ts';
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
