import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import type { Abi, Hex } from 'viem';

/**
 * The Solidity contracts of the EVM tests (`contracts/*.sol`), compiled with the `solc` npm package (it bundles the
 * compiler; nothing is downloaded). The output is cached in the temp folder by the hash of the sources, so only the
 * first test file of a run pays the ~2 s compile.
 */

interface Compiled {
  abi: Abi;
  bytecode: Hex;
}

export interface Contracts {
  TestToken: Compiled;
  EthForwarder: Compiled;
  L1FeeOracle: Compiled;
}

const folder = join(dirname(fileURLToPath(import.meta.url)), 'contracts');
const files = ['TestToken.sol', 'EthForwarder.sol', 'L1FeeOracle.sol'] as const;

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

let cached: Contracts | undefined;

export function compileContracts(): Contracts {
  if (cached !== undefined) return cached;
  const sources = Object.fromEntries(
    files.map((file) => [file, { content: readFileSync(join(folder, file), 'utf8') }]),
  );
  const settings = {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  };
  const key = createHash('sha256')
    .update(JSON.stringify({ sources, settings, version: solc.version() }))
    .digest('hex')
    .slice(0, 16);
  const cacheFile = join(tmpdir(), 'svc-solc-cache', `${key}.json`);
  if (existsSync(cacheFile)) {
    const fromCache = JSON.parse(readFileSync(cacheFile, 'utf8')) as Partial<Contracts>;
    if (fromCache.TestToken && fromCache.EthForwarder && fromCache.L1FeeOracle) {
      cached = fromCache as Contracts;
      return cached;
    }
  }
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources, settings })),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  const pick = (file: string, name: string): Compiled => {
    const contract = output.contracts[file]?.[name];
    if (contract === undefined) throw new Error(`${name} missing from solc output`);
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  };
  const compiled: Contracts = {
    TestToken: pick('TestToken.sol', 'TestToken'),
    EthForwarder: pick('EthForwarder.sol', 'EthForwarder'),
    L1FeeOracle: pick('L1FeeOracle.sol', 'L1FeeOracle'),
  };
  cached = compiled;
  mkdirSync(dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(compiled));
  return compiled;
}
