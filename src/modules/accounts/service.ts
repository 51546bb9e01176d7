import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { hashPassword, passwordWeakness, verifyPassword } from './passwords.ts';
import type { AccountsRepo, MerchantRow } from './repo.ts';
import type { MerchantView, SessionView } from './schemas.ts';

const ISSUER = 'svc';
const AUDIENCE = 'svc-dashboard';

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

  async function issueSession(row: MerchantRow): Promise<SessionView> {
    const issuedAt = Math.floor(clock.now().getTime() / 1000);
    const expiresAt = issuedAt + jwtTtlSeconds;
    const token = await new SignJWT({})
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

    async login(emailInput: string, password: string): Promise<SessionView> {
      const row = await repo.findByEmail(emailInput.trim().toLowerCase());
      const ok = await verifyPassword(row?.passwordHash ?? (await decoyHash), password);
      if (row === undefined || !ok) {
        throw new AppError('invalid_credentials', 'The email or password is incorrect.');
      }
      return issueSession(row);
    },

    /** Returns the merchant id of a valid, unexpired dashboard token, else null. */
    async verifyToken(token: string): Promise<string | null> {
      try {
        const { payload } = await jwtVerify(token, jwtSecret, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
          currentDate: clock.now(),
        });
        return typeof payload.sub === 'string' ? payload.sub : null;
      } catch {
        return null;
      }
    },

    async getMerchant(id: string): Promise<MerchantView> {
      const row = await repo.findById(id);
      if (row === undefined) throw new AppError('not_found', 'No such merchant.');
      return toMerchantView(row);
    },
  };
}
