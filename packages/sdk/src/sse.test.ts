import { describe, expect, it } from 'vitest';
import { createServerSentEventParser, type ServerSentEvent } from './sse.ts';

function parse(chunks: string[]) {
  const events: ServerSentEvent[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const parser = createServerSentEventParser({
    onEvent: (event) => events.push(event),
    onComment: (text) => comments.push(text),
    onRetry: (ms) => retries.push(ms),
  });
  for (const chunk of chunks) parser.feed(chunk);
  return { events, comments, retries };
}

describe('the Server-Sent Events parser', () => {
  const stream =
    'retry: 1000\n\n: heartbeat\n\nid: evt_1\nevent: payment.confirmed\ndata: {"a":1}\n\ndata: x\ndata: y\n\n';

  it('reads messages, comments and the retry delay, however the text is split', () => {
    const whole = parse([stream]);
    expect(whole.events).toEqual([
      { id: 'evt_1', event: 'payment.confirmed', data: '{"a":1}' },
      { id: undefined, event: 'message', data: 'x\ny' },
    ]);
    expect(whole.comments).toEqual(['heartbeat']);
    expect(whole.retries).toEqual([1000]);
    for (let size = 1; size < 8; size++) {
      const chunks: string[] = [];
      for (let at = 0; at < stream.length; at += size) chunks.push(stream.slice(at, at + size));
      expect(parse(chunks)).toEqual(whole);
    }
  });

  it('takes CRLF and CR line ends, split or not, and keeps an unfinished message until its blank line', () => {
    expect(parse(['id: 1\r', '\ndata: a\r\n\r', '\n']).events).toEqual([
      { id: '1', event: 'message', data: 'a' },
    ]);
    expect(parse(['data: b\r\rdata: c']).events).toEqual([{ id: undefined, event: 'message', data: 'b' }]);
  });
});
