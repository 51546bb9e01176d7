import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { tronAddressFromAccount } from '../../../src/modules/chains/addresses.ts';
import type { TronHttp } from '../../../src/modules/chains/tron/http.ts';
import { parseJsonExactIntegers } from '../../../src/modules/chains/tron/json.ts';
import { createTronScanner } from '../../../src/modules/chains/tron/scan.ts';
import { startFakeTronNode, testKey } from '../../support/tron-node.ts';
import { goals } from '../lib/goals.ts';
import { defineScenario, measurement } from '../lib/scenario.ts';
import { profileSection } from '../lib/section-profile.ts';
import { median, round } from '../lib/stats.ts';

/**
 * The Tron scanner against the fake Tron node (test/support/tron-node.ts: no Tron node runs here), per block of 300
 * transfers (150 TRX TransferContracts and 150 USDT transfers, half of each to watched addresses) with 100,000 watched
 * addresses: the scanner's own time (`block` + `transfers`, minus the time a node request was in flight; the JSON
 * decoding of the answers counts as ours) beside the node's time to serve that block and its transaction infos (a bare
 * client fetching and parsing both). Goal: ours <= 0.2 of the node's.
 */

const WATCHED = 100_000;
const TRX_PER_BLOCK = 150;
const USDT_PER_BLOCK = 150;

export default defineScenario({
  name: 'tron-scanner',
  description: `Tron block scan (${TRX_PER_BLOCK + USDT_PER_BLOCK} transfers a block, ${WATCHED.toLocaleString('en-US')} watched) vs the node serving the block and its transaction infos`,
  async run({ log, scale }) {
    const node = await startFakeTronNode();
    try {
      const payers = Array.from({ length: 4 }, (_, i) => testKey(`bench-payer-${i}`));
      for (const payer of payers) node.fund(payer.address, 10n ** 15n, 10n ** 15n);
      node.produceBlocks(1);
      log(`deriving ${WATCHED.toLocaleString('en-US')} watched addresses`);
      const watchedList = Array.from({ length: WATCHED }, () => tronAddressFromAccount(randomBytes(20)));
      const others = Array.from({ length: 1000 }, () => tronAddressFromAccount(randomBytes(20)));

      let inFlight = 0;
      const http: TronHttp = {
        async post<T>(
          path: string,
          body: Record<string, unknown> = {},
          read: 'exact' | 'plain' = 'exact',
        ): Promise<T> {
          const started = performance.now();
          const response = await fetch(`${node.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
          const text = await response.text();
          inFlight += performance.now() - started;
          // As the program's client (http.ts) reads answers.
          return (read === 'plain' ? JSON.parse(text) : parseJsonExactIntegers(text)) as T;
        },
        health: () => ({ down: null, url: node.url }),
        close: async () => {},
      };
      const scanner = createTronScanner({
        http,
        native: 'TRX',
        usdt: { code: 'USDT', contractHex: node.usdtHex },
        requiredConfirmations: 19,
        logger: pino({ level: 'silent' }),
      });

      // As in the running program: the watcher keys each address once, when it starts watching it (timed apart).
      const keyingStarted = performance.now();
      const watched = new Set(watchedList.map(scanner.addressKey));
      const keyingMs = performance.now() - keyingStarted;

      const blocks = Math.max(3, Math.round(10 * scale));
      const own: number[] = [];
      const served: number[] = [];
      let found = 0;
      for (let b = 0; b < blocks; b++) {
        for (let i = 0; i < TRX_PER_BLOCK; i++) {
          const to = i % 2 === 0 ? (watchedList[(b * 1000 + i) % WATCHED] ?? '') : (others[i] ?? '');
          node.sendTrx(payers[i % payers.length]?.key ?? new Uint8Array(32), to, BigInt(1_000_000 + i));
        }
        for (let i = 0; i < USDT_PER_BLOCK; i++) {
          const to =
            i % 2 === 0 ? (watchedList[(b * 1000 + 500 + i) % WATCHED] ?? '') : (others[500 + i] ?? '');
          node.sendUsdt(payers[i % payers.length]?.key ?? new Uint8Array(32), to, BigInt(1_000 + i));
        }
        node.produceBlocks(1);
        const number = node.head().number;

        // The node serving the block and its transaction infos to a bare client.
        const started = performance.now();
        for (const [path, body] of [
          ['/wallet/getblockbynum', { num: number }],
          ['/wallet/gettransactioninfobyblocknum', { num: number }],
        ] as const) {
          JSON.parse(
            await (await fetch(`${node.url}${path}`, { method: 'POST', body: JSON.stringify(body) })).text(),
          );
        }
        served.push(performance.now() - started);

        // With --profile, a CPU profile of each block's scan (tron-scanner-block-<n>.<pid>.cpuprofile); the profiler's
        // start and stop are outside the timed part.
        const transfers = await profileSection(`tron-scanner-block-${b + 1}`, async () => {
          inFlight = 0;
          const begin = performance.now();
          const ref = await scanner.block(number);
          if (ref === null) throw new Error(`block ${number} missing`);
          const found = await scanner.transfers(ref, watched);
          own.push(performance.now() - begin - inFlight);
          return found;
        });
        found += transfers.length;
        if (transfers.length !== TRX_PER_BLOCK / 2 + USDT_PER_BLOCK / 2) {
          throw new Error(
            `block ${number}: ${transfers.length} transfers found, expected ${TRX_PER_BLOCK / 2 + USDT_PER_BLOCK / 2}`,
          );
        }
        log(
          `block ${b + 1}/${blocks}: own ${round(own.at(-1) ?? 0)} ms, node ${round(served.at(-1) ?? 0)} ms`,
        );
      }
      return [
        measurement({
          name: `Tron scanner own time per block (${TRX_PER_BLOCK + USDT_PER_BLOCK} transfers, ${WATCHED.toLocaleString('en-US')} watched) vs node serving block + transaction infos`,
          unit: 'ms',
          ours: median(own),
          baseline: median(served),
          better: 'lower',
          goal: { atMost: goals.scannerOwnTime },
          details: {
            blocks,
            found,
            keyingMs: round(keyingMs),
            ownMs: own.map((v) => round(v)),
            nodeMs: served.map((v) => round(v)),
            note: 'own = wall time of block()+transfers() minus time with a request in flight (JSON decoding counted as ours); node = bare fetch and JSON.parse of the block and its transaction infos, served by the fake Tron node; keyingMs = keying the 100,000 watched addresses once (the watcher does it when it starts watching an address, not per block)',
          },
        }),
      ];
    } finally {
      await node.close();
    }
  },
});
