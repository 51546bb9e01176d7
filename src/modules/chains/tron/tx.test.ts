import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import {
  addressOfKey,
  base58Address,
  blockReference,
  encodeRawData,
  hexAddress,
  recoverSigner,
  signTransaction,
  type TronRawData,
  trc20TransferData,
  txIdOf,
  typeUrl,
} from './tx.ts';

/** Tron's documentation, /wallet/createtransaction: "Response example (real Nile capture)". */
const NILE_CAPTURE = {
  txID: '6303c7639f591407ef9f34a7ac8c9c9a21151f5a6af21924502515734fc267ab',
  raw_data: {
    contract: [
      {
        parameter: {
          value: {
            amount: 1000000,
            owner_address: '41dd791d6b49e190062d650e6a23c575510d35f2f9',
            to_address: '4192ad11c1bf16b3b14b0bd6b5c7e2db73a0b5e83a',
          },
          type_url: 'type.googleapis.com/protocol.TransferContract',
        },
        type: 'TransferContract',
      },
    ],
    ref_block_bytes: '2927',
    ref_block_hash: '939ece39d08a7abe',
    expiration: 1777447527000,
    timestamp: 1777447470038,
  } satisfies TronRawData,
  raw_data_hex:
    '0a0229272208939ece39d08a7abe40d8c483c1dd335a67080112630a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412320a1541dd791d6b49e190062d650e6a23c575510d35f2f912154192ad11c1bf16b3b14b0bd6b5c7e2db73a0b5e83a18c0843d70d68780c1dd33',
};

/** The /wallet/broadcasttransaction example of a provider's Tron documentation (QuickNode). */
const BROADCAST_EXAMPLE = {
  raw_data: {
    contract: [
      {
        parameter: {
          value: {
            amount: 1000,
            owner_address: '41608f8da72479edc7dd921e4c30bb7e7cddbe722e',
            to_address: '41e9d79cc47518930bc322d9bf7cddd260a0260a8d',
          },
          type_url: 'type.googleapis.com/protocol.TransferContract',
        },
        type: 'TransferContract',
      },
    ],
    ref_block_bytes: '5e4b',
    ref_block_hash: '47c9dc89341b300d',
    expiration: 1591089627000,
    timestamp: 1591089567635,
  } satisfies TronRawData,
  raw_data_hex:
    '0a025e4b220847c9dc89341b300d40f8fed3a2a72e5a66080112620a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412310a1541608f8da72479edc7dd921e4c30bb7e7cddbe722e121541e9d79cc47518930bc322d9bf7cddd260a0260a8d18e8077093afd0a2a72e',
};

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('tron transactions', () => {
  it('encodes raw_data byte for byte as the documentation shows, and its txID is sha256 of those bytes', () => {
    expect(hex(encodeRawData(NILE_CAPTURE.raw_data))).toBe(NILE_CAPTURE.raw_data_hex);
    expect(txIdOf(NILE_CAPTURE.raw_data)).toBe(NILE_CAPTURE.txID);
    expect(hex(encodeRawData(BROADCAST_EXAMPLE.raw_data))).toBe(BROADCAST_EXAMPLE.raw_data_hex);
    expect(hex(sha256(Buffer.from(BROADCAST_EXAMPLE.raw_data_hex, 'hex')))).toBe(
      txIdOf(BROADCAST_EXAMPLE.raw_data),
    );
  });

  it('signs with the owner key; the signer is recovered, a wrong key is another address', () => {
    const key = new Uint8Array(32).fill(1);
    const owner = addressOfKey(key);
    const raw: TronRawData = {
      ...NILE_CAPTURE.raw_data,
      contract: [
        {
          type: 'TransferContract',
          parameter: {
            type_url: typeUrl('TransferContract'),
            value: {
              owner_address: hexAddress(owner),
              to_address: '4192ad11c1bf16b3b14b0bd6b5c7e2db73a0b5e83a',
              amount: 5,
            },
          },
        },
      ],
    };
    const signed = signTransaction(raw, key);
    expect(signed.txID).toBe(txIdOf(raw));
    expect(signed.signature[0]).toMatch(/^[0-9a-f]{128}(1b|1c)$/);
    expect(recoverSigner(signed.txID, signed.signature[0] ?? '')).toBe(owner);
    const other = signTransaction(raw, new Uint8Array(32).fill(2));
    expect(recoverSigner(other.txID, other.signature[0] ?? '')).not.toBe(owner);
    expect(recoverSigner(signed.txID, 'zz')).toBeNull();
    // Signing is deterministic (RFC 6979): re-signing the same raw_data gives the same transaction.
    expect(signTransaction(raw, key)).toEqual(signed);
  });

  it('converts addresses both ways', () => {
    const address = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    const h = hexAddress(address);
    expect(h).toBe('41a614f803b6fd780986a42c78ec9c7f77e6ded13c');
    expect(base58Address(h)).toBe(address);
    expect(base58Address(h.slice(2))).toBe(address);
    expect(() => hexAddress('0xabc')).toThrow(/not a Tron address/);
  });

  it('references a block by its number and id; builds TRC-20 transfer calldata', () => {
    const ref = blockReference({
      number: 0x1234abcd,
      blockID: `0000000001234abc${'de'.repeat(8)}${'00'.repeat(16)}`,
    });
    expect(ref).toEqual({ ref_block_bytes: 'abcd', ref_block_hash: 'de'.repeat(8) });
    expect(trc20TransferData('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 1_000_000n)).toBe(
      `a9059cbb${'0'.repeat(24)}a614f803b6fd780986a42c78ec9c7f77e6ded13c${'0'.repeat(59)}f4240`,
    );
  });
});
