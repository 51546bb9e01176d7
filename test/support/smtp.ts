import { SMTPServer } from 'smtp-server';

/** One mail as the SMTP server received it: the envelope's recipients and the raw message, soft line breaks undone. */
export interface ReceivedMail {
  to: string[];
  raw: string;
}

/**
 * A real SMTP server (smtp-server) on 127.0.0.1, port 0, taking every mail without authentication or TLS: what the
 * program sends through SVC_SMTP_URL arrives in `mails`.
 */
export async function startSmtpServer(): Promise<{
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let text = '';
      stream.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      stream.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          // Quoted-printable folds long lines and escapes "=", long headers are folded: undone, so a test reads them whole.
          raw: text
            .replace(/=\r?\n/g, '')
            .replace(/=3D/g, '=')
            .replace(/\r\n[ \t]+/g, ' '),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
