import type { Transporter } from 'nodemailer';

interface Mail {
  to: string;
  subject: string;
  text: string;
  /** The Message-ID header (`<…@…>`); set by the outbox so that a mail sent again after a crash is the same mail. */
  messageId?: string | undefined;
}

/** Sends one mail; rejects when the SMTP server refuses or cannot be reached. */
export type SendMail = (mail: Mail) => Promise<void>;

/**
 * Mail through the SMTP server of SVC_SMTP_URL (smtp://user:pass@host:port, or smtps:// for TLS from the first byte;
 * smtp:// upgrades with STARTTLS when the server offers it), from SVC_SMTP_FROM.
 */
export function createMailer(smtpUrl: string, from: string): SendMail {
  // nodemailer is loaded with the first mail, not at start-up: most installs never send one, and it is large.
  let transport: Promise<Transporter> | undefined;
  return async (mail) => {
    transport ??= import('nodemailer').then(({ createTransport }) => createTransport(smtpUrl));
    await (await transport).sendMail({
      from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.messageId === undefined ? {} : { messageId: mail.messageId }),
    });
  };
}
