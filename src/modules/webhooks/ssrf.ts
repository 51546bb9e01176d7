import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { AppError } from '../../lib/errors.ts';
import type { EndpointUrlCheck } from './endpoints/service.ts';
import { networkMatcher } from './networks.ts';

/**
 * The SSRF guard of webhook delivery. Live deliveries reach only public unicast addresses; test-mode endpoints of the
 * instance's operators may also reach loopback when allowed (the embedded default), so `localhost` receivers work
 * while developing, but a stranger who signs up cannot make this host POST to its own services. Every
 * address a name resolves to must pass, and the connection is made to the address that was checked (see
 * `lookupFor`), so a name that resolves differently a moment later (DNS rebinding) cannot slip through.
 */

export type AddressKind =
  | 'public'
  | 'loopback'
  | 'unspecified'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'ipv4-mapped'
  | 'ipv4-translated';

/** Ranges checked in order; the first that holds the address names its kind. */
const ranges: Array<[AddressKind, 'ipv4' | 'ipv6', string, number]> = [
  // IPv6 forms that embed an IPv4 address come first, whatever IPv4 they carry.
  ['ipv4-mapped', 'ipv6', '::ffff:0:0', 96],
  ['ipv4-translated', 'ipv6', '::ffff:0:0:0', 96],
  ['ipv4-translated', 'ipv6', '64:ff9b::', 96],
  ['ipv4-translated', 'ipv6', '64:ff9b:1::', 48],
  ['ipv4-translated', 'ipv6', '2002::', 16],
  ['ipv4-translated', 'ipv6', '2001::', 32],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['reserved', 'ipv6', '::', 96],
  ['reserved', 'ipv6', '100::', 64],
  ['reserved', 'ipv6', '2001::', 23],
  ['documentation', 'ipv6', '2001:db8::', 32],
  ['documentation', 'ipv6', '3fff::', 20],
  ['private', 'ipv6', 'fc00::', 7],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['private', 'ipv6', 'fec0::', 10],
  ['multicast', 'ipv6', 'ff00::', 8],
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['cgnat', 'ipv4', '100.64.0.0', 10],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['documentation', 'ipv4', '192.0.2.0', 24],
  ['reserved', 'ipv4', '192.88.99.0', 24],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['reserved', 'ipv4', '198.18.0.0', 15],
  ['documentation', 'ipv4', '198.51.100.0', 24],
  ['documentation', 'ipv4', '203.0.113.0', 24],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['broadcast', 'ipv4', '255.255.255.255', 32],
  ['reserved', 'ipv4', '240.0.0.0', 4],
];

const lists = ranges.map(([kind, family, network, prefix]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { kind, family, list };
});

const classified = new Map<string, AddressKind>();

/** What kind of address `ip` is (an IPv4 or IPv6 literal without brackets); `reserved` for anything unparseable. */
export function classifyAddress(ip: string): AddressKind {
  let kind = classified.get(ip);
  if (kind === undefined) {
    kind = classifyUncached(ip);
    if (classified.size >= 10_000) classified.clear();
    classified.set(ip, kind);
  }
  return kind;
}

function classifyUncached(ip: string): AddressKind {
  const version = isIP(ip);
  if (version === 0) return 'reserved';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  for (const entry of lists) {
    // BlockList also matches IPv4 rules against IPv4-mapped IPv6 addresses; those are caught by the first rule.
    if (entry.family === family && entry.list.check(ip, family)) return entry.kind;
  }
  return 'public';
}

class SsrfBlockedError extends Error {
  readonly code = 'ESSRFBLOCKED';
  constructor(message: string) {
    super(message);
    this.name = 'SsrfBlockedError';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

/** Names that never point outside: RFC 6761 `localhost`, mDNS, cloud-internal zones. */
const loopbackNames = /(^|\.)localhost$/;
const internalNames = /(^|\.)(local|localdomain|internal|intranet|home\.arpa|lan)$/;

export interface SsrfGuardOptions {
  /** Let TEST-mode endpoints of operators reach loopback addresses (`SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS`). */
  allowLoopbackForTest: boolean;
  /** Networks the operator trusts, reachable in both modes (`SVC_WEBHOOK_TRUSTED_NETWORKS`, canonical CIDRs). */
  trustedNetworks?: readonly string[];
  resolver?: Resolver;
  /** How long registration waits for DNS; a name that does not resolve in time is checked again at delivery. */
  registrationResolveTimeoutMs?: number;
}

/** The host of a URL as a bare name or address literal: brackets and a trailing dot removed, lower case. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

export function createSsrfGuard({
  allowLoopbackForTest,
  trustedNetworks = [],
  resolver = systemResolver,
  registrationResolveTimeoutMs = 3000,
}: SsrfGuardOptions) {
  const trusted = networkMatcher(trustedNetworks);
  /**
   * Names seen resolving to an address that is not public (loopback, a trusted private network): responses from
   * them are not stored. Sticky, so a name that flips between answers counts as private from its first such answer.
   */
  const privateNames = new Set<string>();

  /**
   * Why `address` may not be reached, or null. `operator`: the endpoint belongs to one of the instance's operators,
   * whose test endpoints alone may reach loopback.
   */
  function refusal(address: string, isTest: boolean, operator = false): string | null {
    const kind = classifyAddress(address);
    if (kind === 'public') return null;
    if (kind === 'loopback' && isTest && allowLoopbackForTest && operator) return null;
    // Checked after the kind: an IPv4-mapped or translated form of a trusted address is still refused.
    if (kind !== 'ipv4-mapped' && kind !== 'ipv4-translated' && trusted(address)) return null;
    const hint =
      kind === 'loopback' && isTest
        ? allowLoopbackForTest
          ? " (loopback is allowed only for test endpoints of the instance's operator: the first account or SVC_OPERATOR_EMAILS)"
          : ' (loopback is allowed for test endpoints only when SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS=true)'
        : ` (${isTest ? '' : 'live '}endpoints must be public unless the operator lists the network in SVC_WEBHOOK_TRUSTED_NETWORKS)`;
    return `${address} is a ${kind} address${hint}`;
  }

  /** Whether the refusal is only because the caller is not an operator (a distinct error code at registration). */
  function operatorOnly(address: string, isTest: boolean): boolean {
    return refusal(address, isTest, false) !== null && refusal(address, isTest, true) === null;
  }

  /** Refuses names that can only be internal; returns null when the name must be resolved to decide. */
  function nameRefusal(host: string, isTest: boolean, operator: boolean): string | null {
    if (loopbackNames.test(host)) {
      const problem = refusal('127.0.0.1', isTest, operator);
      return problem === null ? null : `${host} is loopback: ${problem}`;
    }
    // With trusted networks, an internal name (shop.lan) is resolved: every address it has must be trusted.
    if (internalNames.test(host) && trustedNetworks.length === 0) return `${host} is an internal name`;
    return null;
  }

  /** Every address of `host`, each allowed; throws SsrfBlockedError naming the first that is not. */
  async function resolveAllowed(host: string, isTest: boolean, operator = false): Promise<ResolvedAddress[]> {
    const version = isIP(host);
    if (version !== 0) {
      const problem = refusal(host, isTest, operator);
      if (problem !== null) throw new SsrfBlockedError(`Refused: ${problem}`);
      return [{ address: host, family: version === 6 ? 6 : 4 }];
    }
    const byName = nameRefusal(host, isTest, operator);
    if (byName !== null) throw new SsrfBlockedError(`Refused: ${byName}`);
    const addresses = await resolver(host);
    if (addresses.length === 0) throw new SsrfBlockedError(`Refused: ${host} has no address`);
    for (const { address } of addresses) {
      const problem = refusal(address, isTest, operator);
      if (problem !== null) throw new SsrfBlockedError(`Refused: ${host} resolves to ${problem}`);
    }
    if (addresses.some(({ address }) => classifyAddress(address) !== 'public')) {
      if (privateNames.size >= 10_000) privateNames.clear();
      privateNames.add(host);
    }
    return addresses;
  }

  /**
   * Whether `host` (as `hostOf` gives it) is a private target: an address or name that is not public, or a name
   * that has resolved to one. Responses from private targets are never stored: they could show a local service.
   */
  function isPrivateHost(host: string): boolean {
    if (isIP(host) !== 0) return classifyAddress(host) !== 'public';
    return loopbackNames.test(host) || internalNames.test(host) || privateNames.has(host);
  }

  /** The check at registration (plugs into the endpoints service as its `checkUrl`). */
  const checkUrl: EndpointUrlCheck = async (url, isTest, operator = false) => {
    const host = hostOf(url);
    const refuse = (reason: string, address: string) =>
      new AppError(
        operatorOnly(address, isTest) ? 'private_target_not_allowed' : 'parameter_invalid',
        `url is not allowed: ${reason}.`,
        { param: 'url' },
      );
    if (isIP(host) !== 0) {
      const problem = refusal(host, isTest, operator);
      if (problem !== null) throw refuse(problem, host);
      return;
    }
    const byName = nameRefusal(host, isTest, operator);
    if (byName !== null) throw refuse(byName, loopbackNames.test(host) ? '127.0.0.1' : host);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), registrationResolveTimeoutMs);
    });
    // A name that does not resolve now is accepted: it can reach nothing, and delivery checks it again.
    const addresses = await Promise.race([resolver(host).catch(() => null), timeout]).finally(() =>
      clearTimeout(timer),
    );
    for (const { address } of addresses ?? []) {
      const problem = refusal(address, isTest, operator);
      if (problem !== null) throw refuse(`${host} resolves to ${problem}`, address);
    }
  };

  /**
   * A `lookup` for sockets (undici's `connect.lookup`): resolves, refuses the whole name if any address is not
   * allowed, and hands the socket exactly the addresses it checked, so the connection is pinned to them.
   */
  function lookupFor(isTest: boolean, operator = false): LookupFunction {
    return (hostname, options, callback) => {
      resolveAllowed(hostname.replace(/\.$/, '').toLowerCase(), isTest, operator)
        .then((addresses) => {
          const wanted =
            options.family === 4 || options.family === 6
              ? addresses.filter((entry) => entry.family === options.family)
              : addresses;
          const [first] = wanted;
          if (first === undefined) {
            callback(new SsrfBlockedError(`Refused: ${hostname} has no IPv${options.family} address`), '', 4);
          } else if (options.all === true) {
            callback(null, wanted);
          } else {
            callback(null, first.address, first.family);
          }
        })
        .catch((error: unknown) => {
          callback(error instanceof Error ? error : new Error(String(error)), '', 4);
        });
    };
  }

  return { checkUrl, resolveAllowed, lookupFor, refusal, isPrivateHost };
}

export type SsrfGuard = ReturnType<typeof createSsrfGuard>;

/** The guard as the configuration sets it up: the one instance the program checks endpoint URLs and deliveries with. */
export function createConfiguredSsrfGuard(config: {
  allowPrivateWebhookTargets: boolean;
  webhookTrustedNetworks: readonly string[];
}): SsrfGuard {
  return createSsrfGuard({
    allowLoopbackForTest: config.allowPrivateWebhookTargets,
    trustedNetworks: config.webhookTrustedNetworks,
  });
}
