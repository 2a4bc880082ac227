import { createServer, type IncomingMessage } from 'node:http';

export interface NtfyMessage {
  title: string | undefined;
  authorization: string | undefined;
  body: string;
}

export interface FakeNtfy {
  /** The topic URL: `http://127.0.0.1:<port>/music`. */
  url: string;
  messages: NtfyMessage[];
  /** From now on answer every post with `status`. */
  answer(status: number): void;
  close(): Promise<void>;
}

/** A stand-in for an ntfy server on 127.0.0.1: records every post to any topic. */
export async function startFakeNtfy(): Promise<FakeNtfy> {
  const messages: NtfyMessage[] = [];
  let status = 200;
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  };
  const server = createServer((req, res) => {
    read(req).then(
      (body) => {
        if (status === 200) messages.push({ title: req.headers.title?.toString(), authorization: req.headers.authorization, body });
        res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      },
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error(`expected a TCP address, got ${String(address)}`);
  const { port } = address;
  return {
    url: `http://127.0.0.1:${port}/music`,
    messages,
    answer: (next) => {
      status = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
