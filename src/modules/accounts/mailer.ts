import type { Transporter } from 'nodemailer';

/**
 * Sends password-reset links through the SMTP server of SVC_SMTP_URL (smtp://user:pass@host:port, or smtps:// for
 * TLS from the first byte; smtp:// upgrades with STARTTLS when the server offers it).
 */
export function createResetMailer(
  smtpUrl: string,
  from: string,
): (to: string, link: string) => Promise<void> {
  // nodemailer is loaded with the first mail, not at start-up: most installs never send one, and it is large.
  let transport: Promise<Transporter> | undefined;
  return async (to, link) => {
    transport ??= import('nodemailer').then(({ createTransport }) => createTransport(smtpUrl));
    await (await transport).sendMail({
      from,
      to,
      subject: 'Reset your password',
      text:
        'Someone (we hope you) asked to reset the password of your account.\n\n' +
        `Open this link within an hour to choose a new one; it works once:\n\n${link}\n\n` +
        'If you did not ask for it, ignore this mail: your password stays as it is.\n',
    });
  };
}
