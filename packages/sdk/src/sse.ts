/** One message of a Server-Sent Events stream, as the HTML standard's parsing rules assemble it. */
export interface ServerSentEvent {
  /** The `id:` field of this message; absent when the message set none. */
  id: string | undefined;
  /** The `event:` field; `message` when the message set none. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
}

/** What else a stream may carry between messages: a reconnection delay and comments (heartbeats). */
export interface ServerSentEventHandlers {
  onEvent(event: ServerSentEvent): void;
  onRetry?(milliseconds: number): void;
  onComment?(text: string): void;
}

/**
 * An incremental parser of `text/event-stream` (the HTML standard's rules): feed it chunks of text as they arrive,
 * split anywhere, and it calls the handlers for each complete message. Lines end with CRLF, LF or CR.
 */
export function createServerSentEventParser(handlers: ServerSentEventHandlers) {
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  let sawCarriageReturn = false;

  function dispatch(): void {
    if (data.length === 0) {
      event = '';
      id = undefined;
      return;
    }
    handlers.onEvent({ id, event: event === '' ? 'message' : event, data: data.join('\n') });
    event = '';
    data = [];
    id = undefined;
  }

  function line(text: string): void {
    if (text === '') {
      dispatch();
      return;
    }
    if (text.startsWith(':')) {
      handlers.onComment?.(text.slice(1).trimStart());
      return;
    }
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) handlers.onRetry?.(Number(value));
  }

  return {
    feed(chunk: string): void {
      let text = chunk;
      // A CRLF split across chunks: the LF that follows a CR already taken as an end of line.
      if (sawCarriageReturn && text.startsWith('\n')) text = text.slice(1);
      sawCarriageReturn = false;
      buffer += text;
      let start = 0;
      for (let index = 0; index < buffer.length; index++) {
        const char = buffer[index];
        if (char !== '\n' && char !== '\r') continue;
        line(buffer.slice(start, index));
        if (char === '\r') {
          if (index + 1 === buffer.length) sawCarriageReturn = true;
          else if (buffer[index + 1] === '\n') index += 1;
        }
        start = index + 1;
      }
      buffer = buffer.slice(start);
    },
  };
}
