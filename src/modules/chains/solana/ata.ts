import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58 } from '@scure/base';

/**
 * Associated token accounts: the program-derived address of (owner, SPL Token program, mint) under the Associated
 * Token Account program, computed synchronously (SHA-256 and the on-curve check from @noble: kit's async
 * findAssociatedTokenPda took ~0.5 ms each through WebCrypto, which a block of many token payments felt). The test
 * beside this checks it against kit's for random owners.
 */

const TOKEN_PROGRAM = base58.decode('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const ASSOCIATED_TOKEN_PROGRAM = base58.decode('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
const PDA_MARKER = new TextEncoder().encode('ProgramDerivedAddress');

/** Associated token accounts already derived (owner + mint → address). */
const cache = new Map<string, string>();

function onCurve(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The first (bump 255 down) off-curve SHA-256(seeds, bump, program, "ProgramDerivedAddress"). */
function programAddress(seeds: Uint8Array[], program: Uint8Array): Uint8Array {
  for (let bump = 255; bump >= 0; bump--) {
    const hash = sha256
      .create()
      .update(seeds[0] ?? new Uint8Array())
      .update(seeds[1] ?? new Uint8Array())
      .update(seeds[2] ?? new Uint8Array())
      .update(Uint8Array.of(bump))
      .update(program)
      .update(PDA_MARKER)
      .digest();
    if (!onCurve(hash)) return hash;
  }
  throw new Error('no program-derived address off the curve');
}

/** The associated token account of `owner` for `mint` under the SPL Token program (not Token-2022). */
export function associatedTokenAccount(owner: string, mint: string): string {
  const key = `${owner}:${mint}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const ata = base58.encode(
    programAddress([base58.decode(owner), TOKEN_PROGRAM, base58.decode(mint)], ASSOCIATED_TOKEN_PROGRAM),
  );
  if (cache.size > 100_000) cache.clear();
  cache.set(key, ata);
  return ata;
}
