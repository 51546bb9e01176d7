import { randomBytes } from 'node:crypto';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  evmAccountBytes,
  fastKeccakLoaded,
  isValidEvmAddress,
  toChecksumAddress,
  tronAccountBytes,
  tronAddressFromAccount,
  validateAddress,
} from './addresses.ts';
import type { ChainId } from './registry.ts';

const EVM: ChainId[] = ['ethereum', 'base', 'polygon', 'arbitrum', 'optimism', 'bsc'];
/** The generator G (the public key of private key 1) and its well-known account 0x7E5F…5Bdf. */
const KEY =
  '0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798' +
  '483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
const KEY_ACCOUNT = '7e5f4552091a69125d5dfcb7b8c2659029395bdf';

describe('EVM addresses', () => {
  it('encodes EIP-55 checksums (the EIP-55 specification examples) and accounts, with either keccak', async () => {
    // https://eips.ethereum.org/EIPS/eip-55#test-cases. The first pass may run before the WebAssembly keccak has
    // loaded (noble's), the second after it (hash-wasm's).
    for (const pass of ['as imported', 'WebAssembly loaded']) {
      if (pass === 'WebAssembly loaded') expect(await fastKeccakLoaded()).toBe(true);
      eip55Examples();
      expect(bytesToHex(evmAccountBytes(hexToBytes(KEY)))).toBe(KEY_ACCOUNT);
      // Whatever the casing given, and as viem's getAddress gives it.
      for (let n = 0; n < 1000; n++) {
        const address = `0x${randomBytes(20).toString('hex')}`;
        expect(toChecksumAddress(address)).toBe(getAddress(address));
        expect(toChecksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(getAddress(address));
      }
    }
  });

  it('refuses to checksum what is not 20 bytes of hex', () => {
    for (const bad of [
      '',
      '0x',
      `0x${'a'.repeat(39)}`,
      `0x${'a'.repeat(41)}`,
      `0x${'g'.repeat(40)}`,
      'a'.repeat(42),
    ]) {
      expect(() => toChecksumAddress(bad)).toThrow(/20 bytes/);
    }
    expect(() => toChecksumAddress(new Uint8Array(19))).toThrow(/20 bytes/);
  });

  function eip55Examples() {
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
      '0x52908400098527886E0F7030069857D2E4169EE7',
      '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
      '0xde709f2102306220921060314715629080e2fb77',
      '0x27b1fdb04752bbc536007a920d24acb045561c26',
    ]) {
      expect(toChecksumAddress(address.toLowerCase())).toBe(address);
      expect(toChecksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(address);
      for (const chain of EVM) expect(validateAddress(chain, false, address)).toBe(true);
    }
  }

  it('accepts single-case addresses and rejects a wrong checksum, bad lengths, bad characters and zero', () => {
    const good = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
    expect(isValidEvmAddress(good.toLowerCase())).toBe(true);
    expect(isValidEvmAddress(`0x${good.slice(2).toUpperCase()}`)).toBe(true);
    expect(isValidEvmAddress('0x9858effD232B4033E47d90003D41EC34EcaEda94')).toBe(false); // one letter's case flipped
    for (const bad of [
      good.slice(0, -1),
      `${good}0`,
      good.slice(2),
      `0X${good.slice(2)}`,
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda9g',
      ` ${good}`,
      '0x0000000000000000000000000000000000000000',
      '',
      'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
    ]) {
      expect(validateAddress('ethereum', false, bad)).toBe(false);
    }
  });
});

describe('Bitcoin and Litecoin addresses', () => {
  const cases: Array<[ChainId, boolean, string, boolean]> = [
    // BIP-173 / BIP-350 examples and the BIP-84 vector.
    ['bitcoin', false, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', true],
    ['bitcoin', false, 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', true], // all upper case is allowed
    ['bitcoin', false, 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', true], // P2WSH
    ['bitcoin', false, 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', true], // taproot, bech32m
    ['bitcoin', false, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', true], // P2PKH
    ['bitcoin', false, '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', true], // P2SH
    ['bitcoin', false, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv', false], // checksum
    ['bitcoin', false, 'bc1qCr8te4kr609gcawutmrza0j4xv80jy8z306fyu', false], // mixed case
    ['bitcoin', false, 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', false], // v1 in bech32
    ['bitcoin', false, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', false], // base58 checksum
    ['bitcoin', false, 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', false], // testnet on mainnet
    ['bitcoin', true, 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', true],
    ['bitcoin', true, 'mkpZhYtJu2r87Js3pDiWJDmPte2NRZ8bJV', true], // testnet P2PKH
    ['bitcoin', true, '2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2', true], // testnet P2SH
    ['bitcoin', true, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', false], // mainnet on testnet
    ['bitcoin', true, 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', false], // tb1's checksum under bcrt
    // Test mode reads regtest's spelling too (a regtest node's wallet); live mode never does.
    ['bitcoin', true, 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk', true],
    ['bitcoin', true, 'BCRT1Q6RZ28MCFAXTMD6V789L9RRLRUSDPRR9PZ3CPPK', true],
    ['bitcoin', false, 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk', false],
    ['bitcoin', true, 'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg', false], // Litecoin's regtest
    ['bitcoin', false, 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', false],
    ['litecoin', false, 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', true],
    ['litecoin', false, 'LUWPbpM43E2p7ZSh8cyTBEkvpHmr3cB8Ez', true], // P2PKH
    ['litecoin', false, 'M7wtsL7wSHDBJVMWWhtQfTMSYYkyooAAXM', true], // P2SH
    ['litecoin', false, '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', true], // old-style P2SH, still accepted
    ['litecoin', false, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', false], // a Bitcoin P2PKH
    ['litecoin', false, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', false],
    ['litecoin', true, 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', false],
    ['litecoin', true, 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', false],
    ['litecoin', true, 'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg', true], // regtest
    ['litecoin', false, 'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg', false],
    ['litecoin', true, 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk', false], // Bitcoin's regtest
    ['litecoin', true, 'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkh', false], // checksum
    ['litecoin', true, 'tltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg', false], // rltc1's checksum under tltc
    ['litecoin', false, 'ltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg', false],
  ];
  it.each(cases)('%s (test: %s) %s → %s', (chain, isTest, address, valid) => {
    expect(validateAddress(chain, isTest, address)).toBe(valid);
  });

  it('never throws on junk', () => {
    for (const junk of [
      '',
      ' ',
      'bc1',
      '1',
      'x'.repeat(200),
      '\u0000bc1q',
      'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq',
    ]) {
      expect(validateAddress('bitcoin', false, junk)).toBe(false);
      expect(validateAddress('litecoin', true, junk)).toBe(false);
    }
  });
});

describe('Solana addresses', () => {
  it('accepts 32-byte base58 keys and rejects others', () => {
    expect(validateAddress('solana', false, 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk')).toBe(true);
    expect(validateAddress('solana', true, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
    expect(validateAddress('solana', false, base58.encode(new Uint8Array(32).fill(7)))).toBe(true);
    for (const bad of [
      base58.encode(new Uint8Array(31).fill(7)), // 31 bytes
      base58.encode(new Uint8Array(33).fill(7)), // 33 bytes
      'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqkk', // too long
      'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpq0', // 0 is not base58
      '11111111111111111111111111111111', // all zeros (the system program)
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      '',
    ]) {
      expect(validateAddress('solana', false, bad)).toBe(false);
    }
  });
});

describe('Tron addresses', () => {
  it('accepts base58check addresses with the 0x41 prefix and rejects others', () => {
    expect(validateAddress('tron', false, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(true);
    expect(validateAddress('tron', true, 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH')).toBe(true);
    for (const bad of [
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u', // checksum
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6', // short
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', // base58check, but version 0x00
      'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', // the all-zero account (burn address)
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      '',
    ]) {
      expect(validateAddress('tron', false, bad)).toBe(false);
    }
  });

  it('round-trips the 20-byte account', () => {
    const account = tronAccountBytes('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    expect(account).not.toBeNull();
    expect(Buffer.from(account as Uint8Array).toString('hex')).toBe(
      'a614f803b6fd780986a42c78ec9c7f77e6ded13c',
    );
    expect(tronAddressFromAccount(account as Uint8Array)).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  });
});

describe('validateAddress', () => {
  it('rejects unknown chains and non-strings without throwing', () => {
    expect(validateAddress('dogecoin' as ChainId, false, 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC')).toBe(false);
    expect(validateAddress('ethereum', false, 42 as unknown as string)).toBe(false);
  });
});
