/**
 * Payments to watched deposit addresses in one Solana block (getBlock, `json` encoding, `full` transaction details,
 * `maxSupportedTransactionVersion: 0`), read from what the balances show arrived:
 * - SOL: `postBalances[i] − preBalances[i]` of every account key i that is a deposit address (v0 transactions: the
 *   static keys, then `loadedAddresses.writable`, then `readonly`).
 * - SPL tokens: `postTokenBalances − preTokenBalances` per token account whose owner is a deposit address and whose
 *   mint is a registry asset's (a token account created in the transaction has no pre entry: it held 0).
 * Only successful transactions count (`meta.err` null); only increases are payments (a sweep decreases). A
 * transaction paying several deposit addresses yields one transfer per address and asset, each once: the output
 * index is the account's index in the transaction (SOL) or 256 + it (tokens), unique within the transaction.
 */

interface RpcTokenBalance {
  accountIndex: number | bigint;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string };
}

export interface RpcBlockTransaction {
  transaction: { signatures: readonly string[]; message: { accountKeys: readonly string[] } };
  meta: {
    err: unknown;
    preBalances: ReadonlyArray<bigint | number>;
    postBalances: ReadonlyArray<bigint | number>;
    preTokenBalances?: readonly RpcTokenBalance[] | null;
    postTokenBalances?: readonly RpcTokenBalance[] | null;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
}

export interface RpcBlock {
  blockhash: string;
  previousBlockhash: string;
  parentSlot: bigint | number;
  blockHeight: bigint | number | null;
  blockTime: bigint | number | null;
  transactions?: readonly RpcBlockTransaction[];
}

export interface SolanaTransfer {
  signature: string;
  outputIndex: number;
  /** The deposit address (the owner, for tokens). */
  to: string;
  /** The token account credited (tokens), for the check that it is the owner's associated token account. */
  tokenAccount?: string;
  /** null: SOL; else the mint. */
  mint: string | null;
  amount: bigint;
}

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** Output indices of token transfers start here (account indices are below 256). */
const TOKEN_OUTPUT_OFFSET = 256;

/** An exact integer from kit's parsed JSON (bigint) or a decimal string; never through a float. */
function exact(value: bigint | number | string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'string') {
    if (!/^\d+$/.test(value)) throw new Error(`not an amount: "${value}"`);
    return BigInt(value);
  }
  if (!Number.isSafeInteger(value)) throw new Error(`amount beyond 2^53 read as a float: ${value}`);
  return BigInt(value);
}

export function blockTransfers(
  block: RpcBlock,
  watched: ReadonlySet<string>,
  mints: ReadonlySet<string>,
): SolanaTransfer[] {
  const out: SolanaTransfer[] = [];
  if (watched.size === 0) return out;
  for (const tx of block.transactions ?? []) {
    const meta = tx.meta;
    if (meta === null || meta.err !== null) continue;
    const signature = tx.transaction.signatures[0];
    if (signature === undefined) continue;
    const keys = [
      ...tx.transaction.message.accountKeys,
      ...(meta.loadedAddresses?.writable ?? []),
      ...(meta.loadedAddresses?.readonly ?? []),
    ];
    keys.forEach((key, index) => {
      if (!watched.has(key)) return;
      const pre = meta.preBalances[index];
      const post = meta.postBalances[index];
      if (pre === undefined || post === undefined) return;
      const delta = exact(post) - exact(pre);
      if (delta > 0n) out.push({ signature, outputIndex: index, to: key, mint: null, amount: delta });
    });
    const post = meta.postTokenBalances ?? [];
    if (post.length === 0) continue;
    const pre = new Map<number, RpcTokenBalance>();
    for (const entry of meta.preTokenBalances ?? []) pre.set(Number(entry.accountIndex), entry);
    for (const entry of post) {
      if (entry.owner === undefined || !watched.has(entry.owner) || !mints.has(entry.mint)) continue;
      if (entry.programId !== undefined && entry.programId !== TOKEN_PROGRAM) continue;
      const index = Number(entry.accountIndex);
      const before = pre.get(index);
      const held =
        before !== undefined && before.mint === entry.mint && before.owner === entry.owner
          ? exact(before.uiTokenAmount.amount)
          : 0n;
      const delta = exact(entry.uiTokenAmount.amount) - held;
      const account = keys[index];
      if (delta > 0n && account !== undefined) {
        out.push({
          signature,
          outputIndex: TOKEN_OUTPUT_OFFSET + index,
          to: entry.owner,
          tokenAccount: account,
          mint: entry.mint,
          amount: delta,
        });
      }
    }
  }
  return out;
}
