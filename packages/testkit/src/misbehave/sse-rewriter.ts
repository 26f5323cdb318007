/** One SSE event carrying `message` (what the SDK writes). */
export function sseEvent(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * Rewrites a `text/event-stream` body as it streams: each complete event whose data is a JSON-RPC message is
 * replaced by the events of what `rewrite` makes of it (the first keeps the original's `event:`/`id:` lines,
 * the others are plain message events); everything else (priming events, keep-alive comments) passes
 * unchanged. Feed it decoded text with {@link push}; {@link flush} returns what is left at the end.
 */
export class SseRewriter {
  readonly #rewrite: (message: unknown) => unknown[];
  #buffer = '';
  /** Where the search for the next event end resumes (a large event arrives in many chunks). */
  #scanned = 0;

  constructor(rewrite: (message: unknown) => unknown[]) {
    this.#rewrite = rewrite;
  }

  push(text: string): string {
    this.#buffer += text;
    let out = '';
    for (;;) {
      const end = this.#buffer.indexOf('\n\n', this.#scanned);
      if (end < 0) {
        this.#scanned = Math.max(0, this.#buffer.length - 1);
        return out;
      }
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      this.#scanned = 0;
      out += this.#event(block);
    }
  }

  flush(): string {
    const rest = this.#buffer;
    this.#buffer = '';
    this.#scanned = 0;
    return rest;
  }

  #event(block: string): string {
    const lines = block.split('\n');
    const data = lines
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    let message: unknown;
    try {
      message = data.length === 0 ? undefined : JSON.parse(data.join('\n'));
    } catch {
      message = undefined;
    }
    if (message === undefined) return `${block}\n\n`;
    const outputs = this.#rewrite(message);
    if (outputs.length === 1 && outputs[0] === message) return `${block}\n\n`;
    const head = lines.filter((line) => !line.startsWith('data:'));
    return outputs
      .map((output, i) =>
        i === 0 ? `${[...head, `data: ${JSON.stringify(output)}`].join('\n')}\n\n` : sseEvent(output),
      )
      .join('');
  }
}
