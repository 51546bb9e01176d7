import { BlockList, isIP } from 'node:net';

/**
 * Parses a list of networks (`10.0.5.0/24, 127.0.0.1, fd00::/8`) into canonical CIDR strings; a bare address is its
 * own /32 or /128. Throws on anything that is not an IPv4 or IPv6 network.
 */
export function parseNetworkList(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((entry) => {
    const text = entry.trim();
    const [address = '', prefixText, ...rest] = text.split('/');
    const version = isIP(address);
    const max = version === 6 ? 128 : 32;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (
      version === 0 ||
      rest.length > 0 ||
      !Number.isInteger(prefix) ||
      prefix < 0 ||
      prefix > max ||
      prefixText === ''
    ) {
      throw new Error(`"${text}" is not a network (an IPv4 or IPv6 address, optionally with /prefix)`);
    }
    return `${address}/${prefix}`;
  });
}

/** A membership test over networks from `parseNetworkList`. */
export function networkMatcher(networks: readonly string[]): (address: string) => boolean {
  if (networks.length === 0) return () => false;
  const list = new BlockList();
  for (const network of networks) {
    const [address = '', prefix = ''] = network.split('/');
    list.addSubnet(address, Number(prefix), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  return (address) => {
    const version = isIP(address);
    return version !== 0 && list.check(address, version === 6 ? 'ipv6' : 'ipv4');
  };
}
