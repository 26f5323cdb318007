/** Splits a child's stderr into lines (long unterminated output is flushed in pieces) for the logger. */
export function pipeLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding?.('utf8');
  stream.on('data', (chunk: string | Buffer) => {
    buffered += chunk.toString();
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl).replace(/\r$/, '');
      if (line.length > 0) onLine(line);
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
    }
    if (buffered.length > 16_384) {
      onLine(buffered);
      buffered = '';
    }
  });
  stream.on('end', () => {
    if (buffered.length > 0) onLine(buffered);
  });
  stream.on('error', () => {});
}
