import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
  dirs.push(dir);
  return dir;
}

const masterKey = randomBytes(32).toString('base64');
const jwtSecret = randomBytes(32).toString('hex');
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** A server setup: the secrets are given, so nothing is written to disk. */
const serverEnv = {
  DATABASE_URL: 'postgres://svc@127.0.0.1:5432/svc',
  SVC_MASTER_KEY: masterKey,
  SVC_JWT_SECRET: jwtSecret,
  SVC_TEST_MNEMONIC: mnemonic,
};

/** The problems a configuration is refused for (fails the test when it is accepted). */
function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  it('listens on 127.0.0.1:8080 with the documented defaults', () => {
    const config = loadConfig(serverEnv);
    expect(config).toMatchObject({
      env: 'development',
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'http://127.0.0.1:8080',
      databasePoolSize: 20,
      dataDir: resolve('./data'),
      jwtTtlSeconds: 43_200,
      logLevel: 'info',
      rateLimitPerKey: 1200,
      rateLimitPerIp: 1200,
      trustProxy: false,
      authCacheTtlMs: 1000,
      liveMnemonic: undefined,
      testMnemonic: mnemonic,
      notices: [],
    });
    expect(config.masterKey).toEqual(Buffer.from(masterKey, 'base64'));
    expect(new TextDecoder().decode(config.jwtSecret)).toBe(jwtSecret);
  });

  it('with a server writes nothing locally', () => {
    const dir = join(dataDir(), 'unused');
    expect(loadConfig({ ...serverEnv, SVC_DATA_DIR: dir }).dataDir).toBe(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('reads what is set, treats empty values as unset, and trims a trailing slash of the public URL', () => {
    const config = loadConfig({
      ...serverEnv,
      PORT: '9090',
      HOST: '0.0.0.0',
      LOG_LEVEL: '',
      SVC_PUBLIC_URL: 'https://pay.example.com/',
      SVC_RATE_LIMIT_PER_KEY: '0',
      SVC_TRUST_PROXY: 'yes',
      SVC_WEBHOOK_TRUSTED_NETWORKS: '192.168.7.0/24, 127.0.0.1',
    });
    expect(config).toMatchObject({
      webhookTrustedNetworks: ['192.168.7.0/24', '127.0.0.1/32'],
      port: 9090,
      host: '0.0.0.0',
      logLevel: 'info',
      publicUrl: 'https://pay.example.com',
      rateLimitPerKey: 0,
      trustProxy: true,
    });
  });
});

describe('loadConfig refuses bad values, naming the variable', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://db/svc'],
    ['DATABASE_POOL_SIZE', '0'],
    ['SVC_PUBLIC_URL', 'not a url'],
    ['SVC_MASTER_KEY', 'short'],
    ['SVC_MASTER_KEY', randomBytes(16).toString('base64')],
    ['SVC_JWT_SECRET', 'too-short'],
    ['SVC_MNEMONIC', 'abandon abandon abandon'],
    ['SVC_TEST_MNEMONIC', mnemonic.replace(/about$/, 'abandon')],
    ['SVC_JWT_TTL_SECONDS', '-5'],
    ['LOG_LEVEL', 'loud'],
    ['NODE_ENV', 'staging'],
    ['SVC_RATE_LIMIT_PER_KEY', '-1'],
    ['SVC_RATE_LIMIT_PER_IP', '1.5'],
    ['SVC_TRUST_PROXY', 'maybe'],
    ['SVC_AUTH_CACHE_TTL_MS', '600000'],
    ['SVC_WEBHOOK_TIMEOUT_MS', 'soon'],
    ['SVC_WEBHOOK_TRUSTED_NETWORKS', '10.0.0.0/8,shop.lan'],
  ])('%s=%s', (variable, value) => {
    const found = problems({ ...serverEnv, [variable]: value });
    expect(found.some((problem) => problem.startsWith(`${variable}:`))).toBe(true);
  });

  it('names every bad variable at once, and never echoes a secret value', () => {
    const badKey = 'c2hvcnQtc2VjcmV0LWtleS12YWx1ZQ==';
    const found = problems({ ...serverEnv, PORT: 'abc', LOG_LEVEL: 'loud', SVC_MASTER_KEY: badKey });
    expect(found.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'LOG_LEVEL',
      'PORT',
      'SVC_MASTER_KEY',
    ]);
    expect(found.join('\n')).not.toContain(badKey);
  });

  it('with DATABASE_URL requires the secrets it cannot generate, naming each', () => {
    const found = problems({ DATABASE_URL: serverEnv.DATABASE_URL });
    expect(found.map((problem) => problem.split(':')[0])).toEqual([
      'SVC_MASTER_KEY',
      'SVC_JWT_SECRET',
      'SVC_TEST_MNEMONIC',
    ]);
    expect(problems({ DATABASE_URL: serverEnv.DATABASE_URL, SVC_JWT_SECRET: jwtSecret }).join('\n')).toMatch(
      /^SVC_MASTER_KEY: required when DATABASE_URL is set/,
    );
  });
});

describe('secrets on the embedded default', () => {
  it('generates the missing secrets once into secrets.json (mode 0600) and reuses them', () => {
    const dir = dataDir();
    const first = loadConfig({ SVC_DATA_DIR: dir });
    const file = join(dir, 'secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.notices).toEqual([
      `Generated SVC_MASTER_KEY, SVC_JWT_SECRET, SVC_TEST_MNEMONIC into ${file} (mode 0600); keep this file safe and back it up.`,
    ]);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(Buffer.from(stored.SVC_MASTER_KEY!, 'base64')).toHaveLength(32);
    expect(first.masterKey).toEqual(Buffer.from(stored.SVC_MASTER_KEY!, 'base64'));
    expect(stored.SVC_JWT_SECRET!.length).toBeGreaterThanOrEqual(32);
    expect(stored.SVC_TEST_MNEMONIC!.split(' ')).toHaveLength(24);
    // Notices name the secrets, never their values.
    for (const value of Object.values(stored)) expect(first.notices.join('\n')).not.toContain(value);

    const second = loadConfig({ SVC_DATA_DIR: dir });
    expect(second.notices).toEqual([]);
    expect(second.masterKey).toEqual(first.masterKey);
    expect(second.jwtSecret).toEqual(first.jwtSecret);
    expect(second.testMnemonic).toBe(first.testMnemonic);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(stored);
  });

  it('prefers secrets from the environment and generates only the rest', () => {
    const dir = dataDir();
    const config = loadConfig({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: masterKey, SVC_TEST_MNEMONIC: mnemonic });
    expect(config.masterKey).toEqual(Buffer.from(masterKey, 'base64'));
    expect(config.testMnemonic).toBe(mnemonic);
    expect(config.notices).toEqual([expect.stringMatching(/^Generated SVC_JWT_SECRET into /)]);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')))).toEqual([
      'SVC_JWT_SECRET',
    ]);
  });

  it('keeps the file at mode 0600 when it adds a secret to an existing one', () => {
    const dir = dataDir();
    const file = join(dir, 'secrets.json');
    writeFileSync(file, JSON.stringify({ SVC_MASTER_KEY: masterKey }));
    chmodSync(file, 0o644);
    const config = loadConfig({ SVC_DATA_DIR: dir });
    expect(config.masterKey).toEqual(Buffer.from(masterKey, 'base64'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged secrets.json, naming the file and the secret', () => {
    const dir = dataDir();
    const file = join(dir, 'secrets.json');
    writeFileSync(file, '{ not json', { mode: 0o600 });
    expect(problems({ SVC_DATA_DIR: dir })).toEqual([expect.stringMatching(/secrets\.json: not valid JSON/)]);
    writeFileSync(file, JSON.stringify({ SVC_MASTER_KEY: 'c2hvcnQ=' }), { mode: 0o600 });
    expect(problems({ SVC_DATA_DIR: dir })).toEqual([
      `${file}: SVC_MASTER_KEY: must be 32 bytes, base64-encoded`,
    ]);
  });

  it('writes nothing when the configuration is refused', () => {
    const dir = join(dataDir(), 'not-yet');
    problems({ SVC_DATA_DIR: dir, PORT: 'abc' });
    expect(existsSync(dir)).toBe(false);
  });
});

describe('loadConfig: tron nodes', () => {
  it('reads SVC_CHAIN_TRON_* and SVC_TRON_*, and refuses a bad value naming the variable (never echoing a key)', () => {
    const config = loadConfig({
      ...serverEnv,
      SVC_CHAIN_TRON_RPC_URL: 'https://api.trongrid.io',
      SVC_CHAIN_TRON_API_KEY: 'k',
      SVC_TRON_HTTP_RETRIES: '2',
    });
    expect(config.tron).toMatchObject({ httpRetries: 2, chains: [{ isTest: false, apiKey: 'k' }] });
    expect(loadConfig(serverEnv).tron.chains).toEqual([]);
    expect(
      problems({ ...serverEnv, SVC_CHAIN_TRON_RPC_URL: 'http://x', SVC_CHAIN_TRON_RESOURCE_KEY: 'oops' }),
    ).toEqual(['SVC_CHAIN_TRON_RESOURCE_KEY: must be a private key of 64 hex digits']);
  });
});

describe('loadConfig: solana nodes', () => {
  it("reads the node's WebSocket per mode, and refuses one that is not ws:// or wss:// naming the variable (URL redacted)", () => {
    const config = loadConfig({
      ...serverEnv,
      SVC_CHAIN_SOLANA_RPC_URL: 'https://rpc.example/?api-key=k',
      SVC_CHAIN_SOLANA_WS_URL: 'wss://rpc.example/?api-key=k',
      SVC_TEST_CHAIN_SOLANA_RPC_URL: 'http://127.0.0.1:8899',
    });
    expect(config.solana.chains).toMatchObject([
      { isTest: false, wsUrl: 'wss://rpc.example/?api-key=k', wsPollIntervalMs: 10_000 },
      { isTest: true, wsUrl: undefined, pollIntervalMs: 1000 },
    ]);
    expect(
      problems({
        ...serverEnv,
        SVC_TEST_CHAIN_SOLANA_RPC_URL: 'http://127.0.0.1:8899',
        SVC_TEST_CHAIN_SOLANA_WS_URL: 'https://rpc.example/?api-key=secret',
      }),
    ).toEqual(['SVC_TEST_CHAIN_SOLANA_WS_URL: "https://rpc.example/…" is not one ws:// or wss:// URL']);
  });
});
