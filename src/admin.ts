/**
 * The operator's account commands of `svc`: `invite` prints a one-time sign-up invite (SVC_SIGNUP=invite) and
 * `reset-password EMAIL` a one-time password-reset link, so accounts can be managed on a service without mail.
 */
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { EmbeddedClient } from './db/engine-thread.ts';
import { openMigratedDatabase } from './db/migrate.ts';
import { systemClock } from './lib/clock.ts';
import type { AccountsService } from './modules/accounts/service.ts';
import { buildServices } from './services.ts';

type AdminCommand = 'invite' | 'reset-password';

/** Runs one command against the accounts service; returns the exit code. */
export async function adminCommand(
  command: AdminCommand,
  args: string[],
  accounts: Pick<AccountsService, 'createInvite' | 'createResetLink'>,
  out: { write(text: string): void },
  err: { write(text: string): void },
): Promise<number> {
  if (command === 'invite') {
    const invite = await accounts.createInvite();
    out.write(
      `Invite (works once, until ${invite.expiresAt.toISOString()}); sign up with "invite": "${invite.code}"\n` +
        `${invite.code}\n`,
    );
    return 0;
  }
  const email = args[0];
  if (email === undefined || args.length !== 1) {
    err.write('Usage: svc reset-password EMAIL\n');
    return 2;
  }
  const reset = await accounts.createResetLink(email);
  if (reset === null) {
    err.write(`No account has the email ${email}.\n`);
    return 1;
  }
  out.write(
    `Password-reset link for ${email} (works once, until ${reset.expiresAt.toISOString()}):\n${reset.link}\n`,
  );
  return 0;
}

/** `svc invite` / `svc reset-password EMAIL`: opens the database (migrating it), runs the command, closes it. */
export async function runAdminCommand(options: {
  command: AdminCommand;
  args: string[];
  config: Config;
  logger: Logger;
  engine: EmbeddedClient | undefined;
}): Promise<number> {
  const database = await openMigratedDatabase(options.config, options.engine, options.logger);
  try {
    const services = buildServices({ config: options.config, database, clock: systemClock });
    return await adminCommand(
      options.command,
      options.args,
      services.accounts,
      process.stdout,
      process.stderr,
    );
  } finally {
    await database.close();
  }
}
