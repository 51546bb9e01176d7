import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Litecoind,
  litecoindSkipReason,
  runLitecoindTests,
  startLitecoind,
} from '../../../../test/support/litecoind.ts';
import {
  addressToScript,
  addressToScriptOn,
  BITCOIN_NETWORKS,
  p2wpkhScript,
  readableNetworks,
  scriptToAddress,
} from './network.ts';

const main = BITCOIN_NETWORKS['bitcoin-main'];
const test = BITCOIN_NETWORKS['bitcoin-test'];
const regtest = BITCOIN_NETWORKS['litecoin-regtest'];

describe('segwit addresses and output scripts (BIP-173 and BIP-350 vectors)', () => {
  // The "valid segwit addresses" tables of BIP-173 and BIP-350: address -> scriptPubKey.
  const valid: Array<[typeof main, string, string]> = [
    [main, 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
    [
      test,
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
      '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
    ],
    [
      test,
      'tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy',
      '0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433',
    ],
    [
      main,
      'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
      '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
    ],
    [main, 'BC1SW50QGDZ25J', '6002751e'],
    [main, 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323'],
    [
      main,
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    ],
  ];

  it.each(valid)('%s: %s is script %s, and back', (network, address, script) => {
    expect(addressToScript(network, address)).toBe(script);
    expect(scriptToAddress(network, script)).toBe(address.toLowerCase());
  });

  // From the "invalid" tables: wrong checksum kind for the version, bad program length, bad checksum, mixed case.
  const invalid: Array<[string, string]> = [
    ['v1 encoded with bech32', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd'],
    ['v0 encoded with bech32m', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh'],
    ['v0 program of 16 bytes', 'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P'],
    ['bad checksum', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'],
    ['mixed case', 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7'],
  ];

  it.each(invalid)('refuses %s', (_why, address) => {
    const network = address.toLowerCase().startsWith('tb') ? test : main;
    expect(() => addressToScript(network, address)).toThrow();
  });

  it("refuses another network's address (same program, other prefix)", () => {
    expect(() => addressToScript(test, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toThrow(/prefix tb1/);
    expect(() =>
      addressToScript(BITCOIN_NETWORKS['litecoin-main'], 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'),
    ).toThrow();
  });

  it('reads every spelling of a mode (test mode: testnet and regtest prefixes), and no other', () => {
    expect(readableNetworks('bitcoin', false).map((n) => n.name)).toEqual(['bitcoin-main']);
    expect(readableNetworks('bitcoin', true).map((n) => n.name)).toEqual([
      'bitcoin-test',
      'bitcoin-signet',
      'bitcoin-regtest',
    ]);
    expect(readableNetworks('litecoin', true).map((n) => n.name)).toEqual([
      'litecoin-test',
      'litecoin-regtest',
    ]);
    const script = '0014751e76e8199196d454941c45d1b3a323f1433bd6';
    const testMode = readableNetworks('litecoin', true);
    for (const network of testMode) {
      const address = scriptToAddress(network, script) as string;
      expect(addressToScriptOn(testMode, address)).toBe(script);
      expect(addressToScriptOn(testMode, address.toUpperCase())).toBe(script);
      expect(() => addressToScriptOn(readableNetworks('litecoin', false), address)).toThrow();
    }
    expect(() =>
      addressToScriptOn(testMode, scriptToAddress(BITCOIN_NETWORKS['bitcoin-regtest'], script) as string),
    ).toThrow(/not a segwit address of litecoin-test, litecoin-regtest/);
    expect(() =>
      addressToScriptOn(testMode, scriptToAddress(BITCOIN_NETWORKS['litecoin-main'], script) as string),
    ).toThrow();
    // A bad checksum under a known prefix says what is wrong with it.
    expect(() => addressToScriptOn(testMode, 'rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toThrow();
  });

  it('gives null for scripts that are not witness programs (P2PKH, P2SH, OP_RETURN, truncated)', () => {
    expect(scriptToAddress(main, '76a914751e76e8199196d454941c45d1b3a323f1433bd688ac')).toBeNull();
    expect(scriptToAddress(main, 'a914751e76e8199196d454941c45d1b3a323f1433bd687')).toBeNull();
    expect(scriptToAddress(main, '6a0401020304')).toBeNull();
    expect(scriptToAddress(main, '0014751e76e8199196d454941c45d1b3a323f1433b')).toBeNull();
    expect(scriptToAddress(main, '0010751e76e8199196d454941c45d1b3')).toBeNull();
  });

  it('has the bech32 prefixes of every network', () => {
    expect(Object.values(BITCOIN_NETWORKS).map((n) => [n.name, n.hrp])).toEqual([
      ['bitcoin-main', 'bc'],
      ['bitcoin-test', 'tb'],
      ['bitcoin-signet', 'tb'],
      ['bitcoin-regtest', 'bcrt'],
      ['litecoin-main', 'ltc'],
      ['litecoin-test', 'tltc'],
      ['litecoin-regtest', 'rltc'],
    ]);
  });
});

describe('P2WPKH from a key (BIP-84 vectors)', () => {
  // BIP-84's test vectors: the BIP-39 mnemonic of entropy 0…0, account 0.
  const seed = mnemonicToSeedSync(
    'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  );
  const root = HDKey.fromMasterSeed(seed);
  const hash160 = (bytes: Uint8Array) => ripemd160(sha256(bytes));

  it.each([
    [
      "m/84'/0'/0'/0/0",
      '0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c',
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    ],
    [
      "m/84'/0'/0'/0/1",
      '03e775fd51f0dfb8cd865d9ff1cca2a158cf651fe997fdc9fee9c1d3b5e995ea77',
      'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
    ],
    [
      "m/84'/0'/0'/1/0",
      '03025324888e429ab8e3dbaf1f7802648b9cd01e9b418485c5fa4c1b9b5700e1a6',
      'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el',
    ],
  ])('%s: key %s pays to %s', (path, publicKey, address) => {
    const key = root.derive(path).publicKey;
    if (key === null) throw new Error('no public key');
    expect(bytesToHex(key)).toBe(publicKey);
    const script = p2wpkhScript(hash160(key));
    expect(scriptToAddress(main, script)).toBe(address);
    expect(addressToScript(main, address)).toBe(script);
  });
});

describe.skipIf(!runLitecoindTests)('against litecoind regtest', () => {
  let node: Litecoind;
  beforeAll(async () => {
    node = await startLitecoind({ blocks: 1 });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("reads the node's own bech32 addresses as the node does (getaddressinfo)", async () => {
    for (let i = 0; i < 3; i++) {
      const address = await node.rpc<string>('getnewaddress', ['', 'bech32'], { wallet: node.wallet });
      expect(address.startsWith('rltc1q')).toBe(true);
      const info = await node.rpc<{ scriptPubKey: string; witness_version: number }>(
        'getaddressinfo',
        [address],
        {
          wallet: node.wallet,
        },
      );
      expect(addressToScript(regtest, address)).toBe(info.scriptPubKey);
      expect(scriptToAddress(regtest, info.scriptPubKey)).toBe(address);
    }
  });

  it('encodes scripts into addresses the node accepts with the same script (validateaddress)', async () => {
    for (const script of [`0014${'ab'.repeat(20)}`, `0020${'cd'.repeat(32)}`]) {
      const address = scriptToAddress(regtest, script);
      if (address === null) throw new Error('no address');
      const answer = await node.rpc<{ isvalid: boolean; scriptPubKey: string }>('validateaddress', [address]);
      expect(answer).toMatchObject({ isvalid: true, scriptPubKey: script });
    }
    // And an address of another network is not one the node takes.
    const mainAddress = scriptToAddress(BITCOIN_NETWORKS['litecoin-main'], `0014${'ab'.repeat(20)}`);
    const answer = await node.rpc<{ isvalid: boolean }>('validateaddress', [mainAddress]);
    expect(answer.isvalid).toBe(false);
  });
});

if (!runLitecoindTests) it.skip(litecoindSkipReason, () => {});
