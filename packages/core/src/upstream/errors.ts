/** The message of an error and, when it adds something, its cause's: for logs and error details. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message !== error.message
      ? `${error.message}: ${cause.message}`
      : error.message;
  }
  return String(error);
}

/** Why an upstream is not connected, for an `upstream_unavailable` message. */
export function describeDown(error: unknown): string {
  return error === undefined ? 'not connected yet' : `last error: ${errorText(error)}`;
}
