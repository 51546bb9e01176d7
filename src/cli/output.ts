import { SvcError } from '../../packages/sdk/src/index.ts';

/** Where a command writes: people read lines, `--json` gives one JSON document (or one per line while streaming). */
export interface Output {
  json: boolean;
  out(text: string): void;
  err(text: string): void;
}

export function consoleOutput(json: boolean): Output {
  return {
    json,
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  };
}

/** A failure as the user sees it: the API's code and request id, or the message; JSON with --json. */
function reportFailure(output: Output, error: unknown): void {
  if (error instanceof SvcError) {
    if (output.json) {
      output.out(
        JSON.stringify({
          error: {
            code: error.code,
            message: error.message,
            param: error.param,
            request_id: error.requestId,
          },
        }),
      );
    } else {
      output.err(
        `svc: ${error.code}: ${error.message}${error.param === undefined ? '' : ` (${error.param})`}` +
          `${error.requestId === undefined ? '' : ` [request ${error.requestId}]`}`,
      );
    }
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (output.json) output.out(JSON.stringify({ error: { code: 'cli_error', message } }));
  else output.err(`svc: ${message}`);
}

/** Runs a command's body, turning a failure into its report and exit code 1. */
export async function guarded(output: Output, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    reportFailure(output, error);
    process.exitCode = 1;
  }
}

/** A key shown without its secret part. */
export function maskedKey(key: string): string {
  return `${key.slice(0, 13)}…${key.slice(-4)}`;
}
