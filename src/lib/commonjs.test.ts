import { describe, expect, it } from 'vitest';
import { commonJsExports } from './commonjs.ts';

describe('commonJsExports', () => {
  const moduleExports = { request: () => 'sent' };

  it('reads the exports from `default`, where both Node and the bundle put module.exports', () => {
    // As Node gives it: named exports beside `default`.
    expect(commonJsExports({ ...moduleExports, default: moduleExports })).toBe(moduleExports);
    // As the bundle's chunk gives it: `default` only.
    const bundled = commonJsExports({ default: moduleExports } as unknown as typeof moduleExports);
    expect(bundled.request()).toBe('sent');
  });

  it('keeps a namespace whose default is not an exports object', () => {
    const namespace = { request: () => 'esm', default: () => 'a function' };
    expect(commonJsExports(namespace)).toBe(namespace);
    const plain = { request: () => 'esm' };
    expect(commonJsExports(plain)).toBe(plain);
  });

  it('gives undici’s and hash-wasm’s exports as this program uses them', async () => {
    expect(typeof commonJsExports(await import('undici')).Agent).toBe('function');
    expect(typeof commonJsExports(await import('hash-wasm')).createKeccak).toBe('function');
  });
});
