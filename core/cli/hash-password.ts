import { hashSecret } from '@crateflow/sdk';

/**
 * `crateflow hash-password`: reads a password (the first line of stdin, or typed at the prompt) and prints its
 * scrypt PHC hash for `ui.auth.password_hash` or an API key's `key_hash`.
 */
export async function runHashPassword(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, errors: NodeJS.WritableStream): Promise<number> {
  if ('isTTY' in input && input.isTTY) errors.write('Password (input is shown; pipe it in to keep it off the screen): ');
  const line = await firstLine(input);
  if (!line) {
    errors.write('no password given: type one, or pipe it in (echo -n secret | crateflow hash-password)\n');
    return 1;
  }
  output.write(`${await hashSecret(line)}\n`);
  return 0;
}

function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const end = text.search(/\r?\n/);
      if (end >= 0) {
        cleanup();
        resolve(text.slice(0, end));
      }
    };
    const onEnd = () => {
      cleanup();
      resolve(text.replace(/\r?\n$/, ''));
    };
    const cleanup = () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', reject);
      if ('pause' in input) input.pause();
    };
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('error', reject);
  });
}
