import type { SendMail } from '../notices/mailer.ts';

/** The password-reset mail: a link that works once, within an hour. */
export function createResetMailer(send: SendMail): (to: string, link: string) => Promise<void> {
  return (to, link) =>
    send({
      to,
      subject: 'Reset your password',
      text:
        'Someone (we hope you) asked to reset the password of your account.\n\n' +
        `Open this link within an hour to choose a new one; it works once:\n\n${link}\n\n` +
        'If you did not ask for it, ignore this mail: your password stays as it is.\n',
    });
}
