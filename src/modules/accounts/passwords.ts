/**
 * argon2 is a native addon: loaded at the first password to hash or check (sign-up, login), not at every start,
 * where opening it and its module cost some tens of milliseconds.
 */
let argon2: Promise<typeof import('@node-rs/argon2')> | undefined;
const loadArgon2 = () => {
  argon2 ??= import('@node-rs/argon2');
  return argon2;
};

// OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane.
// `algorithm: 2` is Argon2id (the package exports it as an ambient const enum, which isolated modules cannot read).
const options = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  const { hash } = await loadArgon2();
  return hash(password, options);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  const { verify } = await loadArgon2();
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

const common = new Set([
  'password',
  'password1',
  'password123',
  '12345678',
  '123456789',
  '1234567890',
  'qwerty123',
  'qwertyuiop',
  'iloveyou',
  'letmein123',
  'admin12345',
  'welcome123',
  'passw0rd',
  'abc123456',
  '11111111',
  '00000000',
]);

/** Returns why a password is too weak, or null when it is acceptable. */
export function passwordWeakness(password: string): string | null {
  if (password.length < 10) return 'Use at least 10 characters.';
  if (new Set(password).size < 4) return 'Use a password with more varied characters.';
  if (common.has(password.toLowerCase())) return 'This password is too common.';
  return null;
}
