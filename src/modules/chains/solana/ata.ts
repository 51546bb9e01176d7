import { address } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';

/** Associated token accounts already derived (owner + mint → address): a PDA costs a few hashes and an on-curve check. */
const cache = new Map<string, string>();

/** The associated token account of `owner` for `mint` under the SPL Token program (not Token-2022). */
export async function associatedTokenAccount(owner: string, mint: string): Promise<string> {
  const key = `${owner}:${mint}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const [ata] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(mint),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  if (cache.size > 100_000) cache.clear();
  cache.set(key, ata);
  return ata;
}
