import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { bech32, bech32m } from '@scure/base';

/**
 * The parameters of the Bitcoin-family networks as data: the same adapter code serves every one of them, only these
 * values differ (Bitcoin Core's and Litecoin Core's chainparams.cpp). svc's deposit addresses are P2WPKH (BIP-84), so
 * what matters here is the bech32 prefix; the base58 bytes are kept for completeness and for reading payers' outputs.
 */
export interface BitcoinNetwork {
  /** Our name for it, `<coin>-<network>`. */
  name: BitcoinNetworkName;
  coin: 'bitcoin' | 'litecoin';
  /** What the node's `getblockchaininfo` calls it in `chain`: a node on another network is refused. */
  coreChain: 'main' | 'test' | 'signet' | 'regtest';
  /** The bech32 human-readable part (BIP-173) of segwit addresses. */
  hrp: string;
  pubKeyHash: number;
  scriptHash: number;
  /** Base units per coin (satoshis, litoshis). */
  decimals: 8;
}

export type BitcoinNetworkName =
  | 'bitcoin-main'
  | 'bitcoin-test'
  | 'bitcoin-signet'
  | 'bitcoin-regtest'
  | 'litecoin-main'
  | 'litecoin-test'
  | 'litecoin-regtest';

export const BITCOIN_NETWORKS: Readonly<Record<BitcoinNetworkName, BitcoinNetwork>> = {
  'bitcoin-main': {
    name: 'bitcoin-main',
    coin: 'bitcoin',
    coreChain: 'main',
    hrp: 'bc',
    pubKeyHash: 0x00,
    scriptHash: 0x05,
    decimals: 8,
  },
  // testnet3, testnet4 and signet share the "tb" prefix and the base58 bytes.
  'bitcoin-test': {
    name: 'bitcoin-test',
    coin: 'bitcoin',
    coreChain: 'test',
    hrp: 'tb',
    pubKeyHash: 0x6f,
    scriptHash: 0xc4,
    decimals: 8,
  },
  'bitcoin-signet': {
    name: 'bitcoin-signet',
    coin: 'bitcoin',
    coreChain: 'signet',
    hrp: 'tb',
    pubKeyHash: 0x6f,
    scriptHash: 0xc4,
    decimals: 8,
  },
  'bitcoin-regtest': {
    name: 'bitcoin-regtest',
    coin: 'bitcoin',
    coreChain: 'regtest',
    hrp: 'bcrt',
    pubKeyHash: 0x6f,
    scriptHash: 0xc4,
    decimals: 8,
  },
  'litecoin-main': {
    name: 'litecoin-main',
    coin: 'litecoin',
    coreChain: 'main',
    hrp: 'ltc',
    pubKeyHash: 0x30,
    scriptHash: 0x32,
    decimals: 8,
  },
  'litecoin-test': {
    name: 'litecoin-test',
    coin: 'litecoin',
    coreChain: 'test',
    hrp: 'tltc',
    pubKeyHash: 0x6f,
    scriptHash: 0x3a,
    decimals: 8,
  },
  'litecoin-regtest': {
    name: 'litecoin-regtest',
    coin: 'litecoin',
    coreChain: 'regtest',
    hrp: 'rltc',
    pubKeyHash: 0x6f,
    scriptHash: 0x3a,
    decimals: 8,
  },
};

/** A segwit output: witness version 0..16 and its program (20 or 32 bytes for v0, 2..40 bytes otherwise). */
interface WitnessProgram {
  version: number;
  program: Uint8Array;
}

function checkProgram(version: number, program: Uint8Array): void {
  if (version < 0 || version > 16) throw new Error(`witness version ${version} is out of range`);
  if (program.length < 2 || program.length > 40)
    throw new Error(`witness program of ${program.length} bytes`);
  if (version === 0 && program.length !== 20 && program.length !== 32) {
    throw new Error(`a version 0 witness program is 20 or 32 bytes, not ${program.length}`);
  }
}

/**
 * The witness program of a segwit address of this network. Version 0 must be bech32 and later versions bech32m
 * (BIP-350); an all-upper-case address is accepted (BIP-173, QR codes), a mixed-case one is not (the decoder refuses).
 */
function decodeSegwit(network: BitcoinNetwork, address: string): WitnessProgram {
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) throw new Error('mixed-case bech32 address');
  if (!lower.startsWith(`${network.hrp}1`))
    throw new Error(`not a ${network.name} segwit address (prefix ${network.hrp}1)`);
  const separated = lower as `${string}1${string}`;
  // Try bech32 first: a v0 address is bech32, any other version must be bech32m.
  let words: number[];
  let encoding: 'bech32' | 'bech32m';
  const asBech32 = bech32.decodeUnsafe(separated, 90);
  if (asBech32 !== undefined) {
    words = asBech32.words;
    encoding = 'bech32';
    if (asBech32.prefix !== network.hrp) throw new Error('wrong prefix');
  } else {
    const decoded = bech32m.decode(separated, 90);
    if (decoded.prefix !== network.hrp) throw new Error('wrong prefix');
    words = decoded.words;
    encoding = 'bech32m';
  }
  const [version, ...data] = words;
  if (version === undefined) throw new Error('empty segwit address');
  if ((version === 0) !== (encoding === 'bech32')) {
    throw new Error(`witness version ${version} must use ${version === 0 ? 'bech32' : 'bech32m'}`);
  }
  const program = (encoding === 'bech32' ? bech32 : bech32m).fromWords(data);
  checkProgram(version, program);
  return { version, program };
}

function encodeSegwit(network: BitcoinNetwork, { version, program }: WitnessProgram): string {
  checkProgram(version, program);
  const coder = version === 0 ? bech32 : bech32m;
  return coder.encode(network.hrp, [version, ...coder.toWords(program)], 90);
}

/**
 * The output script (hex) that pays a segwit address: OP_n then a push of the program (`0014<20 bytes>` for
 * P2WPKH). Detection compares scripts, never address strings: one script has several spellings (upper case).
 */
export function addressToScript(network: BitcoinNetwork, address: string): string {
  const { version, program } = decodeSegwit(network, address);
  const op = version === 0 ? 0x00 : 0x50 + version;
  return bytesToHex(Uint8Array.of(op, program.length, ...program));
}

/**
 * The output script of a segwit address spelled for any of `networks` (one script, several prefixes: test mode reads
 * tb1…/bcrt1… alike). Throws when it is none of theirs.
 */
export function addressToScriptOn(networks: readonly BitcoinNetwork[], address: string): string {
  const lower = address.toLowerCase();
  let problem: unknown = new Error(`not a segwit address of ${networks.map((n) => n.name).join(', ')}`);
  for (const network of networks) {
    if (!lower.startsWith(`${network.hrp}1`)) continue;
    try {
      return addressToScript(network, address);
    } catch (error) {
      // A longer prefix may still match (bc1 vs bcrt1 is told apart by the separator, tb1 vs tltc1 too).
      problem = error;
    }
  }
  throw problem;
}

/**
 * The networks whose spellings svc reads for a coin in a mode: mainnet's alone in live mode; in test mode every test
 * network's (testnet and signet share tb/tltc, regtest has bcrt/rltc), whichever of them svc itself writes.
 */
export function readableNetworks(coin: BitcoinNetwork['coin'], isTest: boolean): BitcoinNetwork[] {
  return Object.values(BITCOIN_NETWORKS).filter(
    (network) => network.coin === coin && (network.coreChain === 'main') === !isTest,
  );
}

/** The segwit address an output script pays on this network, or null for a script that is not a witness program. */
export function scriptToAddress(network: BitcoinNetwork, scriptHex: string): string | null {
  if (!/^(?:[0-9a-f]{2})+$/.test(scriptHex)) return null;
  const script = hexToBytes(scriptHex);
  const [op, length] = script;
  if (op === undefined || length === undefined || script.length !== length + 2) return null;
  let version: number;
  if (op === 0x00) version = 0;
  else if (op >= 0x51 && op <= 0x60) version = op - 0x50;
  else return null;
  const program = script.subarray(2);
  try {
    return encodeSegwit(network, { version, program });
  } catch {
    return null;
  }
}

/** The P2WPKH output script of a 20-byte public key hash (HASH160 of the compressed public key). */
export function p2wpkhScript(pubKeyHash: Uint8Array): string {
  if (pubKeyHash.length !== 20) throw new Error(`a P2WPKH key hash is 20 bytes, not ${pubKeyHash.length}`);
  return bytesToHex(Uint8Array.of(0x00, 0x14, ...pubKeyHash));
}
