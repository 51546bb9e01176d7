/**
 * The developer commands of `svc` (login, listen, trigger, payments), parsed with citty. They talk to a running svc
 * over its public API through the SDK (packages/sdk), like any merchant's code: they never open the database, so they
 * run beside `svc serve`, on another machine too. Every command takes --json.
 */
import { defineCommand, runMain } from 'citty';
import { type EventType, type Payment, Svc, webhooks } from '../../packages/sdk/src/index.ts';
import { configPath, DEFAULT_BASE_URL, readConfig, resolveConnection, writeConfig } from './config.ts';
import { listen } from './listen.ts';
import { consoleOutput, guarded, maskedKey } from './output.ts';
import { isTriggerable, trigger, triggerable } from './trigger.ts';

const connectionArgs = {
  'api-key': {
    type: 'string',
    description: 'API key (default: SVC_API_KEY, else the one `svc login` saved)',
  },
  url: {
    type: 'string',
    description: `svc's address (default: SVC_API_URL, else the saved one, else ${DEFAULT_BASE_URL})`,
  },
  json: { type: 'boolean', description: 'Print JSON instead of text' },
} as const;

function client(args: { 'api-key'?: string | undefined; url?: string | undefined }): Svc {
  return new Svc(resolveConnection(args));
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    process.stderr.write('Paste your API key (svc_test_… or svc_live_…) and press Enter: ');
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.trim();
}

const login = defineCommand({
  meta: {
    name: 'login',
    description: 'Check an API key and save it (with the address) in a 0600 config file',
  },
  args: {
    ...connectionArgs,
    'api-key': { type: 'string', description: 'The key (else SVC_API_KEY, else read from standard input)' },
  },
  run: ({ args }) => {
    const output = consoleOutput(args.json === true);
    return guarded(output, async () => {
      const apiKey = args['api-key'] ?? (process.env.SVC_API_KEY || undefined) ?? (await readStdin());
      const baseUrl =
        args.url ?? (process.env.SVC_API_URL || undefined) ?? readConfig().base_url ?? DEFAULT_BASE_URL;
      const svc = new Svc({ apiKey, baseUrl, maxRetries: 1 });
      // A call every key may make: it fails with invalid_api_key for a wrong or revoked one.
      await svc.events.list({ limit: 1 }).pages().next();
      const path = configPath();
      writeConfig({ ...readConfig(path), api_key: apiKey, base_url: baseUrl }, path);
      if (output.json)
        output.out(JSON.stringify({ logged_in: true, mode: svc.mode, base_url: baseUrl, config: path }));
      else
        output.out(`Logged in to ${baseUrl} with a ${svc.mode} key (${maskedKey(apiKey)}); saved in ${path}`);
    });
  },
});

const listenCommand = defineCommand({
  meta: {
    name: 'listen',
    description: 'Forward live events, signed, to a local URL (reconnects without losing any)',
  },
  args: {
    ...connectionArgs,
    'forward-to': {
      type: 'string',
      required: true,
      description: 'Where to POST each event, e.g. http://localhost:3000/webhooks',
    },
    events: {
      type: 'string',
      description: 'Only these types, comma-separated (e.g. payment.confirmed,payment.expired)',
    },
  },
  run: ({ args }) => {
    const output = consoleOutput(args.json === true);
    return guarded(output, async () => {
      const svc = client(args);
      const path = configPath();
      const stored = readConfig(path);
      let secret = stored.listen_secret;
      if (secret === undefined) {
        secret = webhooks.generateSecret();
        writeConfig({ ...stored, listen_secret: secret }, path);
      }
      const types = args.events
        ?.split(',')
        .map((type) => type.trim())
        .filter((type) => type !== '') as EventType[] | undefined;
      const stop = new AbortController();
      const quit = () => stop.abort();
      process.once('SIGINT', quit);
      process.once('SIGTERM', quit);
      await listen({ svc, forwardTo: args['forward-to'], secret, types, output, signal: stop.signal });
    });
  },
});

const triggerCommand = defineCommand({
  meta: {
    name: 'trigger',
    description: `Make a test payment produce an event: ${Object.keys(triggerable).join(', ')}`,
  },
  args: {
    ...connectionArgs,
    event: { type: 'positional', required: true, description: 'The event to produce' },
    chain: { type: 'string', default: 'ethereum', description: 'Chain of the test payment' },
    amount: { type: 'string', default: '10', description: 'Amount of the test payment' },
    currency: { type: 'string', default: 'USD', description: 'Currency of the amount' },
    timeout: { type: 'string', default: '120', description: 'Seconds to wait for the event' },
  },
  run: ({ args }) => {
    const output = consoleOutput(args.json === true);
    return guarded(output, async () => {
      if (!isTriggerable(args.event)) {
        throw new Error(`svc trigger makes ${Object.keys(triggerable).join(', ')}; not ${args.event}`);
      }
      const event = await trigger(client(args), args.event, {
        chain: args.chain,
        amount: args.amount,
        currency: args.currency,
        timeoutMs: Number(args.timeout) * 1000,
      });
      if (output.json) output.out(JSON.stringify(event));
      else
        output.out(`${event.type} ${event.id} (payment ${event.payment_id ?? '-'}) at ${event.created_at}`);
    });
  },
});

function paymentLine(payment: Payment): string {
  return [
    payment.payment_id,
    payment.status.padEnd(10),
    `${payment.amount} ${payment.currency}`.padEnd(16),
    `${payment.expected_amount_native} ${payment.asset} on ${payment.chain}`,
    payment.created_at,
  ].join('  ');
}

const payments = defineCommand({
  meta: { name: 'payments', description: 'Create, list and show payments' },
  subCommands: {
    create: defineCommand({
      meta: { name: 'create', description: "Create a payment in the key's mode" },
      args: {
        ...connectionArgs,
        amount: { type: 'string', required: true, description: 'Decimal amount, e.g. 19.99' },
        currency: { type: 'string', required: true, description: 'USD, EUR, … or an asset code' },
        chain: {
          type: 'string',
          required: true,
          description: 'ethereum, bitcoin, solana, … (svc chains: GET /v1/chains)',
        },
        asset: { type: 'string', description: "The asset to pay in (default: the chain's coin)" },
        'order-id': { type: 'string', description: 'Your order id' },
        'expires-in': { type: 'string', description: 'Seconds until the window closes' },
      },
      run: ({ args }) => {
        const output = consoleOutput(args.json === true);
        return guarded(output, async () => {
          const payment = await client(args).payments.create({
            amount: args.amount,
            currency: args.currency,
            chain: args.chain,
            ...(args.asset === undefined ? {} : { asset: args.asset }),
            ...(args['order-id'] === undefined ? {} : { order_id: args['order-id'] }),
            ...(args['expires-in'] === undefined ? {} : { expires_in: Number(args['expires-in']) }),
          });
          if (output.json) output.out(JSON.stringify(payment));
          else
            output.out(
              `${paymentLine(payment)}\npay to ${payment.address}\ncheckout ${payment.checkout_url}`,
            );
        });
      },
    }),
    list: defineCommand({
      meta: { name: 'list', description: 'List payments, newest first' },
      args: {
        ...connectionArgs,
        status: { type: 'string', description: 'Only this status' },
        limit: { type: 'string', default: '20', description: 'At most this many' },
      },
      run: ({ args }) => {
        const output = consoleOutput(args.json === true);
        return guarded(output, async () => {
          const limit = Number(args.limit);
          const found = await client(args)
            .payments.list({
              limit: Math.min(100, Math.max(1, limit)),
              ...(args.status === undefined ? {} : { status: args.status as Payment['status'] }),
            })
            .toArray(limit);
          if (output.json) output.out(JSON.stringify(found));
          else output.out(found.length === 0 ? 'No payments.' : found.map(paymentLine).join('\n'));
        });
      },
    }),
    get: defineCommand({
      meta: { name: 'get', description: 'Show a payment with its deposits and events' },
      args: { ...connectionArgs, id: { type: 'positional', required: true, description: 'payment_id' } },
      run: ({ args }) => {
        const output = consoleOutput(args.json === true);
        return guarded(output, async () => {
          const payment = await client(args).payments.retrieve(args.id);
          if (output.json) {
            output.out(JSON.stringify(payment));
            return;
          }
          output.out(paymentLine(payment));
          for (const deposit of payment.deposits) {
            output.out(
              `  deposit ${deposit.tx_hash} ${deposit.amount_native} ${deposit.asset} ${deposit.state}`,
            );
          }
          for (const event of payment.events)
            output.out(`  event ${event.type} ${event.id} ${event.created_at}`);
        });
      },
    }),
  },
});

/** Runs `svc <developer command> …` (argv without the program name). */
export async function runDeveloperCommand(argv: string[], roleUsage: string): Promise<void> {
  const main = defineCommand({
    meta: {
      name: 'svc',
      description: `svc: the service's roles and its developer commands.\n\n${roleUsage}`,
    },
    subCommands: { login, listen: listenCommand, trigger: triggerCommand, payments },
  });
  await runMain(main, { rawArgs: argv });
}
