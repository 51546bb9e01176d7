/**
 * Where `svc login` keeps the API key: a JSON file only its user can read (0600, in a 0700 directory), written whole
 * through a temporary file so a crash never leaves half a key. Commands take the key and the address from their
 * flags, else from SVC_API_KEY / SVC_API_URL, else from this file.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface CliConfig {
  base_url?: string;
  api_key?: string;
  /** The secret `svc listen` signs forwarded events with: kept so a local receiver's setting survives restarts. */
  listen_secret?: string;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_CONFIG_FILE !== undefined && env.SVC_CONFIG_FILE !== '') return env.SVC_CONFIG_FILE;
  const base =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : join(homedir(), '.config');
  return join(base, 'svc', 'config.json');
}

export function readConfig(path = configPath()): CliConfig {
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as CliConfig) : {};
  } catch (error) {
    throw new Error(`${path} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

export function writeConfig(config: CliConfig, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** The key and address a command uses: its flags, then the environment, then the file `svc login` wrote. */
export function resolveConnection(
  flags: { 'api-key'?: string | undefined; url?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): { apiKey: string; baseUrl: string } {
  const stored = readConfig(configPath(env));
  const apiKey = flags['api-key'] ?? (env.SVC_API_KEY || undefined) ?? stored.api_key;
  if (apiKey === undefined) {
    throw new Error('No API key: run `svc login` first, or pass --api-key, or set SVC_API_KEY.');
  }
  return {
    apiKey,
    baseUrl: flags.url ?? (env.SVC_API_URL || undefined) ?? stored.base_url ?? DEFAULT_BASE_URL,
  };
}
