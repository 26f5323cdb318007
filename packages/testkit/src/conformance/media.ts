/** Small binary payloads and fixed texts the conformance fixture serves. */

/** A 1×1 transparent PNG, base64. */
export const PNG_1X1_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** A valid 8 kHz, 8-bit mono PCM WAV of `samples` silent samples, base64. */
function silentWav(samples: number): string {
  const data = Buffer.alloc(samples, 0x80); // 8-bit PCM is unsigned: 0x80 is silence
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(8000, 28); // byte rate
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]).toString('base64');
}

/** A 10 ms silent WAV, base64. */
export const WAV_SILENCE_BASE64 = silentWav(80);

export const TEXT_MIME = 'text/plain';
