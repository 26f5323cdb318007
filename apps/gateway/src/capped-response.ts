/**
 * Bodies the gateway reads from OAuth servers it does not run (the issuer's metadata and key set, a
 * personal upstream's metadata, registration and token answers): small JSON documents, read whole into
 * memory. A server that answers with megabytes (by mistake or on purpose) must not take the gateway's
 * memory with it: such a body is refused once it passes the bound, never read further.
 */

/** The most of one OAuth document the gateway reads: key sets and metadata are a few KB. */
export const MAX_OAUTH_DOCUMENT_BYTES = 1024 * 1024;

/** A body longer than its bound (said by its `Content-Length`, or counted as it arrived). */
export class ResponseTooLarge extends Error {
  override readonly name = 'ResponseTooLarge';
}

/**
 * `response` with a body that errors (ResponseTooLarge, naming `what`) as soon as more than `maxBytes`
 * arrive, or at once when its `Content-Length` says so; the rest is not read (the source is cancelled).
 * Status and headers are `response`'s; whoever reads it (`json()`, `text()`) gets the error.
 */
export function capResponse(response: Response, maxBytes: number, what: string): Response {
  const source = response.body;
  // A status that carries no body (204, 304...) is passed as it is (a Response with one cannot be made).
  if (source === null || NO_BODY.has(response.status)) return response;
  const tooLarge = () =>
    new ResponseTooLarge(
      `${what} is larger than ${describeBytes(maxBytes)} (the most the gateway reads of it): not read`,
    );
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const reader = source.getReader();
  let seen = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (declared > maxBytes) return refuse(controller);
      const { done, value } = await reader.read();
      if (done) return controller.close();
      seen += value.byteLength;
      if (seen > maxBytes) return refuse(controller);
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const refuse = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    controller.error(tooLarge());
    reader.cancel().catch(() => {});
  };
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

const NO_BODY = new Set([101, 103, 204, 205, 304]);

function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
