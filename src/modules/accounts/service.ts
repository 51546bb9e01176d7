import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../lib/clock.ts';
import { sha256Hex } from '../../lib/crypto.ts';
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

type SignupMode = 'open' | 'invite' | 'closed';

export interface AccountsDeps {
  repo: AccountsRepo;
  clock: Clock;
  jwtSecret: Uint8Array;
  jwtTtlSeconds: number;
  /** SVC_SIGNUP: who may create an account. */
  signup: SignupMode;
  /** The public base URL, for password-reset links. */
  publicUrl: string;
  /** Sends a password-reset link by mail (SVC_SMTP_URL); undefined when no mail is configured. */
  sendResetMail?: ((to: string, link: string) => Promise<void>) | undefined;
  /** Reports a mail that could not be sent (the request's answer never tells). */
  onMailError?: (error: unknown) => void;
}

const INVITE_TTL_MS = 7 * 24 * 3600_000;
const RESET_TTL_MS = 60 * 60_000;

/** A one-time secret: 32 random bytes, shown once, stored only as its SHA-256. */
const oneTimeSecret = () => randomBytes(32).toString('base64url');

function toMerchantView(row: MerchantRow): MerchantView {
  return { id: row.id, email: row.email, created_at: row.createdAt.toISOString() };
}

export function createAccountsService({
  repo,
  clock,
  jwtSecret,
  jwtTtlSeconds,
  signup: signupMode,
  publicUrl,
  sendResetMail,
  onMailError,
}: AccountsDeps) {
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

  /** A one-time password-reset link for an account (`svc reset-password EMAIL`), valid for an hour. */
  async function createResetLink(emailInput: string): Promise<{ link: string; expiresAt: Date } | null> {
    const row = await repo.findByEmail(emailInput.trim().toLowerCase());
    if (row === undefined) return null;
    const token = oneTimeSecret();
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + RESET_TTL_MS);
    await repo.insertReset(sha256Hex(token), row.id, now, expiresAt);
    return { link: `${publicUrl}/dashboard/reset-password?token=${token}`, expiresAt };
  }

  return {
    /**
     * Creates an account, without telling whether the email already had one: a taken email with its own password
     * logs in (201, like a new account), with any other password answers exactly as a failed login (401
     * invalid_credentials, throttled the same way); both paths hash and verify once, so they take the same time.
     */
    async signup(
      emailInput: string,
      password: string,
      options: { invite?: string | undefined; ip?: string | undefined } = {},
    ): Promise<SessionView> {
      if (signupMode === 'closed') {
        throw new AppError(
          'signup_closed',
          'Sign-up is closed on this service; ask its operator for an account.',
        );
      }
      const email = emailInput.trim().toLowerCase();
      const weakness = passwordWeakness(password);
      if (weakness !== null) throw new AppError('weak_password', weakness, { param: 'password' });
      if (signupMode === 'invite' && (options.invite === undefined || options.invite === '')) {
        throw new AppError('invite_invalid', 'Sign-up needs an invite from the operator of this service.', {
          param: 'invite',
        });
      }
      const row: MerchantRow = {
        id: newId('mer'),
        email,
        passwordHash: await hashPassword(password),
        createdAt: clock.now(),
        passwordChangedAt: null,
      };
      const outcome =
        signupMode === 'invite'
          ? await repo.insertWithInvite(row, sha256Hex(options.invite ?? ''), clock.now())
          : (await repo.insert(row))
            ? 'created'
            : 'taken';
      if (outcome === 'invite_invalid') {
        throw new AppError('invite_invalid', 'This invite is unknown, used or expired.', { param: 'invite' });
      }
      if (outcome === 'created') {
        // The same second argon2 pass a taken email costs, so the answer's time tells nothing either.
        await verifyPassword(await decoyHash, password);
        return issueSession(row);
      }
      const existing = await repo.findByEmail(email);
      if (!(await checkPassword(email, existing, password, options.ip)) || existing === undefined) {
        throw new AppError('invalid_credentials', 'The email or password is incorrect.');
      }
      return issueSession(existing);
    },

    /** A one-time sign-up invite for SVC_SIGNUP=invite (`svc invite`), valid for 7 days. */
    async createInvite(): Promise<{ code: string; expiresAt: Date }> {
      const code = oneTimeSecret();
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
      await repo.insertInvite(sha256Hex(code), now, expiresAt);
      return { code, expiresAt };
    },

    createResetLink,

    /**
     * Mails a reset link when SMTP is configured and the account exists; answers the same, at once, in every case
     * (the lookup and the mail run after the answer), so it tells nothing about which emails have accounts.
     */
    requestPasswordReset(emailInput: string): void {
      if (sendResetMail === undefined) return;
      const email = emailInput.trim().toLowerCase();
      void (async () => {
        const created = await createResetLink(email);
        if (created !== null) await sendResetMail(email, created.link);
      })().catch((error: unknown) => onMailError?.(error));
    },

    /** Sets a new password with a reset token; the token (and every other of the account) is spent. */
    async resetPassword(token: string, password: string): Promise<void> {
      const weakness = passwordWeakness(password);
      if (weakness !== null) throw new AppError('weak_password', weakness, { param: 'password' });
      const merchantId = await repo.resetPassword(
        sha256Hex(token),
        await hashPassword(password),
        clock.now(),
      );
      if (merchantId === undefined) {
        throw new AppError(
          'reset_token_invalid',
          'This reset link is unknown, used or expired; ask for a new one.',
          {
            param: 'token',
          },
        );
      }
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
      let issuedAt: number;
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
        issuedAt = payload.iat ?? 0;
        authTime = typeof payload.auth_time === 'number' ? payload.auth_time : issuedAt;
      } catch {
        return null;
      }
      const row = await repo.findById(merchantId);
      if (row === undefined) return null;
      // A password reset ends every session opened before it (someone else may have had the old password). `iat`
      // has whole seconds: a token of the reset's own second counts as before it, even one issued just after.
      if (row.passwordChangedAt !== null && issuedAt * 1000 < row.passwordChangedAt.getTime()) return null;
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
