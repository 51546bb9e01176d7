import {
  type Abi,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  parseAbi,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { ANVIL_KEYS, type Anvil } from './anvil.ts';
import { compileContracts } from './contracts.ts';

/**
 * Driving a local anvil chain from tests as payers do: ether transfers, the test token (deployed AT the registry's
 * USDC address with anvil_setCode, so the program under test watches its real configured contract), and the
 * forwarder contract that pays by an internal call.
 */

export const USDC_MAINNET = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' as const;

export const tokenAbi = parseAbi([
  'function mint(address to, uint256 amount)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'function batchTransfer(address[] to, uint256[] amounts)',
]);

const forwarderAbi = parseAbi([
  'function forward(address to) payable',
  'function split(address[] to, uint256[] amounts) payable',
]);

export interface EvmTestChain {
  publicClient: PublicClient;
  /** Wallet of dev account `i` (0..3). */
  wallet(i?: number): WalletClient;
  payer: Hex;
  token: Hex;
  forwarder: Hex;
  sendEth(to: string, value: bigint, from?: number): Promise<Hex>;
  sendToken(to: string, amount: bigint, from?: number): Promise<Hex>;
  forwardEth(to: string, value: bigint, from?: number): Promise<Hex>;
  ethBalance(address: string): Promise<bigint>;
  tokenBalance(address: string): Promise<bigint>;
  mine(blocks?: number): Promise<void>;
  /** Waits for the transaction's receipt: automine can answer a send before the block is stored. */
  mined(hash: Hex | Promise<Hex>): Promise<Hex>;
}

async function deploy(
  client: PublicClient,
  wallet: WalletClient,
  abi: Abi,
  bytecode: Hex,
  args: unknown[],
): Promise<Hex> {
  const account = wallet.account;
  if (account === undefined) throw new Error('wallet without account');
  const hash = await wallet.deployContract({ abi, bytecode, args, account, chain: foundry });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.contractAddress === null || receipt.contractAddress === undefined)
    throw new Error('deploy failed');
  return receipt.contractAddress;
}

export async function setUpEvmChain(anvil: Anvil): Promise<EvmTestChain> {
  const compiled = compileContracts();
  const transport = http(anvil.url);
  const publicClient = createPublicClient({ chain: foundry, transport, pollingInterval: 50, cacheTime: 0 });
  const wallets = ANVIL_KEYS.map((key) =>
    createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(key) }),
  );
  const wallet = (i = 0): WalletClient => {
    const w = wallets[i];
    if (w === undefined) throw new Error(`no dev wallet ${i}`);
    return w;
  };
  const payer = wallet(0).account?.address as Hex;
  // Deploy once, then copy its runtime code to the registry's USDC address.
  const deployed = await deploy(
    publicClient,
    wallet(0),
    compiled.TestToken.abi,
    compiled.TestToken.bytecode,
    ['USD Coin', 'USDC', 0n],
  );
  const code = await publicClient.getCode({ address: deployed });
  await anvil.rpc('anvil_setCode', [USDC_MAINNET, code]);
  const token = USDC_MAINNET as Hex;
  const forwarder = await deploy(
    publicClient,
    wallet(0),
    compiled.EthForwarder.abi,
    compiled.EthForwarder.bytecode,
    [],
  );
  for (let i = 0; i < wallets.length; i++) {
    await wait(
      await wallet(0).writeContract({
        address: token,
        abi: tokenAbi,
        functionName: 'mint',
        args: [wallet(i).account?.address as Hex, 1_000_000_000_000n],
        account: wallet(0).account ?? null,
        chain: foundry,
      }),
    );
  }

  async function wait(hash: Hex): Promise<Hex> {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return hash;
  }

  return {
    publicClient,
    wallet,
    payer,
    token,
    forwarder,
    sendEth: async (to, value, from = 0) =>
      wallet(from).sendTransaction({
        to: to as Hex,
        value,
        account: wallet(from).account ?? null,
        chain: foundry,
      }),
    sendToken: async (to, amount, from = 0) =>
      wallet(from).writeContract({
        address: token,
        abi: tokenAbi,
        functionName: 'transfer',
        args: [to as Hex, amount],
        account: wallet(from).account ?? null,
        chain: foundry,
      }),
    forwardEth: async (to, value, from = 0) =>
      wallet(from).writeContract({
        address: forwarder,
        abi: forwarderAbi,
        functionName: 'forward',
        args: [to as Hex],
        value,
        account: wallet(from).account ?? null,
        chain: foundry,
      }),
    ethBalance: (address) => publicClient.getBalance({ address: address as Hex }),
    tokenBalance: (address) =>
      publicClient.readContract({
        address: token,
        abi: tokenAbi,
        functionName: 'balanceOf',
        args: [address as Hex],
      }),
    mine: async (blocks = 1) => {
      await anvil.rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    mined: async (hash) => wait(await hash),
  };
}
