import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
  testMnemonic,
} from '../../../test/support/harness.ts';

let t: TestApp;
let m: Merchant;
beforeAll(async () => {
  // Live ethereum has a node URL nobody answers at (port 9, discard): connected, but its node is unhealthy.
  t = await createTestApp({
    env: {
      SVC_MNEMONIC: testMnemonic,
      SVC_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:9',
      SVC_EVM_RPC_TIMEOUT_MS: '500',
      SVC_EVM_RPC_RETRIES: '1',
    },
  });
  m = await createMerchant(t.app);
});
afterAll(() => t.close());

interface Readiness {
  is_test: boolean;
  seed_configured: boolean;
  chains: Array<{ chain: string; node: string; payout_wallet: boolean; ready: boolean; missing: string[] }>;
}

const readiness = async (headers: Record<string, string>, query = '') => {
  const response = await t.app.inject({ method: 'GET', url: `/v1/settings/readiness${query}`, headers });
  return { status: response.statusCode, body: response.json() as Readiness };
};

describe('GET /v1/settings/readiness', () => {
  it('shows every chain ready in test mode (the simulator needs no payout or fee wallet)', async () => {
    const test = await readiness(apiKey(m.testKey));
    expect(test.status).toBe(200);
    expect(test.body.is_test).toBe(true);
    expect(test.body.chains.length).toBeGreaterThanOrEqual(10);
    expect(test.body.chains.every((chain) => chain.ready && chain.node === 'ok')).toBe(true);
  });

  it('says per live chain what is missing: a node, a healthy node, a payout wallet', async () => {
    const needsMode = await readiness(bearer(m.token));
    expect(needsMode.status).toBe(400);
    const live = await readiness(bearer(m.token), '?is_test=false');
    expect(live.body.seed_configured).toBe(true);
    const byChain = new Map(live.body.chains.map((chain) => [chain.chain, chain]));
    expect(byChain.get('bitcoin')).toMatchObject({ node: 'not_configured', ready: false });
    expect(byChain.get('bitcoin')?.missing).toEqual(['node', 'payout_wallet']);
    expect(byChain.get('ethereum')).toMatchObject({ node: 'unhealthy', payout_wallet: false, ready: false });
    expect(byChain.get('ethereum')?.missing).toEqual(['node_healthy', 'payout_wallet']);
    const wallets = await t.app.inject({
      method: 'PUT',
      url: '/v1/settings/payout-wallets?is_test=false',
      headers: bearer(m.token),
      payload: { ethereum: '0x00000000000000000000000000000000000000a1' },
    });
    expect(wallets.statusCode, wallets.body).toBe(200);
    const after = await readiness(apiKey(m.liveKey));
    expect(after.body.chains.find((chain) => chain.chain === 'ethereum')).toMatchObject({
      payout_wallet: true,
      missing: ['node_healthy'],
    });
  });
});
