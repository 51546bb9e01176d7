import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { createLoginThrottle } from './login-throttle.ts';
import { hashPassword, passwordWeakness, verifyPassword } from './passwords.ts';
import type { AccountsRepo, MerchantRow } from './repo.ts';
import type { MerchantView, SessionView } from './schemas.ts';

const ISSUER = 'svc';
const AUDIENCE = 'svc-dashboard';

/** A valid dashboard token: its merchant and when its password was last entered (Unix seconds). */
export interface VerifiedToken {
  merchantId: string;
  authTime: number;
}

export interface AccountsDeps {
  repo: AccountsRepo;
  clock: Clock;
  jwtSecret: Uint8Array;
  jwtTtlSeconds: number;
}

function toMerchantView(row: MerchantRow): MerchantView {
  return { id: row.id, email: row.email, created_at: row.createdAt.toISOString() };
}

export function createAccountsService({ repo, clock, jwtSecret, jwtTtlSeconds }: AccountsDeps) {
  // Verifying against a real hash when the email is unknown keeps failed logins equally slow either way.
  const decoyHash = hashPassword('decoy-password-never-used');
  const throttle = createLoginThrottle(clock);

  /** Refuses an attempt while its account or IP must wait, then checks the password and counts the outcome. */
  async function checkPassword(
    account: string,
    row: MerchantRow | undefined,
    password: string,
    ip: string | undefined,
  ): Promise<boolean> {
    const wait = throttle.waitMs(account, ip);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new AppError(
        'rate_limited',
        `Too many failed attempts: try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
        { headers: { 'retry-after': String(seconds) } },
      );
    }
    const ok = await verifyPassword(row?.passwordHash ?? (await decoyHash), password);
    if (row !== undefined && ok) throttle.succeeded(account);
    else throttle.failed(account, ip);
    return row !== undefined && ok;
  }

  /** `authTime`: when the password was entered (OIDC's `auth_time`), which decides who may redirect funds. */
  async function issueSession(row: MerchantRow, authTime?: number): Promise<SessionView> {
    const issuedAt = Math.floor(clock.now().getTime() / 1000);
    const expiresAt = issuedAt + jwtTtlSeconds;
    const token = await new SignJWT({ auth_time: authTime ?? issuedAt })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(row.id)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(jwtSecret);
    return { token, expires_at: new Date(expiresAt * 1000).toISOString(), merchant: toMerchantView(row) };
  }

  return {
    async signup(emailInput: string, password: string): Promise<SessionView> {
      const email = emailInput.trim().toLowerCase();
      const weakness = passwordWeakness(password);
      if (weakness !== null) throw new AppError('weak_password', weakness, { param: 'password' });
      const row: MerchantRow = {
        id: newId('mer'),
        email,
        passwordHash: await hashPassword(password),
        createdAt: clock.now(),
      };
      if (!(await repo.insert(row))) {
        throw new AppError('email_taken', 'An account with this email already exists; log in instead.', {
          param: 'email',
        });
      }
      return issueSession(row);
    },

    /** `ip`: the client's address, for the per-IP part of the failed-login delays. */
    async login(emailInput: string, password: string, ip?: string): Promise<SessionView> {
      const email = emailInput.trim().toLowerCase();
      const row = await repo.findByEmail(email);
      // Unknown emails are counted and delayed like known ones, and checked against the decoy: same answer, same time.
      if (!(await checkPassword(email, row, password, ip)) || row === undefined) {
        throw new AppError('invalid_credentials', 'The email or password is incorrect.');
      }
      return issueSession(row);
    },

    /**
     * The merchant and password time of a valid, unexpired dashboard token whose merchant still exists, else null:
     * a correctly signed token outlives a deleted merchant, and must then be refused like any invalid one.
     */
    async verifyToken(token: string): Promise<VerifiedToken | null> {
      let merchantId: string;
      let authTime: number;
      try {
        const { payload } = await jwtVerify(token, jwtSecret, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
          currentDate: clock.now(),
        });
        if (typeof payload.sub !== 'string') return null;
        merchantId = payload.sub;
        // Tokens issued before auth_time existed count as entered at issue: they cannot pass a recent-auth check.
        authTime = typeof payload.auth_time === 'number' ? payload.auth_time : (payload.iat ?? 0);
      } catch {
        return null;
      }
      if ((await repo.findById(merchantId)) === undefined) return null;
      return { merchantId, authTime };
    },

    /** A fresh token for a signed-in merchant who entered the password again (before payout changes). */
    async reauthenticate(merchantId: string, password: string, ip?: string): Promise<SessionView> {
      const row = await repo.findById(merchantId);
      // Counted on the same account as logins: a stolen session cannot guess the password faster than a login could.
      if (!(await checkPassword(row?.email ?? merchantId, row, password, ip)) || row === undefined) {
        throw new AppError('invalid_credentials', 'The password is incorrect.', { param: 'password' });
      }
      return issueSession(row);
    },

    async getMerchant(id: string): Promise<MerchantView> {
      const row = await repo.findById(id);
      if (row === undefined) throw new AppError('not_found', 'No such merchant.');
      return toMerchantView(row);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
